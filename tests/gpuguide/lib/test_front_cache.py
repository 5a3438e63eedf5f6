"""The front cache (Varnish, a CDN): which answers it may keep and under which tags, and the
purges the task worker sends after a write (gpuguide/lib/front_cache.py). The whole stack,
Varnish included, is tested in tests/reliability/test_stack.py."""

import json
import threading
import urllib.error
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal as D
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import timezone
from django_tasks import default_task_backend

from gpuguide.lib import front_cache
from guides.background import tasks
from guides.models import Guide
from guides.pagecache import http, versions
from pricing.models import Provider
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG

GUIDE = f"/de/guides/{GUIDE_SLUG}/"
VARNISH = {"FRONT_CACHE": "varnish", "FRONT_CACHE_PURGE_URLS": ["http://127.0.0.1:9/"]}


@pytest.fixture
def varnish(settings):
    for name, value in VARNISH.items():
        setattr(settings, name, value)


def guide_tags() -> str:
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    providers = sorted(f"prices:{pk}" for pk in Provider.objects.values_list("pk", flat=True))
    return " ".join(sorted([f"guide:{guide.pk}", *providers, "site"]))


def test_a_public_page_carries_its_tags_and_lives_until_midnight_on_a_miss_and_a_hit(
    client, seeded, varnish
):
    miss = client.get(GUIDE)
    hit = client.get(GUIDE)
    assert (miss["X-Page-Cache"], hit["X-Page-Cache"]) == ("miss", "hit")
    for response in (miss, hit):
        assert response["xkey"] == guide_tags()
        max_age = int(response["Surrogate-Control"].removeprefix("max-age="))
        # worked out when the response was made: at most a second or two more than now
        assert 0 <= max_age - versions.seconds_until_tomorrow() <= 2
        # The browser still asks every time; the front cache answers it.
        assert response["Cache-Control"] == "public, no-cache"
        # One copy for every visitor: the render read no session (no "Vary: Cookie").
        assert response["Vary"] == "Accept-Encoding"


def test_the_index_carries_every_published_guide_s_tag(client, seeded, varnish):
    tags = client.get("/en/")["xkey"].split()
    published = Guide.objects.filter(status=Guide.Status.PUBLISHED)
    assert {f"guide:{pk}" for pk in published.values_list("pk", flat=True)} <= set(tags)
    assert {"guides", "site"} <= set(tags)


@pytest.mark.parametrize(
    "url",
    [
        f"{GUIDE}?utm_source=mail",  # a parameter the page does not read: one page, many URLs
        "/en/vram/?params=70",  # the planner's answer to a visitor's input
        "/en/guides/no-such-guide/",  # a 404
        "/api/v1/memory/?model=llama-3-70b&method=qlora",
    ],
)
def test_what_the_front_cache_must_not_keep_carries_no_tags(client, seeded, varnish, url):
    response = client.get(url)
    assert "xkey" not in response and "Surrogate-Control" not in response


def test_a_signed_in_editor_s_page_is_not_for_the_front_cache(admin_client, seeded, varnish):
    response = admin_client.get(GUIDE)
    assert response.status_code == 200
    assert "xkey" not in response and "no-store" in response["Cache-Control"]


def test_without_a_front_cache_pages_carry_no_tags(client, seeded):
    response = client.get(GUIDE)
    assert "xkey" not in response and "Surrogate-Control" not in response


def test_a_page_rendered_while_a_write_committed_is_not_given_to_the_front_cache(seeded, varnish):
    """Its purge may reach the front cache before the page does, which would then keep the
    older page until the next purge."""
    request = RequestFactory().get("/de/gpus/")
    before = versions.current()

    def render_during_a_price_check() -> HttpResponse:
        price_check_record(provider_slug="massed-compute", checked_on=date(2026, 11, 20),
                           prices={"h100": D("9.99")})  # fmt: skip
        return HttpResponse("a page read before the write")

    response = http._render_and_store("k", render_during_a_price_check, request, front_since=before)
    assert response.status_code == 200 and "xkey" not in response

    quiet = http._render_and_store(
        "k2", lambda: HttpResponse("a page"), request, front_since=versions.current()
    )
    assert quiet["xkey"] == "site"


