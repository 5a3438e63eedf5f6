"""The price-history step chart's geometry: scales, ticks and paths, exactly, without Django."""

from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from guides.pages.charts import (
    LEFT,
    MIN_TICK_GAP,
    ChartPoint,
    Series,
    nice_step,
    price_ticks,
    step_chart,
    step_path,
)

OCT29, NOV15, NOV29 = date(2026, 10, 29), date(2026, 11, 15), date(2026, 11, 29)


@pytest.mark.parametrize(
    ("high", "step"),
    [
        (D("0.82"), D("0.25")),  # 4 x 0.2 = 0.8 is short of 0.82
        (D("0.80"), D("0.2")),  # equality covers
        (D("0.99"), D("0.25")),
        (D("1.09"), D("0.5")),
        (D("4.61"), D("2")),
        (D("5.4325"), D("2")),
        (D("8"), D("2")),
        (D("8.01"), D("2.5")),
        (D("100"), D("25")),
        (D("0"), D("1")),  # nothing to scale: one dollar
    ],
)
def test_nice_step_is_the_smallest_1_2_2_5_or_5_that_covers_in_four(high, step):
    assert nice_step(high) == step


@pytest.mark.parametrize(
    ("high", "ticks"),
    [
        (D("0.82"), ["0", "0.25", "0.5", "0.75", "1"]),
        (D("1.09"), ["0", "0.5", "1", "1.5"]),
        (D("5.4325"), ["0", "2", "4", "6"]),
        (D("6"), ["0", "2", "4", "6"]),  # the top is the price itself when it is a multiple
        (D("0"), ["0", "1"]),
    ],
)
def test_price_axis_starts_at_zero_and_ends_at_the_first_step_above_the_price(high, ticks):
    assert price_ticks(high) == [D(t) for t in ticks]


def test_step_path_holds_each_price_until_the_next_and_carries_the_last_to_the_end():
    points = [
        ChartPoint(D("56.0"), D("73.1"), OCT29, D("0.92")),
        ChartPoint(D("200.0"), D("65.7"), NOV15, D("0.99")),
    ]
    assert step_path(points, D("346.0")) == "M56.0 73.1 H200.0 V65.7 H346.0"
    assert step_path(points[:1], D("346.0")) == "M56.0 73.1 H346.0"


def test_a_7_6_percent_rise_is_a_small_step_on_an_axis_from_zero():
    chart = step_chart(
        [
            Series("GPUwithCrypto", True, [(OCT29, D("0.92")), (NOV29, D("0.99"))]),
            Series("Massed Compute", False, []),  # keeps its style number, draws nothing
            Series("Thunder Compute", False, [(OCT29, D("1.09")), (NOV15, D("1.29"))]),
        ],
        end=NOV29,
    )
    ours, theirs = chart.series
    assert (chart.start, chart.end, chart.high) == (OCT29, NOV29, D("1.5"))
    assert [(t.y, t.usd) for t in chart.price_ticks] == [
        (D("170.0"), D("0")), (D("122.0"), D("0.5")), (D("74.0"), D("1.0")), (D("26.0"), D("1.5"))
    ]  # fmt: skip
    # 0.92 -> 0.99 is 6.7 units of the 144 between $0 and $1.50.
    assert ours.path == "M56.0 81.7 H346.0 V75.0 H346.0"
    assert (ours.index, ours.house, theirs.index, theirs.house) == (0, True, 2, False)
    assert theirs.path == "M56.0 65.4 H215.0 V46.2 H346.0"
    assert [(p.x, p.y, p.on, p.usd) for p in theirs.points] == [
        (D("56.0"), D("65.4"), OCT29, D("1.09")), (D("215.0"), D("46.2"), NOV15, D("1.29"))
    ]  # fmt: skip
    assert [(t.x, t.on, t.anchor) for t in chart.date_ticks] == [
        (D("56.0"), OCT29, "start"), (D("215.0"), NOV15, "middle"), (D("346.0"), NOV29, "end")
    ]  # fmt: skip


def test_a_check_day_too_close_to_a_labelled_one_gets_no_label_of_its_own():
    near_end = date(2026, 11, 25)  # 4 of 31 days before the end: under MIN_TICK_GAP
    chart = step_chart([Series("Ours", True, [(OCT29, D("1")), (near_end, D("2"))])], end=NOV29)
    assert [t.on for t in chart.date_ticks] == [OCT29, NOV29]
    assert chart.series[0].points[1].x > chart.date_ticks[-1].x - MIN_TICK_GAP


def test_a_chart_ends_today_or_on_its_last_check_and_needs_one_price():
    assert step_chart([Series("Ours", True, [])], end=NOV29) is None
    only_today = step_chart([Series("Ours", True, [(NOV29, D("2.32"))])], end=NOV29)
    assert [(t.x, t.on) for t in only_today.date_ticks] == [(LEFT, NOV29)]
    assert only_today.series[0].path == ""  # one check: a dot, no line
    assert only_today.series[0].dots == "M56.0 58.6h0"  # $2.32 of $3
    assert only_today.series[0].single
    later = step_chart([Series("Ours", True, [(NOV29, D("1"))])], end=OCT29)
    assert later.end == NOV29  # an as-of day never cuts off a price


def test_date_labels_keep_clear_of_each_other_however_many_check_days():
    """The first label runs right of its tick, the last left, the others are centred: with a
    change every day only the days whose whole label fits between get one."""
    days = [OCT29 + timedelta(days=n) for n in range(31)]
    chart = step_chart(
        [Series("Ours", True, [(day, D(1 + n % 2)) for n, day in enumerate(days)])], end=NOV29
    )
    # Oct 29 takes 56.0-132.0; Nov 12 (56 + 290 * 14 / 31) 149.0-225.0; Nov 29 270.0-346.0.
    assert [(t.x, t.on, t.anchor) for t in chart.date_ticks] == [
        (D("56.0"), OCT29, "start"), (D("187.0"), date(2026, 11, 12), "middle"),
        (D("346.0"), NOV29, "end"),
    ]  # fmt: skip
    assert len(chart.series[0].points) == 31  # a point at every change all the same
