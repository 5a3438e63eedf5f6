"""The GPU page at a long history: a price checked daily is one row from its first to its last
day, the table of changes comes in pages of ten (``?page=``, 404 for anything but a page that
exists), and the charts keep a point at every change, never one a day."""

import re
from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from pricing.services import price_check_record

from ..conftest import SEED_DAY
from .test_views import _text, chart_of, table_rows

THIN = "\u2009"  # Babel's interval forms put thin spaces around the dash


def raw_cells(response) -> str:
    return re.search(r'<table class="changes">.*?</table>', response.content.decode(), re.S)[0]


def record(day: int, price: str, month: int = 11) -> None:
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, month, day),
                       prices={"a100-80gb": D(price)})  # fmt: skip


@pytest.fixture
def held_then_raised(seeded):
    """Ours: A100 80GB $0.92 checked Oct 29, Nov 1 and Nov 5, then $0.99 on Nov 8 and Nov 15."""
    for day, price in ((1, "0.92"), (5, "0.92"), (8, "0.99"), (15, "0.99")):
        record(day, price)


@pytest.fixture
def twelve_changes(seeded):
    """Ours: A100 80GB $1.00 and $0.92 by turns, Nov 1 to Nov 12: 12 changes after the seed's
    $0.92, and with the seed's other 7 prices 19 rows, two pages."""
    for day in range(1, 13):
        record(day, "1.00" if day % 2 else "0.92")


@pytest.mark.parametrize(
    ("lang", "rows"),
    [
        ("en", [["A100 80GB", "GPUwithCrypto (ours)", f"Nov 8{THIN}–{THIN}15, 2026", "$0.99"],
                ["A100 80GB", "GPUwithCrypto (ours)", f"Oct 29{THIN}–{THIN}Nov 5, 2026",
                 "$0.92"]]),
        ("de", [["A100 80GB", "GPUwithCrypto (wir)", "8.–15. Nov. 2026", "0,99 $"],
                ["A100 80GB", "GPUwithCrypto (wir)", f"29. Okt.{THIN}–{THIN}5. Nov. 2026",
                 "0,92 $"]]),
        ("ja", [["A100 80GB", "GPUwithCrypto（当社）", "2026年11月8日～15日", "$0.99"],
                ["A100 80GB", "GPUwithCrypto（当社）", "2026年10月29日～11月5日", "$0.92"]]),
    ],
)  # fmt: skip
def test_a_price_checked_on_several_days_is_one_row_from_its_first_to_its_last(
    client, held_then_raised, lang, rows
):
    response = client.get(f"/{lang}/gpus/")
    table = table_rows(response, "changes")
    plain = [[cell.replace(THIN, " ") for cell in row] for row in rows]
    assert table[1] == plain[0]  # the newest first
    assert [row for row in table if row[:2] == rows[0][:2]] == plain  # 5 checks, 2 prices
    for row in rows:  # the dates as Babel joins them: no-break spaces, thin ones at the dash
        assert f">{row[2].replace(' ', chr(0xA0))}</td>" in raw_cells(response)


def test_the_chart_has_a_point_at_each_change_not_at_each_check(client, held_then_raised):
    chart = chart_of(client.get("/en/gpus/"), "A100 80GB")
    # Oct 29 at x 56.0, Nov 8 at 56 + 290 * 10 / 31 = 149.5; $0.92 and $0.99 of $1.50.
    assert re.findall(r'<path class="(?:line|dots) series-0" d="([^"]*)"/>', chart) == [
        "M56.0 81.7 H149.5 V75.0 H346.0",
        "M56.0 81.7h0M149.5 75.0h0",
    ]


def test_every_change_is_a_point_of_the_chart(client, twelve_changes):
    chart = chart_of(client.get("/en/gpus/"), "A100 80GB")
    dots = re.search(r'<path class="dots series-0" d="([^"]*)"/>', chart).group(1)
    # Oct 29, then Nov 1 to Nov 12 (x = 56 + 290 * days / 31), $1.00 at 74.0, $0.92 at 81.7.
    assert dots == (
        "M56.0 81.7h0M84.1 74.0h0M93.4 81.7h0M102.8 74.0h0M112.1 81.7h0M121.5 74.0h0"
        "M130.8 81.7h0M140.2 74.0h0M149.5 81.7h0M158.9 74.0h0M168.3 81.7h0M177.6 74.0h0"
        "M187.0 81.7h0"
    )


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


