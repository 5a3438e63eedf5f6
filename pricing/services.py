"""Writes to the pricing data: recording a dated price check, whole or not at all.

The one write path for price checks: ``manage.py record_price_check`` and the admin's add form
both call the validation functions below on what a person typed, and both save through
``price_check_record``, so the two apply the same rules with the same messages. Every refusal
is a ``PriceCheckError`` whose message is one line naming the argument.

A mistaken check is corrected by ``price_check_supersede``: the correction is recorded for the
same provider and day, and the mistaken check stays in the history, marked superseded (by whom,
when, why). Every read of prices ignores superseded checks (``pricing.selectors``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from pricing import selectors
from pricing.models import Gpu, Price, PriceCheck, Provider

# The ranges a price check must lie in. Prices are US dollars per hour as quoted (per GPU or
# per instance); the decimals follow the model field, so a saved price is never rounded.
PRICE_DECIMAL_PLACES: int = Price._meta.get_field("quoted_usd_per_hour").decimal_places
MIN_USD_PER_HOUR = Decimal(1).scaleb(-PRICE_DECIMAL_PLACES)  # 0.0001
MAX_USD_PER_HOUR = Decimal("100000")
MIN_GPUS_IN_QUOTE = 1
MAX_GPUS_IN_QUOTE = 64  # the largest instances quoted as one price are 8 nodes of 8 GPUs
EARLIEST_CHECK_DAY = date(2000, 1, 1)
SOURCE_URL_SCHEMES = ("http", "https")
SOURCE_URL_MAX_LENGTH: int = PriceCheck._meta.get_field("source_url").max_length
RECORDER_PERMISSION = "pricing.add_pricecheck"

# Checked on the text before Decimal/int/date parse it: those also take "1_000", "١٢", "３",
# "1e3", "20261107" and "0001-01-01", which no person means as a price or a day.
PRICE_PATTERN = re.compile(rf"[0-9]+(\.[0-9]{{1,{PRICE_DECIMAL_PLACES}}})?", re.ASCII)
COUNT_PATTERN = re.compile(r"[0-9]+", re.ASCII)
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)

# Values are shown with repr() (quoted, and a newline cannot break the one-line message).
ERROR_UNKNOWN_PROVIDER = _("unknown provider %(slug)s; known: %(known)s")
ERROR_UNKNOWN_GPU = _("unknown GPU %(slug)s; known: %(known)s")
ERROR_BAD_PAIR = _("prices must be GPU=PRICE (e.g. a100-80gb=0.92), got %(value)s")
ERROR_BAD_PRICE = _(
    "price for %(gpu)s must be a number from %(min)s to %(max)s US dollars per hour "
    "with at most %(places)d decimals, e.g. 0.92, got %(value)s"
)
ERROR_BAD_GPUS_IN_QUOTE = _(
    "gpus-in-quote must be a whole number from %(min)d to %(max)d, got %(value)s"
)
ERROR_BAD_DATE = _("date must be a real calendar day written YYYY-MM-DD, got %(value)s")
ERROR_EARLY_DATE = _("date must be %(earliest)s or later, got %(value)s")
ERROR_FUTURE_DATE = _(
    "date %(day)s is in the future (today is %(today)s); record checks on the day they were made"
)
ERROR_BAD_SOURCE_URL = _("source URL must be an http:// or https:// address, got %(value)s")
ERROR_LONG_SOURCE_URL = _("source URL must be at most %(max)d characters, got %(length)d")
ERROR_UNKNOWN_RECORDER = _("recorded-by: there is no user %(username)s")
ERROR_NOT_A_RECORDER = _(
    "recorded-by must be an active staff user allowed to add price checks, got %(username)s"
)
ERROR_DUPLICATE_CHECK = _(
    "%(provider)s already has a price check on %(day)s; correct that check instead"
)
ERROR_ALREADY_SUPERSEDED = _(
    "the price check of %(provider)s on %(day)s was already corrected; correct the current one"
)
ERROR_NOTHING_TO_SUPERSEDE = _("%(provider)s has no price check on %(day)s to correct")
ERROR_NO_REASON = _("a correction needs a reason: say what was wrong")
ERROR_CORRECTION_WITHOUT_RECORDER = _("a correction must name who made it (recorded-by)")
ERROR_DUPLICATE_GPU = _("%(gpu)s is priced twice in one check")
ERROR_NO_PRICES = _("a price check needs at least one price")


class PriceCheckError(ValueError):
    """Bad input for a price check; the message is one line naming what is wrong."""


def parse_price(*, gpu: str, value: str) -> Decimal:
    """Typed text -> a price in range; refuses anything but plain ASCII digits."""
    if not PRICE_PATTERN.fullmatch(value):
        raise _price_error(gpu=gpu, value=value)
    return validate_price(gpu=gpu, price=Decimal(value), shown=value)


def validate_price(*, gpu: str, price: Decimal, shown: str | None = None) -> Decimal:
    try:
        in_range = (
            price.is_finite()
            and MIN_USD_PER_HOUR <= price <= MAX_USD_PER_HOUR
            and price.as_tuple().exponent >= -PRICE_DECIMAL_PLACES
        )
    except (InvalidOperation, TypeError, AttributeError):
        in_range = False
    if not in_range:
        raise _price_error(gpu=gpu, value=str(price) if shown is None else shown)
    return price


def _price_error(*, gpu: str, value: str) -> PriceCheckError:
    return PriceCheckError(
        ERROR_BAD_PRICE
        % {
            "gpu": gpu,
            "min": MIN_USD_PER_HOUR,
            "max": MAX_USD_PER_HOUR,
            "places": PRICE_DECIMAL_PLACES,
            "value": repr(value),
        }
    )


def parse_price_pairs(*, pairs: Sequence[str]) -> dict[str, Decimal]:
    """["a100-80gb=0.92", ...] -> {"a100-80gb": Decimal("0.92")}; refuses repeats and junk."""
    prices: dict[str, Decimal] = {}
    for pair in pairs:
        gpu, sep, value = pair.partition("=")
        if not sep or not gpu or not value:
            raise PriceCheckError(ERROR_BAD_PAIR % {"value": repr(pair)})
        validate_gpu_slugs(gpu_slugs=[*prices, gpu])
        prices[gpu] = parse_price(gpu=gpu, value=value)
    validate_gpu_slugs(gpu_slugs=list(prices))
    return prices


def validate_gpu_slugs(*, gpu_slugs: Sequence[str]) -> None:
    """At least one GPU, none twice."""
    if not gpu_slugs:
        raise PriceCheckError(ERROR_NO_PRICES)
    seen: set[str] = set()
    for slug in gpu_slugs:
        if slug in seen:
            raise PriceCheckError(ERROR_DUPLICATE_GPU % {"gpu": slug})
        seen.add(slug)


def parse_gpus_in_quote(*, value: str) -> int:
    if not COUNT_PATTERN.fullmatch(value):
        raise _gpus_in_quote_error(value)
    return validate_gpus_in_quote(count=int(value), shown=value)


def validate_gpus_in_quote(*, count: int, shown: str | None = None) -> int:
    if isinstance(count, bool) or not MIN_GPUS_IN_QUOTE <= count <= MAX_GPUS_IN_QUOTE:
        raise _gpus_in_quote_error(str(count) if shown is None else shown)
    return count


def _gpus_in_quote_error(value: str) -> PriceCheckError:
    return PriceCheckError(
        ERROR_BAD_GPUS_IN_QUOTE
        % {"min": MIN_GPUS_IN_QUOTE, "max": MAX_GPUS_IN_QUOTE, "value": repr(value)}
    )


def parse_check_date(*, value: str, today: date | None = None) -> date:
    """Typed "YYYY-MM-DD" -> the day of a check, from 2000-01-01 to today."""
    try:
        if not DATE_PATTERN.fullmatch(value):
            raise ValueError(value)
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise PriceCheckError(ERROR_BAD_DATE % {"value": repr(value)}) from None
    return validate_check_date(day=day, today=today)


def validate_check_date(*, day: date, today: date | None = None) -> date:
    """``today`` defaults to the site's local day; tests pin it."""
    if not isinstance(day, date):  # text goes through parse_check_date first
        raise PriceCheckError(ERROR_BAD_DATE % {"value": repr(day)})
    today = today or timezone.localdate()
    if day < EARLIEST_CHECK_DAY:
        raise PriceCheckError(
            ERROR_EARLY_DATE
            % {"earliest": EARLIEST_CHECK_DAY.isoformat(), "value": repr(day.isoformat())}
        )
    if day > today:
        raise PriceCheckError(
            ERROR_FUTURE_DATE % {"day": day.isoformat(), "today": today.isoformat()}
        )
    return day


