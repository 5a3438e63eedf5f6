"""The one write path for price checks, whole or not at all: ``manage.py record_price_check``
and the admin both validate and save through here, with the same one-line messages
(``PriceCheckError``). A correction (``price_check_supersede``) keeps the mistaken check in the
history, marked superseded; a price far from the last one or a day long past is refused until
confirmed (``confirmations``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator, URLValidator
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from gpuguide.lib.editor_input import VisibleTextValidator
from pricing import selectors
from pricing.domain import formatting, price_changes
from pricing.domain.price_changes import LastPrice, PriceChange
from pricing.models import Gpu, Price, PriceCheck, Provider, Source
from pricing.permissions import may_record_prices

# Prices are US dollars per hour as quoted (per GPU or per instance); the decimals follow the
# model field, so a saved price is never rounded.
PRICE_DECIMAL_PLACES: int = Price._meta.get_field("quoted_usd_per_hour").decimal_places
MIN_USD_PER_HOUR = Decimal(1).scaleb(-PRICE_DECIMAL_PLACES)  # 0.0001
MAX_USD_PER_HOUR = Decimal("100000")
MIN_GPUS_IN_QUOTE = 1
MAX_GPUS_IN_QUOTE = 64  # the largest instances quoted as one price are 8 nodes of 8 GPUs
EARLIEST_CHECK_DAY = date(2000, 1, 1)
SOURCE_URL_SCHEMES = ("http", "https")
SOURCE_URL_MAX_LENGTH: int = PriceCheck._meta.get_field("source_url").max_length

# Checked on the text before Decimal/int/date parse it: those also take "1_000", "١٢", "３",
# "1e3", "20261107" and "0001-01-01", which no person means as a price or a day.
PRICE_PATTERN = re.compile(rf"[0-9]+(\.[0-9]{{1,{PRICE_DECIMAL_PLACES}}})?", re.ASCII)
# "1,90": a decimal comma, which a number box would have dropped (190).
COMMA_PRICE_PATTERN = re.compile(rf"([0-9]+),([0-9]{{1,{PRICE_DECIMAL_PLACES}}})", re.ASCII)
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
ERROR_COMMA_PRICE = _("price for %(gpu)s is %(value)s: use a point for decimals: %(point)s")
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
ERROR_NULL_CHARACTER = _("%(field)s contains a null character (U+0000). Remove it.")

# Confirmations (the factor and the days are pricing.domain.price_changes'). %(how)s says how
# to confirm where the check is being recorded: a box to tick, or a flag of the command.
ERROR_PRICE_JUMP = _(
    "%(rows)s. A price more than %(factor)s× or less than 1/%(factor)s of the last one is saved "
    "only when confirmed: %(how)s"
)
ERROR_OLD_DATE = _(
    "%(day)s is %(days)s days ago. A check dated more than %(limit)s days back is saved only "
    "when confirmed: %(how)s"
)
JUMP_UP = _("%(gpu)s: %(last)s → %(new)s, %(factor)s× the last price")
JUMP_DOWN = _("%(gpu)s: %(last)s → %(new)s, 1/%(factor)s of the last price")
PER_GPU_HOUR = _("%(price)s per GPU-hour")
FOR_GPUS = _("%(price)s for %(gpus)s GPUs")
LAST_PRICE = _("%(price)s on %(day)s")
CHANGE_SHOWN = _("%(last)s → %(new)s, %(percent)s")
UNCHANGED = _("unchanged")
PRICES_SEPARATOR = " · "  # between the prices of a message (the list holds each together)
JUMPS_SEPARATOR = "; "


class PriceCheckError(ValueError):
    """Bad input for a price check; the message is one line naming what is wrong."""


def parse_price(*, gpu: str, value: str) -> Decimal:
    """Typed text -> a price in range; a decimal comma is refused with the price written with
    a point."""
    comma = COMMA_PRICE_PATTERN.fullmatch(value) if isinstance(value, str) else None
    if comma:
        point = f"{comma.group(1)}.{comma.group(2)}"
        raise PriceCheckError(ERROR_COMMA_PRICE % {"gpu": gpu, "value": value, "point": point})
    price = Decimal(value) if PRICE_PATTERN.fullmatch(value) else None
    return validate_price(gpu=gpu, price=price, shown=value)


def validate_price(*, gpu: str, price: Decimal | None, shown: str | None = None) -> Decimal:
    try:
        in_range = (
            price.is_finite()
            and MIN_USD_PER_HOUR <= price <= MAX_USD_PER_HOUR
            and price.as_tuple().exponent >= -PRICE_DECIMAL_PLACES
        )
    except (InvalidOperation, TypeError, AttributeError):
        in_range = False
    if not in_range:
        limits = {"min": MIN_USD_PER_HOUR, "max": MAX_USD_PER_HOUR, "places": PRICE_DECIMAL_PLACES}
        value = repr(str(price) if shown is None else shown)
        raise PriceCheckError(ERROR_BAD_PRICE % {"gpu": gpu, **limits, "value": value})
    return price


def parse_price_pairs(*, pairs: Sequence[str]) -> dict[str, Decimal]:
    """["a100-80gb=0.92", ...] -> {"a100-80gb": Decimal("0.92")}."""
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
    for index, slug in enumerate(gpu_slugs):
        if slug in gpu_slugs[:index]:
            raise PriceCheckError(ERROR_DUPLICATE_GPU % {"gpu": slug})


def parse_gpus_in_quote(*, value: str) -> int:
    count = int(value) if COUNT_PATTERN.fullmatch(value) else None
    return validate_gpus_in_quote(count=count, shown=value)


def validate_gpus_in_quote(*, count: int | None, shown: str | None = None) -> int:
    limits = {"min": MIN_GPUS_IN_QUOTE, "max": MAX_GPUS_IN_QUOTE}
    if count is None or isinstance(count, bool) or not limits["min"] <= count <= limits["max"]:
        value = repr(str(count) if shown is None else shown)
        raise PriceCheckError(ERROR_BAD_GPUS_IN_QUOTE % {**limits, "value": value})
    return count


def parse_check_date(*, value: str, today: date | None = None) -> date:
    try:
        if not DATE_PATTERN.fullmatch(value):
            raise ValueError(value)
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise PriceCheckError(ERROR_BAD_DATE % {"value": repr(value)}) from None
    return validate_check_date(day=day, today=today)


def validate_check_date(*, day: date, today: date | None = None) -> date:
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
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PriceCheckError(ERROR_UNKNOWN_RECORDER % {"username": repr(username)})
    return validate_recorder(user=user)


def validate_recorder(*, user: Any) -> Any:
    """Active staff with the recorder role (the Price recorders group); superusers pass."""
    if not may_record_prices(user):
        raise PriceCheckError(ERROR_NOT_A_RECORDER % {"username": repr(user.get_username())})
    return user


def validate_new_check(*, provider: Provider, checked_on: date) -> None:
    """One check per provider and day."""
    if selectors.price_check_exists(provider=provider, checked_on=checked_on):
        raise _duplicate_check_error(provider=provider, checked_on=checked_on)


def _duplicate_check_error(*, provider: Provider, checked_on: date) -> PriceCheckError:
    return PriceCheckError(
        ERROR_DUPLICATE_CHECK % {"provider": provider.slug, "day": checked_on.isoformat()}
    )


def validate_typed_text(*, label: str, value: str) -> str:
    """The admin's rules for typed text (and its form fields' refusal of a null character), for
    the command's arguments."""
    try:
        VisibleTextValidator(label)(value)
        ProhibitNullCharactersValidator()(value)
    except ValidationError as exc:
        if exc.code == "null_characters_not_allowed":
            raise PriceCheckError(ERROR_NULL_CHARACTER % {"field": label}) from None
        raise PriceCheckError(" ".join(exc.messages)) from None
    return value


