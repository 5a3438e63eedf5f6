"""Version tokens: one per tag of data (``gpuguide.lib.cache_tags``), replaced by every write.

A token is random, prefixed with the time it was made, so it never repeats (even after a
restore) and tells how long ago its data changed. Tokens live in the cache, so that a cached
visit reads no table, and in the database (``ContentVersion``) as the fallback when the cache
has lost them.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from datetime import timedelta

from django.core.cache import cache
from django.db import DatabaseError
from django.utils import timezone

from guides.models import ContentVersion
from guides.pagecache import memory

# Cached values are pickled objects (CachedPage, the selectors' dataclasses and models): raise
# this when one of them changes shape, so that a deploy never unpickles the previous shape.
CACHE_FORMAT = 3  # 3: the cached classes moved modules (guides.caching, pricing.calculations)
VERSION_PREFIX = "gpuguide:version:"


def new_version() -> str:
    """A random token, prefixed with the time in milliseconds (how long ago data changed)."""
    return f"{time.time_ns() // 1_000_000}-{secrets.token_hex(8)}"


def version_age_seconds(token: str) -> float:
    milliseconds, _, _random = token.partition("-")
    return time.time() - int(milliseconds) / 1000 if milliseconds.isdigit() else float("inf")


def current_versions(tags: Iterable[str]) -> dict[str, str] | None:
    """Each tag's current token, from the cache, else from the database (and cached again).

    None when the cache lacks one and the database cannot be reached.
    """
    tags = list(tags)
    found = {
        key.removeprefix(VERSION_PREFIX): token
        for key, token in cache.get_many([VERSION_PREFIX + tag for tag in tags]).items()
    }
    missing = [tag for tag in tags if tag not in found]
    if missing:
        try:
            loaded = _versions_from_database(missing)
        except DatabaseError:
            return None
        for tag, token in loaded.items():
            # add, not set: a writer may have put a newer token there since we read ours.
            cache.add(VERSION_PREFIX + tag, token, None)
        found.update(loaded)
    return found


def _versions_from_database(tags: list[str]) -> dict[str, str]:
    rows = dict(ContentVersion.objects.filter(tag__in=tags).values_list("tag", "token"))
    unseen = [tag for tag in tags if tag not in rows]
    if unseen:  # never written: a first token (the row a concurrent worker wrote first wins)
        ContentVersion.objects.bulk_create(
            [ContentVersion(tag=tag, token=new_version()) for tag in unseen], ignore_conflicts=True
        )
        rows.update(ContentVersion.objects.filter(tag__in=unseen).values_list("tag", "token"))
    return rows


def replace_versions(tags: Iterable[str]) -> None:
    """One new token for all of ``tags``, in the database and the cache."""
    memory.forget_recent_pages()  # this worker's copy may hold pages that read them

    token, tags = new_version(), sorted(set(tags))
    for tag in tags:
        if not ContentVersion.objects.filter(tag=tag).update(token=token):  # a tag's first write
            ContentVersion.objects.get_or_create(tag=tag, defaults={"token": token})
    cache.set_many({VERSION_PREFIX + tag: token for tag in tags}, None)


def all_tags() -> set[str]:
    """Every tag that has a token in the database."""
    return set(ContentVersion.objects.values_list("tag", flat=True))


def seconds_until_tomorrow() -> int:
    """How long a cached page or read may live: until the next local midnight, when "today"
    (and so every price as of today) moves on."""
    now = timezone.localtime()
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds()))
