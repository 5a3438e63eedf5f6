"""Writes make pages stale: new versions for the tags a write touched, now and on commit.

``note_write`` and ``note_sources_changed`` are connected to every guides and pricing model's
save and delete (``guides.apps``). Once the transaction commits, ``signals.pages_stale``
announces the tags, for the task worker to render those pages again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import connection, transaction

from gpuguide.lib import cache_tags
from guides.pagecache import signals, versions
from guides.pagecache import tags as guide_tags

logger = logging.getLogger(__name__)


def note_write(sender, instance, created: bool = True, raw: bool = False, **_kwargs) -> None:
    """post_save / post_delete of a guides or pricing model: its pages are stale."""
    invalidate(cache_tags.tags_for_write(instance, created=created))


def note_sources_changed(sender, instance, **_kwargs) -> None:
    """m2m_changed of a guide's sources."""
    invalidate(cache_tags.tags_for_write(instance))


def invalidate(tags: Iterable[str]) -> None:
    """New versions, inside the writer's transaction (they commit with its data, see
    ``versions.replace_versions``); once it commits, ``signals.pages_stale``."""
    tags = set(tags)
    if not connection.in_atomic_block:  # autocommit: already committed
        versions.replace_versions(tags)
        _announce_stale(tags)
        return
    pending = next(
        (c for _savepoints, c, _robust in connection.run_on_commit if isinstance(c, _AfterCommit)),
        None,
    )
    if pending is None:
        pending = _AfterCommit()
        transaction.on_commit(pending)
    # Once per tag and transaction: a guide saved with its 30 inline rows is one replacement.
    if tags - pending.tags:
        versions.replace_versions(tags - pending.tags)
        pending.tags |= tags


class _AfterCommit:
    """Runs once when the transaction commits, for every tag it wrote."""

    def __init__(self) -> None:
        self.tags: set[str] = set()

    def __call__(self) -> None:
        _announce_stale(self.tags)


def invalidate_everything() -> None:
    """Every page stale (after bulk loads, which send no signals)."""
    invalidate({cache_tags.SITE, guide_tags.GUIDES})


def renew_after_restore() -> None:
    """New versions for every tag, written with the restored rows (``backups.restore``'s
    ``within``): a restore put old versions back, under which pages may be cached anywhere."""
    versions.replace_versions(versions.all_tags() | {cache_tags.SITE})


def _announce_stale(tags: set[str]) -> None:
    try:
        signals.pages_stale.send(sender=None, tags=sorted(tags))
    except Exception:  # the write stands; the pages render on their next visit instead
        logger.exception("could not queue the re-render of pages for %s", sorted(tags))