# --- the questions a check must answer: a price far from the last, a day long past


class ConfirmationNeeded(PriceCheckError):
    """A check saved only when confirmed: the ``jumps`` and ``old_days`` left unconfirmed."""

    def __init__(
        self, message: str, *, jumps: tuple[PriceChange, ...] = (), old_days: int | None = None
    ) -> None:
        super().__init__(message)
        self.jumps = jumps
        self.old_days = old_days


@dataclass(frozen=True)
class Confirmations:
    """What the person recording a check has confirmed, and how they would confirm the rest."""

    jump: bool = False  # every jump confirmed (the command's --confirm-jump)
    # Only these jumps confirmed (the admin's box: ``price_changes.fingerprint`` of the prices
    # it showed), so that a box ticked before a price was typed again confirms nothing.
    jump_fingerprint: str = ""
    old_date: bool = False
    jump_how: str = ""
    old_date_how: str = ""
    locale: str = "en"  # a Babel locale, for the prices in the message
    # Days as the command takes them (YYYY-MM-DD); False: as the admin's language writes them.
    iso_dates: bool = True

    def jumps_confirmed(self, changes: Sequence[PriceChange]) -> bool:
        if self.jump:
            return True
        shown = self.jump_fingerprint
        return bool(shown) and shown == price_changes.fingerprint(tuple(changes))


