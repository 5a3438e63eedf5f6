"""Shared fixtures: a pinned clock, the seed content loaded once per run, one browser.

Every test runs on 2026-11-29 (``TODAY``) whatever the machine's clock says, so dates in tests
never drift into the future or the past. The seed content is loaded once into the test
database; each test then runs in a transaction rolled back at its end, so it starts from the
seed and cannot leak into the next one.
"""

import gc
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from io import StringIO
from pathlib import Path

import pytest
import time_machine
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, connections
from django.utils import translation
from django.utils.http import http_date
from django.utils.module_loading import import_string
from django_redis import get_redis_connection
from pytest_django.live_server_helper import LiveServer

from tests import fast_group

# The admin tests' users and form helpers (editor, recorder, …), shared by tests/guides/admin,
# tests/pricing/admin, tests/accounts and the editorial tests that act as a staff member.
pytest_plugins = ["tests.admin_pages"]

SEED_DAY = date(2026, 10, 29)  # the day of the seed's price checks
TODAY = date(2026, 11, 29)  # "today" for every test
GUIDE_SLUG = "best-gpu-for-llama-70b-fine-tuning"


def prose_html(text: str | None, figures) -> str:
    """Editor prose as a guide page lays it out: ``render_prose`` through its include."""
    from django.template.loader import render_to_string

    from guides.content.tokens.render import render_prose

    return render_to_string("guides/includes/prose.html", {"prose": render_prose(text, figures)})


def _required(name: str) -> bool:
    return os.environ.get(name, "").lower() in {"1", "true", "yes"}


def _trl_environment() -> bool:
    """Whether TRL's Python for tests/test_trl_commands.py is there (TRL_PYTHON, .venv-trl)."""
    python = os.environ.get("TRL_PYTHON") or Path(__file__).parent.parent / ".venv-trl/bin/python"
    return Path(python).exists()


def find_chromium() -> str | None:
    """Debian's Chromium for the browser tests: its headless shell where installed (the same
    Blink without the full browser's window machinery: the browser rounds take about a quarter
    less CPU in it), else the full browser in headless mode."""
    return (
        shutil.which("chromium-headless-shell")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


FONTS_INSTALL = (
    "apt-get install fonts-dejavu-core fonts-ipafont-gothic, or point SHARE_IMAGE_FONTS_LATIN / "
    "SHARE_IMAGE_FONTS_JA at font files"
)


def missing_share_image_fonts() -> dict[str, list[str]]:
    """Each language whose share image this machine cannot draw -> the files looked for.

    Asked through the drawing code's own lookup (``share_images.font_path``, which reads
    ``settings.SHARE_IMAGE_FONTS``), so a test skips exactly where the image would not be drawn.
    """
    from django.conf import settings

    from guides.editorial.share_images import font_path

    return {
        code: list(settings.SHARE_IMAGE_FONTS.get(code, ()))
        for code, _name in settings.LANGUAGES
        if font_path(code) is None
    }


def _skip_or_fail_for_fonts(missing: dict[str, list[str]]) -> None:
    """Skip loudly (or fail, with REQUIRE_FONTS=1 as in CI) for the languages without a font."""
    where = "; ".join(f"no font for {code!r} among {paths}" for code, paths in missing.items())
    message = f"the share images cannot be drawn here ({where}): {FONTS_INSTALL}"
    if _required("REQUIRE_FONTS"):
        pytest.fail(message)
    pytest.skip(message)


def share_image_font(language: str) -> Path:
    """The font ``language``'s share image is drawn with; skips or fails where there is none."""
    from guides.editorial.share_images import font_path

    font = font_path(language)
    if font is None:
        _skip_or_fail_for_fonts({language: missing_share_image_fonts()[language]})
    return font


@pytest.fixture
def share_image_fonts() -> dict[str, Path]:
    """A font for every language's share image (language -> file), or the test skips (fails
    with REQUIRE_FONTS=1) naming what is missing."""
    from django.conf import settings

    missing = missing_share_image_fonts()
    if missing:
        _skip_or_fail_for_fonts(missing)
    return {code: share_image_font(code) for code, _name in settings.LANGUAGES}


def pytest_report_header(config) -> list[str]:
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    chromium = find_chromium() or "MISSING (browser tests will skip)"
    cache_backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    return [f"gpuguide: database={engine}, cache={cache_backend}, chromium={chromium}"]


def on_redis() -> bool:
    from django.conf import settings

    return settings.CACHES["default"]["BACKEND"].endswith("RedisCache")


def page_entries() -> int:
    """How many pages the page cache holds, on the local-memory cache or on Redis."""
    from guides.pagecache.http import PAGE_PREFIX

    if on_redis():
        client = get_redis_connection(write=False)
        return sum(1 for _ in client.scan_iter(match=f"*{PAGE_PREFIX}*"))
    return sum(PAGE_PREFIX in key for key in cache._cache)


def forget_cached_pages() -> None:
    """Drop every cached page but keep the versions: the next visit renders, as after
    a write (the usual uncached visit)."""
    from guides.pagecache.http import PAGE_PREFIX

    if on_redis():
        client = get_redis_connection()
        keys = list(client.scan_iter(match=f"*{PAGE_PREFIX}*"))
        if keys:
            client.delete(*keys)
        return
    with cache._lock:
        for key in [key for key in cache._cache if PAGE_PREFIX in key]:
            del cache._cache[key]
            del cache._expire_info[key]


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="run only the fast group named in tests/fast_group.py (`make test`); "
        "the summary says what was left out",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items: list[pytest.Item]) -> None:
    """With --fast, only the fast group (tests/fast_group.py). Then whole files in the order
    the workers are handed them (``fast_group.file_order``): the longest first, and on
    PostgreSQL the browser files last."""
    from django.conf import settings

    if config.getoption("fast"):
        fast_group.select(config, items)
    on_postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    items[:] = fast_group.file_order(items, browser_last=on_postgres)


