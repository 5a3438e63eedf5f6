"""Whole-page caching for visitors, keyed on a content version that every write bumps.

Any save or delete of a pricing or guides model (admin, commands, services) bumps the version
in the same transaction, so a cached page is never older than the data behind it, in any
worker process. A cached visit costs one query (reading the version). Signed-in staff always
get a fresh render: they preview drafts, which visitors must never receive from the cache.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps

from django.core.cache import cache
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language

PAGE_TIMEOUT = 60 * 60 * 24  # a day; the version, not the timeout, keeps pages fresh


def content_version() -> int:
    from guides.models import ContentVersion

    version = ContentVersion.objects.filter(pk=1).values_list("value", flat=True).first()
    return version or 0


# Set while writes are rehearsed (a working copy applied in a savepoint that is rolled back):
# they never reach visitors, so they leave the cached pages alone.
_writes_not_live: ContextVar[bool] = ContextVar("gpuguide_writes_not_live", default=False)


@contextmanager
def writes_not_live() -> Iterator[None]:
    token = _writes_not_live.set(True)
    try:
        yield
    finally:
        _writes_not_live.reset(token)


def bump_content_version(**_signal_kwargs) -> None:
    """Invalidate every cached page at once (old keys simply expire)."""
    from guides.models import ContentVersion

    if _writes_not_live.get():
        return

    if not ContentVersion.objects.filter(pk=1).update(value=F("value") + 1):
        ContentVersion.objects.get_or_create(pk=1, defaults={"value": 1})


def cache_public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Serve anonymous GETs from the cache; store successful renders."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        # The path and query hashed: visitors choose them, and a key must stay short and
        # plain whatever they send (memcached refuses keys over 250 bytes or with spaces).
        path = hashlib.sha256(request.get_full_path().encode()).hexdigest()
        key = f"gpuguide:page:{content_version()}:{get_language()}:{path}"
        cached = cache.get(key)
        if cached is not None:
            status, content_type, body = cached
            return HttpResponse(body, status=status, content_type=content_type)
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            if hasattr(response, "render"):
                response.render()
            cache.set(key, (200, response["Content-Type"], response.content), PAGE_TIMEOUT)
        return response

    return wrapper


def renew_content_version(*, at_least: int = 0) -> int:
    """Move the version past every value it can have had, after a restore put an old one back.

    A restore brings back the version the backup was taken at; the pages cached since then (in
    every worker's cache, which ``cache.clear()`` in one process cannot reach) carry the values
    after it, so counting on from the restored value would serve them again. The new value is
    above the restored one, above ``at_least`` (the value before the restore) and at least the
    current time in milliseconds, which ordinary bumps (one per write) never reach: it is new
    even when the pre-restore value could not be read.
    """
    from django.db import transaction

    from guides.models import ContentVersion

    with transaction.atomic():
        row, _ = ContentVersion.objects.select_for_update().get_or_create(
            pk=1, defaults={"value": 0}
        )
        row.value = max(row.value + 1, at_least + 1, time.time_ns() // 1_000_000)
        row.save(update_fields=["value"])
    return row.value
