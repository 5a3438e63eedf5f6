"""What a cached page depends on, as tags: recorded by the reads (``record``), named by the
writes (``tags_for_write``); ``guides.pagecache`` keeps a version per tag. ``site`` is
everything shared, and every page reads it; the apps register narrower tags for their models
(``register_write_tags``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

SITE = "site"

# app label -> rule(instance, created): the tags a save or delete of one of its models
# changes, or None for ``site``
_write_rules: dict[str, Callable[[Any, bool], set[str] | None]] = {}

# tag -> its version when first read (None: unknown) for the page being rendered, and how to
# read current versions.
_recorded: ContextVar[tuple[dict[str, str | None], Callable] | None] = ContextVar(
    "gpuguide_cache_tags", default=None
)


def record(*tags: str) -> None:
    """Note that the page being rendered reads data under these tags (no-op outside a page).
    Call it before the query: a write committing during the render then leaves the page stale."""
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
    ``read_versions(tags)`` returns {tag: version}, or None where versions cannot be read."""
    versions: dict[str, str | None] = {}
    reset = _recorded.set((versions, read_versions))
    try:
        record(SITE)
        yield versions
    finally:
        _recorded.reset(reset)


def register_write_tags(app_label: str, rule: Callable[[Any, bool], set[str] | None]) -> None:
    """Say which tags a write of ``app_label``'s models changes: ``rule(instance, created)``
    returns them, or None where it is ``site``'s (shared data)."""
    _write_rules[app_label] = rule


def tags_for_write(instance, *, created: bool = True) -> set[str]:
    """The tags a save or delete of ``instance`` changes (``site`` unless its app says)."""
    rule = _write_rules.get(instance._meta.app_label)
    tags = rule(instance, created) if rule is not None else None
    return tags or {SITE}
