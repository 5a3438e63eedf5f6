"""The GPU page at a long history: each provider's prices for each GPU over the charts' year
summed up in a table and in words, the charts' lines (a point at every change) an image of
their own, and that year's every price with its days a CSV download, so that the page weighs
as much for a year of daily changes as for one check."""

import re
from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from guides.pagecache.invalidation import invalidate_everything
from pricing.models import Price, PriceCheck, Provider
from pricing.services import price_check_record
from tests.conftest import SEED_DAY, as_if_committed
from tests.guides.test_views import _text, chart_of, table_rows

IN_THE_YEAR = 333  # days before the seed's check within the charts' year up to Nov 29, 2026


def record(day: int, price: str, month: int = 11) -> None:
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, month, day),
                       prices={"a100-80gb": D(price)})  # fmt: skip


def daily_changes(first: int, last: int) -> None:
    """A check a day from ``first`` to ``last`` days before the seed's at every provider, of
    the GPUs it priced in the seed: $1.00 on odd days, $1.10 on even ones (a change a day)."""
    seeded = {
        provider: list(provider.checks.get(checked_on=SEED_DAY).prices.values_list("gpu_id"))
        for provider in Provider.objects.all()
    }
    for provider, gpus in seeded.items():
        checks = PriceCheck.objects.bulk_create(
            PriceCheck(provider=provider, checked_on=SEED_DAY - timedelta(days=day))
            for day in range(first, last + 1)
        )
        checks = PriceCheck.objects.filter(  # SQLite's bulk insert returns no keys
            provider=provider, checked_on__lt=SEED_DAY - timedelta(days=first - 1)
        ).filter(checked_on__gte=SEED_DAY - timedelta(days=last))
        Price.objects.bulk_create(
            Price(
                price_check=check,
                provider=provider,
                checked_on=check.checked_on,
                gpu_id=gpu,
                quoted_usd_per_hour=D("1.00")
                if (SEED_DAY - check.checked_on).days % 2
                else D("1.10"),
            )  # fmt: skip
            for check in checks
            for (gpu,) in gpus
        )
    invalidate_everything()  # bulk inserts send no signals


@pytest.fixture
def held_then_raised(seeded):
    """Ours: A100 80GB $0.92 checked Oct 29, Nov 1 and Nov 5, then $0.99 on Nov 8 and Nov 15."""
    for day, price in ((1, "0.92"), (5, "0.92"), (8, "0.99"), (15, "0.99")):
        record(day, price)


@pytest.fixture
def twelve_changes(seeded):
    """Ours: A100 80GB $1.00 and $0.92 by turns, Nov 1 to Nov 12: 12 changes after the seed's
    $0.92."""
    for day in range(1, 13):
        record(day, "1.00" if day % 2 else "0.92")


@pytest.fixture
def a_year_of_daily_changes(seeded):
    daily_changes(1, 400)  # a year and a month: the oldest are past the charts' year


def history_row(response, gpu: str, provider: str) -> list[str]:
    [row] = [row for row in table_rows(response, "history") if row[:2] == [gpu, provider]]
    return row[2:]


@pytest.mark.parametrize(
    ("lang", "ours", "row"),
    [
        ("en", "GPUwithCrypto (ours)",
         ["Oct 29 – Nov 15, 2026", "$0.92", "$0.99", "$0.92", "$0.99", "1"]),
        ("de", "GPUwithCrypto (wir)",
         ["29. Okt. – 15. Nov. 2026", "0,92 $", "0,99 $", "0,92 $", "0,99 $", "1"]),
        ("ja", "GPUwithCrypto（当社）",
         ["2026年10月29日～11月15日", "$0.92", "$0.99", "$0.92", "$0.99", "1"]),
    ],
)  # fmt: skip
def test_the_summary_gives_the_first_latest_lowest_and_highest_price_and_the_changes(
    client, held_then_raised, lang, ours, row
):
    # 5 checks, 2 prices: one change
    assert history_row(client.get(f"/{lang}/gpus/"), "A100 80GB", ours) == row


def test_a_year_of_daily_changes_is_summed_up_exactly(client, a_year_of_daily_changes):
    response = client.get("/en/gpus/")
    # From Nov 30, 2025 ($1.00, 333 days before the seed's check) a new price every day, then
    # the seed's: 334 prices, 333 changes.
    assert history_row(response, "A100 80GB", "GPUwithCrypto (ours)") == [
        "Nov 30, 2025 – Oct 29, 2026", "$1.00", "$0.92", "$0.92", "$1.10", "333"
    ]  # fmt: skip
    assert history_row(response, "B200", "Massed Compute") == [
        "Nov 30, 2025 – Oct 29, 2026", "$1.00", "$5.4325", "$1.00", "$5.4325", "333"
    ]  # fmt: skip
    chart = chart_of(response, "A100 80GB")
    assert _text(re.search(r"<desc[^>]*>(.*?)</desc>", chart, re.S).group(1)) == (
        "GPUwithCrypto (ours): 334 prices since November 30, 2025, from $0.92 to $1.10; the "
        "latest $1.10 from October 27, 2026, $1.00 from October 28, 2026, and $0.92 from "
        "October 29, 2026. Thunder Compute: 334 prices since November 30, 2025, from $1.00 to "
        "$1.10; the latest $1.10 from October 27, 2026, $1.00 from October 28, 2026, and $1.09 "
        "from October 29, 2026."
    )


