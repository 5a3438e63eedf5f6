"""What the write side announces, for ``translating`` and ``guides.background.tasks``."""

from django.db import transaction
from django.dispatch import Signal
from django.utils.translation import get_language

# A revision of ``guide`` is being stored (in its transaction): ``versions``, its rows, follow
# ``previous``, the reversion Revision that was newest before it (None for a guide's first).
revision_stored = Signal()

# A guide was published (``guide_id``): its share images are drawn in the background.
guide_published = Signal()

# A review (``review_id``) was submitted or decided: whom it concerns is told by mail.
review_changed = Signal()

# Revisions were scheduled to go live or expire at ``times`` (aware datetimes): what is due
# then is applied in the background at each.
schedule_set = Signal()


def announce_published(guide) -> None:
    """Send ``guide_published`` once the transaction that publishes ``guide`` commits."""
    guide_id = guide.pk
    transaction.on_commit(lambda: guide_published.send(sender=type(guide), guide_id=guide_id))


def announce_schedule(times) -> None:
    """Send ``schedule_set`` for the times that are set, once the transaction commits."""
    times = [when for when in times if when is not None]
    if times:
        transaction.on_commit(lambda: schedule_set.send(sender=None, times=times))


def announce_review(review) -> None:
    """Send ``review_changed`` once the transaction that changed ``review`` commits, with the
    language the change was made in (the notices are written in it)."""
    review_id, language = review.pk, get_language()
    transaction.on_commit(
        lambda: review_changed.send(sender=type(review), review_id=review_id, language=language)
    )
