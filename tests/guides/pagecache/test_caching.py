"""The page cache: current pages, one query on a hit (the version check), keys visitors cannot
multiply, only the pages a write affects go stale, a write from any process is on the next
visit, and the pages are rendered again in the background."""

import gzip
import warnings
from datetime import date
from decimal import Decimal as D
from unittest import mock

import pytest
from django.core.cache import CacheKeyWarning, cache
from django.db import OperationalError, connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils.text import compress_string
from django_tasks import default_task_backend

from guides.background import tasks
from guides.models import ContentVersion, Guide, Section
from guides.pagecache import http, versions
from guides.pages import reference_data
from pricing.models import Provider
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG, as_if_committed, forget_cached_pages, page_entries

URL = f"/de/guides/{GUIDE_SLUG}/"
GPUS = "/de/gpus/"
COMPARE = "/de/compare/h100-vs-a100-80gb/"


def queries_for(client, url: str, **headers) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=headers)
    assert response.status_code == 200
    return len(queries), response.content.decode()


def record_competitor_price(day=date(2026, 11, 20), gpu="h100"):
    price_check_record(provider_slug="massed-compute", checked_on=day,
                       prices={gpu: D("9.99")})  # fmt: skip


def record_house_price(day=date(2026, 11, 20)):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=day,
                       prices={"a100-80gb": D("0.99")})  # fmt: skip


@pytest.fixture
def queued():
    """The tasks queued during the test (the test settings keep them instead of running)."""
    default_task_backend.clear()
    yield default_task_backend.results
    default_task_backend.clear()


def test_a_repeated_visit_is_served_from_the_cache_with_one_query(client, seeded):
    first, body = queries_for(client, URL)
    with CaptureQueriesContext(connection) as queries:
        cached_body = client.get(URL).content.decode()
    assert first > 10
    [check] = queries.captured_queries  # has anything changed since? (the generation)
    assert "guides_contentversion" in check["sql"] and "'*'" in check["sql"]
    assert cached_body == body
    assert client.get(URL)["X-Page-Cache"] == "hit"


def test_an_emptied_cache_renders_the_page_again(client, seeded):
    _count, body = queries_for(client, URL)
    cache.clear()
    response = client.get(URL)
    assert response["X-Page-Cache"] == "miss" and response.content.decode() == body


def test_a_cache_restarted_with_older_data_never_serves_the_older_page(client, seeded):
    """Redis restored from an older snapshot: the page it holds was current under versions the
    database has replaced since, so it is never served again."""
    key = http.page_key("de", URL, QueryDict())
    client.get(URL)
    older = cache.get(key)
    record_house_price()
    assert "0,99\u00a0$" in client.get(URL).content.decode()
    cache.clear()
    cache.set(key, older)  # the snapshot's copy is back
    response = client.get(URL)
    assert response["X-Page-Cache"] == "miss" and "0,99\u00a0$" in response.content.decode()


def test_a_write_by_another_process_is_on_the_next_visit(client, seeded):
    """Another process (a command, the task worker, another app server) writes: its new versions
    and generation are in the database only, and this process's copies of pages and versions
    know nothing of it."""
    queries_for(client, URL)
    other = versions.new_version()
    ContentVersion.objects.filter(tag__in=["*", "site"]).update(version=other)  # as it commits
    response = client.get(URL)
    assert response["X-Page-Cache"] == "miss"
    assert versions.current_versions(["site"]) == {"site": other}


def test_a_price_check_invalidates_the_pages_quoting_that_provider(client, seeded):
    queries_for(client, URL)
    record_house_price()
    _count, body = queries_for(client, URL)
    assert "0,99\u00a0$" in body


def test_a_competitors_price_check_leaves_pages_that_quote_only_ours_cached(client, seeded):
    queries_for(client, COMPARE)
    queries_for(client, URL)
    record_competitor_price()
    assert client.get(COMPARE)["X-Page-Cache"] == "hit"  # the comparison quotes our prices only
    assert client.get(URL)["X-Page-Cache"] == "miss"  # the guide compares providers


def test_an_edit_invalidates_that_guide_and_not_the_other_pages(client, seeded):
    queries_for(client, URL)
    queries_for(client, "/de/gpus/")
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.heading_de = "Neue Überschrift"
    section.save()
    assert "Neue Überschrift" in queries_for(client, URL)[1]
    assert client.get("/de/gpus/")["X-Page-Cache"] == "hit"  # the GPU page reads no guide
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.title_de = "Ein neuer Titel"
    guide.save()
    assert "Ein neuer Titel" in queries_for(client, "/de/")[1]


