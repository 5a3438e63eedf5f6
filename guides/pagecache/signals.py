"""What the page cache announces, for the task worker to act on (``guides.background.tasks``
listens)."""

from django.dispatch import Signal

# A write committed: the pages that read data under ``tags`` (a list of tag names) are stale.
pages_stale = Signal()