def test_a_write_queues_the_purge_of_its_tags_before_the_re_render(
    seeded, varnish, django_capture_on_commit_callbacks, time_machine
):
    time_machine.move_to(datetime(2026, 11, 29, 12, tzinfo=UTC), tick=False)
    default_task_backend.clear()
    with django_capture_on_commit_callbacks(execute=True):
        price_check_record(provider_slug="massed-compute", checked_on=date(2026, 11, 20),
                           prices={"h100": D("9.99")})  # fmt: skip
    provider = Provider.objects.get(slug="massed-compute")
    tags = {"tags": [f"prices:{provider.pk}"]}
    now = timezone.now()
    queued = [
        (r.task.name, r.kwargs, r.task.queue_name, r.task.run_after and r.task.run_after - now)
        for r in default_task_backend.results
    ]
    # The purge at once and again a second on; the re-render after the visitors' own renders.
    assert queued == [
        ("purge_front_cache", tags, "purges", None),
        ("purge_front_cache", tags, "purges", timedelta(seconds=1)),
        ("refresh_affected_pages", tags, "default", timedelta(seconds=3)),
    ]
    default_task_backend.clear()


def test_without_a_front_cache_a_write_queues_no_purge(seeded, django_capture_on_commit_callbacks):
    default_task_backend.clear()
    with django_capture_on_commit_callbacks(execute=True):
        price_check_record(provider_slug="massed-compute", checked_on=date(2026, 11, 20),
                           prices={"h100": D("9.99")})  # fmt: skip
    assert [r.task.name for r in default_task_backend.results] == ["refresh_affected_pages"]
    default_task_backend.clear()


# --- the purge requests, to a real HTTP server standing in for Varnish or the CDN's API ---


