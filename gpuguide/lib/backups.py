"""``manage.py backup`` and ``manage.py restore``: the whole database in one signed archive
(``backup_archive``), from ``pg_dump --format=custom`` or SQLite's backup API. Every problem is
a ``BackupError`` with one line saying what to do.

A restore believes nothing it has not checked: the signature, the engine, the SHA-256, known
migrations; then, even under a valid signature (a leaked key), the contents: only the tables the
migrations create, and nothing that runs code (trigger, view, function, rule, policy). It takes
nothing from the file but rows: the backup's migrations run into an empty database, its rows are
copied in column by column, this code's later migrations run on them, so a constraint, default
or index hidden in a table's definition (a time bomb calling pg_sleep) is never created. One
transaction on PostgreSQL; on SQLite a scratch file that replaces the live one in one step.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.core.management.sql import emit_post_migrate_signal
from django.db import DatabaseError, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from gpuguide.lib import backup_archive
from gpuguide.lib.backup_archive import BackupError

__all__ = ["BackupError"]  # raised by both modules; callers catch it from here

ENGINE_NAMES = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
# How long pg_dump and a restore wait for a table lock the running site holds, then give up.
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
    """Delete this engine's oldest default-named backups beyond the newest ``keep`` (0: none);
    a file put there by hand, or another engine's backups, stay."""
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


def migrate_to(connection, names: list[str]) -> None:
    """Run exactly the migrations ``names`` on the empty database behind ``connection``."""
    executor = MigrationExecutor(connection)
    wanted = _as_keys(names)
    unknown = wanted - set(executor.loader.graph.nodes)
    if unknown:  # a squashed migration stands for these now: none so far
        raise BackupError(
            f"cannot rebuild the backup's schema: {sorted(unknown)[:3]} not in the graph"
        )
    every = executor.migration_plan(executor.loader.graph.leaf_nodes(), clean_start=True)
    plan = [
        (migration, False)
        for migration, _ in every
        if (migration.app_label, migration.name) in wanted
    ]
    executor.migrate(targets=[], plan=plan)


def migrate_forward(connection) -> None:
    """This code's migrations that the backup predates, then `migrate`'s post-migrate signal."""
    executor = MigrationExecutor(connection)  # reads the applied ones: the backup's
    executor.migrate(executor.loader.graph.leaf_nodes())
    emit_post_migrate_signal(verbosity=0, interactive=False, db=connection.alias)


