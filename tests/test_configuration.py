"""Bad configuration stops the process with one clear line, never a traceback wall.

Each case starts ``manage.py`` in a fresh process (about a second each, mostly Django starting
up). They are independent, so the module starts them all at once and each test checks its own.
A dozen Django start-ups make this module heavy: ``make test-all`` runs it, ``make test`` not.
"""

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import _required, missing_share_image_fonts

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.heavy


def manage_environment(**env: str) -> dict[str, str]:
    """The outer environment minus what tests/settings.py sets for the test run, reading no
    .env file (a developer's own, written by `make run`) unless ``env`` names one."""
    ours = {
        "DATABASE_URL", "SECRET_KEY", "DEBUG", "SECURE_SSL_REDIRECT", "ALLOWED_HOSTS",
        "DJANGO_ALLOW_ASYNC_UNSAFE", "ENV_FILE", "SITE_URL",
    }  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if k not in ours}
    clean.update({"ENV_FILE": ""}, **env, DJANGO_SETTINGS_MODULE="gpuguide.settings")
    return clean


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=manage_environment(**env),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


MALFORMED_DATABASE_URLS = ["mysqlx://nowhere", "not a url", "postgres://user:pw@host:5432"]
BAD_RENT_URL_TEMPLATES = [
    "https://rent.example.com/?gpu={gpu}",  # no count
    "ftp://rent.example.com/{gpu}/{count}",
    "https://rent.example.com/{gpu}/{count}/{region}",
    "https://rent.example.com/{gpu/{count}",
]
# A front cache that cannot purge would serve stale pages until midnight: refused at start.
BAD_FRONT_CACHES = {
    "unknown": (
        {"FRONT_CACHE": "nginx"},
        "FRONT_CACHE must be empty, varnish, fastly or cloudflare: 'nginx'",
    ),
    "varnish": ({"FRONT_CACHE": "varnish"}, "FRONT_CACHE=varnish needs FRONT_CACHE_PURGE_URLS"),
    "fastly": (
        {"FRONT_CACHE": "fastly", "FASTLY_SERVICE_ID": "abc"},
        "FRONT_CACHE=fastly needs FASTLY_API_TOKEN",
    ),
    "cloudflare": (
        {"FRONT_CACHE": "cloudflare"},
        "FRONT_CACHE=cloudflare needs CLOUDFLARE_ZONE_ID",
    ),
    "purge-url": (
        {"FRONT_CACHE": "varnish", "FRONT_CACHE_PURGE_URLS": "varnish:6081"},
        "FRONT_CACHE_PURGE_URLS must be http(s) addresses, comma-separated: 'varnish:6081'",
    ),
}
DEPLOY_SECRET_KEY = "k" * 20 + "-production-like-secret-key-with-enough-variety-0123456789"
# What production cannot start without, then what `check --deploy` asks for besides
# (gpuguide/lib/deploy_checks.py; the cache is not reached by `check`).
DEPLOY_REQUIRED = {
    "DEBUG": "false",
    "SECRET_KEY": DEPLOY_SECRET_KEY,
    "ALLOWED_HOSTS": "guide.example.com",
}
DEPLOY = {
    **DEPLOY_REQUIRED,
    "BACKUP_SIGNING_KEY": "b" * 20 + "-another-production-like-key-0123456789",
    "TRUSTED_PROXIES": "127.0.0.1/32",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
}


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every independent case below, run concurrently: name -> finished process."""
    sqlite = f"sqlite:///{tmp_path_factory.mktemp('configuration') / 'x.sqlite3'}"
    cases = {
        "no-secret-key": (["check"], {"DEBUG": "false"}),
        **{
            f"malformed-{url}": (["check"], {"DEBUG": "true", "DATABASE_URL": url})
            for url in MALFORMED_DATABASE_URLS
        },
        "unreachable": (
            ["migrate", "--check"],
            {
                "DEBUG": "true",
                "DATABASE_URL": "postgres://app:s3cret@127.0.0.1:9/gpuguide?connect_timeout=2",
            },
        ),
        "development": (["check"], {"DEBUG": "true", "DATABASE_URL": sqlite}),
        "check-database-down": (
            ["check"],
            {
                "DEBUG": "true",
                "DATABASE_URL": "postgres://app@127.0.0.1:9/gpuguide?connect_timeout=2",
            },
        ),
        **{
            f"rent-{template}": (["check"], {"DEBUG": "true", "RENT_URL_TEMPLATE": template})
            for template in BAD_RENT_URL_TEMPLATES
        },
        "log-format": (["check"], {"DEBUG": "true", "LOG_FORMAT": "xml"}),
        "metrics-dir": (
            ["check"],
            {"DEBUG": "true", "PROMETHEUS_MULTIPROC_DIR": "/nonexistent/gpuguide-metrics"},
        ),
        **{
            f"front-{kind}": (["check"], {"DEBUG": "true", **env})
            for kind, (env, _error) in BAD_FRONT_CACHES.items()
        },
        "deploy": (
            ["check", "--deploy", "--fail-level", "WARNING"],
            {**DEPLOY, "DATABASE_URL": sqlite},
        ),
        "deploy-unset": (
            ["check", "--deploy", "--fail-level", "WARNING"],
            {
                **DEPLOY_REQUIRED,
                "DATABASE_URL": sqlite,
                **{"BACKUP_SIGNING_KEY": "", "TRUSTED_PROXIES": "", "CACHE_URL": "locmemcache://"},
            },
        ),
    }
    return manage_all(cases)


def manage_all(cases: dict[str, tuple[list[str], dict]]) -> dict[str, subprocess.CompletedProcess]:
    """``manage`` for each (args, env), four at a time: name -> finished process."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(manage, *args, **env) for name, (args, env) in cases.items()}
        return {name: future.result() for name, future in futures.items()}


