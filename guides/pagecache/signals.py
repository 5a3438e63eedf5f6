"""What the page cache announces, for the task worker to act on (``guides.tasks`` listens)."""

from django.dispatch import Signal

# A write committed: the pages that read data under ``tags`` (a list of tag names) are stale.
pages_stale = Signal()

# A visitor was served the previous version of the page at ``path`` (its full path with the
# query): render it again in the background. A receiver that raises means it was not queued
# (the sender logs it; the page is asked for again on the next visit).
refresh_wanted = Signal()
