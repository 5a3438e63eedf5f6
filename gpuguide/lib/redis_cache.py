"""Django's Redis cache backend, with one Redis client per connection pool instead of a new
one for every cache call.

Django's ``RedisCacheClient.get_client`` builds a ``redis.Redis`` for each call, and
redis-py's constructor fills a table of ~170 response callbacks each time: about a fifth of a
cached page's CPU time, twice per visit. A ``redis.Redis`` is safe to share between threads
(each command takes a connection from the shared pool), so one per pool is kept.
"""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients = {}  # pool index -> its client

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients.setdefault(index, self._client(connection_pool=pool))
        return client


class RedisCache(DjangoRedisCache):
    """``CACHE_URL=redis://…`` selects this backend (see settings)."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
