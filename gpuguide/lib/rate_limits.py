"""Requests a minute per client address, for what computes on every request.

The planner and the JSON API are never served from a cache (their answers depend on free-form
input), so a client looping on them costs CPU on every call. ``RateLimitMiddleware`` counts
their requests per client address (``client_ip``: only ``TRUSTED_PROXIES`` are believed) in
fixed one-minute windows in the default cache, and answers 429 with ``Retry-After`` beyond
``API_RATE_LIMIT``. With a per-process cache (locmem, the development default) each process
counts on its own; production shares Redis. A cache that fails counts nothing: the limit is a
guard, not a reason to refuse service.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin

from gpuguide.lib.client_address import client_ip

logger = logging.getLogger(__name__)

# What is limited: the API, and the planner when asked something (its bare page is cached).
LIMITED_PREFIX = "/api/"
PLANNER_VIEW = "guides:vram"


@dataclass(frozen=True)
class Count:
    """This request's number in its window, and the seconds until the window ends."""

    number: int
    window_left: int


def count(scope: str, client: str, *, window: int, now: float | None = None) -> Count:
    """Count one request of ``client`` in ``scope``'s current window of ``window`` seconds."""
    now = time.time() if now is None else now
    start = int(now // window) * window
    digest = hashlib.sha256(f"{scope}|{client}|{start}".encode()).hexdigest()[:32]
    key = f"ratelimit:{digest}"
    try:
        cache.add(key, 0, timeout=window + 5)
        number = cache.incr(key)
    except ValueError:  # gone between add and incr, or a cache that holds nothing
        number = 1
    except Exception:  # noqa: BLE001 (whatever the backend raises: fail open, said once here)
        logger.warning("rate limit not counted: the cache failed", exc_info=True)
        number = 1
    return Count(number=number, window_left=max(1, start + window - int(now)))


class RateLimitMiddleware(MiddlewareMixin):
    """429 with Retry-After for the planner's and the API's requests beyond the limit."""

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        limit = settings.API_RATE_LIMIT
        if limit <= 0 or not _limited(request):
            return None
        seen = count("api", client_ip(request), window=60)
        if seen.number <= limit:
            return None
        return too_many_requests(request, limit=limit, retry_after=seen.window_left)


def _limited(request: HttpRequest) -> bool:
    match = request.resolver_match
    asks_planner = match is not None and match.view_name == PLANNER_VIEW and bool(request.GET)
    return asks_planner or request.path.startswith(LIMITED_PREFIX)


def too_many_requests(request: HttpRequest, *, limit: int, retry_after: int) -> HttpResponse:
    """JSON for the API, the site's page for the planner; never cached."""
    if request.path.startswith(LIMITED_PREFIX):
        detail = (
            f"Too many requests: at most {limit} a minute from one address. "
            f"Try again in {retry_after} s."
        )
        response = JsonResponse({"detail": detail}, status=429)
    else:
        context = {"limit": limit, "retry_after": retry_after}
        response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response
