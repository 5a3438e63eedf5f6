"""Versions: one per tag of data (``gpuguide.lib.cache_tags``), replaced by every write, kept
in the database only (``ContentVersion``), so every process agrees on them whatever the cache
holds. One more row, the *generation*, is replaced by every committed write: a visit reads it
(one query, once per request, see ``checked_once``) and the whole table only when it moved.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from guides.models import ContentVersion

# Cached values are pickled objects (CachedPage, the selectors' dataclasses and models): raise
# this when one of them changes shape, so that a deploy never unpickles the previous shape.
CACHE_FORMAT = 5  # 5: CachedPage.tokens became CachedPage.versions
# The generation's tag: no data tag has this name (cache_tags' tags are words and pk's).
GENERATION = "*"


@dataclass(frozen=True)
class Snapshot:
    """The whole version table as one process last read it."""

    generation: str  # "" where no write has made one yet
    versions: dict[str, str]  # tag -> version (never changed once made: replaced whole)


_snapshot: Snapshot | None = None  # this process's copy, replaced whole (threads share it)
_snapshot_lock = threading.Lock()


class _Check:
    """What one request (or one background render) has checked so far."""

    snapshot: Snapshot | None = None


_check: ContextVar[_Check | None] = ContextVar("gpuguide_version_check", default=None)


def new_version() -> str:
    """Random, prefixed with the time in milliseconds (how long ago data changed): it never
    repeats."""
    return f"{time.time_ns() // 1_000_000}-{secrets.token_hex(8)}"


@contextmanager
def checked_once() -> Iterator[None]:
    """Inside: the generation is read at most once (a request, a background render), not on
    every ``current_versions``; a write inside makes the next call read it again. Nested, the
    outer one counts."""
    if _check.get() is not None:
        yield
        return
    reset = _check.set(_Check())
    try:
        yield
    finally:
        _check.reset(reset)


def checked_once_per_request(get_response):
    """Middleware: every request reads the generation at most once, and only if it asks for a
    version (a cached page, a cached read, the dashboard)."""

    def middleware(request):
        with checked_once():
            return get_response(request)

    return middleware


def current() -> Snapshot | None:
    """The versions as the database holds them now; None when it cannot be reached."""
    check = _check.get()
    if check is not None and check.snapshot is not None:
        return check.snapshot
    try:
        snapshot = _read()
    except DatabaseError:
        return None
    if check is not None:
        check.snapshot = snapshot
    return snapshot


def current_versions(tags: Iterable[str]) -> dict[str, str] | None:
    """Each tag's current version; None when the database cannot be reached."""
    tags = list(tags)
    snapshot = current()
    if snapshot is None:
        return None
    unseen = [tag for tag in tags if tag not in snapshot.versions]
    if unseen:
        try:
            snapshot = _with_first_versions(snapshot, unseen)
        except DatabaseError:
            return None
    return {tag: snapshot.versions[tag] for tag in tags}


def is_current(page_versions: dict[str, str], snapshot: Snapshot) -> bool:
    """Whether what was made under ``page_versions`` is still current in ``snapshot``."""
    versions = snapshot.versions
    return all(versions.get(tag) == version for tag, version in page_versions.items())


def _read() -> Snapshot:
    global _snapshot
    generation = _generation()
    known = _snapshot
    if known is not None and generation is not None and known.generation == generation:
        return known
    versions = dict(ContentVersion.objects.values_list("tag", "version"))
    fresh = Snapshot(generation=versions.get(GENERATION, ""), versions=versions)
    if not _uncommitted_versions():
        with _snapshot_lock:
            _snapshot = fresh
    return fresh


def _generation() -> str | None:
    # Raw SQL: this runs on every visit, and the ORM's query building costs more than the query.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT version FROM {ContentVersion._meta.db_table} WHERE tag = %s", [GENERATION]
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _with_first_versions(snapshot: Snapshot, tags: list[str]) -> Snapshot:
    """``snapshot`` with a first version for tags never written (the row a concurrent process
    wrote first wins). A first version marks no change, so the generation stays."""
    global _snapshot
    ContentVersion.objects.bulk_create(
        [ContentVersion(tag=tag, version=new_version()) for tag in tags], ignore_conflicts=True
    )
    found = dict(ContentVersion.objects.filter(tag__in=tags).values_list("tag", "version"))
    extended = Snapshot(snapshot.generation, {**snapshot.versions, **found})
    with _snapshot_lock:
        if _snapshot is snapshot and not _uncommitted_versions():
            _snapshot = extended
    check = _check.get()
    if check is not None:
        check.snapshot = extended
    return extended


def replace_versions(tags: Iterable[str]) -> None:
    """One new version for all of ``tags`` and the generation, in the writer's transaction, so
    they commit with the data they version or not at all. (On PostgreSQL the generation's row
    stays locked until the writer commits: content writes take turns, as on SQLite.)"""
    version, tags = new_version(), sorted(set(tags) | {GENERATION})  # "*" first: one lock order
    with transaction.atomic():
        for tag in tags:
            if not ContentVersion.objects.filter(tag=tag).update(version=version):  # a first write
                ContentVersion.objects.get_or_create(tag=tag, defaults={"version": version})
    if connection.in_atomic_block and not _uncommitted_versions():
        transaction.on_commit(_Committed())
    forget()


class _Committed:
    """Marks a transaction that replaced versions, until it commits (or rolls back, which drops
    it): this connection's reads of the table are not kept for the process meanwhile. Kept,
    other threads would store pages rendered from the committed data under versions that the
    commit then makes current."""

    def __call__(self) -> None:
        forget()


def _uncommitted_versions() -> bool:
    return connection.in_atomic_block and any(
        isinstance(callback, _Committed)
        for _savepoints, callback, _robust in connection.run_on_commit
    )


def forget() -> None:
    """This process reads the version table again on its next check (a write here, or a test
    starting on rolled-back data)."""
    global _snapshot
    with _snapshot_lock:
        _snapshot = None
    check = _check.get()
    if check is not None:
        check.snapshot = None


def all_tags() -> set[str]:
    """Every data tag that has a version in the database."""
    return set(ContentVersion.objects.values_list("tag", flat=True)) - {GENERATION}


def seconds_until_tomorrow() -> int:
    """How long a cached page or read may live: until the next local midnight, when "today"
    (and so every price as of today) moves on."""
    now = timezone.localtime()
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds()))


def generation_unchanged(snapshot: Snapshot) -> bool:
    """Whether no write has committed since ``snapshot`` was read (one query, read now)."""
    try:
        return _generation() == (snapshot.generation or None)
    except DatabaseError:
        return False
