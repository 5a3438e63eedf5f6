"""Metrics and logs: /metrics behind its token, what it exports, the page cache's counters,
request ids (believed from our proxies only) and the JSON log line."""

import io
import json
import logging
import re
from datetime import date, timedelta
from decimal import Decimal as D

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from gpuguide.lib.request_ids import JsonFormatter, RequestIdFilter
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG

TOKEN = "scrape-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
PROXY = "10.0.0.5"
pytestmark = pytest.mark.django_db


@pytest.fixture
def token(settings):
    settings.METRICS_TOKEN = TOKEN


def scrape(client) -> dict[tuple[str, tuple], float]:
    """(sample name, sorted labels) -> value, from /metrics."""
    response = client.get("/metrics", headers=AUTH)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def counter(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_without_a_token_setting_metrics_is_not_there(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers=AUTH).status_code == 404


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer", TOKEN],
)
def test_a_wrong_or_missing_token_is_refused(client, token, authorization):
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"gpuguide_" not in response.content


def test_metrics_is_never_cached_and_not_under_a_language(client, token):
    response = client.get("/metrics", headers=AUTH)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert "private" in response["Cache-Control"]
    assert "X-Page-Cache" not in response
    assert client.get("/en/metrics", headers=AUTH).status_code == 404


def test_the_exposition_has_what_an_operator_watches(client, token, seeded):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 28),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip
    waiting = DBTaskResult.objects.create(
        args_kwargs={"args": [], "kwargs": {}}, task_path="guides.background.tasks.refresh_pages",
        backend_name="default", run_after=timezone.now() - timedelta(minutes=5),
    )  # fmt: skip
    DBTaskResult.objects.filter(pk=waiting.pk).update(
        enqueued_at=timezone.now() - timedelta(minutes=10)
    )
    DBTaskResult.objects.create(  # done: not waiting
        args_kwargs={"args": [], "kwargs": {}}, task_path="guides.background.tasks.refresh_pages",
        backend_name="default", run_after=timezone.now(), status="SUCCESSFUL",
    )  # fmt: skip
    assert client.get("/en/")["X-Page-Cache"] == "miss"
    assert client.get("/en/")["X-Page-Cache"] == "hit"

    samples = scrape(client)
    assert samples[("gpuguide_page_cache_misses_total", ())] >= 1
    assert samples[("gpuguide_page_cache_hits_total", ())] >= 1
    assert ("gpuguide_page_cache_stale_total", ()) in samples
    index = (("method", "GET"), ("view", "guides:index"))
    assert samples[("django_http_requests_latency_seconds_by_view_method_count", index)] >= 1
    answered = (("method", "GET"), ("status", "200"), ("view", "guides:index"))
    assert samples[("django_http_responses_total_by_status_view_method_total", answered)] >= 1
    assert samples[("django_http_requests_latency_including_middlewares_seconds_count", ())] >= 2
    assert samples[("gpuguide_page_render_seconds_count", ())] >= 1
    assert samples[("gpuguide_task_queue_depth", ())] == 1
    assert 600 <= samples[("gpuguide_task_queue_oldest_age_seconds", ())] < 900
    # The clock stands at 2026-11-29 12:00 UTC (ticking): 36 hours after the check's day began.
    age = samples[("gpuguide_price_check_age_seconds", (("provider", "gpuwithcrypto"),))]
    assert 36 * 3600 <= age < 36 * 3600 + 300
    text = client.get("/metrics", headers=AUTH).content.decode()
    assert 'gpuguide_price_check_age_seconds{provider="gpuwithcrypto"}' in text
    assert re.search(r"^gpuguide_task_queue_depth 1\.0$", text, re.MULTILINE)


def test_made_up_methods_and_paths_add_no_series(client, token, db):
    client.generic("BREW", "/en/")
    client.get("/no-such-path/")
    samples = scrape(client)
    methods = {dict(labels).get("method") for _name, labels in samples}
    views = {dict(labels).get("view") for _name, labels in samples}
    assert "BREW" not in methods and "<invalid method>" in methods
    assert not any("no-such-path" in str(view) for view in views)


