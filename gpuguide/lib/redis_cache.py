"""What django-redis's outage handling (``IGNORE_EXCEPTIONS``: a failed call is a miss) lacks.
Nothing cached here is the only copy, so a Redis that is down costs speed, never an answer.

- ``Redis`` (``REDIS_CLIENT_CLASS``): not asked at all for ``REDIS_RETRY_SECONDS`` after a
  failure, so that a visit does not wait out a timeout per call; the outage and its end are
  logged once.
- ``Client`` (``CLIENT_CLASS``): ``incr`` raises ``ValueError`` (no counter) rather than
  returning ``None``, and ``touch`` fails like every other call instead of raising.
"""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings
from django_redis.client import DefaultClient
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# No answer (an error Redis answers, such as a full memory refusing writes, is not an outage).
OUTAGE = (RedisConnectionError, RedisTimeoutError)


class Redis(redis.Redis):
    """redis-py's client (one per connection pool and thread), resting after a failure."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._down_since: float | None = None  # monotonic time of the first failure
        self._rest_until = 0.0  # monotonic time before which Redis is not asked

    def execute_command(self, *args, **options):
        if self._rest_until > time.monotonic():
            raise RedisConnectionError("not asked: Redis failed moments ago")
        try:
            result = super().execute_command(*args, **options)
        except OUTAGE as exc:
            self._failed(exc)
            raise
        if self._down_since is not None:
            logger.warning("Redis answers again after %.1f s", time.monotonic() - self._down_since)
            self._down_since = None
        return result

    def _failed(self, exc: Exception) -> None:
        now = time.monotonic()
        self._rest_until = now + settings.REDIS_RETRY_SECONDS
        if self._down_since is None:
            self._down_since = now
            logger.error(
                "Redis is not answering (%s): serving without the shared cache, asking again "
                "every %s s", exc, settings.REDIS_RETRY_SECONDS,
            )  # fmt: skip


class Client(DefaultClient):
    def incr(self, key, delta=1, version=None, client=None, ignore_key_check=False):
        try:
            return super().incr(key, delta, version, client, ignore_key_check)
        except ConnectionInterrupted as exc:
            raise ValueError(f"Key {key!r} not found: Redis is not answering") from exc

    def touch(self, *args, **kwargs):
        try:
            return super().touch(*args, **kwargs)
        except OUTAGE as exc:
            raise ConnectionInterrupted(connection=None) from exc
