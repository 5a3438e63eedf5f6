"""Test settings: production settings plus the few values a test run cannot take from outside."""

import os

# Never read a developer's .env (`make run` writes one): tests see only what they set here.
os.environ["ENV_FILE"] = ""
os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-" + "x" * 40)
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
# Off as in development; tests/accounts/test_admin.py turns it on where it is tested.
os.environ.setdefault("REQUIRE_2FA_FOR_ADMINISTRATORS", "false")
# Playwright's session-long event loop shares the test thread with the (sync) ORM.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# Canonical and hreflang URLs as the test client's host.
os.environ.setdefault("SITE_URL", "http://testserver")

from gpuguide.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
# The test database is SQLite in memory and every test runs inside a transaction: with
# "BEGIN IMMEDIATE" that transaction would hold the write lock, and a second connection (the
# live server, a backup) would wait for it. scripts/security_check.py measures the setting on a
# real file (concurrent price checks).
DATABASES["default"].get("OPTIONS", {}).pop("transaction_mode", None)  # noqa: F405
# Queued tasks are kept, not run: a test runs a task itself where it tests one (the seed's
# re-render of every page would otherwise run in each test worker).
TASKS = {
    "default": {
        "BACKEND": "django_tasks.backends.dummy.DummyBackend",
        "QUEUES": ["default", "purges"],
    }
}

# With CACHE_URL=redis://host:port/N each pytest-xdist worker takes its own database (N, N+1,
# ...), since the tests empty the cache between tests (FLUSHDB) and must not empty another's.
if CACHES["default"]["BACKEND"].endswith(".RedisCache"):  # noqa: F405
    _base, _, _db = CACHES["default"]["LOCATION"].rpartition("/")  # noqa: F405
    _worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    CACHES["default"]["LOCATION"] = f"{_base}/{(int(_db or 0) + _worker) % 16}"  # noqa: F405
