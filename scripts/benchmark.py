#!/usr/bin/env python
"""How the public pages and the admin scale with the price history: queries and time, as ratios.

    make benchmark                                        # SQLite, 1,000,000 price rows
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpuguide make benchmark
    CACHE_URL=redis://127.0.0.1:6379/1 make benchmark     # the page cache on Redis
    make benchmark ARGS="--rows 50000"                    # a quick run
    make benchmark ARGS="--profile 20"                    # where a guide render's time goes
    make benchmark ARGS="--markdown /tmp/bench.md"        # the tables as Markdown too

In a throwaway test database (the seed, its guide copied into 10), every public page is
measured on the seed and again after daily price checks are added until ``--rows`` prices.
Timings are medians through the whole middleware stack, quoted as ratios: to the same page on
the seed, and to a "static copy" (the same bytes from a trivial view), because absolute times on
a shared machine say little. Query counts must not move at all.
"""

import argparse
import cProfile
import functools
import gc
import os
import platform
import pstats
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django  # noqa: E402

django.setup()
gc.freeze()  # as the app server does at start-up (gpuguide/wsgi.py)

from django.conf import settings  # noqa: E402
from django.core import signals  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import close_old_connections, connection, reset_queries  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402
from django.urls import path  # noqa: E402

SEED_GUIDE = "best-gpu-for-llama-70b-fine-tuning"
GUIDE = f"/en/guides/{SEED_GUIDE}/"
PAGES = [
    GUIDE,
    "/de/guides/best-gpu-for-llama-70b-fine-tuning/",
    "/ja/guides/best-gpu-for-llama-70b-fine-tuning/",  # its prose phrased by BudouX
    # As of a recent day: stored (days longer ago than PAGE_CACHE_PAST_DAYS render each time).
    f"/en/guides/best-gpu-for-llama-70b-fine-tuning/?as_of={date.today() - timedelta(days=2)}",
    "/en/guides/best-gpu-for-llama-70b-fine-tuning/tutorial/",
    "/ja/gpus/",
    "/en/vram/",
    "/en/vram/?params=405",
    "/en/compare/h100-vs-a100-80gb/",
    "/en/",
]
ADMIN_PAGES = [
    "/en/admin/",
    "/en/admin/pricing/pricecheck/",
    "/en/admin/pricing/pricecheck/add/",
    "/en/admin/pricing/gpu/",
    "/en/admin/pricing/provider/",
]
GUIDES = 10
MAX_QUERIES = 12  # any public page or admin list, at any size
# The generation check: every visit asks the database whether any content changed
# (guides/pagecache/versions.py), cached ones included.
CACHED_VISIT_QUERIES = 1
YEAR_DAYS = 365  # the charts' window: past it, the GPU page must stop growing
STATIC_BODY = {"bytes": b"", "encoding": None}
# What a browser sends: a cached visit then gets the page compressed. The static copy is then
# the same compressed bytes with the same Content-Encoding (GZipMiddleware leaves them alone),
# so that both sides send the same bytes.
BROWSER = {"accept-encoding": "gzip, deflate, br, zstd"}


def static_copy(request):
    """The benchmark's yardstick: a page's bytes with no work behind them."""
    response = HttpResponse(STATIC_BODY["bytes"], content_type="text/html; charset=utf-8")
    if STATIC_BODY["encoding"]:
        response["Content-Encoding"] = STATIC_BODY["encoding"]
    return response


# The site's URLs plus the static copy, through the same middleware.
urlpatterns = [path("static-copy/", static_copy), *__import__("gpuguide.urls").urls.urlpatterns]
handler404 = "guides.views.page_not_found"
handler500 = "gpuguide.lib.outages.server_error"


def forget_pages(guides: bool = False) -> None:
    """Drop the cached pages, keep the cached reads (reference data, prices): a render after a
    price check. With ``guides``, the cached guides with their rows too: a render after an
    edit of the guide."""
    from guides.pagecache.http import PAGE_PREFIX
    from guides.pagecache.reads import READ_PREFIX

    patterns = [PAGE_PREFIX] + ([f"{READ_PREFIX}guide:"] if guides else [])
    if hasattr(cache, "client"):  # django-redis: Redis
        client = cache.client.get_client(write=True)
        keys = [key for p in patterns for key in client.scan_iter(match=f"*{p}*")]
        if keys:
            client.delete(*keys)
    else:
        with cache._lock:
            for key in [key for key in cache._cache if any(p in key for p in patterns)]:
                del cache._cache[key], cache._expire_info[key]


