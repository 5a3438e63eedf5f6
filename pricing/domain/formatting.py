"""Locale-aware formatting of the service's Decimals through Babel, one function per kind of
figure. A no-break space keeps "52,5 GB" from wrapping before its unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from functools import lru_cache

from babel.dates import format_date as babel_format_date
from babel.dates import format_interval
from babel.lists import format_list as babel_format_list
from babel.numbers import format_currency, format_decimal, format_percent, get_plus_sign_symbol

NBSP = "\u00a0"


def trim(value: Decimal) -> Decimal:
    """Drop trailing zeros a DecimalField adds (0.9200 -> 0.92, 80.0 -> 80) without exponents."""
    if value == value.to_integral_value():
        return value.quantize(Decimal(1))
    return value.normalize()


# Cached: a page formats a few hundred, mostly the same on every render (40 % of a render,
# docs/performance.md).
@lru_cache(maxsize=8192)
def number(value: Decimal | int, locale: str) -> str:
    """1120 -> '1.120' (de), 52.5 -> '52,5' (de), 0.74 -> '0.74' (en)."""
    return format_decimal(trim(Decimal(value)), locale=locale, decimal_quantization=False)


def gigabytes(value: Decimal, locale: str) -> str:
    return f"{number(value, locale)}{NBSP}GB"


@lru_cache(maxsize=8192)
def usd(value: Decimal, locale: str) -> str:
    """$0.92 (en), 0,92 $ (de); more than two decimals are kept: 5,4325 $."""
    return format_currency(trim(value), "USD", locale=locale, decimal_quantization=False)


def percent(fraction: Decimal, locale: str) -> str:
    """0.2 -> '20%' (en), '20 %' (de)."""
    return format_percent(trim(fraction), locale=locale, decimal_quantization=False)


def signed_percent(fraction: Decimal, locale: str) -> str:
    """A change: 0.033 -> '+3.3%' (en), '+3,3 %' (de); -0.9 -> '-90%'; 0 -> '0%'."""
    shown = percent(fraction, locale)
    return f"{get_plus_sign_symbol(locale)}{shown}" if fraction > 0 else shown


def long_date(value: date, locale: str) -> str:
    """October 29, 2026 / 29. Oktober 2026 / 2026年10月29日, never broken across lines."""
    return babel_format_date(value, format="long", locale=locale).replace(" ", NBSP)


def medium_date(value: date, locale: str) -> str:
    """Oct 29, 2026 / 29.10.2026 / 2026/10/29: short enough for a chart's axis."""
    return babel_format_date(value, format="medium", locale=locale).replace(" ", NBSP)


def date_range(first: date, last: date, locale: str) -> str:
    """Oct 29 – Nov 29, 2026 / 29. Okt. – 29. Nov. 2026 / 2026年10月29日～11月29日: the days a
    price held, in the locale's own interval form (one day where first is last)."""
    return format_interval(first, last, "yMMMd", locale=locale).replace(" ", NBSP)


def word_list(items: Sequence[str], locale: str, style: str = "standard") -> str:
    """'10, 24 and 168' ('standard') or '10, 24 or 168' ('or') in the locale's words."""
    return babel_format_list(list(items), style=style, locale=locale)
