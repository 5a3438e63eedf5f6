"""`manage.py backup` and `manage.py restore` bring back every row and every page exactly, and
refuse a file that could carry a payload.

Runs on whichever database the suite runs on. The backup is taken of the seeded test database;
the data is then changed, and the backup restored into a fresh, empty database (a temporary
file on SQLite, `<test database>_restored` on PostgreSQL), which stands in for the default
connection while the pages are fetched again. The test database itself stays inside the test's
transaction, so the seed the other tests share is untouched.

The attacks (issue 34): a backup changed after it was written (a trigger that rewrites prices,
an extra superuser), with and without a new signature, signed with another key, of an older
format, or from code this one lacks; each is refused with its one line and changes nothing.
"""

import copy
import hashlib
from contextlib import contextmanager
from datetime import date
from decimal import Decimal as D
from io import StringIO
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections
from django_tasks_db.models import DBTaskResult

from gpuguide.lib import backup_archive, backups
from guides.background.tasks import purge_front_cache
from guides.management.commands.restore import renew_with_the_rows
from guides.models import ContentVersion, Guide
from pricing.models import LanguageModel, Method
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG
from tests.test_page_text import PAGES, TODAY

VERSION_TABLE = "guides_contentversion"  # renewed by the restore, by design
SESSION_TABLE = "django_session"  # emptied by the restore, by design


ALL_PAGES = [f"{name}.{lang}" for name in PAGES for lang in ("en", "de", "ja")]


def fetch_pages(client, names=ALL_PAGES) -> dict[str, tuple[int, bytes]]:
    """Status and exact bytes of each public page (tests/test_page_text.py's list)."""
    pages = {}
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        for name in names:
            page, lang = name.split(".")
            response = client.get(PAGES[page].format(lang=lang))
            pages[name] = (response.status_code, response.content)
    return pages


def table_digests(connection) -> dict[str, tuple[int, str]]:
    """Row count and a checksum of the sorted rows, for every table."""
    digests = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            rows = sorted(repr(row) for row in cursor.fetchall())
            digests[table] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest())
    return digests


@contextmanager
def fresh_default_database(tmp_path):
    """An empty database as the default connection, as on a machine restored from scratch."""
    original = connections["default"]
    settings_dict = copy.deepcopy(original.settings_dict)
    if original.vendor == "postgresql":
        settings_dict["NAME"] = f"{original.settings_dict['NAME']}_restored"
        quoted = original.ops.quote_name(settings_dict["NAME"])
        with original._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {quoted} WITH (FORCE)")
            cursor.execute(f"CREATE DATABASE {quoted}")
    else:
        settings_dict["NAME"] = str(tmp_path / "restored.sqlite3")
    fresh = original.__class__(settings_dict, alias="default")
    connections["default"] = fresh
    try:
        yield fresh
    finally:
        fresh.close()
        connections["default"] = original
        if original.vendor == "postgresql":
            with original._nodb_cursor() as cursor:
                cursor.execute(f"DROP DATABASE IF EXISTS {quoted} WITH (FORCE)")
        else:
            (tmp_path / "restored.sqlite3").unlink(missing_ok=True)


def test_a_restored_backup_brings_back_every_row_and_page(client, seeded, tmp_path):
    connection = connections["default"]
    backup = tmp_path / "site.backup"
    call_command("backup", "--output", str(backup), stdout=None)
    tables_before = table_digests(connection)
    pages_before = fetch_pages(client)

    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip
    Guide.objects.filter(slug=GUIDE_SLUG).update(title_en="A title edited after the backup")
    Guide.objects.get(slug=GUIDE_SLUG).save()  # as the admin would: bumps the content version
    changed = fetch_pages(client, ["guide.en", "gpus.de"])  # cached under the new version
    assert changed["guide.en"] != pages_before["guide.en"]
    assert changed["gpus.de"] != pages_before["gpus.de"]
    versions_changed = dict(ContentVersion.objects.values_list("tag", "version"))

    # A database that holds data is only replaced on --yes; the other engine's file never.
    with pytest.raises(CommandError, match=r"holds .* rows in .* tables .*--yes"):
        call_command("restore", str(backup))
    other_engine = "postgresql" if connection.vendor == "sqlite" else "sqlite"
    other = resealed(tmp_path, backup, engine=other_engine)
    with pytest.raises(CommandError, match="backup but DATABASE_URL is"):
        call_command("restore", str(other), "--yes")

    with fresh_default_database(tmp_path) as fresh:
        call_command("restore", str(backup), stdout=None)  # empty: no --yes needed
        tables_after = table_digests(fresh)
        pages_after = fetch_pages(client)
        versions_after = dict(ContentVersion.objects.values_list("tag", "version"))

    # Random versions, all renewed: none that a page was cached under before comes back.
    assert set(versions_after.values()).isdisjoint(versions_changed.values())
    assert tables_after.pop(VERSION_TABLE) != tables_before.pop(VERSION_TABLE)
    # Everyone is signed out (the browser tests' editors, where they ran first on this worker).
    assert tables_after.pop(SESSION_TABLE)[0] == 0
    tables_before.pop(SESSION_TABLE)
    assert tables_after == tables_before
    assert pages_after["guide.en"] != changed["guide.en"]  # not served from the cache
    assert [name for name in ALL_PAGES if pages_after[name] != pages_before[name]] == []


