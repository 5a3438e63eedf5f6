"""Backing up and restoring the whole database: ``manage.py backup`` and ``manage.py restore``.

PostgreSQL goes through ``pg_dump --format=custom`` and ``pg_restore`` (the connection's
password travels in ``PGPASSWORD``, never on a command line); SQLite through the ``sqlite3``
module's backup API. Every problem is a ``BackupError`` with one line saying what to do.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connections

SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"
SUFFIXES = {"postgresql": "dump", "sqlite": "sqlite3"}
ENGINE_NAMES = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
# How long pg_dump / pg_restore wait for a table lock held by the running site before giving up
# (a restore then changes nothing: it runs in one transaction).
LOCK_TIMEOUT = "30s"


class BackupError(Exception):
    """A backup or restore that cannot go ahead; the message is one line for the operator."""


def vendor(alias: str = "default") -> str:
    engine = connections[alias].vendor
    if engine not in SUFFIXES:
        raise BackupError(f"backups support PostgreSQL and SQLite, not {engine}")
    return engine


def default_path(engine: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path(settings.BASE_DIR) / "backups" / f"gpuguide-{engine}-{stamp}.{SUFFIXES[engine]}"


def file_engine(path: Path) -> str:
    """Which engine wrote the backup at ``path``, from its first bytes."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PGDUMP_MAGIC):
        return "postgresql"
    raise BackupError(
        f"{path} is neither a PostgreSQL custom-format dump nor a SQLite database; "
        "give a file written by `manage.py backup`"
    )


# PostgreSQL ----------------------------------------------------------------------------------


def _pg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} is not on the PATH: install PostgreSQL's client programs "
            "(Debian: apt-get install postgresql-client, the server's major version or newer)"
        )
    return path


def _pg_env(settings_dict: dict) -> dict[str, str]:
    """libpq's environment for the connection: nothing secret ever appears in argv."""
    env = {**os.environ, "PGDATABASE": str(settings_dict["NAME"])}
    for key, variable in (("USER", "PGUSER"), ("HOST", "PGHOST"), ("PORT", "PGPORT")):
        if settings_dict.get(key):
            env[variable] = str(settings_dict[key])
    env.pop("PGPASSWORD", None)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    options = settings_dict.get("OPTIONS") or {}
    for key, variable in (
        ("sslmode", "PGSSLMODE"),
        ("sslrootcert", "PGSSLROOTCERT"),
        ("sslcert", "PGSSLCERT"),
        ("sslkey", "PGSSLKEY"),
    ):
        if options.get(key):
            env[variable] = str(options[key])
    return env


def _first_error(stderr: str, fallback: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line] or lines
    return errors[0] if errors else fallback


