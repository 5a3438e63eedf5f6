"""Price-history step charts drawn server-side as SVG coordinates: one GPU's price at several
providers, dates across and US dollars up from zero. A price holds until the next check changed
it (a step); a provider checked once is a dot. The page draws the axes (``chart_axes``); the
lines, a point at every change, are an image of their own (``chart_lines``) in the same frame,
so that a year of daily changes does not weigh on the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_CEILING, Decimal

WIDTH = Decimal(360)
HEIGHT = Decimal(200)
LEFT = Decimal(56)  # room for the price labels
RIGHT = Decimal(14)
TOP = Decimal(26)  # room for the axis title
BOTTOM = Decimal(30)  # room for the date labels
PLOT_WIDTH = WIDTH - LEFT - RIGHT
PLOT_HEIGHT = HEIGHT - TOP - BOTTOM
MAX_INTERVALS = 4  # price gridlines above zero, at most
NICE_STEPS = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5))
LABEL_WIDTH = Decimal(76)  # chart units a date label takes ("Dec 30, 2026" at 12px), at most
# On a phone the labels are drawn larger (at least 12 px on the screen, site.css), so a phone
# gets a sparser set of date labels of its own: this wide each.
PHONE_LABEL_WIDTH = Decimal(105)  # at 16.5px
LABEL_GAP = Decimal(8)  # between two date labels, so that they never touch
MIN_TICK_GAP = LABEL_WIDTH + LABEL_GAP
TENTH = Decimal("0.1")
ZERO = Decimal(0)


@dataclass(frozen=True)
class Series:
    """One provider's (first day, USD per GPU-hour) of each price, oldest first."""

    points: list[tuple[date, Decimal]]
    checked_once: bool = False  # checked on one day so far: a dot, no line


# Each line's look, by its index (0 for ours, then 1, 2, … for the others): stroke colour and
# dashes. The legend's keys on the page draw the same from site.css's .series-N.
LINE_STYLES = (
    ("#1f5fd1", ""),
    ("#b35c00", "7 4"),
    ("#2e8540", "2 3"),
    ("#8a4fb8", "10 3 2 3"),
)


@dataclass(frozen=True)
class DrawnSeries:
    index: int  # its line style: 0 for ours, then 1, 2, … for the others
    path: str  # the SVG path of the steps ('' for a single check: a dot, no line)
    dots: str  # a dot at each change: one path of zero-length, round-capped strokes
    color: str
    dashes: str


def line_style(index: int) -> tuple[str, str]:
    """Past the last style the others' styles come round again, never ours."""
    if index >= len(LINE_STYLES):
        index = 1 + (index - 1) % (len(LINE_STYLES) - 1)
    return LINE_STYLES[index]


@dataclass(frozen=True)
class DateTick:
    x: Decimal
    on: date
    anchor: str  # SVG text-anchor: start, middle or end


@dataclass(frozen=True)
class PriceTick:
    y: Decimal
    usd: Decimal


@dataclass(frozen=True)
class ChartFrame:
    """The axes' ranges (days across, US dollars from zero up) in the chart's units."""

    start: date
    end: date
    high: Decimal  # the top of the price axis: a multiple of its step
    width: Decimal = WIDTH
    height: Decimal = HEIGHT
    left: Decimal = LEFT
    right: Decimal = WIDTH - RIGHT
    top: Decimal = TOP
    bottom: Decimal = HEIGHT - BOTTOM
    price_label_x: Decimal = LEFT - 6
    tick_end: Decimal = HEIGHT - BOTTOM + 5
    date_label_y: Decimal = HEIGHT - BOTTOM + 20

    def x(self, on: date) -> Decimal:
        span_days = Decimal(max((self.end - self.start).days, 1))
        return (LEFT + PLOT_WIDTH * Decimal((on - self.start).days) / span_days).quantize(TENTH)

    def y(self, usd: Decimal) -> Decimal:
        return (TOP + PLOT_HEIGHT * (self.high - usd) / self.high).quantize(TENTH)


@dataclass(frozen=True)
class ChartAxes:
    """What the page draws of a chart: its frame, gridlines and labels."""

    frame: ChartFrame
    price_ticks: list[PriceTick]
    date_ticks: list[DateTick]
    phone_date_ticks: list[DateTick]  # the same, spaced for a phone's larger labels