def test_staff_previews_are_private_and_never_cached(client, seeded, admin_user):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.status = Guide.Status.DRAFT
    guide.save()
    client.force_login(admin_user)
    response = client.get(URL)
    assert response.status_code == 200
    assert {"private", "no-store"} <= set(response["Cache-Control"].replace(" ", "").split(","))
    assert page_entries() == 0
    client.logout()
    assert client.get(URL).status_code == 404


def test_languages_and_queries_are_cached_apart(client, seeded):
    assert "Speicher" in client.get("/de/vram/").content.decode()
    assert "メモリ" in client.get("/ja/vram/").content.decode()
    assert "Your model (405B)" in client.get("/en/vram/?params=405").content.decode()
    small = client.get("/en/vram/?params=8").content.decode()
    assert "Your model (8B)" in small and "Your model (405B)" not in small


def test_parameters_a_page_does_not_use_make_no_entry_and_never_reach_the_page(client, seeded):
    for n in range(50):
        response = client.get(GPUS, {"utm_source": f"crawler-{n}"})
        assert response.status_code == 200
        assert "crawler" not in response.content.decode()  # not in the language links either
    assert page_entries() == 1
    client.get(GPUS, {"as_of": "2026-11-25"})  # a parameter the page reads: its own entry
    assert page_entries() == 2


def test_pages_as_of_a_day_long_ago_are_rendered_not_stored(client, seeded, settings):
    """Each valid day would be an entry per page (a check dated 2000-01-03 opens 9,500 of
    them); only the last PAGE_CACHE_PAST_DAYS days are stored. Today is 2026-11-29."""
    settings.PAGE_CACHE_PAST_DAYS = 7
    for day in ("2026-11-22", "2026-11-21", "2026-10-30"):
        response = client.get(GPUS, {"as_of": day})
        assert response.status_code == 200
    assert page_entries() == 1  # 2026-11-22, seven days ago
    old = client.get(URL, {"as_of": "2026-11-01"})
    assert old.status_code == 200 and "X-Page-Cache" not in old
    assert page_entries() == 1
    assert client.get(GPUS, {"as_of": "2000-01-03"}).status_code == 400  # before any check


