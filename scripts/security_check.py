"""Hostile requests against every public page and API endpoint; figures for docs/security.md.

    .venv/bin/python scripts/security_check.py                   # throwaway SQLite, in process
    .venv/bin/python scripts/security_check.py --requests 500 --seed 7
    .venv/bin/python scripts/security_check.py --url http://127.0.0.1:8000   # a running server

Without --url: in a throwaway seeded SQLite database, through Django's test client with the
test settings (DEBUG off, so errors are real 500s). With --url: over HTTP, to loopback only,
then the capacity attack. Measured: (a) the status classes of fuzzed requests (fixed seed), each
5xx listed; (b) hostile strings with `<>"'` echoed unescaped in HTML; (c) every page's status
with the database down (reported, not judged). Exits 1 on any 5xx or unescaped echo.
"""

from __future__ import annotations

import argparse
import collections
import io
import ipaddress
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

import security_attacks  # this folder

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("en", "de", "ja")
GUIDE = "best-gpu-for-llama-70b-fine-tuning"
HTML_PAGES = [
    "/{lang}/",
    f"/{{lang}}/guides/{GUIDE}/",
    "/{lang}/gpus/",
    "/{lang}/vram/",
    "/{lang}/compare/h100-vs-a100-80gb/",
    "/{lang}/guides/no-such-guide/",
]
OTHER_PAGES = ["/sitemap.xml", "/robots.txt", "/api/v1/openapi.json", "/api/v1/docs"]
# The planner's fields and the pages' as_of / params; the API's come from its OpenAPI schema.
HTML_PARAMS = [
    "as_of", "params", "model", "config_json", "method", "seq_len", "batch_size",
    "gradient_checkpointing", "lora_rank", "tokens_millions", "epochs", "hours", "page", "q",
]  # fmt: skip
HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'><svg/onload=alert(1)>",
    "javascript:alert(1)",
    "{{ settings.SECRET_KEY }}",
    "{% debug %}",
    "[[price h100]]",
    "' OR '1'='1",
    "1; DROP TABLE guides_guide; --",
    "1 UNION SELECT password FROM auth_user",
    "1_000",
    "1e308",
    "-1",
    "0",
    "+5",
    "9" * 400,
    "1" + "0" * 30,
    "NaN",
    "Infinity",
    "٣٢",  # Arabic-Indic digits
    "۱۲۸",  # Extended Arabic-Indic
    "１２",  # full-width digits
    "१२",  # Devanagari
    "2026-02-30",
    "2026-11-29T00:00",
    "9999-12-31",
    "0000-00-00",
    "\u202eevil\u202c",  # bidi override
    "\u2066x\u2069\u200f\u200e",
    "\x00",
    "\r\nSet-Cookie: a=b",
    "%00%0d%0a",
    "../../etc/passwd",
    "😀" * 50,
    "a" * 5000,
    "1,5",
    "1.5",
    "true",
    "TRUE",
    '{"hidden_size": 8192}',
    "llama-3.1-70b",
    "qlora",
]
UNICODE_RANGES = [
    (0x20, 0x7E),
    (0xA0, 0x24F),
    (0x300, 0x36F),
    (0x590, 0x6FF),
    (0x200B, 0x206F),
    (0x3040, 0x30FF),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1F6FF),
    (0xD7FF, 0xD7FF),
]
SIGNIFICANT = set("<>\"'")
# Shorter strings (a lone ">", "'a") occur in any page by chance; these cannot.
MIN_CHECKED_LENGTH = 6


def random_text(rng: random.Random) -> str:
    length = rng.choice([1, 2, 5, 20, 200])
    return "".join(chr(rng.randint(*rng.choice(UNICODE_RANGES))) for _ in range(length))


def hostile_value(rng: random.Random) -> str:
    value = rng.choice(HOSTILE) if rng.random() < 0.7 else random_text(rng)
    if rng.random() < 0.15:
        value = rng.choice(HOSTILE) + random_text(rng)
    return value


# Requests ------------------------------------------------------------------------------------


class InProcess:
    def __init__(self) -> None:
        from django.test import Client

        self.client = Client(raise_request_exception=False)

    def get(self, path: str, query: list[tuple[str, str]]) -> tuple[int, str, bytes]:
        url = path + ("?" + urllib.parse.urlencode(query) if query else "")
        response = self.client.get(url)
        body = response.content if not getattr(response, "streaming", False) else b""
        return response.status_code, response.get("Content-Type", ""), body