# The attacks ------------------------------------------------------------------------------

# Rewrites every price recorded from then on (the attack: 4.44 stored as 0.0101).
PRICE_TRIGGER = {
    "sqlite": [
        "CREATE TRIGGER cheap_prices AFTER INSERT ON pricing_price BEGIN "
        "UPDATE pricing_price SET quoted_usd_per_hour = 0.0101 WHERE id = NEW.id; END"
    ],
    "postgresql": [
        "CREATE FUNCTION cheap_prices() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN NEW.quoted_usd_per_hour := 0.0101; RETURN NEW; END $$",
        "CREATE TRIGGER cheap_prices BEFORE INSERT ON pricing_price "
        "FOR EACH ROW EXECUTE FUNCTION cheap_prices()",
    ],
}
PAYLOADS = {
    "trigger": PRICE_TRIGGER,
    "view": {engine: ["CREATE VIEW price_view AS SELECT 1 AS one"] for engine in PRICE_TRIGGER},
    "table": {engine: ["CREATE TABLE extra_table (id integer)"] for engine in PRICE_TRIGGER},
}
REFUSED_SCHEMA = {
    "sqlite": r"holds database objects the migrations do not create \(.*{}",
    "postgresql": r"holds entries the migrations do not create \(.*{}",
}
PAYLOAD_NAMES = {
    "trigger": "(trigger|TRIGGER|FUNCTION)",
    "view": "(view|VIEW)",
    "table": "extra_table",
}


def take_backup(tmp_path, name="site.tar"):
    path = tmp_path / name
    call_command("backup", "--output", str(path), stdout=None)
    return path


def resealed(tmp_path, backup, name="resealed.tar", **changes):
    """The backup with its manifest changed and signed again with the right key."""
    manifest, data = backup_archive.read(backup, tmp_path)
    path = tmp_path / name
    backup_archive.write(path, backup_archive.seal({**manifest, **changes}), data)
    return path


def changed_database_backup(tmp_path, backup, statements=(), superuser=False):
    """The backup restored into a fresh database, changed there by SQL (and an extra superuser),
    and backed up again: a backup with the payload, signed with the right key."""
    with fresh_default_database(tmp_path) as fresh:
        call_command("restore", str(backup), stdout=None)
        with fresh.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
        if superuser:
            User.objects.create_superuser("intruder", "x@example.com", "intruder-password")
        return take_backup(tmp_path, "changed.tar")


def assert_refused_and_nothing_changed(tmp_path, backup, message):
    with fresh_default_database(tmp_path) as fresh:
        with pytest.raises(CommandError, match=message):
            call_command("restore", str(backup), "--yes")
        with fresh.cursor() as cursor:
            assert fresh.introspection.table_names(cursor) == []


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_payload_signed_with_the_right_key_is_refused_by_the_schema_check(
    seeded, tmp_path, payload
):
    """Defence in depth: a leaked key still cannot bring a trigger, a view or a table in."""
    engine = connections["default"].vendor
    backup = take_backup(tmp_path)
    changed = changed_database_backup(tmp_path, backup, PAYLOADS[payload][engine], superuser=True)
    message = REFUSED_SCHEMA[engine].format(PAYLOAD_NAMES[payload])
    assert_refused_and_nothing_changed(tmp_path, changed, message + r".*signature is valid")