def pager(response) -> tuple[str, list[tuple[str, str, str]]]:
    nav = re.search(r'<nav class="pager"[^>]*>(.*?)</nav>', response.content.decode(), re.S)
    links = re.findall(r'<a href="([^"]*)" rel="(\w+)">([^<]*)</a>', nav.group(1))
    return _text(re.sub(r"<a .*?</a>", "", nav.group(1))), links


def test_the_changes_come_ten_to_a_page_newest_first_with_links(client, twelve_changes):
    first = client.get("/en/gpus/")
    rows = table_rows(first, "changes")[1:]
    assert [row[2] for row in rows] == [f"Nov {day}, 2026" for day in range(12, 2, -1)]
    assert pager(first) == ("Page 1 of 2", [("?page=2#changes", "next", "Older changes")])

    second = client.get("/en/gpus/?page=2")
    assert second.status_code == 200
    rows = table_rows(second, "changes")[1:]
    assert [(row[0], row[2], row[3]) for row in rows] == [
        ("A100 80GB", "Nov 2, 2026", "$0.92"),
        ("A100 80GB", "Nov 1, 2026", "$1.00"),
        ("L40S", "Oct 29, 2026", "$0.82"),
        ("A100 80GB", "Oct 29, 2026", "$0.92"),
        ("A100 80GB", "Oct 29, 2026", "$1.09"),
        ("H100", "Oct 29, 2026", "$2.32"),
        ("H200", "Oct 29, 2026", "$3.07"),
        ("B200", "Oct 29, 2026", "$4.61"),
        ("B200", "Oct 29, 2026", "$5.4325"),
    ]
    assert pager(second) == ("Page 2 of 2", [("?page=1#changes", "prev", "Newer changes")])
    # The rest of the page is the same: every chart keeps every change on every page.
    assert chart_of(second, "A100 80GB") == chart_of(first, "A100 80GB")


def test_the_page_links_keep_the_day_asked_for(client, twelve_changes):
    response = client.get("/de/gpus/?as_of=2026-11-12")
    assert pager(response) == (
        "Seite 1 von 2",
        [("?as_of=2026-11-12&amp;page=2#changes", "next", "Ältere Änderungen")],
    )
    assert client.get("/de/gpus/?as_of=2026-11-12&page=2").status_code == 200
    # As of Nov 3 the seed's 7 prices and 3 changes: one page, no links, page 2 is none.
    assert "pager" not in client.get("/de/gpus/?as_of=2026-11-03").content.decode()
    assert client.get("/de/gpus/?as_of=2026-11-03&page=2").status_code == 404


@pytest.mark.parametrize(
    "query",
    ["page=0", "page=abc", "page=99999", "page=3", "page=02", "page=-1", "page=1.0", "page=２",
     "page=", "page=1&page=2", "page=" + "9" * 5000],
)  # fmt: skip
def test_a_page_that_does_not_exist_is_404(client, twelve_changes, query):
    for _visit in range(2):
        response = client.get(f"/en/gpus/?{query}")
        assert response.status_code == 404
        assert response.get("X-Page-Cache") != "hit"  # never stored


def test_each_page_is_cached_as_itself(client, twelve_changes):
    for url, says in (("/en/gpus/?page=2", "Page 2 of 2"), ("/en/gpus/", "Page 1 of 2")):
        client.get(url)
        hit = client.get(url)
        assert hit["X-Page-Cache"] == "hit"
        assert says in hit.content.decode()
    assert client.get("/en/gpus/?page=1").status_code == 200  # the bare page's own number


def test_a_year_of_daily_checks_at_one_price_is_one_row_and_one_point(client, seeded):
    for days in range(1, 366):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY - timedelta(days),
                           prices={"a100-80gb": D("0.92")})  # fmt: skip
    response = client.get("/en/gpus/")
    rows = [row for row in table_rows(response, "changes") if row[:2] == ["A100 80GB",
            "GPUwithCrypto (ours)"]]  # fmt: skip
    # The charts' window is the 365 days up to today (Nov 29): from Nov 30, 2025.
    assert rows == [["A100 80GB", "GPUwithCrypto (ours)", "Nov 30, 2025 – Oct 29, 2026", "$0.92"]]
    dots = re.search(r'<path class="dots series-0" d="([^"]*)"/>',
                     chart_of(response, "A100 80GB")).group(1)  # fmt: skip
    assert dots.count("h0") == 1