def test_the_page_weighs_the_same_for_a_year_of_daily_changes_and_stops_growing(client, seeded):
    daily_changes(1, 1)  # two prices a line: every GPU a chart (one check each is words)
    as_if_committed()
    two = client.get("/ja/gpus/").content
    daily_changes(2, 365)
    as_if_committed()
    response = client.get("/ja/gpus/")
    assert response["X-Page-Cache"] == "miss"
    a_year = response.content
    assert len(two) < len(a_year) < len(two) * 1.1  # the seed's 7 lines at 334 prices each
    daily_changes(366, 730)  # a year before the charts' year: nothing of it on the page
    as_if_committed()
    response = client.get("/ja/gpus/")
    assert response["X-Page-Cache"] == "miss"
    assert response.content == a_year
    lines = client.get("/ja/gpus/a100-80gb/lines.svg").content.decode()
    assert lines.count("h0") == 2 * 334  # a dot at every change of both lines, in the image


def test_every_change_is_a_point_of_the_lines_image(client, twelve_changes):
    lines = client.get("/en/gpus/a100-80gb/lines.svg").content.decode()
    dots = re.search(r'<path fill="none" stroke="#1f5fd1" stroke-width="7"[^>]* d="([^"]*)"/>',
                     lines).group(1)  # fmt: skip
    # Oct 29, then Nov 1 to Nov 12 (x = 56 + 290 * days / 31), $1.00 at 74.0, $0.92 at 81.7:
    # the page's frame, whose $1.00 gridline is at 74.0 too.
    assert dots == (
        "M56.0 81.7h0M84.1 74.0h0M93.4 81.7h0M102.8 74.0h0M112.1 81.7h0M121.5 74.0h0"
        "M130.8 81.7h0M140.2 74.0h0M149.5 81.7h0M158.9 74.0h0M168.3 81.7h0M177.6 74.0h0"
        "M187.0 81.7h0"
    )
    chart = chart_of(client.get("/en/gpus/"), "A100 80GB")
    assert '<text class="tick" x="50" y="74.0" dy="0.35em" text-anchor="end">$1.00</text>' in chart


@pytest.mark.parametrize(
    ("lang", "desc"),
    [
        ("en", "GPUwithCrypto (ours): 13 prices since October 29, 2026, from $0.92 to $1.00; the "
               "latest $0.92 from November 10, 2026, $1.00 from November 11, 2026, and $0.92 "
               "from November 12, 2026. Thunder Compute: one check so far, $1.09 on October 29, "
               "2026."),
        ("de", "GPUwithCrypto (wir): 13 Preise seit 29. Oktober 2026, von 0,92 $ bis 1,00 $; "
               "zuletzt 0,92 $ ab 10. November 2026, 1,00 $ ab 11. November 2026 und 0,92 $ ab "
               "12. November 2026. Thunder Compute: bisher eine Prüfung, 1,09 $ am 29. Oktober "
               "2026."),
        ("ja", "GPUwithCrypto（当社）：2026年10月29日以降13件の価格（$0.92～$1.00）、直近は"
               "2026年11月10日から$0.92、2026年11月11日から$1.00、2026年11月12日から$0.92。 "
               "Thunder Compute：確認はまだ一度だけ（2026年10月29日、$1.09）。"),
    ],
)  # fmt: skip
def test_a_long_line_is_described_by_its_count_range_and_latest_prices(
    client, twelve_changes, lang, desc
):
    chart = chart_of(client.get(f"/{lang}/gpus/"), "A100 80GB")
    assert _text(re.search(r"<desc[^>]*>(.*?)</desc>", chart, re.S).group(1)) == desc


def test_a_price_checked_daily_for_a_year_is_one_price_held_not_one_check(client, seeded):
    for days in range(1, 366):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY - timedelta(days),
                           prices={"a100-80gb": D("0.92")})  # fmt: skip
    response = client.get("/en/gpus/")
    # The charts' window is the 365 days up to today (Nov 29): from Nov 30, 2025.
    assert history_row(response, "A100 80GB", "GPUwithCrypto (ours)") == [
        "Nov 30, 2025 – Oct 29, 2026", "$0.92", "$0.92", "$0.92", "$0.92", "0"
    ]  # fmt: skip
    legend = re.search(r'<ul class="legend">(.*?)</ul>', chart_of(response, "A100 80GB"), re.S)
    assert "GPUwithCrypto (ours)</li>" in legend.group(1)  # a line, not "one check so far"
    lines = client.get("/en/gpus/a100-80gb/lines.svg").content.decode()
    assert re.findall(r'stroke="#1f5fd1"[^>]* d="([^"]*)"/>', lines) == [
        "M56.0 81.7 H346.0",  # held from its first check to today
        "M56.0 81.7h0",  # and one point: it never changed
    ]