def pytest_sessionfinish(session) -> None:
    """An xdist worker sends what --fast left out to the controller, which writes the summary."""
    left = session.config.stash.get(fast_group.LEFT_OUT, None)
    if left is not None and hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fast_group_left_out"] = left


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    left = getattr(node, "workeroutput", {}).get("fast_group_left_out")
    if left is not None:
        node.config.stash[fast_group.LEFT_OUT] = left


NOON = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # where every test's clock starts


@pytest.fixture(scope="module", autouse=True)
def _module_clock():
    """Noon on TODAY for a module's own fixtures (a browser module's signed-in cookie, its
    reviewed legal pages), set again for each module; each test pins its own clock
    (``_pinned_clock``)."""
    with time_machine.travel(NOON, tick=True):
        yield


@pytest.fixture(autouse=True)
def _pinned_clock(_module_clock):
    """Noon UTC on TODAY at the start of every test, whatever ran before it and however long
    the run has taken; the clock ticks on from there during the test (timeouts, the live
    server). Pinned per test, not once per run: a run-long clock drifted hours past noon in a
    slow run, and two tests then failed."""
    with time_machine.travel(NOON, tick=True):
        yield


# Under mutmut each mutant is tested in a fork of a process that has already run the tests
# unmutated: a function's memo would answer with the unmutated code's figures and hide the
# mutant (a mutant in _layer_activation_bytes "survived" behind estimate_peak_memory's memo and
# failed the tests when applied by hand). Only there, every memo starts empty in every test.
_MEMOS = (
    "pricing.domain.training_memory.estimate_peak_memory",
    "pricing.domain.training_memory.longest_sequence",
    "pricing.domain.throughput.step_work",
    "pricing.domain.formatting.number",
    "pricing.domain.formatting.usd",
    "guides.content.phrases._phrased_text",
)


@pytest.fixture(autouse=True)
def _no_memo_across_mutants():
    if os.environ.get("MUTANT_UNDER_TEST"):  # imported only there: no other run imports early
        for memo in _MEMOS:
            import_string(memo).cache_clear()
    yield


# What makes pytest-django set up the test database for a test.
_DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}