def test_a_changed_database_file_is_refused_without_a_new_signature(seeded, tmp_path):
    """The attack: a trigger and an extra superuser put into the file, manifest kept or patched."""
    engine = connections["default"].vendor
    backup = take_backup(tmp_path)
    changed = changed_database_backup(tmp_path, backup, PRICE_TRIGGER[engine], superuser=True)
    (tmp_path / "original").mkdir()
    manifest, _ = backup_archive.read(backup, tmp_path / "original")
    _, tampered_data = backup_archive.read(changed, tmp_path)

    # The manifest as it was: the file's checksum gives the change away.
    kept = tmp_path / "kept-manifest.tar"
    backup_archive.write(kept, manifest, tampered_data)
    assert_refused_and_nothing_changed(tmp_path, kept, "SHA-256 is not the manifest's")

    # The checksum patched in, the signature as it was: the signature does not match.
    data = {**manifest["data"], "sha256": backup_archive.sha256_of(tampered_data)}
    patched = tmp_path / "patched-manifest.tar"
    backup_archive.write(patched, {**manifest, "data": data}, tampered_data)
    assert_refused_and_nothing_changed(tmp_path, patched, "signature does not match")


def test_an_extra_superuser_alone_is_refused_without_a_new_signature(seeded, tmp_path):
    backup = take_backup(tmp_path)
    changed = changed_database_backup(tmp_path, backup, superuser=True)
    (tmp_path / "original").mkdir()
    manifest, _ = backup_archive.read(backup, tmp_path / "original")
    manifest_changed, data = backup_archive.read(changed, tmp_path)
    rows = {**manifest["rows"], "auth_user": manifest_changed["rows"]["auth_user"]}
    # Everything in the manifest made to fit, but signed by someone without the key.
    forged = {**manifest_changed, "rows": rows, "hmac": manifest["hmac"]}
    path = tmp_path / "forged.tar"
    backup_archive.write(path, forged, data)
    assert_refused_and_nothing_changed(tmp_path, path, "signature does not match")


def test_a_backup_signed_with_another_key_is_refused(seeded, tmp_path, settings):
    backup = take_backup(tmp_path)  # signed with a key derived from SECRET_KEY
    settings.BACKUP_SIGNING_KEY = "a-key-the-backup-was-not-signed-with"
    assert_refused_and_nothing_changed(
        tmp_path, backup, r"signature does not match.*names 'SECRET_KEY'.*BACKUP_SIGNING_KEY"
    )


def test_a_backup_signed_with_backup_signing_key_survives_a_new_secret_key(
    seeded, tmp_path, settings
):
    settings.BACKUP_SIGNING_KEY = "backup-key-" + "k" * 40
    backup = take_backup(tmp_path)
    settings.SECRET_KEY = "a-rotated-secret-key-" + "r" * 40
    with backups.opened("default", backup) as checked:  # every check, no restore
        assert checked.manifest["signed_with"] == "BACKUP_SIGNING_KEY"
    settings.BACKUP_SIGNING_KEY = ""  # now derived from the new SECRET_KEY: refused
    with pytest.raises(backups.BackupError, match="signature does not match"):
        with backups.opened("default", backup):
            pass


def test_an_old_format_backup_is_refused_with_what_to_do(seeded, tmp_path):
    """A bare dump or SQLite file (what `backup` wrote before manifests) cannot be checked."""
    _, bare = backup_archive.read(take_backup(tmp_path), tmp_path)
    kind = "SQLite database" if connections["default"].vendor == "sqlite" else "pg_dump archive"
    assert_refused_and_nothing_changed(
        tmp_path, bare, f"is a bare {kind} from before signed backups.*`manage.py backup`"
    )


def test_a_backup_from_migrations_this_code_lacks_or_a_newer_format_is_refused(seeded, tmp_path):
    backup = take_backup(tmp_path)
    manifest, _ = backup_archive.read(backup, tmp_path)
    future = manifest["migrations"] + ["pricing.9999_from_a_newer_release"]
    newer = resealed(tmp_path, backup, "newer.tar", migrations=future)
    assert_refused_and_nothing_changed(
        tmp_path, newer, r"migrations this code does not have \(pricing\.9999_from_a_newer"
    )
    version_2 = {**manifest, "version": 2}
    path = tmp_path / "version-2.tar"
    backup_archive.write(path, version_2, tmp_path / manifest["data"]["name"])
    assert_refused_and_nothing_changed(tmp_path, path, "format version 2; this code reads version")


def test_a_restore_signs_everyone_out_and_says_passwords_are_the_old_ones(seeded, tmp_path):
    backup = take_backup(tmp_path)
    with fresh_default_database(tmp_path):
        call_command("restore", str(backup), stdout=None)
        store = SessionStore()
        store["signed_in"] = True
        store.create()  # a session saved with the backup, since signed out
        with_session = take_backup(tmp_path, "with-session.tar")
        assert backup_archive.read(with_session, tmp_path)[0]["rows"]["django_session"] == 1

        output = StringIO()
        call_command("restore", str(with_session), "--yes", stdout=output)
        assert Session.objects.count() == 0
    assert "Signed everyone out (1 sessions cleared)" in output.getvalue()
    assert "the password they had when the backup was taken" in output.getvalue()


