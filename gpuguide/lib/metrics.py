"""Prometheus metrics: the page cache's counters, and ``/metrics``.

``/metrics`` answers only ``Authorization: Bearer <METRICS_TOKEN>`` (a 404 without the setting)
with every worker's samples (``PROMETHEUS_MULTIPROC_DIR``) and the collectors that read the
database at each scrape (``register_scrape_collector``). django-prometheus's own view has no
access control and, in multiprocess mode, leaves those collectors out.
"""

from __future__ import annotations

import hmac
import os
from types import SimpleNamespace

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe
from django_prometheus import middleware
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

_scrape_collectors: list[Collector] = []


def register_scrape_collector(collector: Collector) -> None:
    """Add a collector whose ``collect`` runs at each scrape (once, whatever the processes)."""
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)


def exposition() -> bytes:
    """Every worker's samples (multiprocess mode) or this process's, then the scrape collectors."""
    if folder := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        samples: Collector = MultiProcessCollector(CollectorRegistry(), folder)
    else:
        samples = REGISTRY
    collectors = [samples, *_scrape_collectors]
    # generate_latest asks its registry for collect() alone.
    scrape = SimpleNamespace(collect=lambda: (m for c in collectors for m in c.collect()))
    return generate_latest(scrape)


@require_safe
def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404
    scheme, _space, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    else:
        response = HttpResponse("Unauthorized\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    add_never_cache_headers(response)
    return response


class PrometheusAfterMiddleware(middleware.PrometheusAfterMiddleware):
    """django-prometheus's, with a method HTTP does not define labelled "<invalid method>" in
    its latency too (as in its other metrics): a visitor's made-up methods add no series."""

    def label_metric(self, metric, request, response=None, **labels):
        if "method" in labels:
            labels["method"] = self._method(request)
        return super().label_metric(metric, request, response, **labels)
