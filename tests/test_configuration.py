"""Bad configuration stops the process with one clear line, never a traceback wall."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Start from the outer environment minus what tests/settings.py sets for the test run, and
    # read no .env file (a developer's own, written by `make run`) unless a test names one.
    ours = {
        "DATABASE_URL", "SECRET_KEY", "DEBUG", "SECURE_SSL_REDIRECT", "ALLOWED_HOSTS",
        "DJANGO_ALLOW_ASYNC_UNSAFE", "ENV_FILE",
    }  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if k not in ours}
    clean.update({"ENV_FILE": ""}, **env, DJANGO_SETTINGS_MODULE="gpuguide.settings")
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DEBUG="false")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "SECRET_KEY is not set" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("mysqlx://nowhere", "not a usable database"),
        ("not a url", "not a usable database"),
        ("postgres://user:pw@host:5432", "not a usable database"),
    ],
)
def test_a_malformed_database_url_is_one_line(url, fragment):
    result = manage("check", DEBUG="true", DATABASE_URL=url)
    assert result.returncode != 0
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr
    assert ":pw@" not in result.stderr


def test_an_unreachable_database_is_one_line_without_the_password():
    result = manage(
        "migrate", "--check", DEBUG="true",
        DATABASE_URL="postgres://app:s3cret@127.0.0.1:9/gpuguide?connect_timeout=2",
    )  # fmt: skip
    assert result.returncode != 0
    assert "cannot use the database at 127.0.0.1:9" in result.stderr
    assert "s3cret" not in result.stderr
    assert "Traceback" not in result.stderr


def test_development_runs_with_the_built_in_key(tmp_path):
    result = manage("check", DEBUG="true", DATABASE_URL=f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert result.returncode == 0, result.stderr


def test_production_settings_pass_the_deploy_checklist(tmp_path):
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING", DEBUG="false",
        SECRET_KEY="k" * 20 + "-production-like-secret-key-with-enough-variety-0123456789",
        ALLOWED_HOSTS="guide.example.com", DATABASE_URL=f"sqlite:///{tmp_path / 'x.sqlite3'}",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_a_missing_env_file_is_one_line(tmp_path):
    result = manage("check", DEBUG="true", ENV_FILE=str(tmp_path / "absent.env"))
    assert result.returncode != 0
    assert "ENV_FILE names" in result.stderr
    assert "Traceback" not in result.stderr