def test_production_refuses_to_start_without_a_secret_key(ran):
    result = ran["no-secret-key"]
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "SECRET_KEY is not set" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("url", MALFORMED_DATABASE_URLS)
def test_a_malformed_database_url_is_one_line(ran, url):
    result = ran[f"malformed-{url}"]
    assert result.returncode != 0
    assert "not a usable database" in result.stderr
    assert "Traceback" not in result.stderr
    assert ":pw@" not in result.stderr


def test_an_unreachable_database_is_one_line_without_the_password(ran):
    result = ran["unreachable"]
    assert result.returncode != 0
    assert "cannot use the database at 127.0.0.1:9" in result.stderr
    assert "s3cret" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("template", BAD_RENT_URL_TEMPLATES)
def test_a_rent_url_template_without_its_two_fields_is_one_line(ran, template):
    """The tutorials fill {gpu} and {count} into it: anything else would break every page."""
    result = ran[f"rent-{template}"]
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "gpuguide: RENT_URL_TEMPLATE must be an http(s) address with {gpu} and {count} in it "
        "and no other {...} field, e.g. https://example.com/rent?gpu={gpu}&count={count}: "
        f"{template!r}"
    ]


def test_a_log_format_other_than_plain_or_json_is_one_line(ran):
    result = ran["log-format"]
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "gpuguide: LOG_FORMAT must be plain or json: 'xml'"
    ]


def test_a_metrics_folder_that_is_not_there_is_one_line(ran):
    result = ran["metrics-dir"]
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "gpuguide: PROMETHEUS_MULTIPROC_DIR must be an existing folder: "
        "'/nonexistent/gpuguide-metrics'"
    ]


@pytest.mark.parametrize("kind", BAD_FRONT_CACHES)
def test_a_front_cache_that_cannot_purge_is_one_line(ran, kind):
    result = ran[f"front-{kind}"]
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [f"gpuguide: {BAD_FRONT_CACHES[kind][1]}"]


def test_development_runs_with_the_built_in_key(ran):
    result = ran["development"]
    assert result.returncode == 0, result.stderr


def test_check_answers_with_the_database_down_or_not_migrated(ran):
    """The share images' database check (guides.W002) stays silent where it cannot look."""
    for case in ("check-database-down", "development"):  # "development": an empty SQLite file
        result = ran[case]
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr and "guides.W002" not in result.stderr


