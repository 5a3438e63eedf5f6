"""Backing up and restoring the whole database: ``manage.py backup`` and ``manage.py restore``.

PostgreSQL goes through ``pg_dump --format=custom`` and ``pg_restore`` (the connection's
password travels in ``PGPASSWORD``, never on a command line); SQLite through the ``sqlite3``
module's backup API. Either file travels in a signed archive with a manifest
(``gpuguide/lib/backup_archive.py``). Every problem is a ``BackupError`` with one line saying
what to do.

A restore believes nothing it has not checked, in this order: the manifest's signature, the
engine, the database file's SHA-256, migrations this code knows; then, even for a file signed
with the right key (a leaked key, a compromised backup host), the database's schema: a SQLite
file may hold only the tables the migrations create (no trigger, no view), a PostgreSQL dump
only tables, sequences, constraints and indexes of those tables (no function, trigger, rule,
view, policy or extension). Whatever is refused changes nothing. Afterwards every session is
cleared: the backup's sessions may be ones since signed out.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.db import connections
from django.db.migrations.loader import MigrationLoader

from gpuguide.lib import backup_archive
from gpuguide.lib.backup_archive import BackupError

__all__ = ["BackupError"]  # raised by both modules; callers catch it from here

ENGINE_NAMES = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
# How long pg_dump / pg_restore wait for a table lock held by the running site before giving up
# (a restore then changes nothing: it runs in one transaction).
LOCK_TIMEOUT = "30s"
# backups/gpuguide-<engine>-<UTC time>.tar: the only files `make backup` ever prunes.
DEFAULT_NAME = re.compile(r"gpuguide-(postgresql|sqlite)-\d{8}T\d{6}Z\.tar")


def vendor(alias: str = "default") -> str:
    engine = connections[alias].vendor
    if engine not in ENGINE_NAMES:
        raise BackupError(f"backups support PostgreSQL and SQLite, not {engine}")
    return engine


def backup_folder() -> Path:
    return Path(settings.BASE_DIR) / "backups"


def default_path(engine: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return backup_folder() / f"gpuguide-{engine}-{stamp}.{backup_archive.SUFFIX}"


def prune(engine: str, keep: int) -> list[Path]:
    """Delete this engine's oldest default-named backups beyond the newest ``keep`` (0: none).

    Only names ``default_path`` writes count: a file put there by hand, or another engine's
    backups (of no use to this database, but maybe the only ones of the other), stay.
    """
    folder = backup_folder()
    if keep <= 0 or not folder.is_dir():
        return []
    ours = sorted(
        path
        for path in folder.iterdir()
        if (match := DEFAULT_NAME.fullmatch(path.name))
        and match[1] == engine
        and path.is_file()
        and not path.is_symlink()
    )  # by name: the UTC time in it sorts as the time
    doomed = ours[:-keep]
    for path in doomed:
        path.unlink()
    return doomed


def _first_three(items: list[str], separator: str = ", ", more: str = " and") -> str:
    return separator.join(items[:3]) + (f"{more} {len(items) - 3} more" if items[3:] else "")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _database_state(cursor, tables: list[str]) -> tuple[list[str], dict[str, int]]:
    """Applied migrations (``app.name``) and rows per table, read through a DB-API cursor."""
    rows = {}
    for table in sorted(tables):
        cursor.execute(f"SELECT COUNT(*) FROM {_quote(table)}")
        rows[table] = cursor.fetchone()[0]
    if "django_migrations" not in rows:
        raise BackupError("the database has no django_migrations table: run `manage.py migrate`")
    cursor.execute("SELECT app, name FROM django_migrations")
    return sorted(f"{app}.{name}" for app, name in cursor.fetchall()), rows


# Migrations ----------------------------------------------------------------------------------


def _as_keys(names: list[str]) -> set[tuple[str, str]]:
    return {tuple(name.split(".", 1)) for name in names}


def missing_migrations(names: list[str]) -> tuple[list[str], list[str]]:
    """(the backup's migrations this code lacks, this code's migrations the backup lacks)."""
    on_disk = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    applied = _as_keys(names)
    unknown = sorted(f"{app}.{name}" for app, name in applied - on_disk)
    behind = sorted(f"{app}.{name}" for app, name in on_disk - applied)
    return unknown, behind


def created_tables(names: list[str]) -> set[str]:
    """The tables the migrations ``names`` create, from Django's migration state (no database)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    applied = _as_keys(names)
    nodes = {key for key in applied if key in loader.graph.nodes}
    # A squashed migration stands in the graph for the ones it replaces.
    nodes |= {key for key, squash in loader.replacements.items() if applied & set(squash.replaces)}
    state = loader.project_state(sorted(nodes), at_end=True)
    tables = {
        model._meta.db_table
        for model in state.apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }
    # Made by the migration recorder and `createcachetable`, not by a migration.
    cache_tables = {
        cache["LOCATION"]
        for cache in settings.CACHES.values()
        if cache["BACKEND"].endswith(".DatabaseCache")
    }
    return tables | cache_tables | {"django_migrations"}


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
    for key in ("sslmode", "sslrootcert", "sslcert", "sslkey"):  # PGSSLMODE, ...
        if options.get(key):
            env[f"PG{key.upper()}"] = str(options[key])
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


