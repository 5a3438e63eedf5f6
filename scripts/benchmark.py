#!/usr/bin/env python
"""Measure how the public pages scale with the price history: queries and time, as ratios.

    make benchmark                                       # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpuguide make benchmark

Creates a throwaway test database (test_<name>, dropped afterwards), loads the seed content,
renders each page with 1 house price check, then again after adding a year and then ten years
of daily checks for every GPU. Timings are medians of repeated renders, quoted as ratios to
the 1-check run, because absolute times on a shared machine say little. Query counts must not
move at all.
"""

import os
import statistics
import sys
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django  # noqa: E402

django.setup()

from django.core import signals  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import close_old_connections, connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

PAGES = [
    "/en/guides/best-gpu-for-llama-70b-fine-tuning/",
    "/de/guides/best-gpu-for-llama-70b-fine-tuning/",
    "/ja/gpus/",
    "/en/vram/?params=405",
    "/en/compare/h100-vs-a100-80gb/",
]
REPEATS = 15


def add_daily_history(days: int, offset: int) -> None:
    from pricing.models import Gpu, Price, PriceCheck, Provider

    house = Provider.objects.get(is_house=True)
    first = PriceCheck.objects.filter(provider=house).order_by("checked_on").first().checked_on
    gpus = list(Gpu.objects.filter(rentable=True))
    for day in range(offset + 1, offset + days + 1):
        check = PriceCheck.objects.create(provider=house, checked_on=first - timedelta(days=day))
        Price.objects.bulk_create(
            Price(price_check=check, gpu=gpu, quoted_usd_per_hour=Decimal("1.0") + day % 7)
            for gpu in gpus
        )


def measure(client: Client) -> dict[str, tuple[int, float, float]]:
    results = {}
    for url in PAGES:
        cache.clear()  # measure rendering, not the page cache
        reset_queries()  # the log is a bounded deque: a full one would capture nothing
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200, url
        count = len(queries)  # read now: the log keeps changing while we time
        timings = []
        cached = []
        for _ in range(REPEATS):
            cache.clear()
            start = time.perf_counter()
            client.get(url)
            timings.append(time.perf_counter() - start)
            start = time.perf_counter()
            client.get(url)  # the same page again, now from the page cache
            cached.append(time.perf_counter() - start)
        results[url] = (count, statistics.median(timings), statistics.median(cached))
    return results


def main() -> None:
    setup_test_environment()
    # Keep one connection for the whole run, so that every query is captured and counted.
    signals.request_started.disconnect(close_old_connections)
    signals.request_started.disconnect(reset_queries)
    signals.request_finished.disconnect(close_old_connections)
    test_database = connection.creation.create_test_db(verbosity=0)
    try:
        run_benchmark()
    finally:
        connection.creation.destroy_test_db(test_database, verbosity=0)


def run_benchmark() -> None:
    call_command("seed_content", verbosity=0)
    client = Client()
    runs = [("1 check", measure(client))]
    add_daily_history(365, 0)
    runs.append(("+365 daily checks", measure(client)))
    add_daily_history(3285, 365)
    runs.append(("+3,650 daily checks", measure(client)))

    print(f"database: {connection.vendor}; median of {REPEATS} renders per page\n")
    print(f"{'page':48} {'history':>20} {'queries':>8} {'render':>8} {'cached':>8}")
    base = dict(runs[0][1])
    for label, results in runs:
        for url, (queries, seconds, cached) in results.items():
            render_ratio = seconds / base[url][1]
            cached_ratio = cached / seconds
            print(f"{url:48} {label:>20} {queries:>8} {render_ratio:>7.2f}x {cached_ratio:>7.2f}x")
    print(
        "\nrender: median render time relative to the same page with 1 check; "
        "cached: a cached visit relative to that render"
    )
    print(
        "\nbaseline medians (for scale only): "
        + ", ".join(f"{url.split('/')[2] or url}: {base[url][1] * 1000:.1f} ms" for url in PAGES)
    )


if __name__ == "__main__":
    main()
