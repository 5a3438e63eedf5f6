"""Requests a minute per client address to the API and the planner (API_RATE_LIMIT)."""

from ipaddress import ip_network

import pytest
import time_machine

from gpuguide.lib import rate_limits

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