def current_locale() -> str:
    """The Babel locale of the active language: 'en', 'de' or 'ja'."""
    return translation.to_locale(translation.get_language() or "en")


def last_prices(
    *, provider: Provider, correcting: PriceCheck | None = None, today: date | None = None
) -> dict[str, LastPrice]:
    """GPU slug -> the provider's latest current price of it up to today, which a new check is
    compared with. A correction is compared with the prices before the check it corrects."""
    at = today or timezone.localdate()
    listings = selectors.gpu_listings_for_provider(provider=provider, at=at)
    if correcting is not None:
        # A current price of this provider on the corrected check's day is that check's (one
        # current check per provider and day).
        from_it = [g.slug for g in listings if g.checked_on == correcting.checked_on]
        before = (
            selectors.gpu_listings_for_provider(
                provider=provider, at=correcting.checked_on - timedelta(days=1), slugs=from_it
            )
            if from_it
            else []
        )
        listings = [g for g in listings if g.slug not in from_it] + before
    return {
        listing.slug: LastPrice(
            gpu_id=listing.pk,
            gpu_slug=listing.slug,
            gpu_name=listing.name,
            quoted_usd_per_hour=listing.quoted_usd_per_hour,
            gpus_in_quote=listing.gpus_in_quote,
            checked_on=listing.checked_on,
        )
        for listing in listings
        if listing.quoted_usd_per_hour is not None
    }


def price_changes_against(
    *,
    last: Mapping[str, LastPrice],
    prices: Mapping[str, Decimal],
    gpus_in_quote: Mapping[str, int],
) -> tuple[PriceChange, ...]:
    """Each new price beside its GPU's last one (GPUs never priced before have none)."""
    return tuple(
        PriceChange(last[slug], quoted_usd_per_hour=price, gpus_in_quote=gpus_in_quote[slug])
        for slug, price in prices.items()
        if slug in last
    )


def confirm_jumps(
    changes: Sequence[PriceChange], confirmations: Confirmations
) -> tuple[PriceChange, ...]:
    """The jumps among ``changes``; refused with ``ConfirmationNeeded`` unless confirmed."""
    jumps = price_changes.jumps(tuple(changes))
    if jumps and not confirmations.jumps_confirmed(changes):
        locale = confirmations.locale
        raise ConfirmationNeeded(
            ERROR_PRICE_JUMP
            % {
                "rows": jump_rows(jumps, locale=locale),
                "factor": formatting.number(price_changes.JUMP_FACTOR, locale),
                "how": confirmations.jump_how,
            },
            jumps=jumps,
        )
    return jumps


