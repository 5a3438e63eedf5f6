"""The metrics read from the database when Prometheus scrapes (two queries, never on a request):
the task queue's depth and oldest wait, and the age of each provider's latest price check."""

from __future__ import annotations

import logging
from datetime import datetime, time

from django.db import DatabaseError
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily

from guides.background import task_queue
from pricing import selectors

logger = logging.getLogger(__name__)


class DatabaseCollector:
    def collect(self):
        now = timezone.now()
        try:
            depth, oldest_age = task_queue.queued(now)
            checked = selectors.latest_check_dates()
        except DatabaseError as exc:  # the scrape still answers the other metrics
            logger.warning("Metrics: database unavailable (%s)", exc)
            return
        yield GaugeMetricFamily(
            "gpuguide_task_queue_depth", "Background tasks waiting for a worker.", value=depth
        )
        yield GaugeMetricFamily(
            "gpuguide_task_queue_oldest_age_seconds",
            "Seconds the oldest waiting background task has waited (0 when none waits).",
            value=oldest_age,
        )
        ages = GaugeMetricFamily(
            "gpuguide_price_check_age_seconds",
            "Seconds since the start of the day of each provider's newest price check "
            "(checks are dated by day, in TIME_ZONE).",
            labels=["provider"],
        )
        for slug, day in sorted(checked.items()):
            started = timezone.make_aware(datetime.combine(day, time.min))
            ages.add_metric([slug], max(0.0, (now - started).total_seconds()))
        yield ages


COLLECTOR = DatabaseCollector()