def _uses_database(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(fixtures & _DATABASE_FIXTURES) or item.get_closest_marker("django_db") is not None


@pytest.fixture(scope="session")
def test_database(request) -> bool:
    """Whether this run has a test database: a run of only database-free tests
    (``pytest tests/pricing/domain/test_calculations.py``, or mutmut running one module's tests)
    has none, and must then leave the configured database alone."""
    return any(_uses_database(item) for item in request.session.items)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, test_database):
    """The test database, migrated and then seeded once for the whole run (the seed written at
    noon on TODAY, as the tests will read it); then what start-up and the seed loaded is frozen
    out of the garbage collector's sight, as the app server does (gpuguide/wsgi.py): full
    collections walking it cost the suite about a quarter of its time."""
    if test_database:
        with django_db_blocker.unblock(), time_machine.travel(NOON, tick=False):
            call_command("seed_content", stdout=StringIO())
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def _demanded_database(django_db_setup, django_db_blocker, test_database):
    """CI sets REQUIRE_POSTGRES=1 for its second run: fail loudly if that run is not on it;
    likewise REQUIRE_REDIS=1 and the page cache on a Redis that answers."""
    if _required("REQUIRE_REDIS"):
        assert on_redis(), (
            "REQUIRE_REDIS is set but the page cache is not Redis; set "
            "CACHE_URL=redis://127.0.0.1:6379/1"
        )
    if on_redis():
        get_redis_connection().ping()  # raises at once if Redis is not there
    if _required("REQUIRE_POSTGRES"):
        with django_db_blocker.unblock():
            assert connection.vendor == "postgresql", (
                f"REQUIRE_POSTGRES is set but the suite runs on {connection.vendor}; "
                "point DATABASE_URL at PostgreSQL"
            )
    yield
    if test_database and connection.vendor == "postgresql":
        # The live server's request threads may leave sessions open, which would stop
        # PostgreSQL from dropping the test database at the end of the run.
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture(autouse=True)
def _empty_cache():
    """Cached pages must not outlive the test (and its rolled-back data) that made them, nor
    this process's copy of the versions (guides.pagecache.versions)."""
    from guides.pagecache import versions

    def forget() -> None:
        cache.clear()
        versions.forget()

    forget()
    yield
    forget()


@pytest.fixture(autouse=True)
def _no_queued_tasks():
    """Each test sees only the tasks it queued (tests/settings.py: django-tasks' dummy backend,
    which keeps every task queued in the process)."""
    from django_tasks import default_task_backend

    default_task_backend.clear()


@pytest.fixture(autouse=True)
def _english():
    """Each test starts in English; a request in another language must not leak into the next."""
    with translation.override("en"):
        yield


@contextmanager
def seen_by_the_site(django_db_blocker):
    """Writes the live server sees at once. On SQLite it shares the test's connection; on
    PostgreSQL it has its own, so the writes go through a connection of their own, committed
    as they are made (the test's transaction would hide them, and roll back the clean-up)."""
    with django_db_blocker.unblock():
        if connection.vendor == "sqlite":
            yield
            return
        test_connection, own = connections["default"], connections.create_connection("default")
        connections["default"] = own
        try:
            yield
        finally:
            own.close()
            connections["default"] = test_connection


def as_if_committed() -> None:
    """Run and forget the on-commit callbacks of the test's transaction, as if it had committed.

    In production each request commits; a test is one transaction, and the page cache replaces
    a tag's version once per transaction (and again on commit), so a second write to the same
    guide in one test would otherwise leave its cached page current.
    """
    callbacks, connection.run_on_commit = connection.run_on_commit, []
    for _savepoints, callback, _robust in callbacks:
        callback()


@pytest.fixture
def seeded(db):
    """The published seed content (roles included), loaded once per run; see django_db_setup."""