def confirm_old_date(
    day: date, confirmations: Confirmations, *, today: date | None = None
) -> int | None:
    """The days back of a check dated long ago; ``ConfirmationNeeded`` unless confirmed."""
    today = today or timezone.localdate()
    if not price_changes.is_old(day, today=today):
        return None
    days = price_changes.days_back(day, today=today)
    if not confirmations.old_date:
        locale = confirmations.locale
        raise ConfirmationNeeded(
            ERROR_OLD_DATE
            % {
                "day": day.isoformat()
                if confirmations.iso_dates
                else formatting.medium_date(day, locale),
                "days": formatting.number(days, locale),
                "limit": formatting.number(price_changes.OLD_CHECK_DAYS, locale),
                "how": confirmations.old_date_how,
            },
            old_days=days,
        )
    return days


def _ask(
    confirmations: Confirmations,
    *,
    provider: Provider,
    checked_on: date,
    prices: Mapping[str, Decimal],
    counts: Mapping[str, int],
    correcting: PriceCheck | None = None,
    today: date | None = None,
) -> None:
    """Both questions at once, so one refusal names everything left to confirm."""
    refusals: list[ConfirmationNeeded] = []
    if correcting is None:  # a correction keeps the corrected check's day
        try:
            confirm_old_date(checked_on, confirmations, today=today)
        except ConfirmationNeeded as exc:
            refusals.append(exc)
    last = last_prices(provider=provider, correcting=correcting, today=today)
    changes = price_changes_against(last=last, prices=prices, gpus_in_quote=counts)
    try:
        confirm_jumps(changes, confirmations)
    except ConfirmationNeeded as exc:
        refusals.append(exc)
    if refusals:
        raise ConfirmationNeeded(
            " ".join(str(exc) for exc in refusals),
            jumps=tuple(j for exc in refusals for j in exc.jumps),
            old_days=next((exc.old_days for exc in refusals if exc.old_days is not None), None),
        )


# --- the figures a recorder is shown, formatted for a Babel locale


def shown_quote(quoted: Decimal, gpus_in_quote: int, locale: str) -> str:
    """$0.92, or "$43.46 for 8 GPUs" for an instance quote."""
    price = formatting.usd(quoted, locale)
    if gpus_in_quote == 1:
        return price
    return str(FOR_GPUS % {"price": price, "gpus": formatting.number(gpus_in_quote, locale)})


def shown_last_price(last: LastPrice, locale: str) -> str:
    """ "$0.92 on Oct 29, 2026" """
    return str(
        LAST_PRICE
        % {
            "price": shown_quote(last.quoted_usd_per_hour, last.gpus_in_quote, locale),
            "day": formatting.medium_date(last.checked_on, locale),
        }
    )


def _old_and_new(change: PriceChange, locale: str) -> tuple[str, str]:
    """The two prices compared: as quoted where the quotes cover as many GPUs, else per
    GPU-hour (what the pages compare)."""
    if change.same_quote:
        return (
            formatting.usd(change.last.quoted_usd_per_hour, locale),
            formatting.usd(change.quoted_usd_per_hour, locale),
        )
    return tuple(
        str(PER_GPU_HOUR % {"price": formatting.usd(price, locale)})
        for price in (change.last.usd_per_gpu_hour, change.usd_per_gpu_hour)
    )


def shown_change(change: PriceChange, locale: str) -> str:
    """ "$0.92 → $0.95, +3.3%", or "unchanged" """
    if change.unchanged:
        return str(UNCHANGED)
    last, new = _old_and_new(change, locale)
    return str(
        CHANGE_SHOWN
        % {
            "last": last,
            "new": new,
            "percent": formatting.signed_percent(change.fraction, locale),
        }
    )


def shown_jump(change: PriceChange, locale: str) -> str:
    """ "A100 80GB: $0.89 → $89.00, 100× the last price" (or "1/10 of the last price")."""
    last, new = _old_and_new(change, locale)
    return str(
        (JUMP_UP if change.rises else JUMP_DOWN)
        % {
            "gpu": change.last.gpu_name,
            "last": last,
            "new": new,
            "factor": formatting.number(change.factor, locale),
        }
    )