def test_cache_keys_stay_short_and_plain_whatever_the_path(client, seeded):
    """Visitors choose the path; the key hashes it (memcached refuses keys over 250 bytes or
    with spaces and control characters, and Django warns of any such key)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        response = client.get("/en/compare/h100-vs-a100-80gb/", {"as_of": "\u202e<x> \r\n" * 30})
        assert response.status_code == 400
        assert client.get("/en/gpus/", {"q": "\u202e<x> \r\n" + "é" * 300}).status_code == 200


def test_absolute_urls_come_from_site_url_not_the_host_header(client, seeded, settings):
    settings.SITE_URL = "https://guide.example.com"
    body = client.get(GPUS, headers={"host": "localhost"}).content.decode()
    assert '<link rel="canonical" href="https://guide.example.com/de/gpus/">' in body
    assert 'hreflang="en" href="https://guide.example.com/en/gpus/"' in body
    assert "localhost" not in body
    sitemap = client.get("/sitemap.xml", headers={"host": "localhost"}).content.decode()
    assert "https://guide.example.com/en/" in sitemap and "localhost" not in sitemap


def test_cached_pages_are_served_while_the_database_is_down(client, seeded):
    _count, body = queries_for(client, URL)
    with mock.patch.object(
        connection, "ensure_connection", side_effect=OperationalError("connection refused")
    ):
        response = client.get(URL)
        assert response.status_code == 200 and response.content.decode() == body
        assert client.get("/de/vram/").status_code == 503  # never cached: the branded 503


def test_entries_expire_at_the_next_midnight():
    # The tests' clock stands at noon UTC (tests/conftest.py) and ticks on.
    assert 43_000 < versions.seconds_until_tomorrow() <= 43_200


# --- after a write -----------------------------------------------------------------------


def test_a_write_is_on_the_very_next_visit_never_the_previous_page(client, seeded, queued):
    _count, before = queries_for(client, URL)
    record_house_price()
    response = client.get(URL)
    assert response["X-Page-Cache"] == "miss" and "0,99\u00a0$" in response.content.decode()
    assert response.content.decode() != before


def test_a_write_queues_the_re_render_of_the_pages_it_affects(
    client, seeded, queued, django_capture_on_commit_callbacks, monkeypatch
):
    before = client.get(URL).content
    # Four of the listed pages in three languages (rendering every guide would take seconds).
    listed = [
        (lang, path)
        for lang, path in tasks.canonical_paths()
        if path.removeprefix(f"/{lang}") in ("/", "/gpus/", "/vram/", URL.removeprefix("/de"))
    ]
    monkeypatch.setattr(tasks, "canonical_paths", lambda: listed)
    for _language, path in listed:
        client.get(path)
    with django_capture_on_commit_callbacks(execute=True):
        record_competitor_price(gpu="b200")  # the guide's comparison quotes their B200
    [job] = [r for r in queued if r.task.name == "refresh_affected_pages"]
    other = Provider.objects.get(slug="massed-compute")
    assert job.kwargs == {"tags": [f"prices:{other.pk}"]}
    entries = {path: cache.get(http.page_key(lang, path, QueryDict())) for lang, path in listed}
    affected = [path for path, page in entries.items() if f"prices:{other.pk}" in page.versions]
    # the index shows today's prices and each guide's cheapest fit; the bare planner no prices
    assert URL in affected and "/de/" in affected and "/de/vram/" not in affected
    assert job.task.call(*job.args, **job.kwargs) == len(affected)  # only those rendered again
    response = client.get(URL)
    assert response["X-Page-Cache"] == "hit"  # the new check, rendered in the background
    assert response.content != before


def test_a_background_render_stores_the_page_a_visitor_would_get(client, seeded):
    """The task worker calls the views without the middleware: the page it stores is the one a
    visitor's own render stores, byte for byte, in each language."""
    slugs = tasks.guide_selectors.published_comparison_pairs()[0]
    paths = [
        f"/{lang}{page}"
        for lang in ("en", "de", "ja")
        for page in ("/", "/gpus/", "/vram/", URL.removeprefix("/de"), "/compare/{}-vs-{}/")
    ]
    paths = [path.format(*slugs) for path in paths]
    visited = {}
    for path in paths:
        assert client.get(path)["X-Page-Cache"] == "miss", path
        visited[path] = cache.get(http.page_key(path.split("/")[1], path, QueryDict())).body
    cache.clear()
    assert tasks.render_as_visitor([*paths, "/de/guides/no-such-guide/"]) == len(
        paths
    )  # the 404 skipped
    stored = {
        path: cache.get(http.page_key(path.split("/")[1], path, QueryDict())).body for path in paths
    }
    assert stored == visited


def test_a_background_render_stops_when_the_database_goes_away(seeded, monkeypatch, caplog):
    """The pages left render on their next visit; one warning says how many, not one
    traceback per page."""
    resolve = tasks.resolve
    calls = []

    def failing_from_the_second(path):
        calls.append(path)
        if len(calls) > 1:
            raise OperationalError("connection lost")
        return resolve(path)

    monkeypatch.setattr(tasks, "resolve", failing_from_the_second)
    assert tasks.render_as_visitor(["/en/", "/en/gpus/", "/de/", "/ja/"]) == 1
    assert len(calls) == 2
    assert [r.getMessage() for r in caplog.records if r.name == "guides.background.tasks"] == [
        "database unavailable: 3 pages left to render again"
    ]


# --- HTTP caching ------------------------------------------------------------------------


def test_public_pages_are_cacheable_and_answer_conditional_requests(client, seeded):
    response = client.get(URL)
    assert response["Cache-Control"] == "public, no-cache"  # kept, but asked for every time
    assert response["ETag"] and response["Last-Modified"]
    assert "Accept-Language" not in response.get("Vary", "")  # the language is in the path
    again = client.get(URL, headers={"if-none-match": response["ETag"]})
    assert again.status_code == 304 and again.content == b""
    since = client.get(URL, headers={"if-modified-since": response["Last-Modified"]})
    assert since.status_code == 304
    assert "Accept-Language" in client.get("/").get("Vary", "")  # the redirect reads it