def test_an_empty_queue_is_zero_deep_and_zero_old(client, token, seeded):
    samples = scrape(client)
    assert samples[("gpuguide_task_queue_depth", ())] == 0
    assert samples[("gpuguide_task_queue_oldest_age_seconds", ())] == 0


def test_a_page_visited_twice_is_one_miss_then_one_hit(client, seeded):
    url = f"/de/guides/{GUIDE_SLUG}/"
    before = {
        "miss": counter("gpuguide_page_cache_misses_total"),
        "hit": counter("gpuguide_page_cache_hits_total"),
        "stale": counter("gpuguide_page_cache_stale_total"),
        "renders": counter("gpuguide_page_render_seconds_count"),
    }

    def deltas() -> dict[str, float]:
        now = {
            "miss": counter("gpuguide_page_cache_misses_total"),
            "hit": counter("gpuguide_page_cache_hits_total"),
            "stale": counter("gpuguide_page_cache_stale_total"),
            "renders": counter("gpuguide_page_render_seconds_count"),
        }
        return {name: now[name] - before[name] for name in now}

    assert client.get(url)["X-Page-Cache"] == "miss"
    assert deltas() == {"miss": 1, "hit": 0, "stale": 0, "renders": 1}
    assert client.get(url)["X-Page-Cache"] == "hit"
    assert deltas() == {"miss": 1, "hit": 1, "stale": 0, "renders": 1}

    # A price check the page reads: the stored copy is stale, rendered again.
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip
    assert client.get(url)["X-Page-Cache"] == "miss"
    assert deltas() == {"miss": 1, "hit": 1, "stale": 1, "renders": 2}


def test_each_answer_carries_a_request_id_of_its_own(client):
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert re.fullmatch(r"[0-9a-f]{32}", second)
    assert first != second


def test_a_request_id_is_taken_from_a_trusted_proxy_only(client, settings):
    settings.TRUSTED_PROXIES = ()
    sent = {"X-Request-ID": "edge-4f2a9c"}
    from_anyone = client.get("/healthz", headers=sent, REMOTE_ADDR=PROXY)["X-Request-ID"]
    assert from_anyone != "edge-4f2a9c"
    assert re.fullmatch(r"[0-9a-f]{32}", from_anyone)

    from ipaddress import ip_network

    settings.TRUSTED_PROXIES = (ip_network("10.0.0.5/32"),)
    assert client.get("/healthz", headers=sent, REMOTE_ADDR=PROXY)["X-Request-ID"] == "edge-4f2a9c"
    # Not from that proxy, or not a plausible id: one of ours instead.
    assert client.get("/healthz", headers=sent, REMOTE_ADDR="10.0.0.6")["X-Request-ID"] != (
        "edge-4f2a9c"
    )
    odd = client.get("/healthz", headers={"X-Request-ID": "a b\tc"}, REMOTE_ADDR=PROXY)
    assert re.fullmatch(r"[0-9a-f]{32}", odd["X-Request-ID"])


def test_a_json_log_line_carries_the_request_id(client, settings):
    from ipaddress import ip_network

    settings.TRUSTED_PROXIES = (ip_network("10.0.0.5/32"),)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        response = client.get(
            "/en/no-such-page/", headers={"X-Request-ID": "edge-77"}, REMOTE_ADDR=PROXY
        )
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 404
    [line] = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["request_id"] == "edge-77"
    assert record["level"] == "WARNING"
    assert record["logger"] == "django.request"
    assert record["message"] == "Not Found: /en/no-such-page/"
    assert re.fullmatch(r"2026-11-29T12:\d\d:\d\d\.\d{3}\+00:00", record["time"])
    after = logging.LogRecord("x", logging.INFO, __file__, 1, "after", None, None)
    RequestIdFilter().filter(after)
    assert after.request_id == "-"  # the request is finished


def test_outside_a_request_the_id_is_a_dash():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    RequestIdFilter().filter(record)
    assert record.request_id == "-"
    assert json.loads(JsonFormatter().format(record))["request_id"] == "-"


def test_the_settings_choose_the_json_format_only_when_asked(settings):
    handler = settings.LOGGING["handlers"]["console"]
    assert handler["formatter"] == "plain"
    assert handler["filters"] == ["request_id"]
    assert settings.LOGGING["formatters"]["plain"] == {"format": "%(message)s"}
