"""Outages: the branded 500 and 503 pages, in the visitor's language, without the database;
the health probes; HEAD answered like GET."""

import json
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import pytest
from django.core.cache import caches
from django.db import OperationalError, connections
from django.test import RequestFactory
from django.urls import path

from gpuguide.lib import outages
from tests.conftest import GUIDE_SLUG


def _boom(request, lang):
    raise RuntimeError("a bug")


# For the 500 test: a page that fails (@pytest.mark.urls below).
urlpatterns = [path("<str:lang>/boom/", _boom)]
handler500 = "gpuguide.lib.outages.server_error"


@pytest.fixture
def database_down():
    """No connection opens, in this thread or another (the readiness check runs in its own)."""
    with mock.patch.object(
        type(connections["default"]),
        "ensure_connection",
        side_effect=OperationalError("connection refused"),
    ):
        yield


TITLES = {"en": "Temporarily unavailable", "de": "Vorübergehend nicht verfügbar",
          "ja": "一時的にご利用いただけません"}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_a_page_without_its_database_answers_the_branded_503_in_the_visitors_language(
    client, seeded, database_down, lang
):
    response = client.get(f"/{lang}/guides/{GUIDE_SLUG}/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(outages.RETRY_AFTER_SECONDS)
    assert response["Cache-Control"] == "no-store"
    body = response.content.decode()
    assert f'<html lang="{lang}">' in body
    assert f"<h1>{TITLES[lang]}</h1>" in body
    assert (
        "<span>GPU Guide</span>" in body
        and "<title>" in body
        and " · GPU Guide</title>" in body
        and f'href="/{lang}/"' in body
    )
    assert "Server Error" not in body


def test_a_database_error_outside_a_view_is_a_503_too(seeded):
    request = RequestFactory().get("/de/gpus/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = outages.server_error(request)
    assert response.status_code == 503 and "Retry-After" in response
    assert "Vorübergehend nicht verfügbar" in response.content.decode()


def test_the_outage_page_survives_its_own_template_failing():
    with mock.patch.object(outages, "render_to_string", side_effect=ValueError("no manifest")):
        response = outages.outage_response("/ja/gpus/", 503)
    assert response.status_code == 503
    assert "<h1>一時的にご利用いただけません</h1>" in response.content.decode()


@pytest.mark.urls("tests.reliability.test_outages")
@pytest.mark.parametrize(
    ("lang", "title"), [("en", "Something went wrong"), ("ja", "問題が発生しました"),
                        ("xx", "Something went wrong")],
)  # fmt: skip
def test_an_error_answers_the_branded_500_in_the_language_of_the_address(client, lang, title):
    client.raise_request_exception = False
    response = client.get(f"/{lang}/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    assert f"<h1>{title}</h1>" in body
    assert "Retry-After" not in response
    home = "en" if lang == "xx" else lang
    assert f'href="/{home}/"' in body


def test_healthz_answers_without_the_database(client, database_down):
    response = client.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok")
    assert "no-cache" in response["Cache-Control"]
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


DATABASE, CACHE = "Database(alias='default')", "Cache(alias='default')"


def readyz(client, **kwargs):
    """GET /readyz from a thread of its own: django-health-check's view is async, and Django
    runs it through async_to_sync, which refuses a thread whose event loop is running (the
    browser tests' Playwright keeps one in the main thread of the worker that ran them)."""

    def get():
        try:
            return client.get("/readyz", **kwargs)
        finally:
            connections.close_all()  # the thread's own connection

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(get).result()


def test_readyz_answers_200_when_database_and_cache_answer(client, db):
    response = readyz(client)
    assert response.status_code == 200
    assert json.loads(response.content) == {DATABASE: "OK", CACHE: "OK"}
    assert "no-cache" in response["Cache-Control"]
    assert readyz(client, headers={"Accept": "text/html"})["Content-Type"] == (
        "application/json"
    )  # the HTML page would read the database


def test_readyz_names_the_database_when_it_is_down(client, db, database_down):
    response = readyz(client)
    assert response.status_code == 503
    assert response["Retry-After"] == str(outages.RETRY_AFTER_SECONDS)
    body = json.loads(response.content)
    assert body[DATABASE].startswith("Unavailable") and body[CACHE] == "OK"


def test_readyz_names_the_cache_when_it_loses_what_it_was_given_but_stays_ready(client, db):
    # Pages render from the database without the cache: a load balancer must keep the server.
    with mock.patch.object(type(caches["default"]), "get", return_value=None):
        response = readyz(client)
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body[DATABASE] == "OK" and body[CACHE].startswith("Unavailable")


def test_probes_are_not_language_prefixed(client, db):
    assert client.get("/en/healthz").status_code == 404


@pytest.mark.parametrize(
    "url",
    ["/en/", f"/de/guides/{GUIDE_SLUG}/", "/ja/gpus/", "/en/vram/", "/en/vram/?params=70",
     "/en/compare/h100-vs-a100-80gb/", "/sitemap.xml", "/robots.txt"],
)  # fmt: skip
def test_public_pages_answer_head_like_get_and_refuse_post(client, seeded, url):
    head = client.head(url)
    assert head.status_code == 200
    assert head.content == b""
    get = client.get(url)  # after HEAD: from the page cache where the page is cached
    assert get.status_code == 200 and get.content
    assert get["Content-Type"] == head["Content-Type"]
    # The planner's form posts (a config.json too long for an address): without one, it goes
    # to the fields' own address; nothing else takes a POST.
    assert client.post(url).status_code == (303 if "/vram/" in url else 405)