# Requests of one kind timed in a row before the next kind's (see medians_ms).
BLOCK = 5


def medians_ms(requests: list, repeats: int) -> list[float]:
    """The median time of each (request, before) in ``requests``, ``repeats`` times each: this
    process's CPU time (what a busy shared machine does not distort), plus on PostgreSQL the
    time its queries took (the server's share). Timed in blocks of BLOCK of one kind, the kinds
    taking turns, so that the two sides of a ratio see a shared machine in the same state (a
    page and its static copy timed one after the other were 11-30x apart in three runs)."""
    timings = [[] for _ in requests]
    while len(timings[0]) < repeats:
        for (request, before), times in zip(requests, timings, strict=True):
            for _ in range(min(BLOCK, repeats - len(times))):
                times.append(_timed(request, before))
    return [statistics.median(times) * 1000 for times in timings]


def _timed(request, before) -> float:
    if before:
        before()
    with CaptureQueriesContext(connection) as queries:
        start = time.process_time()
        response = request()
        cpu = time.process_time() - start
    if connection.vendor == "postgresql":
        cpu += sum(float(query["time"]) for query in queries.captured_queries)
    assert response.status_code == 200, response.status_code
    return cpu


def queries_of(request) -> int:
    reset_queries()
    with CaptureQueriesContext(connection) as queries:
        response = request()
    assert response.status_code == 200, response.status_code
    return len(queries)


def measure_pages(client: Client, repeats: int, light: bool = False) -> dict:
    """Each page's queries, bytes and times; ``light``: queries, bytes and the uncached render
    only (the history's midpoint)."""
    results = {}
    for url in PAGES:
        client.get(url)  # versions and reference data cached, as on a running site
        get = functools.partial(client.get, url)
        forget_pages()
        queries = queries_of(get)
        if light:
            [uncached] = medians_ms([(get, forget_pages)], repeats)
            size = len(get().content)
            results[url] = {"queries": queries, "bytes": size, "uncached": uncached}
            continue
        size = len(get().content)
        hit_queries = queries_of(get)
        STATIC_BODY.update(bytes=get().content, encoding=None)
        uncached, edited, hit, static = medians_ms(
            [
                (get, forget_pages),
                (get, functools.partial(forget_pages, guides=True)),
                (get, None),  # stored by the renders before
                (lambda: client.get("/static-copy/"), None),
            ],
            repeats,
        )
        browser_get = functools.partial(client.get, url, headers=BROWSER)
        compressed = browser_get()
        STATIC_BODY.update(bytes=compressed.content, encoding=compressed.get("Content-Encoding"))
        browser_hit, browser_static = medians_ms(
            [(browser_get, None), (lambda: client.get("/static-copy/", headers=BROWSER), None)],
            repeats,
        )
        results[url] = {
            "browser_hit": browser_hit,
            "browser_static": browser_static,
            "encoding": compressed.get("Content-Encoding", "none"),
            "queries": queries,
            "bytes": size,
            "hit_queries": hit_queries,
            "uncached": uncached,
            "edited": edited,
            "hit": hit,
            "static": static,
        }
    return results


def measure_admin(client: Client, repeats: int) -> dict:
    from pricing.models import Provider

    house = Provider.objects.get(is_house=True)
    results = {}
    for url in ADMIN_PAGES:
        query = {"provider": house.pk} if url.endswith("/add/") else None
        get = functools.partial(client.get, url, query)
        get()
        [ms] = medians_ms([(get, None)], max(5, repeats))
        results[url] = {"queries": queries_of(get), "ms": ms}
    return results


