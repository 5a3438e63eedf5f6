"""Requests a minute per client address to the API and the planner (API_RATE_LIMIT)."""

import re
from ipaddress import ip_network
from pathlib import Path

import pytest
import time_machine

from gpuguide.lib import rate_limits
from guides import views

ROOT = Path(__file__).resolve().parents[3]
GPUS = "/api/v1/gpus/"
PLANNER = "/de/vram/?model=llama-3.1-8b&method=qlora"


@pytest.fixture
def limit_of_three(settings):
    settings.API_RATE_LIMIT = 3


@pytest.mark.usefixtures("limit_of_three")
def test_the_api_answers_429_beyond_the_limit_per_address(client, seeded):
    with time_machine.travel("2026-12-03 10:00:15 +0000", tick=False):
        answers = [client.get(GPUS, REMOTE_ADDR="198.51.100.1") for _ in range(4)]
        assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
        refused = answers[-1]
        assert refused["Retry-After"] == "45"  # the minute's window ends at 10:01:00
        assert refused.json() == {
            "detail": "Too many requests: at most 3 a minute from one address. Try again in 45 s."
        }
        assert refused["Cache-Control"] == "no-store"
        assert client.get(GPUS, REMOTE_ADDR="198.51.100.2").status_code == 200
    with time_machine.travel("2026-12-03 10:01:00 +0000", tick=False):
        assert client.get(GPUS, REMOTE_ADDR="198.51.100.1").status_code == 200


@pytest.mark.usefixtures("limit_of_three")
def test_the_planner_is_limited_when_asked_and_its_bare_page_is_not(client, seeded):
    for _ in range(5):
        assert client.get("/de/vram/", REMOTE_ADDR="198.51.100.1").status_code == 200
    answers = [client.get(PLANNER, REMOTE_ADDR="198.51.100.1") for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    body = answers[-1].content.decode()
    assert "Zu viele Anfragen" in body
    assert "höchstens 3 Anfragen pro Minute" in body
    assert int(answers[-1]["Retry-After"]) in range(1, 61)
    # The form's POST (a pasted config.json) asks too, with nothing in the query.
    posted = client.post("/de/vram/", {"config_json": "{}"}, REMOTE_ADDR="198.51.100.1")
    assert posted.status_code == 429


@pytest.mark.usefixtures("limit_of_three")
def test_behind_a_trusted_proxy_each_visitor_has_a_limit_of_their_own(client, seeded, settings):
    settings.TRUSTED_PROXIES = (ip_network("127.0.0.1/32"),)

    def via_proxy(visitor: str) -> int:
        return client.get(GPUS, REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=visitor).status_code

    assert [via_proxy("203.0.113.1") for _ in range(4)] == [200, 200, 200, 429]
    assert via_proxy("203.0.113.2") == 200
    # A visitor cannot escape by writing the header themselves: the proxy appends its entry.
    assert via_proxy("1.2.3.4, 203.0.113.1") == 429


def test_no_limit_when_set_to_zero(client, seeded, settings):
    settings.API_RATE_LIMIT = 0
    assert {client.get(GPUS).status_code for _ in range(5)} == {200}


def test_a_count_is_per_scope_client_and_window(db):
    first = rate_limits.count("api", "a", window=60, now=120.0)
    assert (first.number, first.window_left) == (1, 60)
    assert rate_limits.count("api", "a", window=60, now=170.5).number == 2
    assert rate_limits.count("api", "b", window=60, now=170.5).number == 1
    assert rate_limits.count("other", "a", window=60, now=170.5).number == 1
    assert rate_limits.count("api", "a", window=60, now=180.0).number == 1  # the next minute


# Requests at once per process (COMPUTE_CONCURRENCY) ------------------------------------------


@pytest.fixture
def all_slots_taken(settings):
    """The process computes all it may: the cap's two slots are held (as two running planner
    requests would hold them) until the test ends."""
    settings.COMPUTE_CONCURRENCY = 2
    slots = rate_limits._slots(2)
    assert slots.acquire(blocking=False) and slots.acquire(blocking=False)
    yield slots
    slots.release()
    slots.release()


@pytest.mark.usefixtures("all_slots_taken")
def test_the_api_answers_503_when_the_process_computes_all_it_may(client, seeded):
    busy = client.get(GPUS)
    assert busy.status_code == 503
    assert busy.json() == {"detail": "Busy: too many requests at once. Try again in 5 s."}
    assert busy["Retry-After"] == "5"
    assert busy["Cache-Control"] == "no-store"


@pytest.mark.usefixtures("all_slots_taken")
def test_the_planner_answers_its_busy_page_and_the_rest_of_the_site_is_not_capped(
    client, seeded, admin_user
):
    busy = client.get(PLANNER)
    assert busy.status_code == 503
    assert busy["Retry-After"] == "5"
    assert busy["Cache-Control"] == "no-store"
    body = busy.content.decode()
    assert "Der Planer ist ausgelastet" in body
    assert "Versuchen Sie es in 5 Sekunden erneut." in body
    # The cached pages, the planner's bare page and the admin compute nothing: never refused.
    for path in ("/de/vram/", "/en/gpus/", "/en/admin/login/"):
        assert client.get(path).status_code == 200, path
    client.force_login(admin_user)
    assert client.get("/en/admin/").status_code == 200


def test_each_computing_request_holds_a_slot_until_it_ends_even_on_an_exception(
    client, seeded, settings, monkeypatch
):
    settings.COMPUTE_CONCURRENCY = 1
    slots = rate_limits._slots(1)
    tried = []

    def planner_that_fails(*args, **kwargs):
        tried.append(slots.acquire(blocking=False))  # False: this request holds the only slot
        raise RuntimeError("the planner failed")

    monkeypatch.setattr(views.planner, "plan", planner_that_fails)
    client.raise_request_exception = False
    assert client.get(PLANNER).status_code == 500
    assert tried == [False]
    assert slots.acquire(blocking=False)  # given back after the exception
    slots.release()
    # ... and after each answer: one slot serves one request after another.
    assert [client.get(GPUS).status_code for _ in range(3)] == [200, 200, 200]


def test_no_cap_when_set_to_zero(client, seeded, settings):
    settings.COMPUTE_CONCURRENCY = 0
    assert client.get(GPUS).status_code == 200


def test_varnish_caps_the_routes_the_app_caps(client, seeded, settings):
    """deploy/varnish.vcl sends to its capped `compute` backends the routes ``_limited`` names."""
    settings.API_RATE_LIMIT = settings.COMPUTE_CONCURRENCY = 0
    vcl = (ROOT / "deploy" / "varnish.vcl").read_text()
    edge = re.search(r'if \(req\.url ~ "(.+)"\) \{\s+set req\.backend_hint = compute', vcl)
    computing = re.compile(edge.group(1))
    urls = [
        GPUS, PLANNER, "/api/v1/openapi.json", "/en/vram/?as_of=2026-12-01", "/en/vram/",
        "/en/", "/en/gpus/", "/en/admin/login/", "/sitemap.xml", "/en/gpus/?q=vram",
    ]  # fmt: skip
    for url in urls:
        request = client.get(url).wsgi_request
        assert bool(computing.match(url)) == rate_limits._limited(request), url
