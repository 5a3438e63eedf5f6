"""The price-history step chart's geometry: frames, ticks and paths, exactly, without Django."""

from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from guides.pages.charts import (
    LEFT,
    MIN_TICK_GAP,
    Series,
    chart_axes,
    chart_frame,
    chart_lines,
    dots_path,
    nice_step,
    price_ticks,
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
    points = [(D("56.0"), D("73.1")), (D("200.0"), D("65.7"))]
    assert step_path(points, D("346.0")) == "M56.0 73.1 H200.0 V65.7 H346.0"
    assert step_path(points[:1], D("346.0")) == "M56.0 73.1 H346.0"
    assert dots_path(points) == "M56.0 73.1h0M200.0 65.7h0"


def test_a_7_6_percent_rise_is_a_small_step_on_an_axis_from_zero():
    ours, none, theirs = [(OCT29, D("0.92")), (NOV29, D("0.99"))], [], [
        (OCT29, D("1.09")), (NOV15, D("1.29"))
    ]  # fmt: skip
    every = ours + theirs
    frame = chart_frame(days=[d for d, _ in every], prices=[p for _, p in every], end=NOV29)
    assert (frame.start, frame.end, frame.high) == (OCT29, NOV29, D("1.5"))
    axes = chart_axes(frame, days=[d for d, _ in every])
    assert [(t.y, t.usd) for t in axes.price_ticks] == [
        (D("170.0"), D("0")), (D("122.0"), D("0.5")), (D("74.0"), D("1.0")), (D("26.0"), D("1.5"))
    ]  # fmt: skip
    assert [(t.x, t.on, t.anchor) for t in axes.date_ticks] == [
        (D("56.0"), OCT29, "start"), (D("215.0"), NOV15, "middle"), (D("346.0"), NOV29, "end")
    ]  # fmt: skip
    drawn = chart_lines(frame, [Series(ours), Series(none), Series(theirs)])
    # 0.92 -> 0.99 is 6.7 units of the 144 between $0 and $1.50; the second series draws
    # nothing and the third keeps its style number.
    assert [(s.index, s.path, s.dots) for s in drawn] == [
        (0, "M56.0 81.7 H346.0 V75.0 H346.0", "M56.0 81.7h0M346.0 75.0h0"),
        (2, "M56.0 65.4 H215.0 V46.2 H346.0", "M56.0 65.4h0M215.0 46.2h0"),
    ]
    assert [(s.color, s.dashes) for s in drawn] == [("#1f5fd1", ""), ("#2e8540", "2 3")]


def test_the_page_and_the_lines_image_draw_in_one_frame():
    """The page knows each line's first and latest change and its range only; the image every
    change. Both frames come out the same, so the image's lines meet the page's gridlines."""
    changes = [(OCT29, D("1.20")), (date(2026, 11, 3), D("0.70")), (NOV15, D("1.00"))]
    summed_up = chart_frame(days=[OCT29, NOV15], prices=[D("0.70"), D("1.20")], end=NOV29)
    every = chart_frame(days=[d for d, _ in changes], prices=[p for _, p in changes], end=NOV29)
    assert summed_up == every


def test_a_check_day_too_close_to_a_labelled_one_gets_no_label_of_its_own():
    near_end = date(2026, 11, 25)  # 4 of 31 days before the end: under MIN_TICK_GAP
    frame = chart_frame(days=[OCT29, near_end], prices=[D("1"), D("2")], end=NOV29)
    axes = chart_axes(frame, days=[OCT29, near_end])
    assert [t.on for t in axes.date_ticks] == [OCT29, NOV29]
    assert frame.x(near_end) > axes.date_ticks[-1].x - MIN_TICK_GAP


def test_a_chart_ends_today_or_on_its_last_check():
    only_today = chart_frame(days=[NOV29], prices=[D("2.32")], end=NOV29)
    assert [(t.x, t.on) for t in chart_axes(only_today, days=[]).date_ticks] == [(LEFT, NOV29)]
    [dot] = chart_lines(only_today, [Series([(NOV29, D("2.32"))], checked_once=True)])
    assert (dot.path, dot.dots) == ("", "M56.0 58.6h0")  # one check: a dot, no line; $2.32 of $3
    later = chart_frame(days=[NOV29], prices=[D("1")], end=OCT29)
    assert later.end == NOV29  # an as-of day never cuts off a price


def test_one_price_checked_on_many_days_is_a_line_to_the_end():
    frame = chart_frame(days=[OCT29], prices=[D("1")], end=NOV29)
    [held] = chart_lines(frame, [Series([(OCT29, D("1"))])])
    assert (held.path, held.dots) == ("M56.0 26.0 H346.0", "M56.0 26.0h0")  # $1 of $1


def test_date_labels_keep_clear_of_each_other_however_many_days_are_offered():
    """The first label runs right of its tick, the last left, the others are centred: of a
    day a month offered, only the days whose whole label fits between get one."""
    days = [OCT29 + timedelta(days=n) for n in range(31)]
    frame = chart_frame(days=days, prices=[D("1"), D("2")], end=NOV29)
    # Oct 29 takes 56.0-132.0; Nov 12 (56 + 290 * 14 / 31) 149.0-225.0; Nov 29 270.0-346.0.
    assert [(t.x, t.on, t.anchor) for t in chart_axes(frame, days=days).date_ticks] == [
        (D("56.0"), OCT29, "start"), (D("187.0"), date(2026, 11, 12), "middle"),
        (D("346.0"), NOV29, "end"),
    ]  # fmt: skip


def test_past_the_fourth_line_the_others_styles_come_round_never_ours():
    frame = chart_frame(days=[OCT29], prices=[D("1")], end=NOV29)
    drawn = chart_lines(frame, [Series([(OCT29, D("1"))]) for _provider in range(6)])
    assert [(s.index, s.color) for s in drawn] == [
        (0, "#1f5fd1"), (1, "#b35c00"), (2, "#2e8540"), (3, "#8a4fb8"), (4, "#b35c00"),
        (5, "#2e8540"),
    ]  # fmt: skip
