"""Cached HTML of parts of a page: a guide's price-free parts, and every page's frame.

Kept in each worker's memory only (``memory``): rendering a part costs less than fetching and
unpickling it from a shared cache. Outside a page being cached (previews, drafts and staff
visits) every part is rendered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from django.utils.translation import get_language

from gpuguide.lib import cache_tags
from guides.pagecache import memory
from guides.pagecache.reads import READ_PREFIX


def cached_fragment(
    guide_pk: int, name: str, vary_on: Iterable[object], render: Callable[[], str]
) -> str:
    """HTML of a part of a guide's page that reads only the guide and shared data (never a
    price), rendered once per guide, ``site`` token and language by each worker, and reused by
    its renders after a price check; ``render()`` itself outside a page being cached (previews,
    drafts and staff visits render everything).

    The key holds the guide's and the ``site`` token, as in ``cached_under``, and ``vary_on``:
    what the part shows that each render works out anew (a caption's prose, which may quote a
    figure), so that the key changes whenever what it shows does. Kept in the worker's memory
    only: rendering a fragment costs less than fetching and unpickling it from a shared cache.
    """
    if not cache_tags.recording_page():
        return render()
    tags = [cache_tags.guide(guide_pk), cache_tags.SITE]
    cache_tags.record(*tags)
    tokens = cache_tags.recorded(tags)
    if tokens is None:  # the database is down or the cache lost a token
        return render()
    varies = hashlib.sha256("\n".join(map(str, vary_on)).encode()).hexdigest()[:16]
    key = (
        f"{READ_PREFIX}{cache_tags.guide(guide_pk)}:fragment:{name}:{varies}:"
        f"{get_language()}:" + ":".join(tokens[tag] for tag in tags)
    )
    html = memory.local_reads.get(key)
    if html is None:
        html = render()
        memory.local_reads.put(key, html)
    return html


def price_free_parts(guide_pk: int) -> dict | None:
    """This worker's parts of a guide's page that read no price (its prose, say), for the
    active language under the guide's and the ``site`` token: a dict the page's render fills
    and the renders after it (a price check) read; None outside a page being cached.

    What the page puts in must be worked out from the guide, shared data and the language
    alone (``PageFigures.without_prices`` makes sure), so any thread's entry is as good as
    another's, and a write to the guide or to shared data makes a new dict.
    """
    if not cache_tags.recording_page():
        return None
    tags = [cache_tags.guide(guide_pk), cache_tags.SITE]
    cache_tags.record(*tags)
    tokens = cache_tags.recorded(tags)
    if tokens is None:  # the database is down or the cache lost a token
        return None
    key = f"{READ_PREFIX}{cache_tags.guide(guide_pk)}:price-free:{get_language()}:" + ":".join(
        tokens[tag] for tag in tags
    )
    parts = memory.local_reads.get(key)
    if parts is None:
        parts = {}
        memory.local_reads.put(key, parts)
    return parts


def cached_frame(name: str, vary_on: Iterable[object], render: Callable[[], str]) -> str:
    """HTML of a part of every page's frame (the header, the footer) that reads no data at
    all, only settings, translations and URLs: rendered once per ``vary_on`` (what it shows
    that the page passes in: its path, the site's name...) and language by each worker, and
    reused; ``render()`` itself outside a page being cached (previews and staff visits).

    The key needs no version token, because nothing a write changes is in it; ``vary_on``
    must name everything else the part shows. Kept in the worker's memory only (bounded).
    """
    if not cache_tags.recording_page():
        return render()
    varies = hashlib.sha256("\n".join(map(str, vary_on)).encode()).hexdigest()[:16]
    key = f"{name}:{get_language()}:{varies}"
    html = memory.frames.get(key)
    if html is None:
        html = render()
        memory.frames.put(key, html)
    return html
