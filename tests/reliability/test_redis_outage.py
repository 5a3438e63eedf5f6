"""A Redis that does not answer costs speed, never an answer (django-redis with
gpuguide/lib/redis_cache.py), nor a throttle: sign-in's and password reset's count in the
database.

Against a port nobody listens on, so these need no Redis; tests/reliability/test_processes.py
kills a real one under two app servers."""

import logging
import socket
from unittest import mock

import pytest
import redis
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django_redis.cache import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError

from accounts.throttling import KNOWN_BROWSER_COOKIE
from tests.accounts.test_throttling import PASSWORD, RESET, sign_in
from tests.guides.pagecache.test_caching import URL

# As settings build them for CACHE_URL=redis://...
OPTIONS = {
    "CLIENT_CLASS": "gpuguide.lib.redis_cache.Client",
    "REDIS_CLIENT_CLASS": "gpuguide.lib.redis_cache.Redis",
    "IGNORE_EXCEPTIONS": True,
    "SOCKET_CONNECT_TIMEOUT": 0.25,
    "SOCKET_TIMEOUT": 0.5,
}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is


@pytest.fixture
def down(settings):
    """The backend as settings build it for CACHE_URL=redis://..., on a closed port."""
    settings.REDIS_RETRY_SECONDS = 30
    return RedisCache(f"redis://127.0.0.1:{closed_port()}/0", {"OPTIONS": OPTIONS})


@pytest.fixture
def site_cache_down(settings):
    """The site's default cache (every ``cache`` the code imports) on a closed port."""
    settings.REDIS_RETRY_SECONDS = 30
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
            "OPTIONS": OPTIONS,
        }
    }


def test_every_call_reads_as_a_miss_and_stores_nothing(down, settings):
    settings.REDIS_RETRY_SECONDS = 0  # each call asks
    assert down.get("page", "default") == "default"
    assert down.get_many(["a", "b"]) == {}
    assert not down.add("lock", 1)  # not taken: nothing is queued twice
    down.set("page", "body")
    down.set_many({"a": 1})
    assert not down.delete("page")
    down.delete_many(["a"])
    assert not down.has_key("page")
    assert not down.touch("page")
    down.clear()


def test_a_counter_is_never_found_while_redis_fails(down):
    down.add("count", 0)
    with pytest.raises(ValueError):  # as for any missing key, never a count that stays put
        down.incr("count")


def redis_answering(**command):
    """redis-py's commands, answered as ``command`` says (``side_effect`` or ``return_value``)."""
    return mock.patch.object(redis.Redis, "execute_command", **command)


def refused(*_args, **_options):
    raise RedisConnectionError("refused")


def test_after_a_failure_redis_is_left_alone_for_a_while_and_logged_once(down, caplog):
    with (
        caplog.at_level(logging.ERROR, logger="gpuguide.lib.redis_cache"),
        redis_answering(side_effect=refused) as asked,
    ):
        for _ in range(5):
            assert down.get("page") is None
    assert asked.call_count == 1  # the four after it did not ask
    [logged] = caplog.records
    assert logged.getMessage().startswith("Redis is not answering (refused)")


def test_redis_is_asked_again_after_the_rest_and_its_return_logged(down, caplog, settings):
    settings.REDIS_RETRY_SECONDS = 0
    with redis_answering(side_effect=refused):
        assert down.get("page") is None
    caplog.clear()
    with (
        caplog.at_level(logging.WARNING, logger="gpuguide.lib.redis_cache"),
        redis_answering(return_value=b"5"),
    ):
        assert down.get("page") == 5
        assert down.get("page") == 5
    assert [r.getMessage().split(" after")[0] for r in caplog.records] == ["Redis answers again"]


def test_pages_render_from_the_database_while_the_cache_is_down(client, seeded, down):
    with (
        mock.patch("guides.pagecache.http.cache", down),
        mock.patch("guides.pagecache.reads.cache", down),
        mock.patch("guides.pages.selectors.cache", down),
    ):
        first = client.get(URL)
        again = client.get(URL)
    assert first.status_code == again.status_code == 200
    assert again["X-Page-Cache"] == "miss"  # nothing kept: rendered again from the database
    assert "H100" in again.content.decode()


# --- Sign-in and password reset, with the site's cache down ----------------------------------

SPELLINGS = ["erika", "erika ", "ｅｒｉｋａ", " ｅｒｉｋａ "]  # one account to sign-in


def test_failures_in_any_spelling_still_lock_the_pair(client, editor, site_cache_down):
    tries = [sign_in(client, SPELLINGS[n % 4], "wrong").status_code for n in range(8)]
    assert tries == [200] * 4 + [429] * 4  # the 5th failure locks; the rest are not checked
    assert list(AccessAttempt.objects.values_list("username", "failures_since_start")) == [
        ("erika", 5)
    ]
    assert sign_in(client, "erika", ip="10.0.0.2").status_code == 302  # at her own address


def test_failures_from_many_addresses_still_slow_the_account_not_its_browser(
    client, editor, site_cache_down
):
    assert sign_in(client, "erika").status_code == 302  # her usual browser, remembered
    known = client.cookies[KNOWN_BROWSER_COOKIE].value
    client.logout()
    attacker = Client()
    tries = [
        sign_in(attacker, SPELLINGS[n % 4], "wrong", ip=f"10.1.0.{n}").status_code for n in range(8)
    ]
    assert tries == [200] * 6 + [429] * 2  # beyond the free five, each try waits, unchecked
    fresh = sign_in(Client(), "erika", ip="10.2.0.1")
    assert (fresh.status_code, fresh["Retry-After"]) == (429, "2")
    usual = Client()
    usual.cookies[KNOWN_BROWSER_COOKIE] = known
    assert sign_in(usual, "erika", ip="10.2.0.2").status_code == 302


@pytest.fixture
def eight_staff(seeded) -> list[User]:
    return [
        User.objects.create_user(
            f"staff{n}", email=f"staff{n}@example.com", password=PASSWORD, is_staff=True
        )
        for n in range(8)
    ]


def test_a_reset_mails_each_staff_member_once_and_nobody_else(client, eight_staff, site_cache_down):
    asked = [
        client.post(RESET, {"email": f"staff{n}@example.com"}, REMOTE_ADDR=f"10.3.0.{n}")
        for n in range(8)
    ]
    assert [message.to for message in mail.outbox] == [[f"staff{n}@example.com"] for n in range(8)]
    again = client.post(RESET, {"email": "staff0@example.com"}, REMOTE_ADDR="10.3.1.1")
    unknown = client.post(RESET, {"email": "nobody@example.com"}, REMOTE_ADDR="10.3.1.2")
    assert len(mail.outbox) == 8  # staff0 was mailed moments ago; nobody has no account
    answers = {(answer.status_code, answer["Location"]) for answer in [*asked, again, unknown]}
    assert answers == {(302, "/en/admin/password-reset/sent/")}  # the same for all


def test_an_address_still_asks_for_at_most_five_resets_an_hour(client, seeded, site_cache_down):
    answers = [client.post(RESET, {"email": f"x{n}@example.com"}) for n in range(7)]
    assert [answer.status_code for answer in answers] == [302] * 5 + [429] * 2
    assert answers[-1]["Retry-After"] == "3600"
