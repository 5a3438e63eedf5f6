"""Prometheus metrics (prometheus-client): what is counted, the latency middleware, /metrics.

- ``gpuguide_view_latency_seconds{view,method,status}``: each request's time through the whole
  middleware stack, by resolved URL name (``guides:index``), method and status class (``2xx``).
- ``gpuguide_page_cache_{hits,misses,stale}_total`` and ``gpuguide_page_render_seconds``:
  counted where the page cache decides (``guides.pagecache.http``).
- Gauges read from the database when scraped, never on a request: collectors registered with
  ``register_scrape_collector`` (``guides.metrics``: the task queue, the price checks' age).

With several worker processes (gunicorn) set ``PROMETHEUS_MULTIPROC_DIR`` to an empty folder
that every worker can write: each worker then writes its samples there and a scrape, answered by
any one worker, adds them all up (prometheus-client's multiprocess mode). Unset, the one
process's own registry answers.

``/metrics`` answers only ``Authorization: Bearer <METRICS_TOKEN>`` (compared in constant time);
without ``METRICS_TOKEN`` it is a 404, as if it did not exist.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Callable, Iterable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

VIEW_LATENCY = Histogram(
    "gpuguide_view_latency_seconds",
    "Time to answer a request, by resolved URL name, method and status class.",
    ["view", "method", "status"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
PAGE_CACHE_HITS = Counter("gpuguide_page_cache_hits", "Public pages served from the page cache.")
PAGE_CACHE_MISSES = Counter(
    "gpuguide_page_cache_misses", "Public pages rendered because no stored copy was found."
)
PAGE_CACHE_STALE = Counter(
    "gpuguide_page_cache_stale",
    "Public pages rendered because the stored copy read data that has changed since.",
)
PAGE_RENDER = Histogram(
    "gpuguide_page_render_seconds",
    "Time to render a public page the cache could not answer (visits and background refreshes).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_scrape_collectors: list[Collector] = []


def register_scrape_collector(collector: Collector) -> None:
    """Add a collector whose ``collect`` runs at each scrape (once, whatever the processes)."""
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


class _Scrape:
    """What one scrape exports: every worker's samples (multiprocess mode) or this process's,
    then the collectors that read the database."""

    def __init__(self, collectors: Iterable[Collector]):
        self.collectors = list(collectors)

    def collect(self):
        for collector in self.collectors:
            yield from collector.collect()


def exposition() -> bytes:
    if multiprocess_dir():
        samples: Collector = MultiProcessCollector(CollectorRegistry(), multiprocess_dir())
    else:
        samples = REGISTRY
    return generate_latest(_Scrape([samples, *_scrape_collectors]))


def _authorized(request: HttpRequest, token: str) -> bool:
    given = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _space, credentials = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        credentials.strip().encode(), token.encode()
    )


@require_safe
def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404
    if not _authorized(request, token):
        response = HttpResponse("Unauthorized\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    else:
        response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    add_never_cache_headers(response)
    return response


def _view_name(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    # Unresolved (a 404 before any view, WhiteNoise's static files): one label, so that
    # visitors' made-up paths cannot add series.
    return match.view_name if match is not None and match.view_name else "<unresolved>"


class ViewLatencyMiddleware:
    """Times each request through everything below it, labelled by resolved URL name, method
    and status class."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        VIEW_LATENCY.labels(
            view=_view_name(request),
            method=request.method if request.method in _METHODS else "other",
            status=f"{response.status_code // 100}xx",
        ).observe(time.perf_counter() - started)
        return response
