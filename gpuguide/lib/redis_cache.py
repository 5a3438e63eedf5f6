"""Django's Redis cache backend, with one Redis client per connection pool, and an outage
ridden out as a cache that holds nothing.

- Django's ``RedisCacheClient.get_client`` builds a ``redis.Redis`` for each call, and
  redis-py's constructor fills a table of ~170 response callbacks each time: about a fifth of a
  cached page's CPU time, twice per visit. A ``redis.Redis`` is safe to share between threads
  (each command takes a connection from the shared pool), so one per pool is kept.
- Nothing this project caches is the only copy (pages, reads and the dashboard are rendered
  again from the database; the versions live there), so a Redis that is down, slow or
  refusing costs speed, never an answer: each call then reads as a miss and writes nothing,
  and for ``REDIS_RETRY_SECONDS`` after a failure Redis is not asked at all (so a visit does
  not wait out a timeout per call). The outage is logged once, and its end.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import wraps

from django.conf import settings
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def _or_when_down(fallback):
    """The client method, or ``fallback(*args)`` while Redis fails."""

    def decorate(method):
        @wraps(method)
        def call(self, *args, **kwargs):
            if self.resting():
                return fallback(*args)
            try:
                result = method(self, *args, **kwargs)
            except RedisError as exc:
                self.failed(exc)
                return fallback(*args)
            self.answered()
            return result

        return call

    return decorate


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients = {}  # pool index -> its client
        self._down_since: float | None = None  # monotonic time of the first failure
        self._rest_until = 0.0  # monotonic time before which Redis is not asked
        self._lock = threading.Lock()

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients.setdefault(index, self._client(connection_pool=pool))
        return client

    # --- an outage --------------------------------------------------------------------

    def resting(self) -> bool:
        return self._rest_until > time.monotonic()

    def failed(self, exc: Exception) -> None:
        with self._lock:
            now = time.monotonic()
            self._rest_until = now + settings.REDIS_RETRY_SECONDS
            first = self._down_since is None
            if first:
                self._down_since = now
        if first:
            logger.error(
                "Redis is not answering (%s): serving without the shared cache, asking again "
                "every %s s", exc, settings.REDIS_RETRY_SECONDS,
            )  # fmt: skip

    def answered(self) -> None:
        if self._down_since is None:
            return
        with self._lock:
            since, self._down_since = self._down_since, None
        if since is not None:
            logger.warning("Redis answers again after %.1f s", time.monotonic() - since)

    # --- every call Django's backend makes: a miss, or nothing stored, while down ------

    add = _or_when_down(lambda *args: False)(DjangoRedisCacheClient.add)
    get = _or_when_down(lambda key, default: default)(DjangoRedisCacheClient.get)
    set = _or_when_down(lambda *args: None)(DjangoRedisCacheClient.set)
    touch = _or_when_down(lambda *args: False)(DjangoRedisCacheClient.touch)
    delete = _or_when_down(lambda *args: False)(DjangoRedisCacheClient.delete)
    get_many = _or_when_down(lambda *args: {})(DjangoRedisCacheClient.get_many)
    has_key = _or_when_down(lambda *args: False)(DjangoRedisCacheClient.has_key)
    set_many = _or_when_down(lambda *args: None)(DjangoRedisCacheClient.set_many)
    delete_many = _or_when_down(lambda *args: None)(DjangoRedisCacheClient.delete_many)
    clear = _or_when_down(lambda *args: False)(DjangoRedisCacheClient.clear)
    # incr is left as it is: a counter that silently stays put would be a wrong answer.


class RedisCache(DjangoRedisCache):
    """``CACHE_URL=redis://…`` selects this backend (see settings)."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