@pytest.fixture
def empty_database(db):
    """No content and no prices, as on a fresh install (rolled back after the test)."""
    from guides.models import ComparisonPair, Guide, LegalPage
    from pricing.models import (
        Fact,
        Gpu,
        HourBlock,
        LanguageModel,
        Method,
        PriceCheck,
        Provider,
        Source,
        ThroughputMeasurement,
    )

    for model in (
        ComparisonPair,
        LegalPage,
        Guide,
        PriceCheck,
        ThroughputMeasurement,
        Provider,
        Method,
        LanguageModel,
        Gpu,
        Fact,
        HourBlock,
    ):
        model.objects.all().delete()
    Source.objects.all().delete()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        message = (
            "Debian's chromium is not installed, so the browser tests cannot run "
            "(apt-get install -y chromium-headless-shell fonts-ipafont-gothic)"
        )
        if _required("REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def pytest_terminal_summary(terminalreporter, config) -> None:
    """Say plainly what this run did not cover, so a green run is never mistaken for all."""
    from django.conf import settings

    notes = fast_group.summary_lines(config)
    fast = config.getoption("fast")
    if "not heavy" in (config.option.markexpr or "") and not fast:
        notes.append(
            "The heavy group (pytest -m heavy: tests that start processes per case) was not "
            "run: `make test-all` runs everything."
        )
    if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        notes.append(
            "PostgreSQL was not tested in this run: set "
            "DATABASE_URL=postgres://user@127.0.0.1:5432/gpuguide to run the suite there."
        )
    if not on_redis():
        notes.append(
            "Redis was not tested in this run (the page cache ran on Django's local-memory "
            "cache): set CACHE_URL=redis://127.0.0.1:6379/1 to run the suite there."
        )
    if find_chromium() is None:
        notes.append(
            "Browser tests (and axe-core) were SKIPPED: install Debian's chromium "
            "(apt-get install chromium-headless-shell fonts-ipafont-gothic)."
        )
    missing_fonts = missing_share_image_fonts()
    if missing_fonts:
        notes.append(
            f"Share-image tests were SKIPPED for {', '.join(map(repr, missing_fonts))} (no font "
            f"among SHARE_IMAGE_FONTS there; the deploy checklist test tolerates guides.W001): "
            f"{FONTS_INSTALL}."
        )
    if "not heavy" not in (config.option.markexpr or "") and not fast and not _trl_environment():
        notes.append(
            "The tutorials' commands were NOT checked with TRL (its environment is missing): "
            "`make test-all` builds .venv-trl, or set TRL_PYTHON."
        )
    from tests.page_checks import INSTALL, missing_tools

    missing = missing_tools()
    if missing:
        notes.append(
            f"Nu HTML checker and axe-core page checks were SKIPPED ({', '.join(missing)} "
            f"missing): {INSTALL}."
        )
    if notes:
        terminalreporter.section("not covered by this run")
        for note in notes:
            terminalreporter.write_line(note)


# --- the browser tests' shared Chromium and live server (tests/browser/) -----------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium_path):
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path,
        "headless": True,
        "args": [
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
        ],
    }  # fmt: skip


class _StaticFilesCachedAsInProduction(StaticFilesHandler):
    """The live server's static files with a max-age, as WhiteNoise serves them in production
    (there for a year, under hashed names): Chromium then loads the admin's forty scripts and
    style sheets once per tab instead of asking for each again on every page.

    Dated by the real clock: the server's own Date header would be the tests' pinned day, days
    before Chromium's clock, so every file was already stale on arrival and asked for again
    (a 304 each, on the server the test's thread shares: a third of an admin page's load)."""

    def serve(self, request):
        response = super().serve(request)
        response["Cache-Control"] = "max-age=3600"
        response["Date"] = http_date(time_machine.escape_hatch.time.time())
        return response


@pytest.fixture(scope="session")
def _live_server(django_db_setup, django_db_blocker, playwright):
    """One live server on the seeded test database for every browser test (``site``).

    Started after Playwright, always: Django keeps database connections per thread, but per
    asyncio context while an event loop runs in the thread, and Playwright's sync API keeps
    its loop running in ours. A server started before Playwright shared the connection the
    thread had until then, while the tests' transactions ran on a second one to the same
    in-memory SQLite database, so the server found the tables they wrote locked ("database
    table is locked"). ``_shares_the_tests_connection`` holds every browser test to that.
    """
    with django_db_blocker.unblock():
        server = LiveServer("localhost", start=False)
        server.thread.static_handler = _StaticFilesCachedAsInProduction
        server.start()
        yield server
        # Not server.stop(): it also makes the shared SQLite connection unshareable, and a
        # request thread still closing a keep-alive connection from Chromium then fails
        # ("DatabaseWrapper objects created in a thread…"). The run ends here anyway.
        server.thread.terminate()


