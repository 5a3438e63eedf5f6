"""A new price against the last one, and the two questions a price check may have to answer.

A price more than ``JUMP_FACTOR`` times, or less than 1/``JUMP_FACTOR`` of, the provider's last
price of that GPU per GPU-hour is saved only when confirmed, and so is a check dated more than
``OLD_CHECK_DAYS`` back: typing mistakes look like that ("1,90" read as 190, a year typed wrong).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from pricing.domain.calculations import per_gpu_price

JUMP_FACTOR = Decimal(3)
OLD_CHECK_DAYS = 30
PERCENT_PLACES = Decimal("0.001")  # a change is shown to a tenth of a percent
FACTOR_DIGITS = 3  # "174×", "3.02×": three significant digits


@dataclass(frozen=True)
class LastPrice:
    """A GPU's latest current price at a provider before a new check."""

    gpu_id: int
    gpu_slug: str
    gpu_name: str
    quoted_usd_per_hour: Decimal
    gpus_in_quote: int
    checked_on: date

    @property
    def usd_per_gpu_hour(self) -> Decimal:
        return per_gpu_price(self.quoted_usd_per_hour, self.gpus_in_quote)


@dataclass(frozen=True)
class PriceChange:
    last: LastPrice
    quoted_usd_per_hour: Decimal
    gpus_in_quote: int

    @property
    def usd_per_gpu_hour(self) -> Decimal:
        return per_gpu_price(self.quoted_usd_per_hour, self.gpus_in_quote)

    @property
    def same_quote(self) -> bool:
        """Quoted for as many GPUs as the last price: the quoted prices compare directly."""
        return self.gpus_in_quote == self.last.gpus_in_quote

    @property
    def _compared(self) -> tuple[Decimal, Decimal]:
        """Both prices per GPU-hour times both quotes' GPU counts: whole products."""
        new = self.quoted_usd_per_hour * self.last.gpus_in_quote
        return new, self.last.quoted_usd_per_hour * self.gpus_in_quote

    @property
    def ratio(self) -> Decimal:
        new, last = self._compared
        return new / last

    @property
    def unchanged(self) -> bool:
        return self.ratio == 1

    @property
    def fraction(self) -> Decimal:
        """The change as a fraction of the last price, rounded for showing: 0.033 is +3.3 %."""
        return (self.ratio - 1).quantize(PERCENT_PLACES, rounding=ROUND_HALF_UP)

    @property
    def is_jump(self) -> bool:
        return is_jump(*self._compared)

    @property
    def rises(self) -> bool:
        return self.ratio > 1

    @property
    def factor(self) -> Decimal:
        """How many times the last price (a rise) or how many times less (a fall), to three
        significant digits: 100 for $0.89 -> $89, 10 for $0.92 -> $0.092."""
        ratio = self.ratio
        factor = ratio if ratio >= 1 else 1 / ratio
        places = Decimal(1).scaleb(factor.adjusted() - (FACTOR_DIGITS - 1))
        return factor.quantize(places, rounding=ROUND_HALF_UP)


def is_jump(new: Decimal, last: Decimal) -> bool:
    """Compared without dividing, so that exactly a third is no jump."""
    return new > last * JUMP_FACTOR or new * JUMP_FACTOR < last


def days_back(day: date, *, today: date) -> int:
    return (today - day).days


def is_old(day: date, *, today: date) -> bool:
    return days_back(day, today=today) > OLD_CHECK_DAYS


def jumps(changes: list[PriceChange] | tuple[PriceChange, ...]) -> tuple[PriceChange, ...]:
    return tuple(change for change in changes if change.is_jump)


def fingerprint(changes: list[PriceChange] | tuple[PriceChange, ...]) -> str:
    """What a confirmation confirmed, so that one given for other prices confirms nothing."""
    return ";".join(
        f"{change.last.gpu_slug}={change.quoted_usd_per_hour.normalize():f}/{change.gpus_in_quote}"
        for change in jumps(changes)
    )