def profile_guide(client: Client, renders: int) -> None:
    """cProfile over ``renders`` uncached renders, then as many cached visits, of the guide:
    the functions that take the most time of their own, and the most time in all."""
    get = functools.partial(client.get, GUIDE)
    get()  # versions and reference data cached, as on a running site
    for label, before in (("uncached render", forget_pages), ("cached visit", None)):
        profile = cProfile.Profile()
        for _ in range(renders):
            if before:
                before()
            profile.enable()
            response = get()
            profile.disable()
            assert response.status_code == 200, response.status_code
        stats = pstats.Stats(profile).strip_dirs()
        print(f"\n=== {label} x {renders}: own time ===")
        stats.sort_stats("tottime").print_stats(25)
        print(f"=== {label} x {renders}: cumulative ===")
        stats.sort_stats("cumulative").print_stats(60)


def copy_guides(count: int) -> None:
    """The seed's 70B guide copied until there are ``count`` guides in all (the seed itself
    publishes five), with its sections, FAQ and tables."""
    from guides.models import Guide

    original = Guide.objects.get(slug=SEED_GUIDE)
    related = ["sections", "faq_entries", "guide_sources", "configurations", "recommendations",
               "cost_scenarios"]  # fmt: skip
    children = {name: list(getattr(original, name).all()) for name in related}
    for n in range(Guide.objects.count() + 1, count + 1):
        guide = Guide.objects.get(pk=original.pk)
        guide.pk = None
        guide.slug = f"{original.slug}-copy-{n}"
        guide.save()
        for rows in children.values():
            for row in rows:
                row.pk, row.guide_id = None, guide.pk
                row.save()


def history_shape(wide: bool) -> dict[int, list[int]]:
    """Provider pk -> the GPUs each of its added daily checks prices: those of its check in the
    seed, so that the ratios measure the history alone; ``wide``: every GPU but one (the house
    never prices the first GPU by slug, the others the last)."""
    from pricing.models import Gpu, PriceCheck, Provider

    providers = list(Provider.objects.all())
    if wide:
        gpus = list(Gpu.objects.order_by("slug").values_list("pk", flat=True))
        return {p.pk: (gpus[1:] if p.is_house else gpus[:-1]) for p in providers}
    shape = {}
    for provider in providers:
        latest = PriceCheck.objects.filter(provider=provider).order_by("-checked_on").first()
        shape[provider.pk] = sorted(latest.prices.values_list("gpu_id", flat=True))
    return shape