def nice_step(high: Decimal, intervals: int = MAX_INTERVALS) -> Decimal:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that covers ``high`` in ``intervals``."""
    if high <= 0:
        return Decimal(1)
    exponent = (high / intervals).adjusted()
    for power in (exponent, exponent + 1):
        for step in NICE_STEPS:
            if step.scaleb(power) * intervals >= high:
                return step.scaleb(power)
    raise AssertionError("unreachable: 10 ** (exponent + 1) * intervals > high")


def price_ticks(high: Decimal) -> list[Decimal]:
    """Zero and the gridline prices up to the first multiple of the step at or above ``high``."""
    step = nice_step(high)
    count = max(int((high / step).to_integral_value(ROUND_CEILING)), 1)
    return [step * i for i in range(count + 1)]


def step_path(points: list[tuple[Decimal, Decimal]], end_x: Decimal) -> str:
    """M to the first change, then across to each change and up or down to its price."""
    (x, y), *rest = points
    parts = [f"M{x} {y}"]
    for x, y in rest:
        parts.append(f"H{x} V{y}")
    parts.append(f"H{end_x}")
    return " ".join(parts)


def dots_path(points: list[tuple[Decimal, Decimal]]) -> str:
    """ "M56.0 73.1h0M200.0 65.7h0": round caps draw a dot at each point, a third of the bytes
    of a <circle>."""
    return "".join(f"M{x} {y}h0" for x, y in points)


def chart_frame(*, days: Iterable[date], prices: Iterable[Decimal], end: date) -> ChartFrame:
    """From the first of ``days`` to ``end`` (or the last day, where later), from zero to the
    first gridline at or above the highest of ``prices``. The page and the lines' image pass
    the same extremes, so that both draw in one frame."""
    days = list(days)
    return ChartFrame(
        start=min(days), end=max(end, *days), high=price_ticks(max(prices, default=ZERO))[-1]
    )


def chart_axes(frame: ChartFrame, *, days: Iterable[date]) -> ChartAxes:
    """The frame's gridlines, and labels on its first and last day and on those of ``days``
    that keep clear of them and of each other."""
    days = sorted(set(days))
    return ChartAxes(
        frame=frame,
        price_ticks=[PriceTick(frame.y(usd), usd) for usd in price_ticks(frame.high)],
        date_ticks=date_ticks(frame, days),
        phone_date_ticks=date_ticks(frame, days, label_width=PHONE_LABEL_WIDTH),
    )


def chart_lines(frame: ChartFrame, series: list[Series]) -> list[DrawnSeries]:
    """Each series with points as its steps in ``frame``; the others keep their index."""
    end_x = frame.x(frame.end)
    drawn = []
    for index, s in enumerate(series):
        if not s.points:
            continue
        points = [(frame.x(on), frame.y(usd)) for on, usd in s.points]
        path = "" if s.checked_once else step_path(points, end_x)
        drawn.append(DrawnSeries(index, path, dots_path(points), *line_style(index)))
    return drawn


def date_ticks(
    frame: ChartFrame, days: list[date], *, label_width: Decimal = LABEL_WIDTH
) -> list[DateTick]:
    """The first day and the end, plus each of ``days`` whose label (``label_width`` wide, the
    first's drawn rightwards, the end's leftwards, others centred) keeps clear of those chosen."""
    start, end = frame.start, frame.end
    chosen = [DateTick(frame.x(start), start, "start")]
    if end != start:
        chosen.append(DateTick(frame.x(end), end, "end"))
    for on in days:
        tick = DateTick(frame.x(on), on, "middle")
        if all(_apart(tick, other, label_width) for other in chosen):
            chosen.append(tick)
    return sorted(chosen, key=lambda tick: tick.x)


def _extent(tick: DateTick, width: Decimal) -> tuple[Decimal, Decimal]:
    left = {"start": 0, "middle": width / 2, "end": width}[tick.anchor]
    return tick.x - left, tick.x - left + width


def _apart(a: DateTick, b: DateTick, width: Decimal) -> bool:
    (a_left, a_right), (b_left, b_right) = _extent(a, width), _extent(b, width)
    return a_left >= b_right + LABEL_GAP or b_left >= a_right + LABEL_GAP
