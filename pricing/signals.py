"""Keep each price's copy of its check's provider and day in step with the check; ask before
deleting what other apps may use."""

from decimal import Decimal

from django.db import models
from django.db.models.signals import post_save, pre_save
from django.dispatch import Signal, receiver

# Sent with ``objects`` (instances or a queryset) before a delete() of a row with a natural key
# collects anything, so outside its transaction; a receiver (guides.editorial.where_used) raises
# to refuse.
deletion_requested = Signal()

# Sent by the admin with ``before`` (stored) and ``after`` (edited, unsaved) shared data; each
# receiver answers the list of published figures the edit moves by more than MOVE_FACTOR either
# way, or whose verdict it changes (guides.editorial.shared_changes).
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