def _run(args: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = _first_error(result.stderr, f"exit status {result.returncode}")
        raise BackupError(f"{what} failed: {detail}")


def pg_backup(settings_dict: dict, path: Path) -> None:
    _run(
        [
            _pg_tool("pg_dump"),
            "--format=custom",
            f"--lock-wait-timeout={LOCK_TIMEOUT}",
            "--no-password",
            f"--file={path}",
        ],
        _pg_env(settings_dict),
        "pg_dump",
    )


def pg_check_archive(settings_dict: dict, path: Path) -> None:
    """A readable custom-format archive of this project (it has Django's migrations table)."""
    tool = _pg_tool("pg_restore")
    result = subprocess.run(
        [tool, "--list", str(path)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        detail = _first_error(result.stderr, "pg_restore --list failed")
        raise BackupError(f"{path} is not a readable dump: {detail}")
    if " TABLE public django_migrations " not in result.stdout:
        raise BackupError(f"{path} is a PostgreSQL dump, but not of a Django database")


def pg_restore(settings_dict: dict, path: Path) -> None:
    env = _pg_env(settings_dict)
    # A lock held by the running site makes the restore fail (and change nothing) instead of
    # waiting for ever.
    env["PGOPTIONS"] = f"{env.get('PGOPTIONS', '')} -c lock_timeout={LOCK_TIMEOUT}".strip()
    _run(
        [
            _pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",  # all or nothing; implies --exit-on-error
            "--no-password",
            f"--dbname={settings_dict['NAME']}",
            str(path),
        ],
        env,
        "pg_restore",
    )


# SQLite --------------------------------------------------------------------------------------


def sqlite_backup(alias: str, path: Path) -> None:
    connection = connections[alias]
    connection.ensure_connection()
    target = sqlite3.connect(path)
    try:
        # One step (pages=-1): a consistent copy, read under one lock.
        connection.connection.backup(target)
    finally:
        target.close()


def sqlite_check_file(path: Path) -> None:
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            ok = source.execute("PRAGMA quick_check").fetchone()[0]
            tables = {row[0] for row in source.execute("SELECT name FROM sqlite_master")}
        finally:
            source.close()
    except sqlite3.Error as exc:
        raise BackupError(f"{path} is not a readable SQLite database: {exc}") from exc
    if ok != "ok":
        raise BackupError(f"{path} is damaged (SQLite quick_check: {ok})")
    if "django_migrations" not in tables:
        raise BackupError(f"{path} is a SQLite database, but not of a Django database")


def sqlite_restore(alias: str, path: Path) -> None:
    """Copy the file into the live database with the backup API, in one step.

    One step holds the live database's write lock and commits once at the end; if it fails,
    SQLite rolls the destination back, so readers see the old database or the new one, never a
    mix. Replacing the file instead (write a copy, rename it over) would leave processes that
    have it open, such as a running server, reading the old, unlinked file.
    """
    connection = connections[alias]
    connection.ensure_connection()
    if connection.in_atomic_block:
        raise BackupError("cannot restore inside a transaction")
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        source.backup(connection.connection)
    except sqlite3.Error as exc:
        raise BackupError(f"restore failed, nothing was changed: {exc}") from exc
    finally:
        source.close()


# Both ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Contents:
    rows: int
    tables: int
    examples: tuple[tuple[str, int], ...]

    def describe(self) -> str:
        shown = ", ".join(f"{name}: {count:,}" for name, count in self.examples)
        return f"{self.rows:,} rows in {self.tables} tables ({shown})"


EXAMPLE_TABLES = ("guides_guide", "pricing_pricecheck", "pricing_price", "auth_user")


def contents(alias: str = "default") -> Contents:
    """What restoring would replace: rows per table of the target database."""
    connection = connections[alias]
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            if table == "django_migrations":
                continue  # present after `migrate` alone; not data anyone would lose
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            count = cursor.fetchone()[0]
            if count:
                counts[table] = count
    examples = tuple((table, counts[table]) for table in EXAMPLE_TABLES if table in counts)
    return Contents(rows=sum(counts.values()), tables=len(counts), examples=examples)


def describe_database(alias: str = "default") -> str:
    settings_dict = connections[alias].settings_dict
    engine = vendor(alias)
    if engine == "sqlite":
        return f"the SQLite database {settings_dict['NAME']}"
    host = settings_dict.get("HOST") or "local socket"
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"the PostgreSQL database {settings_dict['NAME']} on {host}{port}"


def backup(alias: str, path: Path) -> Path:
    engine = vendor(alias)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")  # never a complete-looking broken file
    try:
        if engine == "postgresql":
            pg_backup(connections[alias].settings_dict, partial)
        else:
            sqlite_backup(alias, partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def check_restorable(alias: str, path: Path) -> str:
    engine = vendor(alias)
    found = file_engine(path)
    if found != engine:
        raise BackupError(
            f"{path} is a {ENGINE_NAMES[found]} backup but DATABASE_URL is "
            f"{ENGINE_NAMES[engine]}; restore it onto a {ENGINE_NAMES[found]} database"
        )
    if engine == "postgresql":
        pg_check_archive(connections[alias].settings_dict, path)
    else:
        sqlite_check_file(path)
    return engine


def restore(alias: str, path: Path) -> None:
    engine = vendor(alias)
    if engine == "postgresql":
        connections[alias].close()  # hold no locks of our own while pg_restore drops tables
        pg_restore(connections[alias].settings_dict, path)
    else:
        sqlite_restore(alias, path)
