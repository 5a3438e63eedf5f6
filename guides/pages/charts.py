"""Price-history step charts drawn server-side as SVG coordinates (no JavaScript, no library).

A chart holds one GPU's price per GPU-hour at several providers on shared axes: dates across,
US dollars up from zero, so a 7.6 % rise looks like one. Each price holds until the next check
changed it, hence steps: a horizontal run at each price, a vertical jump on the day it changed,
and the last price carried to the chart's end (today, or the as-of day). A provider checked
once so far is a dot on the same axes: one check says nothing of how long its price held.
Everything here is numbers and dates; the template formats the labels for the visitor's
language.
"""

from __future__ import annotations

from collections.abc import Callable
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


@dataclass(frozen=True)
class Series:
    """One provider's prices for the GPU: (check date, USD per GPU-hour), oldest first."""

    name: str
    house: bool
    points: list[tuple[date, Decimal]]


@dataclass(frozen=True)
class ChartPoint:
    x: Decimal
    y: Decimal
    on: date
    usd: Decimal


@dataclass(frozen=True)
class DrawnSeries:
    name: str
    house: bool
    index: int  # its line style: 0 for ours, then 1, 2, … for the others
    points: list[ChartPoint]
    path: str  # the SVG path of the steps
    dots: str  # a dot at each change: one path of zero-length, round-capped strokes

    @property
    def last(self) -> ChartPoint:
        return self.points[-1]

    @property
    def single(self) -> bool:
        """One check so far: drawn as a dot, no line (nothing says how long the price held)."""
        return len(self.points) == 1


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
class StepChart:
    series: list[DrawnSeries]
    date_ticks: list[DateTick]
    phone_date_ticks: list[DateTick]  # the same, spaced for a phone's larger labels
    price_ticks: list[PriceTick]
    start: date
    end: date
    width: Decimal = WIDTH
    height: Decimal = HEIGHT
    left: Decimal = LEFT
    right: Decimal = WIDTH - RIGHT
    top: Decimal = TOP
    bottom: Decimal = HEIGHT - BOTTOM

    @property
    def price_label_x(self) -> Decimal:
        return self.left - 6

    @property
    def tick_end(self) -> Decimal:
        return self.bottom + 5

    @property
    def date_label_y(self) -> Decimal:
        return self.bottom + 20

    @property
    def high(self) -> Decimal:
        """The top of the price axis."""
        return self.price_ticks[-1].usd


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


def step_path(points: list[ChartPoint], end_x: Decimal) -> str:
    """M to the first check, then across to each change and up or down to its price."""
    first, *rest = points
    parts = [f"M{first.x} {first.y}"]
    for point in rest:
        parts.append(f"H{point.x} V{point.y}")
    parts.append(f"H{end_x}")
    return " ".join(parts)


def dots_path(points: list[ChartPoint]) -> str:
    """ "M56.0 73.1h0M200.0 65.7h0": a path whose round caps draw a dot at each point, 13 bytes a
    change where a <circle> took 60 (a year of daily changes is 365 of them per line)."""
    return "".join(f"M{p.x} {p.y}h0" for p in points)


def step_chart(series: list[Series], *, end: date) -> StepChart | None:
    """The chart of ``series`` from the earliest check to ``end``; None when nothing is priced.

    Series without points are left out; the first series keeps style 0 (ours).
    """
    drawn_series = [s for s in series if s.points]
    if not drawn_series:
        return None
    start = min(s.points[0][0] for s in drawn_series)
    end = max(end, *(s.points[-1][0] for s in drawn_series))
    span_days = Decimal(max((end - start).days, 1))
    ticks = price_ticks(max(usd for s in drawn_series for _on, usd in s.points))
    high = ticks[-1]

    def x_of(on: date) -> Decimal:
        return (LEFT + PLOT_WIDTH * Decimal((on - start).days) / span_days).quantize(TENTH)

    def y_of(usd: Decimal) -> Decimal:
        return (TOP + PLOT_HEIGHT * (high - usd) / high).quantize(TENTH)

    end_x = (LEFT + PLOT_WIDTH).quantize(TENTH)
    drawn = []
    for index, s in enumerate(series):
        if not s.points:
            continue
        points = [ChartPoint(x_of(on), y_of(usd), on, usd) for on, usd in s.points]
        path = step_path(points, end_x) if len(points) > 1 else ""
        drawn.append(DrawnSeries(s.name, s.house, index, points, path, dots_path(points)))
    checks = sorted({p.on for s in drawn for p in s.points})
    return StepChart(
        series=drawn,
        date_ticks=date_ticks(start, end, checks, x_of),
        phone_date_ticks=date_ticks(start, end, checks, x_of, label_width=PHONE_LABEL_WIDTH),
        price_ticks=[PriceTick(y_of(usd), usd) for usd in ticks],
        start=start,
        end=end,
    )


def date_ticks(
    start: date,
    end: date,
    checks: list[date],
    x_of: Callable[[date], Decimal],
    *,
    label_width: Decimal = LABEL_WIDTH,
) -> list[DateTick]:
    """The first check and the end, plus each check day whose label keeps clear of the labels
    chosen (the first is drawn from its tick rightwards, the end leftwards, others centred),
    each label ``label_width`` wide."""
    chosen = [DateTick(x_of(start), start, "start")]
    if end != start:
        chosen.append(DateTick(x_of(end), end, "end"))
    for on in checks:
        tick = DateTick(x_of(on), on, "middle")
        if all(_apart(tick, other, label_width) for other in chosen):
            chosen.append(tick)
    return sorted(chosen, key=lambda tick: tick.x)


def _extent(tick: DateTick, width: Decimal) -> tuple[Decimal, Decimal]:
    left = {"start": 0, "middle": width / 2, "end": width}[tick.anchor]
    return tick.x - left, tick.x - left + width


def _apart(a: DateTick, b: DateTick, width: Decimal) -> bool:
    (a_left, a_right), (b_left, b_right) = _extent(a, width), _extent(b, width)
    return a_left >= b_right + LABEL_GAP or b_left >= a_right + LABEL_GAP
