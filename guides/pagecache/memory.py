"""What each worker keeps in its own memory, bounded: the pages it found current and the
cached reads and fragments it used last.

A shared cache (Redis) costs a round trip and an unpickling per read; these copies save both.
Nothing here is trusted on its own: the reads' and fragments' keys carry the version tokens,
and a page is checked against the current tokens on every visit (``http``), so a write in any
process makes what it changed unused here at once.
"""

from __future__ import annotations

from django.conf import settings

from gpuguide.lib.local_memory import LocalMemory

# Page key -> the CachedPage last found current (see http).
recent_pages = LocalMemory(lambda: settings.PAGE_CACHE_LOCAL_PAGES)
# What reads.cached_under returned lately, by its token'd key: asked again (the providers three
# times a page, the guide on every render after a price check), it is not fetched from the
# shared cache and unpickled again. Values are shared, so never changed by their readers (the
# selectors' dataclasses are frozen; pages only read the models).
local_reads = LocalMemory(512)  # reference tables, guides, each guide's fragments per language
# The frames fragments.cached_frame rendered: one header per cached path and language, a few
# footers. Nothing in them goes stale, so only the bound removes them.
frames = LocalMemory(2048)


def forget_recent_pages() -> None:
    """Empty this worker's copy of pages (a test starting)."""
    recent_pages.clear()


def forget_local_reads() -> None:
    """Empty this worker's copy of cached reads and frames (a test starting: its data may have
    been written without new tokens)."""
    local_reads.clear()
    frames.clear()
