"""Keep each price's copy of its check's provider and day in step with the check; ask before
deleting what other apps may use."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.db.models.signals import post_save, pre_save
from django.dispatch import Signal, receiver

# Sent with ``objects`` (the instances, or the queryset) before Django collects what a delete()
# of a source, GPU, provider, method, language model, hour block or fact takes along, so
# outside any transaction it opens; a receiver raises to refuse. guides.editorial.where_used
# refuses to delete what guides use.
deletion_requested = Signal()

# Sent by the admin with ``before`` (the stored record) and ``after`` (the edited one, unsaved)
# when a GPU's specs, a language model, a method, a memory rule or a fact is about to change;
# each receiver answers the published figures the edit would move by more than MOVE_FACTOR
# either way, or whose verdict it changes, as a list (guides.editorial.shared_changes). The
# admin asks for confirmation when any answer is not empty.
shared_data_changing = Signal()
MOVE_FACTOR = Decimal("1.5")


class CheckedDeletionQuerySet(models.QuerySet):
    def delete(self):
        deletion_requested.send(sender=self.model, objects=self)
        return super().delete()

    # As Django's own: never on the manager (Fact.objects.delete()), never from a template.
    delete.alters_data = True
    delete.queryset_only = True


class CheckedDeletion:
    """A model whose ``delete()`` sends ``deletion_requested`` first (list it before Model)."""

    def delete(self, *args, **kwargs):
        deletion_requested.send(sender=type(self), objects=[self])
        return super().delete(*args, **kwargs)


@receiver(pre_save, sender="pricing.Price")
def fill_price_from_check(sender, instance, raw: bool = False, **_kwargs) -> None:
    """Fixtures and restores save prices raw (without ``Price.save``); fill the copies there."""
    if raw and (instance.provider_id is None or instance.checked_on is None):
        instance.fill_from_check()


@receiver(post_save, sender="pricing.PriceCheck")
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