class Recorder(BaseHTTPRequestHandler):
    """Records each request; answers with the status the test sets (``server.status``)."""

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append((self.command, self.path, self.headers, body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PURGE = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def purge_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.seen, server.status = [], 200
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()
    server.server_close()


def test_varnish_gets_one_purge_per_instance_naming_every_tag(settings, purge_server):
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = [f"{purge_server.url}/", f"{purge_server.url}/second"]
    assert front_cache.purge(["site", "guide:3", "prices:1"]) == 2
    seen = purge_server.seen
    assert [(method, path, headers["xkey-purge"]) for method, path, headers, _ in seen] == [
        ("PURGE", "/", "guide:3 prices:1 site"),
        ("PURGE", "/second", "guide:3 prices:1 site"),
    ]  # fmt: skip


def test_fastly_is_purged_by_surrogate_key(settings, purge_server):
    settings.FRONT_CACHE, settings.FASTLY_API_URL = "fastly", purge_server.url
    settings.FASTLY_SERVICE_ID, settings.FASTLY_API_TOKEN = "SU1Z0isxPaozGVKXdv0eY", "token-1"
    assert front_cache.purge(["prices:2", "guide:1"]) == 1
    [(method, path, headers, _body)] = purge_server.seen
    assert (method, path) == ("POST", "/service/SU1Z0isxPaozGVKXdv0eY/purge")
    assert (headers["Fastly-Key"], headers["Surrogate-Key"]) == ("token-1", "guide:1 prices:2")


def test_cloudflare_is_purged_by_tag_thirty_at_a_time(settings, purge_server):
    settings.FRONT_CACHE, settings.CLOUDFLARE_API_URL = "cloudflare", purge_server.url
    settings.CLOUDFLARE_ZONE_ID, settings.CLOUDFLARE_API_TOKEN = "zone9", "token-2"
    tags = [f"guide:{n}" for n in range(31)]
    assert front_cache.purge(tags) == 2
    bodies = [json.loads(body) for _m, _p, _h, body in purge_server.seen]
    assert [len(body["tags"]) for body in bodies] == [30, 1]
    assert sorted(bodies[0]["tags"] + bodies[1]["tags"]) == sorted(tags)
    method, path, headers, _ = purge_server.seen[0]
    assert (method, path, headers["Authorization"]) == (
        "POST",
        "/zones/zone9/purge_cache",
        "Bearer token-2",
    )


def test_cloudflare_pages_carry_cache_tags_and_a_cdn_lifetime(client, seeded, settings):
    settings.FRONT_CACHE = "cloudflare"
    response = client.get(GUIDE)
    assert response["Cache-Tag"] == guide_tags().replace(" ", ",")
    assert response["CDN-Cache-Control"].startswith("max-age=")
    assert "xkey" not in response


def test_a_purge_not_confirmed_is_tried_three_times_then_fails_loudly(settings, purge_server):
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = [f"{purge_server.url}/"]
    purge_server.status = 503
    waits = []
    with pytest.raises(front_cache.PurgeFailed) as failed:
        front_cache.purge(["prices:1"], sleep=waits.append)
    assert len(purge_server.seen) == 3 and waits == list(front_cache.RETRY_WAITS)
    assert str(failed.value) == (
        f"purge of prices:1 not confirmed: PURGE {purge_server.url}/: 503 Service Unavailable"
    )


def test_the_purge_task_fails_when_varnish_cannot_be_reached(settings, monkeypatch):
    monkeypatch.setattr(front_cache, "RETRY_WAITS", (0.0, 0.0))  # no waiting in a test
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = ["http://127.0.0.1:9/"]  # nothing listens on port 9
    with pytest.raises(front_cache.PurgeFailed, match="refused"):
        tasks.purge_front_cache.call(tags=["site"])


# --- the headers and purges pinned one by one (mutation testing: scripts/mutation_report.py) ---


@pytest.mark.parametrize(
    ("kind", "headers"),
    [
        ("varnish", {"xkey": "guide:3 site", "Surrogate-Control": "max-age=3600"}),
        ("fastly", {"Surrogate-Key": "guide:3 site", "Surrogate-Control": "max-age=3600"}),
        ("cloudflare", {"Cache-Tag": "guide:3,site", "CDN-Cache-Control": "max-age=3600"}),
    ],
)
def test_each_front_cache_gets_its_own_headers_and_no_other(settings, kind, headers):
    settings.FRONT_CACHE = kind
    response = HttpResponse("a page")
    front_cache.mark_cacheable(response, {"site", "guide:3"}, 3600)
    named = {"xkey", "Surrogate-Key", "Surrogate-Control", "Cache-Tag", "CDN-Cache-Control"}
    assert {name: response[name] for name in named if name in response} == headers


def test_nothing_to_purge_sends_nothing_and_confirms_nothing(settings, purge_server):
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = [f"{purge_server.url}/"]
    assert front_cache.purge([]) == 0
    settings.FRONT_CACHE = ""
    assert front_cache.purge(["site"]) == 0
    assert purge_server.seen == []


def test_cloudflare_s_purge_is_a_json_post(settings, purge_server):
    settings.FRONT_CACHE, settings.CLOUDFLARE_API_URL = "cloudflare", purge_server.url
    settings.CLOUDFLARE_ZONE_ID, settings.CLOUDFLARE_API_TOKEN = "zone9", "token-2"
    assert front_cache.purge(["site", "guide:1"]) == 1
    [(method, _path, headers, body)] = purge_server.seen
    assert (method, headers["Content-Type"], body) == (
        "POST",
        "application/json",
        b'{"tags": ["guide:1", "site"]}',
    )


def test_a_failed_purge_names_every_tag_and_every_request_and_logs_each_attempt(
    settings, purge_server, caplog
):
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = [f"{purge_server.url}/a", f"{purge_server.url}/b"]
    purge_server.status = 503
    with caplog.at_level("WARNING", logger="gpuguide.lib.front_cache"):
        with pytest.raises(front_cache.PurgeFailed) as failed:
            front_cache.purge(["site", "guide:3"], sleep=lambda _seconds: None)
    assert str(failed.value) == (
        f"purge of guide:3, site not confirmed: PURGE {purge_server.url}/a: 503 Service "
        f"Unavailable; PURGE {purge_server.url}/b: 503 Service Unavailable"
    )
    assert [record.getMessage() for record in caplog.records] == [
        f"front cache purge {purge_server.url}/{path} failed: 503 Service Unavailable"
        for path in "aaabbb"
    ]


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (urllib.error.URLError("no route to host"), "no route to host"),  # its reason alone
        (TimeoutError("timed out"), "timed out"),  # an OSError without a reason
    ],
)
def test_an_unreachable_front_cache_is_named_by_its_reason_and_never_waited_on_for_ever(
    settings, monkeypatch, error, said
):
    settings.FRONT_CACHE = "varnish"
    settings.FRONT_CACHE_PURGE_URLS = ["http://varnish.invalid/"]
    timeouts = []

    def unreachable(request, **options):
        timeouts.append(options.get("timeout"))
        raise error

    monkeypatch.setattr(front_cache.urllib.request, "urlopen", unreachable)
    with pytest.raises(front_cache.PurgeFailed) as failed:
        front_cache.purge(["site"], sleep=lambda _seconds: None)
    assert str(failed.value) == (
        f"purge of site not confirmed: PURGE http://varnish.invalid/: {said}"
    )
    assert timeouts == [5.0, 5.0, 5.0]  # TIMEOUT, each attempt
