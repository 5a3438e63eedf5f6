"""What each worker keeps in its own memory, bounded: the pages it found current, the cached
reads and fragments it used last, and the tags each cached page read.

A shared cache (Redis) costs a round trip and an unpickling per read; these copies save both.
Each holds only what its key says is current (the keys carry the version tokens, or the page
is checked against them), so nothing here is ever older than the data; a write in this
process empties the pages at once (``versions.replace_versions``).
"""

from __future__ import annotations

from django.conf import settings

from gpuguide.lib.local_memory import LocalMemory

# Page key -> (monotonic time it was found current, the CachedPage): see http.
recent_pages = LocalMemory(lambda: settings.PAGE_CACHE_LOCAL_PAGES)
# Page key -> the tags its cached page read, as last seen: lets a visit fetch the page and its
# tokens in one round trip to a shared cache instead of two.
tags_seen = LocalMemory(10_000)
# What reads.cached_under returned lately, by its token'd key: asked again (the providers three
# times a page, the guide on every render after a price check), it is not fetched from the
# shared cache and unpickled again. Values are shared, so never changed by their readers (the
# selectors' dataclasses are frozen; pages only read the models).
local_reads = LocalMemory(512)  # reference tables, guides, each guide's fragments per language
# The frames fragments.cached_frame rendered: one header per cached path and language, a few
# footers. Nothing in them goes stale, so only the bound removes them.
frames = LocalMemory(2048)


def forget_recent_pages() -> None:
    """Empty this worker's copy of pages (a write here, or a test starting)."""
    recent_pages.clear()


def forget_local_reads() -> None:
    """Empty this worker's copy of cached reads and frames (a test starting: its data may have
    been written without new tokens)."""
    local_reads.clear()
    frames.clear()