def add_history(target_rows: int, hold_days: int = 30, wide: bool = False) -> int:
    """Daily checks before the seed's, at every provider, until about ``target_rows`` prices,
    each price held ``hold_days`` (staggered per GPU and provider). Raw bulk inserts: the ORM
    would take minutes for a million rows. Returns how many checks were added."""
    from guides.pagecache.invalidation import invalidate_everything
    from pricing.models import PriceCheck, Provider

    providers = list(Provider.objects.all())
    first = PriceCheck.objects.order_by("checked_on").first().checked_on
    per_day = history_shape(wide)
    rows_per_day = sum(len(g) for g in per_day.values())
    days = -(-target_rows // rows_per_day)
    next_check = (PriceCheck.objects.order_by("-pk").first().pk or 0) + 1
    checks, prices = [], []
    for day in range(1, days + 1):
        checked_on = first - timedelta(days=day)
        for provider in providers:
            checks.append((next_check, provider.pk, checked_on))
            prices += [
                (next_check, gpu, provider.pk, checked_on, price(day, gpu, provider.pk, hold_days))
                for gpu in per_day[provider.pk]
            ]
            next_check += 1
    check_sql = (
        "INSERT INTO pricing_pricecheck (id, provider_id, checked_on, source_url, note, "
        "recorded_at, superseded_reason) VALUES (%s, %s, %s, '', '', CURRENT_TIMESTAMP, '')"
    )
    price_sql = (
        "INSERT INTO pricing_price (price_check_id, gpu_id, provider_id, checked_on, "
        "quoted_usd_per_hour, gpus_in_quote, superseded) VALUES (%s, %s, %s, %s, %s, 1, FALSE)"
    )
    with connection.cursor() as cursor:
        for sql, rows in ((check_sql, checks), (price_sql, prices)):
            for start in range(0, len(rows), 50_000):
                cursor.executemany(sql, rows[start : start + 50_000])
        if connection.vendor == "postgresql":
            cursor.execute("SELECT setval('pricing_pricecheck_id_seq', %s)", [next_check])
        cursor.execute("ANALYZE")
    invalidate_everything()  # raw inserts send no signals
    return len(checks)


def price(day: int, gpu: int, provider: int, hold_days: int) -> str:
    """The quoted price ``day`` days before the seed: it changes every ``hold_days``."""
    held = (day + (gpu * 7 + provider * 11) % hold_days) // hold_days
    return f"{1 + (held * 7 + gpu) % 40 / 10:.4f}"


def explain() -> list[tuple[str, str]]:
    """The query plans of the lookups that used to scan the history, and of the admin's
    check list beside the latest check of one provider (both near the day index)."""
    from pricing.models import Gpu, Price, PriceCheck, Provider

    provider = Provider.objects.filter(is_house=False).first()
    unpriced = Gpu.objects.exclude(pk__in=Price.objects.filter(provider=provider).values("gpu"))
    latest = (
        Price.objects.current()
        .filter(gpu=unpriced.first(), provider=provider)
        .as_of(None)
        .order_by("-checked_on")
        .values("quoted_usd_per_hour")[:1]
    )
    check = PriceCheck.objects.current().filter(provider=provider).order_by("-checked_on")
    changelist = PriceCheck.objects.order_by("-checked_on", "-pk").values("pk", "checked_on")
    options = {"analyze": True} if connection.vendor == "postgresql" else {}
    return [
        ("latest price of a GPU the provider never priced", latest.explain(**options)),
        ("latest check of a provider", check.values("checked_on")[:1].explain(**options)),
        ("the admin's price-check list, a page of 100", changelist[:100].explain(**options)),
    ]


def markdown(args, facts: dict, seed: dict, year: dict, big: dict, admin: tuple, plans) -> str:
    """The run as Markdown: what docs/performance.md quotes, straight from the measurement."""
    admin_seed, admin_year, admin_big = admin
    rows = facts["rows"]
    big_label = size_label(rows)
    out = [
        f"Run {date.today().isoformat()}: {facts['machine']}; {facts['database']}, cache "
        f"{facts['cache']}; {GUIDES} guides x 3 languages; median of {args.repeats} requests "
        f"({facts['timing']}); history: +{facts['checks']:,} daily checks, "
        f"{rows:,} price rows, each price held {args.hold_days} days, loaded in "
        f"{facts['loaded']:.0f} s. `scripts/benchmark.py --rows {args.rows} --repeats "
        f"{args.repeats} --hold-days {args.hold_days}{' --wide' if args.wide else ''}` "
        f"({'every GPU but one at each provider' if args.wide else 'the GPUs of the seed'}).",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    for target, figure, met in targets(seed, year, big, admin_seed, admin_year, admin_big):
        target = target.replace("1M", big_label)
        out.append(f"| {target} | {figure} | {'yes' if met else '**no**'} |")
    out += [
        "",
        f"Public pages: the seed (1 check per provider), one year of daily checks "
        f"({facts['year_rows']:,} rows) and {rows:,} rows. Bytes: the uncompressed HTML. Render: "
        "the median uncached render after a price check, as a ratio to the seed's; static: "
        "over the same bytes from a trivial view; edited: a render after an edit of the guide "
        "over the static copy; hit: a cached visit over the static copy (browser: gzip).",
        "",
        "| page | queries | cached visit queries | bytes, seed | bytes, year / seed | "
        f"bytes, {big_label} / seed | render, year / seed | render, {big_label} / seed | "
        f"render / static ({big_label}) | edited / static ({big_label}) | hit / static "
        f"({big_label}) | browser hit / static ({big_label}) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for url, r in big.items():
        s, y = seed[url], year[url]
        out.append(
            f"| `{url}` | {s['queries']} / {r['queries']} | {r['hit_queries']} | "
            f"{s['bytes']:,} | {y['bytes'] / s['bytes']:.2f}x | {r['bytes'] / s['bytes']:.2f}x | "
            f"{y['uncached'] / s['uncached']:.2f}x | {r['uncached'] / s['uncached']:.2f}x | "
            f"{r['uncached'] / r['static']:.0f}x | {r['edited'] / r['static']:.0f}x | "
            f"{r['hit'] / r['static']:.2f}x | {r['browser_hit'] / r['browser_static']:.2f}x |"
        )
    out += [
        "",
        "Admin, signed in (a visit after the first; the lists show 100 checks a page from a "
        "year of history on, 3 on the seed):",
        "",
        f"| page | queries, seed / year / {big_label} | time, seed | time, year / seed | time, "
        f"{big_label} / seed | time, {big_label} / year |",
        "|---|---|---|---|---|---|",
    ]
    for url, r in admin_big.items():
        s, y = admin_seed[url], admin_year[url]
        out.append(
            f"| `{url}` | {s['queries']} / {y['queries']} / {r['queries']} | {s['ms']:.0f} ms | "
            f"{y['ms'] / s['ms']:.2f}x | {r['ms'] / s['ms']:.2f}x | {r['ms'] / y['ms']:.2f}x |"
        )
    out += ["", f"Query plans at {rows:,} rows ({facts['database']}):", ""]
    for label, plan in plans:
        out += [f"{label}:", "", "```", plan, "```", ""]
    return "\n".join(out)


def size_label(rows: int) -> str:
    """1,000,012 -> "1M", 20,002 -> "20k": the large history in the tables' headings."""
    return f"{rows / 1e6:.0f}M" if rows >= 1e6 else f"{rows / 1e3:.0f}k"


def targets(seed, year, big, admin_seed, admin_year, admin_big) -> list[tuple[str, str, bool]]:
    """(target, the figure measured, met) for each target of docs/performance.md."""
    pages = big.keys()
    most = max(r["queries"] for r in big.values())
    moved = [u for u in pages if big[u]["queries"] != seed[u]["queries"]]
    hits = sorted({r["hit_queries"] for r in big.values()})
    size = {u: big[u]["bytes"] / seed[u]["bytes"] for u in pages}
    grown = {u: big[u]["bytes"] / year[u]["bytes"] for u in pages}
    render = {u: big[u]["uncached"] / seed[u]["uncached"] for u in pages}
    admin_most = max(r["queries"] for r in admin_big.values())
    admin_moved = [u for u in admin_big if admin_big[u]["queries"] != admin_seed[u]["queries"]]
    admin_time = {u: admin_big[u]["ms"] / admin_seed[u]["ms"] for u in admin_big}
    admin_grown = {u: admin_big[u]["ms"] / admin_year[u]["ms"] for u in admin_big}
    render_grown = {u: big[u]["uncached"] / year[u]["uncached"] for u in pages}

    def worst(ratios: dict) -> str:
        url = max(ratios, key=ratios.get)
        return f"{min(ratios.values()):.2f}–{ratios[url]:.2f}x (highest: `{url}`)"

    return [
        (f"every public page ≤ {MAX_QUERIES} queries, the same at every size",
         f"at most {most}; {len(moved)} pages moved", most <= MAX_QUERIES and not moved),
        (f"a cached visit: {CACHED_VISIT_QUERIES} query (the generation check)",
         "queries: " + ", ".join(map(str, hits)), set(hits) == {CACHED_VISIT_QUERIES}),
        ("page size at 1M rows ≤ 1.25x the seed's", worst(size), max(size.values()) <= 1.25),
        ("page size at 1M rows ≤ 1.25x at a year of history (bounded)", worst(grown),
         max(grown.values()) <= 1.25),
        ("uncached render at 1M rows ≤ 1.25x the seed's", worst(render),
         max(render.values()) <= 1.25),
        ("uncached render at 1M rows ≤ 1.25x at a year of history (bounded)",
         worst(render_grown), max(render_grown.values()) <= 1.25),
        (f"admin pages ≤ {MAX_QUERIES} queries, the same at every size",
         f"at most {admin_most}; {len(admin_moved)} pages moved",
         admin_most <= MAX_QUERIES and not admin_moved),
        ("admin time at 1M rows ≤ 1.25x the seed's", worst(admin_time),
         max(admin_time.values()) <= 1.25),
        ("admin time at 1M rows ≤ 1.25x at a year of history (bounded)", worst(admin_grown),
         max(admin_grown.values()) <= 1.25),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="price rows to reach")
    parser.add_argument("--repeats", type=int, default=15, help="requests per median")
    parser.add_argument(
        "--hold-days",
        type=int,
        default=30,
        help="days each price of the added history holds (1: a new price every day)",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="the history prices every GPU but one at each provider, not the seed's GPUs",
    )
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown")
    parser.add_argument(
        "--profile",
        type=int,
        metavar="N",
        help="instead: profile N uncached renders and N cached visits of the guide on the seed",
    )
    args = parser.parse_args()
    # No setup_test_environment(): it instruments every template render, which production
    # does not pay. tests.settings already allows the test client's host.
    # Keep one connection for the whole run, so that every query is captured and counted.
    signals.request_started.disconnect(close_old_connections)
    signals.request_started.disconnect(reset_queries)
    signals.request_finished.disconnect(close_old_connections)
    test_database = connection.creation.create_test_db(verbosity=0)
    try:
        with override_settings(ROOT_URLCONF=__name__):
            run(args)
    finally:
        connection.creation.destroy_test_db(test_database, verbosity=0)


def run(args) -> None:
    from django.contrib.auth.models import User

    from pricing.models import Price

    cache.clear()
    call_command("seed_content", verbosity=0)
    copy_guides(GUIDES)
    client = Client()
    if args.profile:
        profile_guide(client, args.profile)
        return
    admin = Client()
    admin.force_login(User.objects.create_superuser("bench", "bench@example.com", "x"))
    seed = measure_pages(client, args.repeats)
    admin_seed = measure_admin(admin, args.repeats)
    a_year = YEAR_DAYS * sum(map(len, history_shape(args.wide).values()))
    started = time.perf_counter()
    checks = add_history(min(a_year, args.rows - Price.objects.count()), args.hold_days, args.wide)
    year = measure_pages(client, args.repeats, light=True)
    year_rows = Price.objects.count()
    admin_year = measure_admin(admin, args.repeats)
    checks += add_history(args.rows - Price.objects.count(), args.hold_days, args.wide)
    loaded = time.perf_counter() - started
    big = measure_pages(client, args.repeats)
    admin_big = measure_admin(admin, args.repeats)
    facts = {
        "machine": f"{os.cpu_count()} CPUs, {platform.python_implementation()} "
        f"{platform.python_version()}, Django {django.get_version()}, load average "
        + ", ".join(f"{load:.1f}" for load in os.getloadavg()),
        "database": connection.vendor,
        "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1],
        "timing": "CPU time" + (" + query time" if connection.vendor == "postgresql" else ""),
        "rows": Price.objects.count(),
        "year_rows": year_rows,
        "checks": checks,
        "loaded": loaded,
    }
    table = markdown(args, facts, seed, year, big, (admin_seed, admin_year, admin_big), explain())
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n", encoding="utf-8")
        print(f"Markdown: {args.markdown}")
    # What must hold at any size (CI runs a small catalogue): the counts of docs/performance.md.
    failures = []
    for url, r in big.items():
        if r["queries"] != seed[url]["queries"] or r["queries"] > MAX_QUERIES:
            failures.append(f"{url}: {seed[url]['queries']} queries, then {r['queries']}")
        if r["hit_queries"] != CACHED_VISIT_QUERIES:
            failures.append(f"{url}: a cached visit made {r['hit_queries']} queries")
    for url, r in admin_big.items():
        # A visit after the first: the dashboard's warnings come from the cache until a write
        # (8 queries; 27-33 after one), pinned by tests/guides/pages/test_query_counts.py.
        if r["queries"] > MAX_QUERIES or r["queries"] != admin_seed[url]["queries"]:
            failures.append(f"{url}: {admin_seed[url]['queries']}, then {r['queries']} queries")
    if failures:
        sys.exit("benchmark: " + "; ".join(failures))


if __name__ == "__main__":
    main()