def test_the_lines_follow_the_day_asked_for(client, twelve_changes):
    chart = chart_of(client.get("/en/gpus/?as_of=2026-11-03"), "A100 80GB")
    assert '<image href="/en/gpus/a100-80gb/lines.svg?as_of=2026-11-03"' in chart
    lines = client.get("/en/gpus/a100-80gb/lines.svg?as_of=2026-11-03").content.decode()
    # As of Nov 3: Oct 29 to Nov 3 across (x = 56 + 290 * days / 5), four prices so far.
    assert re.search(r'stroke="#1f5fd1" stroke-width="7"[^>]* d="([^"]*)"', lines).group(1) == (
        "M56.0 81.7h0M230.0 74.0h0M288.0 81.7h0M346.0 74.0h0"
    )


def test_the_lines_image_is_cached_until_the_next_price_check(client, twelve_changes):
    as_if_committed()  # the fixture's checks
    url = "/en/gpus/a100-80gb/lines.svg"
    first = client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"
    record(20, "1.05")
    as_if_committed()
    again = client.get(url)
    assert again["X-Page-Cache"] == "miss"
    assert again.content.decode().count("h0") == first.content.decode().count("h0") + 1


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/en/gpus/nope/lines.svg", 404),
        ("/en/gpus/rtx-4090/lines.svg", 404),  # a GPU we do not rent
        ("/en/gpus/h100/lines.svg?as_of=2026-13-01", 400),
        ("/en/gpus/h100/lines.svg?as_of=2026-10-28", 400),  # before our first check
        ("/en/gpus/h100/lines.svg?as_of=2026-11-01&as_of=2026-11-02", 400),
        ("/de/gpus/nope/prices.csv", 404),
        ("/de/gpus/rtx-4090/prices.csv", 404),
        ("/de/gpus/h100/prices.csv?as_of=2026-02-30", 400),
        ("/de/gpus/h100/prices.csv?as_of=2099-01-01", 400),  # not yet
    ],
)
def test_history_addresses_refuse_what_is_not_there(client, seeded, url, status):
    for _visit in range(2):
        response = client.get(url)
        assert response.status_code == status
        assert response.get("X-Page-Cache") != "hit"  # never stored


@pytest.mark.parametrize(
    ("lang", "header"),
    [
        ("en", "GPU,Provider,First checked,Last checked,USD per GPU-hour"),
        ("de", "GPU,Anbieter,Zuerst geprüft,Zuletzt geprüft,USD pro GPU-Stunde"),
        ("ja", "GPU,プロバイダ,初回確認日,最終確認,GPU時間あたり（米ドル）"),
    ],
)
def test_the_download_lists_every_price_with_its_first_and_last_day(
    client, held_then_raised, lang, header
):
    response = client.get(f"/{lang}/gpus/a100-80gb/prices.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    # Oldest first, ours first on a day; ISO dates and plain numbers in every language.
    assert response.content.decode() == (
        f"{header}\r\n"
        "A100 80GB,GPUwithCrypto,2026-10-29,2026-11-05,0.92\r\n"
        "A100 80GB,Thunder Compute,2026-10-29,2026-10-29,1.09\r\n"
        "A100 80GB,GPUwithCrypto,2026-11-08,2026-11-15,0.99\r\n"
    )


def test_the_download_covers_the_year_of_the_page_it_is_linked_from(client, seeded):
    long_ago = SEED_DAY - timedelta(400)  # Sep 24, 2025
    price_check_record(provider_slug="gpuwithcrypto", checked_on=long_ago,
                       prices={"b200": D("4.10")})  # fmt: skip
    price_check_record(provider_slug="massed-compute", checked_on=long_ago,
                       prices={"b200": D("40.00")}, gpus_in_quote={"b200": 8})  # fmt: skip
    rows = client.get("/en/gpus/b200/prices.csv").content.decode().splitlines()
    assert rows[1:] == [
        "B200,GPUwithCrypto,2026-10-29,2026-10-29,4.61",
        "B200,Massed Compute,2026-10-29,2026-10-29,5.4325",
    ]  # the year up to today, as the chart
    figure = chart_of(client.get("/en/gpus/"), "B200")
    assert '<a href="/en/gpus/b200/prices.csv" download="b200-prices-2026-11-29.csv">' in figure
    figure = chart_of(client.get("/en/gpus/?as_of=2025-10-01"), "B200")
    assert (
        '<a href="/en/gpus/b200/prices.csv?as_of=2025-10-01" download="b200-prices-2025-10-01.csv">'
        in figure
    )
    earlier = client.get("/en/gpus/b200/prices.csv?as_of=2025-10-01")
    assert earlier.content.decode().splitlines()[1:] == [
        "B200,GPUwithCrypto,2025-09-24,2025-09-24,4.1",
        "B200,Massed Compute,2025-09-24,2025-09-24,5",
    ]


def test_an_old_link_to_a_page_of_changes_shows_the_page(client, twelve_changes):
    bare = client.get("/en/gpus/").content
    for query in ("page=2", "page=abc", "page=" + "9" * 5000):
        response = client.get(f"/en/gpus/?{query}")
        assert response.status_code == 200
        assert response.content == bare