def test_make_backup_keeps_the_newest_n_of_its_own_files(seeded, tmp_path, settings):
    engine = connections["default"].vendor
    other = "postgresql" if engine == "sqlite" else "sqlite"
    settings.BASE_DIR = tmp_path
    settings.BACKUP_KEEP = 3
    folder = tmp_path / "backups"
    folder.mkdir()
    ours = [folder / f"gpuguide-{engine}-202611{day:02}T120000Z.tar" for day in (1, 2, 3, 4)]
    kept_anyway = [
        folder / f"gpuguide-{other}-20261101T120000Z.tar",  # the other engine's
        folder / f"gpuguide-{engine}-20261101T120000Z.dump",  # the old format's
        folder / "before-the-upgrade.tar",  # put there by hand
    ]
    for path in ours + kept_anyway:
        path.write_bytes(b"")

    output = StringIO()
    call_command("backup", stdout=output)
    newest = backups.default_path(engine).name[: -len("0000Z.tar")]  # the minute of the run
    left = sorted(path.name for path in folder.iterdir())
    written = [name for name in left if name.startswith(newest)]
    assert len(written) == 1
    assert left == sorted([written[0], ours[2].name, ours[3].name] + [p.name for p in kept_anyway])
    assert "Removed 2 older backup(s) beyond BACKUP_KEEP=3" in output.getvalue()

    # --output elsewhere, or even into backups/: nothing is pruned.
    call_command("backup", "--output", str(folder / "by-hand.tar"), stdout=None)
    assert len(list(folder.iterdir())) == len(left) + 1


@pytest.mark.parametrize(
    "entry",
    [
        "TRIGGER public pricing_price cheap_prices postgres",
        "FUNCTION public cheap_prices() postgres",
        "PROCEDURE public cleanup() postgres",
        "RULE public pricing_price cheap postgres",
        "VIEW public price_view postgres",
        "MATERIALIZED VIEW public price_view postgres",
        "POLICY public pricing_price hide postgres",
        "EVENT TRIGGER - on_ddl postgres",
        "EXTENSION - plpython3u ",
        "TABLE public extra_table postgres",
        "TABLE DATA public extra_table postgres",
        "TABLE public auth_user postgres postgres",  # a name with a space: not ours
        "SEQUENCE public extra_table_id_seq postgres",
        "INDEX other_schema some_index postgres",
    ],
)
def test_a_dump_entry_the_migrations_do_not_create_is_refused(entry):
    tables = {"pricing_price", "auth_user", "django_migrations"}
    assert not backups._pg_entry_allowed(entry, tables)


def test_the_entries_of_django_tables_are_allowed():
    tables = {"auth_user"}
    for entry in [
        "TABLE public auth_user postgres",
        "TABLE DATA public auth_user postgres",
        "SEQUENCE public auth_user_id_seq postgres",
        "SEQUENCE SET public auth_user_id_seq postgres",
        "CONSTRAINT public auth_user auth_user_pkey postgres",
        "FK CONSTRAINT public auth_user auth_user_fk postgres",
        "INDEX public auth_user_username_6821ab7c_like postgres",
    ]:
        assert backups._pg_entry_allowed(entry, tables), entry


# Rows only: what a signed dump holds besides rows never reaches the database (issue 55) ------

# Allowed by the schema check (on a table the migrations create), yet not the migrations': a
# constraint that refuses every later price check (PostgreSQL), an index (both).
TIME_BOMB = {
    "postgresql": [
        # Dumped inside the table's definition: the schema check cannot see it.
        "ALTER TABLE pricing_price ADD CONSTRAINT time_bomb CHECK (quoted_usd_per_hour <> 4.44)",
        "CREATE INDEX time_bomb_index ON pricing_price (quoted_usd_per_hour)",
    ],
    "sqlite": ["CREATE INDEX time_bomb_index ON pricing_price (quoted_usd_per_hour)"],
}