@pytest.fixture(scope="session")
def site(_live_server) -> str:
    """The live server's address. The browser tests share the seed as loaded once per run,
    without pytest-django's ``live_server``, which empties the database after every test:
    they only read, except the editing and translating tests (tests/browser/test_editor.py,
    tests/browser/test_translation.py), which put back what they change."""
    return _live_server.url


@pytest.fixture(autouse=True)
def _shares_the_tests_connection(request):
    """On SQLite, a browser test's transaction is on the connection the live server shares:
    otherwise its writes lock the server out (see ``_live_server``), or the server cannot
    see them, depending on which files ran first on the worker."""
    if "site" not in request.fixturenames or connection.vendor != "sqlite":
        return
    shared = request.getfixturevalue("_live_server").thread.connections_override["default"]
    assert connections["default"] is shared, (
        "the live server shares another database connection than this test's"
    )


@pytest.fixture(scope="module")
def legal_pages_reviewed(django_db_setup, django_db_blocker):
    """The seed's legal pages as if the company had reviewed them, and the operator's details
    filled in with the example data (visitors see only those), for a module of browser tests
    on the shared live server; put back afterwards. Saved one by one, so that the page cache
    and the footer's cached read see the change."""
    from guides.models import LegalPage, Operator

    def mark(reviewed: bool) -> None:
        with django_db_blocker.unblock():
            for page in LegalPage.objects.all():
                page.reviewed = reviewed
                page.save()
            if reviewed:
                fill_in_operator()
            else:
                for operator in Operator.objects.all():
                    operator.delete()

    mark(True)
    yield
    mark(False)


def review_legal_pages() -> None:
    """The same inside one test's database transaction, committed as a request would (so the
    test's own later writes replace the versions again)."""
    from guides.models import LegalPage

    for page in LegalPage.objects.all():
        page.reviewed = True
        page.save()
    fill_in_operator()
    as_if_committed()


def fill_in_operator() -> None:
    """The operator's details as the development fixture has them (example data): its three
    legal pages public."""
    from guides.editorial.seeding import CONTENT_DIR, EXAMPLE_OPERATOR_FILE, load_example_operator

    load_example_operator(CONTENT_DIR / EXAMPLE_OPERATOR_FILE)


def put_back(guide, django_db_blocker) -> None:
    """A browser test's guide as it was: its first revision live, the others gone, committed
    where the live server sees it (``seen_by_the_site``: on PostgreSQL a clean-up inside the
    test's transaction would be rolled back, and the next round would find its drafts)."""
    from reversion.models import Revision

    from guides.editorial import publishing

    with seen_by_the_site(django_db_blocker):
        first = guide.revisions.order_by("pk").first()
        if first is not None:
            publishing.publish(first, user=None)
            Revision.objects.filter(guide_revision__guide=guide).delete()


def staff_cookie(site: str, django_db_blocker, *, username: str, role: str) -> dict:
    """A signed-in staff member's session cookie for the live server, in the ``role`` group.

    For module-scoped fixtures: written before any test's transaction begins (on SQLite the
    live server would otherwise wait for that transaction's lock).
    """
    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.test import Client

    with django_db_blocker.unblock():
        user, _created = User.objects.get_or_create(username=username, is_staff=True)
        user.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": site}


@contextmanager
def signed_in_tab(browser, cookie: dict, **context_options) -> Iterator:
    """A tab signed in with ``cookie``; at the end, nothing on its pages was blocked by the
    CSP (the admin's scripts are static files: no inline code)."""
    from tests.browser.test_public_pages import DESKTOP

    context = browser.new_context(viewport=DESKTOP, **context_options)
    context.add_cookies([cookie])
    page = context.new_page()
    blocked: list[str] = []
    page.on(
        "console",
        lambda m: (
            blocked.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text
            else None
        ),
    )
    yield page
    context.close()
    assert blocked == []
