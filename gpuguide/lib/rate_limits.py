"""Guards for what computes on every request (the planner and the JSON API, never cached).

``RateLimitMiddleware``: 429 beyond ``API_RATE_LIMIT`` requests a minute per client address,
counted in fixed windows in the default cache (a cache that fails counts nothing: the limit is
a guard, not a reason to refuse service). ``ComputeCapMiddleware``: 503 beyond
``COMPUTE_CONCURRENCY`` such requests at once in a process, so that many clients each under
the limit cannot take every thread from the cached pages and the admin. Both cover the routes
``_limited`` names.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
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
# A planner answer takes well under a second: a busy process is soon free again.
BUSY_RETRY_AFTER = 5
# The window a client's requests are counted in (and its address kept: the privacy notice).
RATE_WINDOW_SECONDS = 60


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
        seen = count("api", client_ip(request), window=RATE_WINDOW_SECONDS)
        if seen.number <= limit:
            return None
        detail = (
            f"Too many requests: at most {limit} a minute from one address. "
            f"Try again in {seen.window_left} s."
        )
        context = {"limit": limit, "retry_after": seen.window_left}
        return _refusal(request, 429, detail, "429.html", context)


def _limited(request: HttpRequest) -> bool:
    match = request.resolver_match
    asks = bool(request.GET) or request.method == "POST"  # its form posts a config.json
    asks_planner = match is not None and match.view_name == PLANNER_VIEW and asks
    return asks_planner or request.path.startswith(LIMITED_PREFIX)


class ComputeCapMiddleware(MiddlewareMixin):
    """503 with Retry-After for the planner's and the API's requests beyond
    ``COMPUTE_CONCURRENCY`` at once in this process (0: no cap)."""

    sync_capable, async_capable = True, False  # the slot is held by this request's thread

    def __init__(self, get_response):
        super().__init__(get_response)
        size = settings.COMPUTE_CONCURRENCY
        self.slots = _slots(size) if size > 0 else None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return super().__call__(request)
        finally:
            # Whatever happened below (an answer, a refusal, an exception), the slot is given
            # back. No computing route streams: its answer is complete when it gets here.
            if getattr(request, "_compute_slot", False):
                request._compute_slot = False
                self.slots.release()

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if self.slots is None or not _limited(request):
            return None
        if not self.slots.acquire(blocking=False):  # never wait: a waiting thread is taken too
            detail = f"Busy: too many requests at once. Try again in {BUSY_RETRY_AFTER} s."
            return _refusal(request, 503, detail, "busy.html", {"retry_after": BUSY_RETRY_AFTER})
        request._compute_slot = True
        return None


@functools.cache
def _slots(size: int) -> threading.BoundedSemaphore:
    """The process's slots for computing requests (one set per size, for the tests to fill)."""
    return threading.BoundedSemaphore(size)


def _refusal(request, status, detail, template, context) -> HttpResponse:
    """JSON for the API, the site's page for the planner; never cached."""
    if request.path.startswith(LIMITED_PREFIX):
        response = JsonResponse({"detail": detail}, status=status)
    else:
        response = render(request, template, context, status=status)
    response["Retry-After"] = str(context["retry_after"])
    response["Cache-Control"] = "no-store"
    return response