def pg_backup(alias: str, data: Path) -> tuple[list[str], dict[str, int]]:
    """pg_dump of one snapshot, with the migrations and row counts of that same snapshot.

    A connection of its own exports a repeatable-read snapshot and counts in it while pg_dump
    reads it, so the manifest describes exactly the dump even while the site writes.
    """
    reader = connections[alias].copy()
    try:
        reader.ensure_connection()
        reader.set_autocommit(False)
        with reader.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
            state = _database_state(cursor, reader.introspection.table_names(cursor))
            _run(
                [
                    _pg_tool("pg_dump"),
                    "--format=custom",
                    f"--snapshot={snapshot}",
                    f"--lock-wait-timeout={LOCK_TIMEOUT}",
                    "--no-password",
                    f"--file={data}",
                ],
                _pg_env(reader.settings_dict),
                "pg_dump",
            )
    finally:
        reader.close()  # ends the snapshot's transaction
    return state


# What pg_dump writes for Django's tables; anything else in a dump is refused. Longest first:
# "TABLE DATA" before "TABLE".
PG_ENTRY_TYPES = (
    "SEQUENCE OWNED BY",
    "FK CONSTRAINT",
    "SEQUENCE SET",
    "TABLE DATA",
    "CONSTRAINT",
    "SEQUENCE",
    "DEFAULT",
    "INDEX",
    "TABLE",
)
PG_TOC_LINE = re.compile(r"\d+; \d+ \d+ (?P<entry>.+)")


def _pg_entry_allowed(entry: str, tables: set[str]) -> bool:
    """One `pg_restore --list` entry ("TABLE public auth_user owner"): a kind we expect, in
    the public schema, naming (or, for constraints, on) a table the migrations create."""
    kind = next((kind for kind in PG_ENTRY_TYPES if entry.startswith(kind + " ")), None)
    if kind is None:
        return False
    fields = entry[len(kind) + 1 :].split(" ")
    if fields[0] != "public" or len(fields) < 3:
        return False
    if kind in ("TABLE", "TABLE DATA"):
        return len(fields) == 3 and fields[1] in tables
    if kind in ("CONSTRAINT", "FK CONSTRAINT", "DEFAULT"):
        return fields[1] in tables
    if kind.startswith("SEQUENCE"):  # Django's identity sequences: <table>_<column>_seq
        name = fields[1]
        return name.endswith("_seq") and any(name.startswith(table + "_") for table in tables)
    return True  # an index: expressions in it can only call functions the dump does not add


