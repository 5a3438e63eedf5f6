"""A Redis that does not answer costs speed, never an answer (gpuguide/lib/redis_cache.py).

Against a port nobody listens on, so these need no Redis; tests/reliability/test_processes.py
kills a real one under two app servers."""

import logging
import socket
from unittest import mock

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from gpuguide.lib import redis_cache
from gpuguide.lib.redis_cache import RedisCache

from ..guides.test_caching import URL


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is


@pytest.fixture
def down(settings):
    settings.REDIS_RETRY_SECONDS = 30
    return RedisCache(
        f"redis://127.0.0.1:{closed_port()}/0",
        {"OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5}},
    )


def test_every_call_reads_as_a_miss_and_stores_nothing(down):
    assert down.get("page", "default") == "default"
    assert down.get_many(["a", "b"]) == {}
    assert down.add("lock", 1) is False  # not taken: nothing is queued twice
    down.set("page", "body")
    down.set_many({"a": 1})
    assert down.delete("page") is False
    down.delete_many(["a"])
    assert down.has_key("page") is False
    assert down.touch("page") is False
    down.clear()


def redis_answering(*, get):
    """Redis's own client, answering GET as ``get`` says."""
    client = mock.Mock(get=mock.Mock(side_effect=get) if callable(get) else mock.Mock(**get))
    return mock.patch.object(redis_cache.RedisCacheClient, "get_client", return_value=client)


def refused(*_args):
    raise RedisConnectionError("refused")


def test_after_a_failure_redis_is_left_alone_for_a_while_and_logged_once(down, caplog):
    with (
        caplog.at_level(logging.ERROR, logger="gpuguide.lib.redis_cache"),
        redis_answering(get=refused) as get_client,
    ):
        for _ in range(5):
            assert down.get("page") is None
    assert get_client.return_value.get.call_count == 1  # the four after it did not ask
    [logged] = caplog.records
    assert logged.getMessage().startswith("Redis is not answering (refused)")


def test_redis_is_asked_again_after_the_rest_and_its_return_logged(down, caplog, settings):
    settings.REDIS_RETRY_SECONDS = 0
    with redis_answering(get=refused):
        assert down.get("page") is None
    caplog.clear()
    with (
        caplog.at_level(logging.WARNING, logger="gpuguide.lib.redis_cache"),
        redis_answering(get={"return_value": b"5"}),
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


def test_the_redis_backend_keeps_one_client_per_connection_pool():
    backend = redis_cache.RedisCacheClient(["redis://127.0.0.1:6379/0"])  # connects on use
    assert backend.get_client() is backend.get_client(write=True)