def _check_state(cursor, tables: list[str], backup: Backup) -> None:
    if _database_state(cursor, tables) != (backup.manifest["migrations"], backup.manifest["rows"]):
        raise BackupError(
            f"{backup.path}: the rows restored are not the manifest's (its tables or row "
            "counts differ from the migrations' schema); nothing was restored"
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


def _first_error(stderr: str, fallback: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line] or lines
    return errors[0] if errors else fallback


def pg_backup(alias: str, data: Path) -> tuple[list[str], dict[str, int]]:
    """pg_dump of one snapshot, with the migrations and row counts of that same snapshot: a
    connection of its own exports a repeatable-read snapshot and counts in it while pg_dump
    reads it, so the manifest describes exactly the dump even while the site writes."""
    reader = connections[alias].copy()
    try:
        reader.ensure_connection()
        reader.set_autocommit(False)
        with reader.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
            state = _database_state(cursor, reader.introspection.table_names(cursor))
            options = [
                "--format=custom",
                f"--snapshot={snapshot}",
                f"--lock-wait-timeout={LOCK_TIMEOUT}",
                "--no-password",
                f"--file={data}",
            ]
            # As `dbshell` builds them: the password travels in PGPASSWORD, never in argv.
            args, env = reader.client.settings_to_cmd_args_env(reader.settings_dict, options)
            inherited = {key: value for key, value in os.environ.items() if key != "PGPASSWORD"}
            result = subprocess.run(
                [_pg_tool("pg_dump"), *args[1:]],
                env={**inherited, **(env or {})},
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode != 0:
                detail = _first_error(result.stderr, f"exit status {result.returncode}")
                raise BackupError(f"pg_dump failed: {detail}")
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
# A restore recreates the public schema, so pg_dump writes it (and its comment) since.
PG_PUBLIC_SCHEMA = ("SCHEMA - public ", "COMMENT - SCHEMA public ")
PG_TOC_LINE = re.compile(r"\d+; \d+ \d+ (?P<entry>.+)")


def _pg_entry_allowed(entry: str, tables: set[str]) -> bool:
    """One `pg_restore --list` entry ("TABLE public auth_user owner"): a kind we expect, in
    the public schema, naming (or, for constraints, on) a table the migrations create."""
    if entry.startswith(PG_PUBLIC_SCHEMA):
        return True
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


def pg_restore(alias: str, backup: Backup, within: Callable[[], None]) -> None:
    """Replace the database, in one transaction: an empty ``public`` schema (the old one goes
    with all it held, and so do the large objects this role may remove), the backup's
    migrations run into it, its rows copied in, this code's later migrations run."""
    connection = connections[alias]
    connection.close()  # hold no locks of our own from before
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        # Fail (changing nothing) rather than wait for ever on a lock the running site holds.
        cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
        try:
            cursor.execute("DROP SCHEMA public CASCADE")
            cursor.execute("CREATE SCHEMA public")
        except DatabaseError as exc:
            raise BackupError(
                f"could not empty the database ({exc}): the database role needs to own "
                "the database (docs/operations.md, 'Backups'); nothing was restored"
            ) from exc
        cursor.execute("GRANT USAGE ON SCHEMA public TO PUBLIC")  # as PostgreSQL 15 creates it
        cursor.execute(
            "SELECT lo_unlink(oid) FROM pg_largeobject_metadata "
            "WHERE pg_has_role(lomowner, 'USAGE')"
        )
        migrate_to(connection, backup.manifest["migrations"])
        introspection = connection.introspection
        columns = {
            table: {column.name for column in introspection.get_table_description(cursor, table)}
            for table in introspection.table_names(cursor)
        }
        # The rows the migrations wrote (roles, the applied migrations): the backup's come in.
        cursor.execute(f"TRUNCATE {', '.join(map(_quote, columns))}")
        # Checked at commit, whatever order the dump's tables come in (the migrations' schema
        # editor leaves some constraints IMMEDIATE for the rest of the transaction).
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        _pg_copy_rows(cursor, backup.data, columns, backup.path)
        for table in columns:
            for sequence in introspection.get_sequences(cursor, table):
                column, quoted_table = _quote(sequence["column"]), _quote(table)
                cursor.execute(
                    f"SELECT setval(%s, COALESCE(MAX({column}), 1), MAX({column}) IS NOT NULL) "
                    f"FROM {quoted_table}",
                    [_quote(sequence["name"])],
                )
        # Checked now: the later migrations cannot alter a table with checks still pending.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        _check_state(cursor, list(columns), backup)
        migrate_forward(connection)
        within()


# "COPY public.auth_user (id, password, ...) FROM stdin;" as pg_restore prints it
PG_COPY_HEADER = re.compile(r'COPY public\.(?P<table>"?\w+"?) \((?P<columns>[^()]*)\) FROM stdin;')
PG_COPY_END = b"\\.\n"


def _unquote(name: str) -> str:
    return name[1:-1].replace('""', '"') if name.startswith('"') else name


def _pg_copy_rows(cursor, data: Path, columns: dict[str, set[str]], path: Path) -> None:
    """COPY each table's rows from ``pg_restore --data-only``'s output into ``columns``'s
    tables, through our own statement: every SET, setval or large-object call of the dump is
    skipped, and a block for another table or with other columns refused."""
    errors = tempfile.TemporaryFile()  # a file: a full stderr pipe would stall pg_restore
    printing = subprocess.Popen(  # noqa: S603 (our tool, our arguments)
        [_pg_tool("pg_restore"), "--data-only", "--file=-", str(data)],
        stdout=subprocess.PIPE,
        stderr=errors,
    )
    try:
        lines = iter(printing.stdout)
        for line in lines:
            if not line.startswith(b"COPY "):
                continue  # a comment, a SET, a setval: the dump's, not run
            header = PG_COPY_HEADER.fullmatch(line.decode(errors="replace").rstrip("\n"))
            table = header and _unquote(header["table"])
            named = header and [_unquote(name) for name in header["columns"].split(", ")]
            if table not in columns or set(named) != columns[table]:
                shown = header["table"] if header else line[:80].decode(errors="replace")
                raise BackupError(
                    f"{path} holds rows ({shown}) for no table the migrations create, or with "
                    "other columns: refused even though its signature is valid; nothing was "
                    "restored"
                )
            statement = f"COPY {_quote(table)} ({', '.join(map(_quote, named))}) FROM STDIN"
            with cursor.cursor.copy(statement) as copy:
                for row in lines:
                    if row == PG_COPY_END:
                        break
                    copy.write(row)
                else:
                    raise BackupError(
                        f"{path}: the rows of {table} end early; nothing was restored"
                    )
    finally:
        printing.stdout.close()  # ends pg_restore early if a refusal stopped reading
        printing.wait()
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
        errors.close()
    if printing.returncode != 0:
        raise BackupError(f"pg_restore failed: {_first_error(stderr, 'no rows read')}")


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
    with closing(sqlite3.connect(data)) as target:
        # One step (pages=-1): a consistent copy, read under one lock.
        connection.connection.backup(target)
        return _database_state(target.cursor(), _sqlite_tables(target))


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


@contextmanager
def _standing_in(alias: str, path: Path) -> Iterator:
    """A new SQLite file at ``path`` as this thread's ``alias`` connection for a while: the
    migrations run there must write there, and some (django_tasks_db's 0016) write through
    the default connection whichever database is being migrated."""
    live = connections[alias]
    building = live.__class__({**live.settings_dict, "NAME": str(path)}, alias=alias)
    connections[alias] = building
    try:
        yield building
    finally:
        building.close()
        connections[alias] = live


def _sqlite_copy_rows(scratch: Path, backup: Backup) -> None:
    """Copy every table's rows from the backup into the migrated scratch file, column by
    column as the migrations named them. The backup is read with its schema untrusted
    (``_open_read_only``), the scratch file written with its CHECKs (JSON_VALID)."""
    with (
        closing(_open_read_only(backup.data)) as source,
        closing(sqlite3.connect(scratch)) as target,
    ):
        ours, theirs = set(_sqlite_tables(target)), set(_sqlite_tables(source))
        for table in sorted(ours | theirs):
            quoted = _quote(table)
            columns = [row[1] for row in target.execute(f"PRAGMA table_info({quoted})")]
            found = [row[1] for row in source.execute(f"PRAGMA table_info({quoted})")]
            if table not in ours or table not in theirs or set(columns) != set(found):
                raise BackupError(
                    f"{backup.path}: the table {table} is not as the backup's migrations create "
                    "it: refused even though its signature is valid; nothing was restored"
                )
            named = ", ".join(map(_quote, columns))
            target.execute(f"DELETE FROM {quoted}")  # the migrations' own rows
            target.executemany(
                f"INSERT INTO {quoted} ({named}) VALUES ({', '.join('?' * len(columns))})",
                source.execute(f"SELECT {named} FROM {quoted}"),
            )
        # AUTOINCREMENT's high-water marks, so that no deleted row's id is handed out again
        target.execute("DELETE FROM sqlite_sequence")
        if source.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
            target.executemany(
                "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)",
                [
                    row
                    for row in source.execute("SELECT name, seq FROM sqlite_sequence")
                    if row[0] in ours
                ],
            )
        broken = target.execute("PRAGMA foreign_key_check").fetchone()
        if broken:
            raise BackupError(
                f"{backup.path}: a row of {broken[0]} refers to no row; nothing was restored"
            )
        target.commit()
        _check_state(target.cursor(), list(ours), backup)


def sqlite_restore(alias: str, backup: Backup, within: Callable[[], None]) -> None:
    """Build the restored database beside the backup, then copy it over the live one with the
    backup API in one step: readers see the old database or the new one, never a mix. (A file
    renamed over the live one would leave a running server reading the old, unlinked file.)"""
    connection = connections[alias]
    connection.ensure_connection()
    if connection.in_atomic_block:
        raise BackupError("cannot restore inside a transaction")
    scratch = backup.data.with_name("restored.sqlite3")
    with _standing_in(alias, scratch) as building:
        migrate_to(building, backup.manifest["migrations"])
        building.close()
        _sqlite_copy_rows(scratch, backup)
        migrate_forward(building)
        within()  # still standing in: its writes go into the scratch file
        building.close()
    with closing(_open_read_only(scratch)) as source:
        try:
            source.backup(connection.connection)
        except sqlite3.Error as exc:
            raise BackupError(f"restore failed, nothing was changed: {exc}") from exc


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
        manifest = backup_archive.seal(
            {
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
        )
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


def _check_manifest(manifest: dict, engine: str, data: Path, path: Path) -> tuple[str, ...]:
    """A signed manifest's fields (only a key holder could get them wrong), engine, checksum
    and migrations; returns this code's migrations that the backup predates."""
    fields = {"created": str, "data": dict, "migrations": list, "rows": dict}
    if not all(isinstance(manifest.get(name), kind) for name, kind in fields.items()) or not all(
        isinstance(name, str) and "." in name for name in manifest["migrations"]
    ):
        raise BackupError(f"{path}: the manifest lacks fields a backup has; nothing was restored")
    found = manifest.get("engine")
    if found != engine:
        found_name = ENGINE_NAMES.get(found, repr(found))
        raise BackupError(
            f"{path} is a {found_name} backup but DATABASE_URL is "
            f"{ENGINE_NAMES[engine]}; restore it onto a {found_name} database"
        )
    backup_archive.check_data(manifest, data, path)
    on_disk = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    applied = _as_keys(manifest["migrations"])
    if unknown := sorted(f"{app}.{name}" for app, name in applied - on_disk):
        raise BackupError(
            f"{path} was taken with migrations this code does not have "
            f"({_first_three(unknown)}): deploy the "
            "release that wrote it (or a newer one), then restore; nothing was restored"
        )
    return tuple(sorted(f"{app}.{name}" for app, name in on_disk - applied))


@contextmanager
def opened(alias: str, path: Path) -> Iterator[Backup]:
    """The backup at ``path`` checked through and unpacked; refused with a BackupError."""
    engine = vendor(alias)
    with tempfile.TemporaryDirectory(prefix="gpuguide-restore-") as folder:
        manifest, data = backup_archive.read(path, Path(folder))
        backup_archive.check_signature(manifest, path)  # before believing any other field
        behind = _check_manifest(manifest, engine, data, path)
        tables = created_tables(manifest["migrations"])
        if engine == "postgresql":
            pg_check_archive(data, tables, path)
        else:
            sqlite_check(data, manifest, tables, path)
        yield Backup(path=path, engine=engine, manifest=manifest, data=data, behind=behind)


SESSIONS = "django.contrib.sessions.backends."


def restore_backup(alias: str, backup: Backup, within: Callable[[], None] = lambda: None) -> int:
    """Replace the database with a checked backup; returns how many sessions were cleared.

    The sessions (maybe signed out since the backup) are deleted, and ``within`` runs, on the
    restored database before it replaces the live one (in the same transaction on PostgreSQL,
    in the scratch file on SQLite): what they write lands with the rows or not at all.
    """
    signed_out = 0

    def with_the_rows() -> None:
        nonlocal signed_out
        if settings.SESSION_ENGINE in (f"{SESSIONS}db", f"{SESSIONS}cached_db"):
            from django.contrib.sessions.models import Session

            signed_out = Session.objects.using(alias).all().delete()[0]
        within()

    if backup.engine == "postgresql":
        pg_restore(alias, backup, with_the_rows)
    else:
        sqlite_restore(alias, backup, with_the_rows)
    # Not with the rows: a restore stopped before this leaves the old sessions valid.
    if settings.SESSION_ENGINE in (f"{SESSIONS}cache", f"{SESSIONS}cached_db"):
        caches[settings.SESSION_CACHE_ALIAS].clear()
    return signed_out


def restore(alias: str, path: Path, within: Callable[[], None] = lambda: None) -> int:
    """Check and restore the backup at ``path`` (no confirmation: the command asks for it)."""
    with opened(alias, path) as checked:
        return restore_backup(alias, checked, within)