class OverHttp:
    def __init__(self, base: str) -> None:
        host = urllib.parse.urlsplit(base).hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            sys.exit(f"security_check: refusing {base}: only loopback addresses are allowed")
        self.base = base.rstrip("/")

    def get(self, path: str, query: list[tuple[str, str]]) -> tuple[int, str, bytes]:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(url, headers={"Accept-Language": "en"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type", ""), exc.read()
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            return 0, "", str(exc).encode()


def api_endpoints(agent) -> list[tuple[str, list[str]]]:
    """GET paths and their query parameters, from the API's own OpenAPI description."""
    status, _type, body = agent.get("/api/v1/openapi.json", [])
    if status != 200:
        return [("/api/v1/memory/", ["model", "method", "seq_len"])]
    schema = json.loads(body)
    endpoints = []
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if not get:
            continue
        names = [p["name"] for p in get.get("parameters", []) if p.get("in") == "query"]
        path = path.replace("{gpu}", "h100")
        endpoints.append((path, names))
    return endpoints


def targets(agent) -> list[tuple[str, list[str]]]:
    pages = [(page.format(lang=lang), HTML_PARAMS) for page in HTML_PAGES for lang in LANGS]
    return pages + [(page, ["q"]) for page in OTHER_PAGES] + api_endpoints(agent)


def fuzz(agent, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    endpoints = targets(agent)
    classes = collections.Counter()
    errors, reflected, html_checked = [], [], 0
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as recorded:
        warnings.simplefilter("always")
        for _ in range(count):
            path, names = rng.choice(endpoints)
            query = []
            for _ in range(rng.choice([1, 1, 2, 3, 5])):
                name = rng.choice(names + ["x", random_text(rng)]) if names else "x"
                query.append((name, hostile_value(rng)))
                if rng.random() < 0.1:
                    query.append(query[-1])  # a repeated parameter
            status, content_type, body = agent.get(path, query)
            classes[f"{status // 100}xx" if status else "no answer"] += 1
            if status >= 500 or status == 0:
                errors.append((status, path, query))
            if content_type.startswith("text/html"):
                text = body.decode("utf-8", "replace")
                for raw in (raw for pair in query for raw in pair):
                    if SIGNIFICANT & set(raw) and len(raw) >= MIN_CHECKED_LENGTH:
                        html_checked += 1
                        if raw in text:
                            reflected.append((path, raw))
    return {
        "cache_key_warnings": sum("CacheKeyWarning" in type(w.message).__name__ for w in recorded),
        "requests": count,
        "endpoints": len(endpoints),
        "seconds": time.perf_counter() - started,
        "classes": classes,
        "errors": errors,
        "html_checked": html_checked,
        "reflected": reflected,
    }


def cache_entries_from_random_queries(agent, count: int, seed: int) -> int:
    """Page-cache entries left by ``count`` visits to one cacheable page, each with a random
    ``?utm_source=`` (a crawler's or an attacker's); counted in a local-memory cache large
    enough never to cull."""
    from django.core.cache import cache
    from django.test.utils import override_settings

    rng = random.Random(seed)
    roomy = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "security-check",
            "OPTIONS": {"MAX_ENTRIES": count * 10},
        }
    }
    with override_settings(CACHES=roomy):
        cache.clear()
        for _ in range(count):
            agent.get("/en/gpus/", [("utm_source", f"{rng.getrandbits(64):016x}")])
        # Pages only: the cache also holds reference data, a fixed few.
        return sum("gpuguide:page:" in key for key in cache._cache)


def concurrent_price_checks(pairs: int) -> collections.Counter:
    """``pairs`` times, two recorders record the same provider's check for the same day at the
    same instant (threads released by a barrier, each with its own database connection).
    Outcomes: "recorded", "refused" (the service's one-line message) or the exception's name."""
    import threading
    from datetime import timedelta
    from decimal import Decimal

    from django.db import connection
    from django.utils import timezone

    from pricing.services import PriceCheckError, price_check_record

    outcomes: collections.Counter = collections.Counter()
    today = timezone.localdate()

    def record(day, barrier) -> None:
        try:
            barrier.wait()
            price_check_record(
                provider_slug="massed-compute", checked_on=day, prices={"h100": Decimal("2.50")}
            )
            outcomes["recorded"] += 1
        except PriceCheckError:
            outcomes["refused"] += 1
        except Exception as exc:  # noqa: BLE001 - the figure counts whatever else happens
            outcomes[type(exc).__name__] += 1
        finally:
            connection.close()

    for pair in range(pairs):
        barrier = threading.Barrier(2)
        day = today - timedelta(days=1 + pair)
        threads = [threading.Thread(target=record, args=(day, barrier)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return outcomes


def every_page(agent) -> list[tuple[str, int]]:
    return [(path, agent.get(path, [])[0]) for path, _names in targets(agent)]


# Setup ---------------------------------------------------------------------------------------


def django_in_process(database_url: str, seed_content: bool) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"  # DEBUG off; a test key and hosts
    # The fuzz sends thousands of requests from one address: the rate limit is measured apart.
    os.environ.setdefault("API_RATE_LIMIT", "0")
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings

    # Production's SQLite write mode, which the test settings leave out (each test is one
    # transaction there): the concurrent price checks below measure it.
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        settings.DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"
    if seed_content:
        call_command("migrate", verbosity=0)
        call_command("seed_content", stdout=io.StringIO())
    warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here


def database_down_figures() -> list[tuple[str, int]]:
    """Run in a child process: every page with DATABASE_URL at a closed port."""
    result = subprocess.run(
        [sys.executable, __file__, "--database-down-child"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=ROOT,
    )
    try:
        return [tuple(row) for row in json.loads(result.stdout.splitlines()[-1])]
    except (IndexError, ValueError):
        sys.exit(f"security_check: the database-down run failed:\n{result.stderr[-2000:]}")


# Report --------------------------------------------------------------------------------------


def report(fuzzed: dict, down: list[tuple[str, int]] | None, args) -> int:
    classes = fuzzed["classes"]
    print(f"## Fuzzed requests (seed {args.seed}, {fuzzed['requests']:,} requests, "
          f"{fuzzed['endpoints']} endpoints, {fuzzed['seconds']:.1f} s)\n")  # fmt: skip
    print("| Status | Requests |\n|---|---:|")
    for name in sorted(classes):
        print(f"| {name} | {classes[name]:,} |")
    print(f"| **5xx or no answer** | **{len(fuzzed['errors'])}** |\n")
    for status, path, query in fuzzed["errors"][:20]:
        print(f"- {status} {path}?{urllib.parse.urlencode(query)[:200]}")
    print(f"Cache keys memcached would refuse (Django's CacheKeyWarning): "
          f"{fuzzed['cache_key_warnings']}\n")  # fmt: skip
    if "concurrent" in fuzzed:
        outcomes = ", ".join(f"{n} {name}" for name, n in sorted(fuzzed["concurrent"].items()))
        print(f"Concurrent price checks, {fuzzed['pairs']} pairs of two recorders recording the "
              f"same provider and day at once: {outcomes}\n")  # fmt: skip
    if "cache_entries" in fuzzed:
        print(f"Page-cache entries left by {fuzzed['requests']:,} visits to `/en/gpus/` with a "
              f"random `?utm_source=`: {fuzzed['cache_entries']:,} (goal 1)\n")  # fmt: skip
    print("## Escaping\n")
    print("| Hostile strings (6+ characters, with `<>\"'`) checked in HTML responses "
          "| Found unescaped |")  # fmt: skip
    print("|---:|---:|")
    print(f"| {fuzzed['html_checked']:,} | {len(fuzzed['reflected'])} |\n")
    for path, raw in fuzzed["reflected"][:20]:
        print(f"- {path}: {raw[:120]!r}")
    if down is not None:
        print("## Database down (DATABASE_URL at a closed port)\n")
        print("| Page | Status |\n|---|---:|")
        for path, status in down:
            print(f"| `{path}` | {status or 'no answer'} |")
        counts = collections.Counter(status for _path, status in down)
        summary = ", ".join(f"{count} × {status}" for status, count in sorted(counts.items()))
        print(f"\n{len(down)} pages: {summary}\n")
    return 1 if fuzzed["errors"] or fuzzed["reflected"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", "-n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--url", help="a running server on a loopback address")
    parser.add_argument("--skip-database-down", action="store_true")
    parser.add_argument("--database-down-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.requests <= 100_000:
        parser.error("--requests must be from 1 to 100,000")

    if args.database_down_child:
        # Nothing listens on port 9 of 127.0.0.1 (discard); every query fails at once.
        django_in_process("postgres://gpuguide@127.0.0.1:9/gpuguide", seed_content=False)
        print(json.dumps(every_page(InProcess())))
        return 0

    if args.url:
        agent = OverHttp(args.url)
        failed = report(fuzz(agent, args.requests, args.seed), None, args)
        # Then the capacity attack as the server is configured (through Varnish: its cap).
        loaded = security_attacks.planner_load_at(args.url)
        print(security_attacks.as_markdown([loaded]))
        return failed or int(not loaded.held)

    with tempfile.TemporaryDirectory(prefix="gpuguide-security-") as folder:
        django_in_process(f"sqlite:///{folder}/db.sqlite3", seed_content=True)
        import logging

        logging.disable(logging.CRITICAL)  # 4xx/5xx log lines would drown the figures
        fuzzed = fuzz(InProcess(), args.requests, args.seed)
        fuzzed["cache_entries"] = cache_entries_from_random_queries(
            InProcess(), args.requests, args.seed
        )
        fuzzed["pairs"] = 10
        fuzzed["concurrent"] = concurrent_price_checks(fuzzed["pairs"])
        findings = security_attacks.run_all()
    down = None if args.skip_database_down else database_down_figures()
    print(security_attacks.as_markdown(findings))
    failed = report(fuzzed, down, args)
    return failed or int(not all(finding.held for finding in findings))


if __name__ == "__main__":
    sys.exit(main())
