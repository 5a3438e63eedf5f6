"""What the write side announces: a stored revision (``translating`` keeps the translation
bases in step) and a publication (``guides.tasks`` draws the share images)."""

from django.db import transaction
from django.dispatch import Signal

# A revision of ``guide`` is being stored (in its transaction): ``versions``, its rows, follow
# ``previous``, the reversion Revision that was newest before it (None for a guide's first).
revision_stored = Signal()

# A guide was published (``guide_id``): its share images are drawn in the background.
guide_published = Signal()


def announce_published(guide) -> None:
    """Send ``guide_published`` once the transaction that publishes ``guide`` commits."""
    guide_id = guide.pk
    transaction.on_commit(lambda: guide_published.send(sender=type(guide), guide_id=guide_id))
