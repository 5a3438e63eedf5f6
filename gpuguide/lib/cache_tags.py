"""What a cached page depends on, as tags: recorded by the reads, bumped by the writes.

A page records the tags of the data it read while it rendered (``record``); a write names the
tags of what it changed (``tags_for_write``). ``guides.pagecache`` keeps one version per
tag and treats a cached page as stale once a version it was rendered under has been replaced.

Tags:
- ``site``: everything shared (GPUs, methods, sources, facts, providers' names, the seed); every
  page depends on it.
- ``guides``: the list of guides (titles, status), read by the index.
- ``guide:<pk>``: one guide with its sections, FAQ, tables and sources.
- ``prices:<pk>``: one provider's price checks and prices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

SITE = "site"
GUIDES = "guides"

# tag -> its version when first read (None: unknown) for the page being rendered, and how to
# read current versions.
_recorded: ContextVar[tuple[dict[str, str | None], Callable] | None] = ContextVar(
    "gpuguide_cache_tags", default=None
)


def prices(provider_pk: int) -> str:
    return f"prices:{provider_pk}"


def guide(guide_pk: int) -> str:
    return f"guide:{guide_pk}"


def record(*tags: str) -> None:
    """Note that the page being rendered reads data under these tags (no-op outside a page).

    Call it before the query: the version is read now, so that a write committing during the
    render leaves the page marked stale rather than current.
    """
    recording = _recorded.get()
    if recording is None:
        return
    versions, read_versions = recording
    new = [tag for tag in tags if tag not in versions]
    if new:
        found = read_versions(new) or {}
        versions.update({tag: found.get(tag) for tag in new})


def recorded(tags: list[str]) -> dict[str, str] | None:
    """The versions the page being rendered recorded for ``tags``; None outside a page or where
    one is unknown."""
    recording = _recorded.get()
    if recording is None:
        return None
    versions = {tag: recording[0].get(tag) for tag in tags}
    return None if None in versions.values() else versions


@contextmanager
def recording(read_versions: Callable) -> Iterator[dict[str, str | None]]:
    """Collect the tags read inside the block with their versions; every page reads ``site``.

    ``read_versions(tags)`` returns {tag: version}, or None where versions cannot be read.
    """
    versions: dict[str, str | None] = {}
    reset = _recorded.set((versions, read_versions))
    try:
        record(SITE)
        yield versions
    finally:
        _recorded.reset(reset)


def tags_for_write(instance, *, created: bool = True) -> set[str]:
    """The tags a save or delete of ``instance`` (a guides or pricing model) changes."""
    label = instance._meta.label_lower
    if label == "pricing.price" or (label == "pricing.pricecheck" and created):
        return {prices(instance.provider_id)}
    if label == "pricing.pricecheck":  # a corrected check may have moved to another provider
        return {prices(instance.provider_id), SITE}
    if label == "guides.guide":
        return {guide(instance.pk), GUIDES}
    guide_pk = getattr(instance, "guide_id", None)
    if guide_pk is not None:  # a section, FAQ entry, table row or source link of one guide
        return {guide(guide_pk)}
    return {SITE}
