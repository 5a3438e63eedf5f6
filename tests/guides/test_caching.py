"""Visitors get cached pages that are never older than the data behind them."""

import warnings
from datetime import date
from decimal import Decimal as D

from django.core.cache import CacheKeyWarning
from django.db import connection
from django.test.utils import CaptureQueriesContext

from guides.models import Guide, Section
from pricing.services import price_check_record

from ..conftest import GUIDE_SLUG

URL = f"/de/guides/{GUIDE_SLUG}/"


def queries_for(client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_a_repeated_visit_is_served_from_the_cache(client, seeded):
    first, body = queries_for(client, URL)
    again, cached_body = queries_for(client, URL)
    assert first > 10
    assert again == 1  # reading the content version
    assert cached_body == body


def test_a_price_check_invalidates_cached_pages(client, seeded):
    queries_for(client, URL)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip
    _count, body = queries_for(client, URL)
    assert "0,99\u00a0$" in body


def test_an_edit_invalidates_cached_pages(client, seeded):
    queries_for(client, URL)
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.heading_de = "Neue Überschrift"
    section.save()
    assert "Neue Überschrift" in queries_for(client, URL)[1]


def test_staff_previews_are_never_cached_for_visitors(client, seeded, admin_user):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.status = Guide.Status.DRAFT
    guide.save()
    client.force_login(admin_user)
    assert client.get(URL).status_code == 200
    client.logout()
    assert client.get(URL).status_code == 404


def test_languages_and_queries_are_cached_apart(client, seeded):
    assert "Speicher" in client.get("/de/vram/").content.decode()
    assert "メモリ" in client.get("/ja/vram/").content.decode()
    assert "Your model (405B)" in client.get("/en/vram/?params=405").content.decode()
    small = client.get("/en/vram/?params=8").content.decode()
    assert "Your model (8B)" in small and "Your model (405B)" not in small


def test_cache_keys_stay_short_and_plain_whatever_the_query(client, seeded):
    """Visitors choose the query string; the key hashes it (memcached refuses keys over 250
    bytes or with spaces and control characters, and Django warns of any such key)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        response = client.get("/en/gpus/", {"q": "\u202e<x> \r\n" + "é" * 300})
        assert response.status_code == 200
        assert client.get("/en/gpus/", {"q": "\u202e<x> \r\n" + "é" * 300}).content == (
            response.content
        )