def test_production_settings_pass_the_deploy_checklist(ran):
    result = ran["deploy"]
    if result.returncode != 0 and missing_share_image_fonts() and not _required("REQUIRE_FONTS"):
        # A machine without the share-image fonts gets guides.W001 (the images fall back to
        # the site-wide one); the run's summary says so. Nothing else may be reported, and CI
        # (REQUIRE_FONTS=1) installs the fonts and fails on it like on any other warning.
        issues = re.findall(r"^\S*: \(([\w.]+)\)", result.stderr, flags=re.MULTILINE)
        assert issues and set(issues) == {"guides.W001"}, result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_checklist_names_each_setting_production_gets_wrong_silently(ran):
    issues = re.findall(r"^\S*: \(([\w.]+)\)", ran["deploy-unset"].stderr, flags=re.MULTILINE)
    assert set(issues) - {"guides.W001"} == {"gpuguide.W001", "gpuguide.W002", "gpuguide.W003"}


SHOW_SETTINGS = [
    "shell", "--no-imports", "-c",
    "from django.conf import settings as s; print(s.DEBUG, ','.join(s.ALLOWED_HOSTS))",
]  # fmt: skip


def shown_settings(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    debug, hosts = result.stdout.split()
    return {"DEBUG": debug == "True", "ALLOWED_HOSTS": hosts.split(",")}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make, as `make run` does")
def test_the_env_file_make_run_writes_lets_manage_py_commands_run(tmp_path):
    """`make run` writes .env; the commands it and the docs print then need nothing else."""
    make = ["make", "-s", "-C", str(tmp_path), "-f", str(ROOT / "Makefile"), ".env"]
    outer = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    written = subprocess.run(
        [*make, f"PYTHON={sys.executable}"], env=outer, capture_output=True, text=True, timeout=60
    )
    assert written.returncode == 0, written.stderr
    assert "Wrote a development .env" in written.stdout
    env_file = tmp_path / ".env"
    text = env_file.read_text()
    assert "DEBUG=true" in text.splitlines()
    key = next(line for line in text.splitlines() if line.startswith("SECRET_KEY="))
    assert len(key.removeprefix("SECRET_KEY=")) >= 50
    assert not key.removeprefix("SECRET_KEY=").startswith("$")
    assert env_file.stat().st_mode & 0o077 == 0  # it holds a secret

    # DEBUG is not set outside (manage() drops it): only the file turns development mode on.
    db = {"ENV_FILE": str(env_file), "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}"}
    commands = [["check"], ["createsuperuser", "--help"], ["record_price_check", "--help"]]
    results = manage_all({" ".join(c): (c, db) for c in [*commands, SHOW_SETTINGS]})
    for command in commands:
        result = results[" ".join(command)]
        assert result.returncode == 0, f"{command}: {result.stderr}"
    assert shown_settings(results[" ".join(SHOW_SETTINGS)]) == {
        "DEBUG": True, "ALLOWED_HOSTS": ["127.0.0.1", "localhost"]
    }  # fmt: skip

    # Never overwritten: a second run leaves the file (and its key) alone.
    again = subprocess.run(make, env=outer, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert "Wrote" not in again.stdout
    assert env_file.read_text() == text


def test_env_example_is_a_working_development_configuration(tmp_path):
    env = {
        "ENV_FILE": str(ROOT / ".env.example"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}",
    }
    results = manage_all({"check": (["check"], env), "show": (SHOW_SETTINGS, env)})
    assert results["check"].returncode == 0, results["check"].stderr
    settings = shown_settings(results["show"])
    assert settings["DEBUG"] is True
    assert "127.0.0.1" in settings["ALLOWED_HOSTS"]
    assert "localhost" in settings["ALLOWED_HOSTS"]


def test_a_missing_env_file_is_one_line(tmp_path):
    result = manage("check", DEBUG="true", ENV_FILE=str(tmp_path / "absent.env"))
    assert result.returncode != 0
    assert "ENV_FILE names" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_site_url_outside_the_allowed_hosts_is_one_line():
    """Canonical URLs and the background re-render use SITE_URL: a host Django refuses is a
    configuration error, said at start."""
    result = manage(
        "check", DEBUG="false", SECRET_KEY=DEPLOY_SECRET_KEY, ALLOWED_HOSTS="guide.example.com",
        SITE_URL="https://elsewhere.example.com",
    )  # fmt: skip
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "gpuguide: SITE_URL's host is not in ALLOWED_HOSTS: 'https://elsewhere.example.com'"
    ]
