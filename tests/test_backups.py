"""`manage.py backup` and `manage.py restore` bring back every row and every page exactly.

Runs on whichever database the suite runs on. The backup is taken of the seeded test database;
the data is then changed, and the backup restored into a fresh, empty database (a temporary
file on SQLite, `<test database>_restored` on PostgreSQL), which stands in for the default
connection while the pages are fetched again. The test database itself stays inside the test's
transaction, so the seed the other tests share is untouched.
"""

import copy
import hashlib
from contextlib import contextmanager
from datetime import date
from decimal import Decimal as D
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections

from guides.models import ContentVersion, Guide
from pricing.services import price_check_record

from .conftest import GUIDE_SLUG
from .test_page_text import PAGES, TODAY

VERSION_TABLE = "guides_contentversion"  # renewed by the restore, by design


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
    tokens_changed = dict(ContentVersion.objects.values_list("tag", "token"))

    # A database that holds data is only replaced on --yes; the other engine's file never.
    with pytest.raises(CommandError, match=r"holds .* rows in .* tables .*--yes"):
        call_command("restore", str(backup))
    other = tmp_path / "other.backup"
    other.write_bytes(b"PGDMP" if connection.vendor == "sqlite" else b"SQLite format 3\x00")
    with pytest.raises(CommandError, match="backup but DATABASE_URL is"):
        call_command("restore", str(other), "--yes")

    with fresh_default_database(tmp_path) as fresh:
        call_command("restore", str(backup), stdout=None)  # empty: no --yes needed
        tables_after = table_digests(fresh)
        pages_after = fetch_pages(client)
        tokens_after = dict(ContentVersion.objects.values_list("tag", "token"))

    # Random tokens, all renewed: none that a page was cached under before comes back.
    assert set(tokens_after.values()).isdisjoint(tokens_changed.values())
    assert tables_after.pop(VERSION_TABLE) != tables_before.pop(VERSION_TABLE)
    assert tables_after == tables_before
    assert pages_after["guide.en"] != changed["guide.en"]  # not served from the cache
    assert [name for name in ALL_PAGES if pages_after[name] != pages_before[name]] == []
