"""Prometheus metrics: what is counted, /metrics.

- Requests, by view, method and status: django-prometheus's middleware (``django_http_*``).
- ``gpuguide_page_cache_{hits,misses,stale}_total`` and ``gpuguide_page_render_seconds``:
  counted where the page cache decides (``guides.pagecache.http``).
- Gauges read from the database when scraped, never on a request: collectors registered with
  ``register_scrape_collector`` (``guides.metrics``: the task queue, the price checks' age).
  django-prometheus's own view is not used: it has no access control, and in multiprocess
  mode it exports only the workers' samples, without these collectors.

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
    """What one scrape exports: every worker's samples (multiprocess mode) or this process's,
    then the collectors that read the database."""
    if folder := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        samples: Collector = MultiProcessCollector(CollectorRegistry(), folder)
    else:
        samples = REGISTRY
    collectors = [samples, *_scrape_collectors]
    # generate_latest asks its registry for collect() alone.
    scrape = SimpleNamespace(collect=lambda: (m for c in collectors for m in c.collect()))
    return generate_latest(scrape)


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


class PrometheusAfterMiddleware(middleware.PrometheusAfterMiddleware):
    """django-prometheus's, with a method HTTP does not define labelled "<invalid method>" in
    its latency too (as in its other metrics): a visitor's made-up methods add no series."""

    def label_metric(self, metric, request, response=None, **labels):
        if "method" in labels:
            labels["method"] = self._method(request)
        return super().label_metric(metric, request, response, **labels)