def test_pages_are_compressed_for_clients_that_accept_it(client, seeded):
    plain = client.get(URL).content
    response = client.get(URL, headers={"accept-encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == plain
    assert len(response.content) < len(plain) / 3


def test_a_cached_page_is_served_gzipped_as_it_was_stored(client, seeded):
    plain = client.get(URL).content  # rendered and stored, with its gzipped body
    with mock.patch("django.middleware.gzip.compress_string") as compress_again:
        response = client.get(URL, headers={"accept-encoding": "gzip, deflate, br, zstd"})
    compress_again.assert_not_called()
    assert response["X-Page-Cache"] == "hit" and response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == plain
    assert response.content == compress_string(plain)  # the bytes GZipMiddleware would send
    assert response["Content-Length"] == str(len(response.content))
    assert "Accept-Encoding" in response["Vary"]
    assert response["ETag"] == f"W/{client.get(URL)['ETag']}"
    again = client.get(URL, headers={"if-none-match": response["ETag"], "accept-encoding": "gzip"})
    assert again.status_code == 304
    identity = client.get(URL)
    assert identity.content == plain and "Content-Encoding" not in identity
    assert "Accept-Encoding" in identity["Vary"]


def test_the_first_render_is_compressed_once_too(client, seeded):
    response = client.get(URL, headers={"accept-encoding": "gzip"})
    assert response["X-Page-Cache"] == "miss" and response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == client.get(URL).content


# --- cached reads: reference data, prices and guides, under their tags' versions --------

GUIDE_TABLES = ("guides_guide", "guides_section", "guides_faqentry", "guides_guidesource")


def render_after_write(client) -> tuple[list[str], str]:
    """The SQL of a render with the versions and reads cached but not the page, and the
    page's text."""
    forget_cached_pages()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries], response.content.decode()


def reads_the_guide(sql: list[str]) -> bool:
    return any(f'"{table}"' in query for query in sql for table in GUIDE_TABLES)


def test_a_price_check_re_renders_the_guide_without_reading_it_again(client, seeded):
    client.get(URL)
    record_house_price()
    as_if_committed()
    sql, page = render_after_write(client)
    assert not reads_the_guide(sql)
    # the version check, the version table (it changed), the prices and their check days
    assert len(sql) == 4
    assert "0,99\xa0$" in page  # the new price, in the cached guide's prose and tables


def test_an_edit_of_the_guide_reads_it_again(client, seeded):
    client.get(URL)
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.heading_de = "Neue Überschrift"
    section.save()
    sql, page = render_after_write(client)
    assert reads_the_guide(sql)
    assert "Neue Überschrift" in page
    sql, _page = render_after_write(client)
    assert not reads_the_guide(sql)  # and then keeps it


def test_an_unpublished_guide_is_not_served_from_the_cache(client, seeded):
    client.get(URL)
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.status = Guide.Status.DRAFT
    guide.save()
    forget_cached_pages()
    assert client.get(URL).status_code == 404


def test_a_renamed_guide_is_found_under_its_new_slug_only(client, seeded):
    client.get(URL)
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.slug = f"{GUIDE_SLUG}-renamed"
    guide.save()
    forget_cached_pages()
    assert client.get(URL).status_code == 404
    assert client.get(f"/de/guides/{GUIDE_SLUG}-renamed/").status_code == 200


RUNS = [  # the seed's measurements (tests/pricing/test_selectors.py), tokens per second on H200
    ({"language_model": "llama-3.1-8b", "seq_len": 2048, "batch_size": 4,
      "gradient_checkpointing": True}, {"qlora": D("2925.5"), "lora": D("6519.7")}),
    ({"language_model": "llama-3.1-8b", "seq_len": 2048, "batch_size": 4,
      "gradient_checkpointing": False}, {"lora": D("9178.7")}),
    ({"language_model": "llama-3.1-8b", "seq_len": 2048, "batch_size": 1,
      "gradient_checkpointing": True}, {"full-8bit-adam": D("3706.8")}),
    ({"language_model": "llama-3.1-70b", "seq_len": 512, "batch_size": 1,
      "gradient_checkpointing": True}, {"lora": D("422.7")}),
]  # fmt: skip


def test_each_run_s_measurements_are_cached_apart(seeded):
    """Every part of the run is in the read's key and reaches the query: one run's cached
    measurements are never another's."""
    cache.clear()
    for run, tokens_per_s in RUNS:
        found = reference_data.throughputs_for_run(**run)
        assert {method: m.tokens_per_s for method, m in found.items()} == tokens_per_s
    unread = mock.patch.object(
        reference_data.selectors, "throughputs_for_run", side_effect=AssertionError("read")
    )
    with unread:  # each from the cache now, still apart
        for run, tokens_per_s in RUNS:
            found = reference_data.throughputs_for_run(**run)
            assert {method: m.tokens_per_s for method, m in found.items()} == tokens_per_s
