"""Keep each price's copy of its check's provider and day in step with the check."""

from __future__ import annotations


def fill_price_from_check(sender, instance, raw: bool = False, **_kwargs) -> None:
    """Fixtures and restores save prices raw (without ``Price.save``); fill the copies there."""
    if raw and (instance.provider_id is None or instance.checked_on is None):
        instance.fill_from_check()


def copy_check_to_prices(sender, instance, raw: bool = False, **_kwargs) -> None:
    """A superuser may correct a check's provider or day: its prices follow."""
    if not raw:
        superseded = instance.superseded_at is not None
        instance.prices.exclude(
            provider_id=instance.provider_id,
            checked_on=instance.checked_on,
            superseded=superseded,
        ).update(
            provider_id=instance.provider_id,
            checked_on=instance.checked_on,
            superseded=superseded,
        )