def pg_check_archive(data: Path, tables: set[str], path: Path) -> None:
    """A readable custom-format archive holding Django's tables and nothing that runs code."""
    result = subprocess.run(
        [_pg_tool("pg_restore"), "--list", str(data)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        detail = _first_error(result.stderr, "pg_restore --list failed")
        raise BackupError(f"{path} does not hold a readable dump: {detail}")
    entries = [
        match["entry"]
        for line in result.stdout.splitlines()
        if (match := PG_TOC_LINE.fullmatch(line.strip()))
    ]
    foreign = [entry for entry in entries if not _pg_entry_allowed(entry, tables)]
    if foreign:
        raise BackupError(
            f"{path} holds entries the migrations do not create "
            f"({_first_three(foreign, '; ', '; and')}): refused even though "
            "its signature is valid; nothing was restored"
        )
    if not any(entry.startswith("TABLE public django_migrations ") for entry in entries):
        raise BackupError(f"{path} holds a PostgreSQL dump, but not of a Django database")


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

# Tables SQLite keeps for itself (AUTOINCREMENT, ANALYZE); nobody else may name one sqlite_*.
SQLITE_OWN_TABLES = {"sqlite_sequence", "sqlite_stat1", "sqlite_stat4"}


def _sqlite_tables(source: sqlite3.Connection) -> list[str]:
    found = source.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return [name for (name,) in found if name not in SQLITE_OWN_TABLES]


def sqlite_backup(alias: str, data: Path) -> tuple[list[str], dict[str, int]]:
    """A copy of the live database, and the migrations and row counts of that copy."""
    connection = connections[alias]
    connection.ensure_connection()
    target = sqlite3.connect(data)
    try:
        # One step (pages=-1): a consistent copy, read under one lock.
        connection.connection.backup(target)
        return _database_state(target.cursor(), _sqlite_tables(target))
    finally:
        target.close()


def _open_read_only(data: Path) -> sqlite3.Connection:
    source = sqlite3.connect(f"{data.resolve().as_uri()}?mode=ro", uri=True)
    # Nothing in the file's schema may run as a side effect of reading it.
    source.execute("PRAGMA trusted_schema = OFF")
    return source


def sqlite_check(data: Path, manifest: dict, tables: set[str], path: Path) -> None:
    """SQLite's quick_check; then no trigger, view, or table (or its index) that the migrations
    do not create; then the manifest's migrations and row counts, read only from a file that
    passed both (counting rows of a view would run its query)."""
    allowed = tables | SQLITE_OWN_TABLES
    try:
        with closing(_open_read_only(data)) as source:
            ok = source.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise BackupError(f"{path} holds a damaged database (SQLite quick_check: {ok})")
            objects = source.execute("SELECT type, name, tbl_name FROM sqlite_master ORDER BY name")
            foreign = [
                f"{kind} {name}"
                for kind, name, table in objects
                if kind not in ("table", "index") or table not in allowed
            ]
            if foreign:
                raise BackupError(
                    f"{path} holds database objects the migrations do not create "
                    f"({_first_three(foreign)}): refused "
                    "even though its signature is valid; nothing was restored"
                )
            state = _database_state(source.cursor(), _sqlite_tables(source))
    except sqlite3.Error as exc:
        raise BackupError(f"{path} does not hold a readable SQLite database: {exc}") from exc
    if state != (manifest["migrations"], manifest["rows"]):
        raise BackupError(
            f"{path}: the database's migrations or row counts are not the manifest's; "
            "nothing was restored"
        )


def sqlite_restore(alias: str, data: Path) -> None:
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
    source = _open_read_only(data)
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


def _manifest(engine: str, data: Path, migrations: list[str], rows: dict[str, int]) -> dict:
    return {
        "engine": engine,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "data": {
            "name": data.name,
            "bytes": data.stat().st_size,
            "sha256": backup_archive.sha256_of(data),
        },
        "migrations": migrations,
        "rows": rows,
    }


def backup(alias: str, path: Path) -> dict:
    """Write the signed backup to ``path``; returns its manifest."""
    engine = vendor(alias)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")  # never a complete-looking broken file
    # Beside the target, not in /tmp (often small, or memory): the database is copied there.
    with tempfile.TemporaryDirectory(prefix=".gpuguide-backup-", dir=path.parent) as folder:
        data = Path(folder) / backup_archive.DATA_NAMES[engine]
        if engine == "postgresql":
            migrations, rows = pg_backup(alias, data)
        else:
            migrations, rows = sqlite_backup(alias, data)
        manifest = backup_archive.seal(_manifest(engine, data, migrations, rows))
        try:
            partial.unlink(missing_ok=True)
            partial.touch(mode=0o600)  # password hashes inside: readable by this user only
            backup_archive.write(partial, manifest, data)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    return manifest


@dataclass(frozen=True)
class Backup:
    """A backup file that passed every check, its database file unpacked at ``data``."""

    path: Path
    engine: str
    manifest: dict
    data: Path
    behind: tuple[str, ...]  # this code's migrations the backup predates

    def describe(self) -> str:
        rows = sum(self.manifest["rows"].values())
        return f"taken {self.manifest['created']}, {rows:,} rows"


def _check_fields(manifest: dict, path: Path) -> None:
    """The fields a restore reads, of their types (only a key holder could get them wrong)."""
    fields = {"created": str, "data": dict, "migrations": list, "rows": dict}
    if not all(isinstance(manifest.get(name), kind) for name, kind in fields.items()) or not all(
        isinstance(name, str) and "." in name for name in manifest["migrations"]
    ):
        raise BackupError(f"{path}: the manifest lacks fields a backup has; nothing was restored")


def _check_engine(manifest: dict, engine: str, path: Path) -> None:
    found = manifest.get("engine")
    if found != engine:
        found_name = ENGINE_NAMES.get(found, repr(found))
        raise BackupError(
            f"{path} is a {found_name} backup but DATABASE_URL is "
            f"{ENGINE_NAMES[engine]}; restore it onto a {found_name} database"
        )


def _check_migrations(manifest: dict, path: Path) -> tuple[str, ...]:
    unknown, behind = missing_migrations(manifest["migrations"])
    if unknown:
        raise BackupError(
            f"{path} was taken with migrations this code does not have "
            f"({_first_three(unknown)}): deploy the "
            "release that wrote it (or a newer one), then restore; nothing was restored"
        )
    return tuple(behind)


@contextmanager
def opened(alias: str, path: Path) -> Iterator[Backup]:
    """The backup at ``path`` checked through and unpacked; refused with a BackupError."""
    engine = vendor(alias)
    with tempfile.TemporaryDirectory(prefix="gpuguide-restore-") as folder:
        manifest, data = backup_archive.read(path, Path(folder))
        backup_archive.check_signature(manifest, path)  # before believing any other field
        _check_fields(manifest, path)
        _check_engine(manifest, engine, path)
        backup_archive.check_data(manifest, data, path)
        behind = _check_migrations(manifest, path)
        tables = created_tables(manifest["migrations"])
        if engine == "postgresql":
            pg_check_archive(data, tables, path)
        else:
            sqlite_check(data, manifest, tables, path)
        yield Backup(path=path, engine=engine, manifest=manifest, data=data, behind=behind)


DATABASE_SESSIONS = {
    "django.contrib.sessions.backends.db",
    "django.contrib.sessions.backends.cached_db",
}
CACHED_SESSIONS = {
    "django.contrib.sessions.backends.cache",
    "django.contrib.sessions.backends.cached_db",
}


def clear_sessions(alias: str = "default") -> int:
    """Sign everyone out: the restored sessions may be ones signed out since the backup."""
    cleared = 0
    if settings.SESSION_ENGINE in DATABASE_SESSIONS:
        from django.contrib.sessions.models import Session

        cleared, _ = Session.objects.using(alias).all().delete()
    if settings.SESSION_ENGINE in CACHED_SESSIONS:
        caches[settings.SESSION_CACHE_ALIAS].clear()
    return cleared


def restore_backup(alias: str, backup: Backup) -> int:
    """Replace the database with a checked backup; returns how many sessions were cleared."""
    if backup.engine == "postgresql":
        connections[alias].close()  # hold no locks of our own while pg_restore drops tables
        pg_restore(connections[alias].settings_dict, backup.data)
    else:
        sqlite_restore(alias, backup.data)
    return clear_sessions(alias)


def restore(alias: str, path: Path) -> int:
    """Check and restore the backup at ``path`` (no confirmation: the command asks for it)."""
    with opened(alias, path) as checked:
        return restore_backup(alias, checked)
