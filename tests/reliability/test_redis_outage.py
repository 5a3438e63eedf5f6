"""A Redis that does not answer costs speed, never an answer (django-redis with
gpuguide/lib/redis_cache.py).

Against a port nobody listens on, so these need no Redis; tests/reliability/test_processes.py
kills a real one under two app servers."""

import logging
import socket
from unittest import mock

import pytest
import redis
from django_redis.cache import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.guides.pagecache.test_caching import URL


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is


@pytest.fixture
def down(settings):
    """The backend as settings build it for CACHE_URL=redis://..., on a closed port."""
    settings.REDIS_RETRY_SECONDS = 30
    options = {
        "CLIENT_CLASS": "gpuguide.lib.redis_cache.Client",
        "REDIS_CLIENT_CLASS": "gpuguide.lib.redis_cache.Redis",
        "IGNORE_EXCEPTIONS": True,
        "SOCKET_CONNECT_TIMEOUT": 0.25,
        "SOCKET_TIMEOUT": 0.5,
    }
    return RedisCache(f"redis://127.0.0.1:{closed_port()}/0", {"OPTIONS": options})


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