def validate_source_url(*, value: str) -> str:
    """Empty, or an http(s) URL that fits the model field."""
    if not value:
        return value
    if len(value) > SOURCE_URL_MAX_LENGTH:
        raise PriceCheckError(
            ERROR_LONG_SOURCE_URL % {"max": SOURCE_URL_MAX_LENGTH, "length": len(value)}
        )
    try:
        URLValidator(schemes=list(SOURCE_URL_SCHEMES))(value)
    except ValidationError:
        raise PriceCheckError(ERROR_BAD_SOURCE_URL % {"value": repr(value)}) from None
    return value


def recorder_for_username(*, username: str) -> Any:
    """The user ``--recorded-by`` names, if they may record price checks."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PriceCheckError(ERROR_UNKNOWN_RECORDER % {"username": repr(username)})
    return validate_recorder(user=user)


def validate_recorder(*, user: Any) -> Any:
    """Active staff with the recorder role (the Price recorders group); superusers pass."""
    if not (user.is_active and user.is_staff and user.has_perm(RECORDER_PERMISSION)):
        raise PriceCheckError(ERROR_NOT_A_RECORDER % {"username": repr(user.get_username())})
    return user


def validate_new_check(*, provider: Provider, checked_on: date) -> None:
    """One check per provider and day: corrections go on a new day."""
    if selectors.price_check_exists(provider=provider, checked_on=checked_on):
        raise _duplicate_check_error(provider=provider, checked_on=checked_on)


def _duplicate_check_error(*, provider: Provider, checked_on: date) -> PriceCheckError:
    return PriceCheckError(
        ERROR_DUPLICATE_CHECK % {"provider": provider.slug, "day": checked_on.isoformat()}
    )


@transaction.atomic
def price_check_record(
    *,
    provider_slug: str,
    checked_on: date,
    prices: Mapping[str, Decimal],
    gpus_in_quote: Mapping[str, int] | None = None,
    recorded_by: Any = None,
    source_url: str = "",
    note: str = "",
    today: date | None = None,
) -> PriceCheck:
    """Record one provider's prices for one day; nothing is saved if anything is wrong.

    Callers may have validated already; the rules are applied again here because this is the
    one path every write takes.
    """
    validate_check_date(day=checked_on, today=today)
    counts = _validated_prices(prices=prices, gpus_in_quote=gpus_in_quote)
    validate_source_url(value=source_url)
    if recorded_by is not None:
        validate_recorder(user=recorded_by)
    provider = Provider.objects.filter(slug=provider_slug).first()
    if provider is None:
        known = ", ".join(Provider.objects.values_list("slug", flat=True))
        raise PriceCheckError(
            ERROR_UNKNOWN_PROVIDER % {"slug": repr(provider_slug), "known": known}
        )
    gpus = _gpus_by_slug(prices)
    validate_new_check(provider=provider, checked_on=checked_on)
    return _create_check(
        provider=provider,
        checked_on=checked_on,
        prices=prices,
        gpus=gpus,
        counts=counts,
        recorded_by=recorded_by,
        source_url=source_url,
        note=note,
    )


def check_to_supersede(*, provider_slug: str, checked_on: date) -> PriceCheck:
    """The current check of a provider on a day, which a correction would supersede."""
    check = (
        PriceCheck.objects.current()
        .filter(provider__slug=provider_slug, checked_on=checked_on)
        .first()
    )
    if check is None:
        raise PriceCheckError(
            ERROR_NOTHING_TO_SUPERSEDE
            % {"provider": repr(provider_slug), "day": checked_on.isoformat()}
        )
    return check


@transaction.atomic
def price_check_supersede(
    *,
    check: PriceCheck,
    prices: Mapping[str, Decimal],
    gpus_in_quote: Mapping[str, int] | None = None,
    recorded_by: Any,
    reason: str,
    source_url: str = "",
    note: str = "",
) -> PriceCheck:
    """Correct ``check``: record ``prices`` for its provider and day, and keep ``check`` in
    the history, marked superseded by ``recorded_by`` now because of ``reason``.

    Returns the correction, which from now on is the day's check: every read of prices
    ignores the superseded one. The pages that quote the provider go stale as they do after
    ``price_check_record`` (the correction is created the same way). Refused, with nothing
    saved, where ``check`` was already corrected (correct the current check instead), without
    a reason or a recorder, or on any rule ``price_check_record`` applies.
    """
    counts = _validated_prices(prices=prices, gpus_in_quote=gpus_in_quote)
    validate_source_url(value=source_url)
    if recorded_by is None:
        raise PriceCheckError(ERROR_CORRECTION_WITHOUT_RECORDER)
    validate_recorder(user=recorded_by)
    reason = reason.strip()
    if not reason:
        raise PriceCheckError(ERROR_NO_REASON)
    gpus = _gpus_by_slug(prices)
    # Locked, so that two recorders correcting the same check cannot both succeed.
    mistaken = PriceCheck.objects.select_for_update().select_related("provider").get(pk=check.pk)
    if mistaken.superseded_at is not None:
        raise PriceCheckError(
            ERROR_ALREADY_SUPERSEDED
            % {"provider": mistaken.provider.slug, "day": mistaken.checked_on.isoformat()}
        )
    # Updates, not saves: the pages go stale once, through the correction's creation below.
    PriceCheck.objects.filter(pk=mistaken.pk).update(
        superseded_at=timezone.now(), superseded_by=recorded_by, superseded_reason=reason
    )
    Price.objects.filter(price_check=mistaken).update(superseded=True)
    correction = _create_check(
        provider=mistaken.provider,
        checked_on=mistaken.checked_on,
        prices=prices,
        gpus=gpus,
        counts=counts,
        recorded_by=recorded_by,
        source_url=source_url,
        note=note,
    )
    PriceCheck.objects.filter(pk=mistaken.pk).update(correction=correction)
    check.refresh_from_db()
    return correction


def _validated_prices(
    *, prices: Mapping[str, Decimal], gpus_in_quote: Mapping[str, int] | None
) -> dict[str, int]:
    """Checks the prices and their GPU counts; returns the count per GPU slug."""
    validate_gpu_slugs(gpu_slugs=list(prices))
    for slug, price in prices.items():
        validate_price(gpu=slug, price=price)
    counts = {slug: (gpus_in_quote or {}).get(slug, MIN_GPUS_IN_QUOTE) for slug in prices}
    for count in counts.values():
        validate_gpus_in_quote(count=count)
    return counts


def _gpus_by_slug(prices: Mapping[str, Decimal]) -> dict[str, Gpu]:
    gpus = Gpu.objects.in_bulk(list(prices), field_name="slug")
    for slug in prices:
        if slug not in gpus:
            known = ", ".join(Gpu.objects.values_list("slug", flat=True))
            raise PriceCheckError(ERROR_UNKNOWN_GPU % {"slug": repr(slug), "known": known})
    return gpus


def _create_check(
    *,
    provider: Provider,
    checked_on: date,
    prices: Mapping[str, Decimal],
    gpus: Mapping[str, Gpu],
    counts: Mapping[str, int],
    recorded_by: Any,
    source_url: str,
    note: str,
) -> PriceCheck:
    """The check and its prices. Creating the check makes the provider's pages stale
    (``guides.pagecache.invalidation.note_write``)."""
    try:
        # A savepoint: the IntegrityError of a lost race rolls back to it, so the caller's
        # transaction stays usable (PostgreSQL refuses every query after an error otherwise).
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
                    provider=provider,
                    checked_on=checked_on,
                    gpu=gpus[slug],
                    quoted_usd_per_hour=price,
                    gpus_in_quote=counts[slug],
                )
                for slug, price in prices.items()
            )
    except IntegrityError:  # a concurrent recorder won the race for the same day
        raise _duplicate_check_error(provider=provider, checked_on=checked_on) from None
    return check
