"""Writes to the pricing data: recording a dated price check, whole or not at all."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction

from pricing.models import Gpu, Price, PriceCheck, Provider

ERROR_UNKNOWN_PROVIDER = "unknown provider {slug!r}; known: {known}"
ERROR_UNKNOWN_GPU = "unknown GPU {slug!r}; known: {known}"
ERROR_BAD_PRICE = "price for {gpu} must be a positive number of US dollars, got {value!r}"
ERROR_BAD_PAIR = "expected GPU=PRICE (e.g. a100-80gb=0.92), got {value!r}"
ERROR_BAD_DATE = "date must be a real calendar day as YYYY-MM-DD, got {value!r}"
ERROR_DUPLICATE_CHECK = (
    "{provider} already has a price check on {day}; record corrections on a new day"
)
ERROR_DUPLICATE_GPU = "{gpu} is priced twice in one check"
ERROR_NO_PRICES = "a price check needs at least one GPU=PRICE"
ERROR_FUTURE_DATE = "{day} is in the future; record checks on the day they were made"
MAX_USD_PER_HOUR = Decimal("100000")


class PriceCheckError(ValueError):
    """Bad input for a price check; the message names what is wrong."""


def parse_check_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise PriceCheckError(ERROR_BAD_DATE.format(value=value)) from None


def parse_price(gpu: str, value: str) -> Decimal:
    try:
        price = Decimal(value)
    except InvalidOperation:
        raise PriceCheckError(ERROR_BAD_PRICE.format(gpu=gpu, value=value)) from None
    if (
        not price.is_finite()
        or price <= 0
        or price >= MAX_USD_PER_HOUR
        or price.as_tuple().exponent < -4
    ):
        raise PriceCheckError(ERROR_BAD_PRICE.format(gpu=gpu, value=value))
    return price


def parse_price_pairs(pairs: list[str]) -> dict[str, Decimal]:
    """["a100-80gb=0.92", ...] -> {"a100-80gb": Decimal("0.92")}; refuses repeats and junk."""
    prices: dict[str, Decimal] = {}
    for pair in pairs:
        gpu, sep, value = pair.partition("=")
        if not sep or not gpu or not value:
            raise PriceCheckError(ERROR_BAD_PAIR.format(value=pair))
        if gpu in prices:
            raise PriceCheckError(ERROR_DUPLICATE_GPU.format(gpu=gpu))
        prices[gpu] = parse_price(gpu, value)
    if not prices:
        raise PriceCheckError(ERROR_NO_PRICES)
    return prices


@transaction.atomic
def price_check_record(
    *,
    provider_slug: str,
    checked_on: date,
    prices: dict[str, Decimal],
    gpus_in_quote: dict[str, int] | None = None,
    recorded_by=None,
    source_url: str = "",
    note: str = "",
    today: date | None = None,
) -> PriceCheck:
    """Record one provider's prices for one day; nothing is saved if anything is wrong."""
    if not prices:
        raise PriceCheckError(ERROR_NO_PRICES)
    if today is not None and checked_on > today:
        raise PriceCheckError(ERROR_FUTURE_DATE.format(day=checked_on.isoformat()))
    provider = Provider.objects.filter(slug=provider_slug).first()
    if provider is None:
        known = ", ".join(Provider.objects.values_list("slug", flat=True))
        raise PriceCheckError(ERROR_UNKNOWN_PROVIDER.format(slug=provider_slug, known=known))
    gpus = Gpu.objects.in_bulk(list(prices), field_name="slug")
    for slug in prices:
        if slug not in gpus:
            known = ", ".join(Gpu.objects.values_list("slug", flat=True))
            raise PriceCheckError(ERROR_UNKNOWN_GPU.format(slug=slug, known=known))
    if PriceCheck.objects.filter(provider=provider, checked_on=checked_on).exists():
        raise PriceCheckError(
            ERROR_DUPLICATE_CHECK.format(provider=provider.slug, day=checked_on.isoformat())
        )
    try:
        with transaction.atomic():
            check = PriceCheck.objects.create(
                provider=provider,
                checked_on=checked_on,
                recorded_by=recorded_by,
                source_url=source_url,
                note=note,
            )
            Price.objects.bulk_create(
                Price(
                    price_check=check,
                    gpu=gpus[slug],
                    quoted_usd_per_hour=price,
                    gpus_in_quote=(gpus_in_quote or {}).get(slug, 1),
                )
                for slug, price in prices.items()
            )
    except IntegrityError:  # a concurrent recorder won the race for the same day
        raise PriceCheckError(
            ERROR_DUPLICATE_CHECK.format(provider=provider.slug, day=checked_on.isoformat())
        ) from None
    return check