def jump_rows(jumps: Sequence[PriceChange], *, locale: str) -> str:
    return JUMPS_SEPARATOR.join(shown_jump(change, locale) for change in jumps)


def shown_prices(prices: Sequence[Price], locale: str) -> str:
    """ "A100 80GB $0.92 · H100 $2.32": a narrow column wraps between prices only (no-break
    spaces within each)."""
    shown = (
        f"{price.gpu.name} {shown_quote(price.quoted_usd_per_hour, price.gpus_in_quote, locale)}"
        for price in prices
    )
    return f"{formatting.NBSP}· ".join(text.replace(" ", formatting.NBSP) for text in shown)


# --- History


def _log_recording(*, check: PriceCheck, prices: Sequence[Price], user: Any, corrects=None):
    """The History entries of the check, its provider and the corrected check, as the admin
    writes its own (JSON each reader's History shows in their language)."""
    with translation.override(None):  # the names as message ids, translated when shown
        price_name = str(Price._meta.verbose_name)
        check_name = str(PriceCheck._meta.verbose_name)
        superseded_fields = [
            str(PriceCheck._meta.get_field(name).verbose_name)
            for name in ("superseded_at", "superseded_by", "superseded_reason", "correction")
        ]
    added = [{"added": {}}] + [
        {"added": {"name": price_name, "object": str(price)}} for price in prices
    ]
    to_provider = [{"added": {"name": check_name, "object": str(check)}}]
    if corrects is not None:
        changed = {"fields": superseded_fields}
        LogEntry.objects.log_actions(
            user.pk, [corrects], CHANGE, change_message=[{"changed": changed}], single_object=True
        )
        to_provider.append({"changed": {**changed, "name": check_name, "object": str(corrects)}})
    LogEntry.objects.log_actions(
        user.pk, [check.provider], CHANGE, change_message=to_provider, single_object=True
    )
    return LogEntry.objects.log_actions(
        user.pk, [check], ADDITION, change_message=added, single_object=True
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
    confirmations: Confirmations | None = None,
) -> PriceCheck:
    """Record one provider's prices for one day; nothing is saved if anything is wrong. The
    rules are applied again here, as every write takes this path. Without ``confirmations``
    (seeding, scripts, tests) nothing is asked."""
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
    if confirmations is not None:
        _ask(
            confirmations,
            provider=provider,
            checked_on=checked_on,
            prices=prices,
            counts=counts,
            today=today,
        )
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
    confirmations: Confirmations | None = None,
) -> PriceCheck:
    """Correct ``check``: record ``prices`` for its provider and day, and keep ``check`` in
    the history, marked superseded by ``recorded_by`` now because of ``reason``. Returns the
    correction; nothing is saved where ``check`` was already corrected or a rule refuses."""
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
    if confirmations is not None:
        _ask(
            confirmations,
            provider=mistaken.provider,
            checked_on=mistaken.checked_on,
            prices=prices,
            counts=counts,
            correcting=mistaken,
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
        corrects=mistaken,
    )
    check.refresh_from_db()
    return correction


def _validated_prices(
    *, prices: Mapping[str, Decimal], gpus_in_quote: Mapping[str, int] | None
) -> dict[str, int]:
    """The count per GPU slug, prices and counts checked."""
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
    corrects: PriceCheck | None = None,
) -> PriceCheck:
    """The check and its prices, linked from the check it corrects, and in the History."""
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
            rows = Price.objects.bulk_create(
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
    if corrects is not None:
        PriceCheck.objects.filter(pk=corrects.pk).update(correction=check)
    if recorded_by is not None:
        _log_recording(check=check, prices=rows, user=recorded_by, corrects=corrects)
    # A cited source these prices were read from was read again that day (saved one by one, so
    # that the pages citing it go stale as by an editor's change).
    if source_url:
        for source in Source.objects.filter(url=source_url, read_on__lt=checked_on):
            source.read_on = checked_on
            source.save(update_fields=["read_on"])
    return check
