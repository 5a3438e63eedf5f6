"""Price-history charts drawn server-side as SVG coordinates (no JavaScript, no library)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

WIDTH = Decimal(320)
HEIGHT = Decimal(120)
PAD = Decimal(12)
TENTH = Decimal("0.1")


@dataclass(frozen=True)
class ChartPoint:
    x: Decimal
    y: Decimal
    on: date
    usd: Decimal


@dataclass(frozen=True)
class PriceChart:
    points: list[ChartPoint]
    low: Decimal
    high: Decimal
    width: Decimal = WIDTH
    height: Decimal = HEIGHT

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x},{p.y}" for p in self.points)


def price_chart(history: list[tuple[date, Decimal]]) -> PriceChart | None:
    """Scale (date, price) points into the chart box; a flat line when the price never moved."""
    if not history:
        return None
    first, last = history[0][0], history[-1][0]
    low = min(p for _d, p in history)
    high = max(p for _d, p in history)
    span_days = Decimal(max((last - first).days, 1))
    span_usd = high - low
    points = []
    for on, usd in history:
        x = PAD + (WIDTH - 2 * PAD) * Decimal((on - first).days) / span_days
        if len(history) == 1:
            x = WIDTH / 2
        y = HEIGHT / 2 if not span_usd else PAD + (HEIGHT - 2 * PAD) * (high - usd) / span_usd
        points.append(ChartPoint(x.quantize(TENTH), y.quantize(TENTH), on, usd))
    return PriceChart(points, low, high)