def test_a_restore_brings_rows_only_never_the_dumps_constraints_or_indexes(seeded, tmp_path):
    connection = connections["default"]
    changed = changed_database_backup(tmp_path, take_backup(tmp_path), TIME_BOMB[connection.vendor])
    with fresh_default_database(tmp_path) as fresh:
        call_command("restore", str(changed), stdout=None)
        with fresh.cursor() as cursor:
            names = set(fresh.introspection.get_constraints(cursor, "pricing_price"))
        assert {"time_bomb", "time_bomb_index"} & names == set()
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                           prices={"a100-80gb": D("4.44")})  # fmt: skip
        assert fresh.vendor != "postgresql" or "pricing_price_pkey" in names


def test_a_table_with_columns_the_migrations_do_not_make_is_refused(seeded, tmp_path):
    extra = ["ALTER TABLE pricing_provider ADD COLUMN planted text"]
    changed = changed_database_backup(tmp_path, take_backup(tmp_path), extra)
    assert_refused_and_nothing_changed(
        tmp_path, changed, r"(pricing_provider|public\.pricing_provider).*signature is valid"
    )


def test_a_backup_from_before_a_migration_is_migrated_on_its_rows(seeded, tmp_path):
    """The schema is the backup's migrations', its rows go in, then this code's later
    migrations run on them (pricing 0018 names the seeded methods as sentences name them, 0019
    gives the seeded models their context length)."""
    current = take_backup(tmp_path)
    with fresh_default_database(tmp_path):
        call_command("restore", str(current), stdout=None)
        call_command("migrate", "pricing", "0017", verbosity=0)
        older = take_backup(tmp_path, "older.tar")
    assert (
        "pricing.0018_method_prose_name"
        not in backup_archive.read(older, tmp_path)[0]["migrations"]
    )
    with fresh_default_database(tmp_path):
        output = StringIO()
        call_command("restore", str(older), stdout=output)
        assert "predates 2 migration(s) of this code: they ran on its rows" in output.getvalue()
        adamw = Method.objects.get(slug="full-adamw")
        assert (adamw.prose_name_en, adamw.prose_name_de) == (
            "Full fine-tuning with AdamW",
            "Vollständiges Fine-Tuning mit AdamW",
        )
        # 0019 gave the seeded models their context length and Mistral its sliding window.
        mistral = LanguageModel.objects.get(slug="mistral-7b")
        assert (mistral.max_position_embeddings, mistral.sliding_window) == (32768, 4096)


# Restores that converge: stopped at any point, nothing from before is current (issue 55) ------


def purges_queued() -> list:
    return [
        task.args_kwargs["kwargs"]["tags"]
        for task in DBTaskResult.objects.filter(task_path=purge_front_cache.module_path)
    ]


DATABASE_TASKS = "django_tasks_db.DatabaseBackend"  # production's: the queue is in the database


def edited_title_shown(client) -> bool:
    return b"A title edited after the backup" in fetch_pages(client, ["guide.en"])["guide.en"][1]


def signed_in(client) -> bool:
    return Session.objects.filter(session_key=client.session.session_key).exists()


def test_a_restore_stopped_at_any_point_leaves_no_page_or_session_from_before(
    client, seeded, tmp_path, settings
):
    current = take_backup(tmp_path)
    with fresh_default_database(tmp_path):
        call_command("restore", str(current), stdout=None)
        client.force_login(User.objects.create_user("kept", password="kept-password-1"))
        with_session = take_backup(tmp_path, "with-session.tar")  # holds that session
        guide = Guide.objects.get(slug=GUIDE_SLUG)
        guide.title_en = "A title edited after the backup"
        guide.save()  # as the admin would: a new version, and the page cached under it
        assert edited_title_shown(client)
        settings.FRONT_CACHE, settings.FRONT_CACHE_PURGE_URLS = "varnish", ["http://127.0.0.1:9/"]
        settings.TASKS = {"default": {**settings.TASKS["default"], "BACKEND": DATABASE_TASKS}}
        DBTaskResult.objects.all().delete()

        # Stopped inside, before the restored rows replace the database: nothing changed.
        stop = mock.patch(
            "guides.management.commands.restore.renew_after_restore", side_effect=KeyboardInterrupt
        )
        with stop, pytest.raises(KeyboardInterrupt):
            backups.restore("default", with_session, within=renew_with_the_rows)
        assert edited_title_shown(client)
        assert signed_in(client)
        assert purges_queued() == []

        # Stopped once they are in (the command never empties a cache nor purges): the cached
        # page is not current, the session is gone, and the worker has the purge to send.
        backups.restore("default", with_session, within=renew_with_the_rows)
        assert not edited_title_shown(client)
        assert not signed_in(client)
        assert purges_queued() == [["site"]]
