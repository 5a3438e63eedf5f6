"""Cached reads: what a loader returns, cached under the versions of the tags it reads.

A write to any of their data replaces a version, so an entry is never read again once its data
changed: it cannot be stale, and needs no deleting (it expires at midnight like the pages).
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache
from django.utils.translation import get_language

from gpuguide.lib import cache_tags
from guides.pagecache.versions import CACHE_FORMAT, current_versions, seconds_until_tomorrow

READ_PREFIX = f"gpuguide:catalogue:{CACHE_FORMAT}:"


def cached_site_wide(name: str, load: Callable[[], object]) -> object:
    """``load()``'s result, cached under the ``site`` version and the language.

    For the small tables every page reads (providers, methods, blocks, facts): a write to any
    of them replaces the ``site`` version, so what is cached here is never older than the data.
    The version is read before the data, so a write committing meanwhile leaves it unused.
    """
    return cached_under([cache_tags.SITE], name, load)


def cached_under(
    tags: list[str], name: str, load: Callable[[], object], *, per_language: bool = True
) -> object:
    """``load()``'s result, cached under the current versions of ``tags`` (and the language).

    The page being rendered records the tags. None is not cached.
    """
    key = _read_key(tags, name, per_language)
    if key is None:  # the database is down or the cache lost a version: read directly
        return load()
    value = cache.get(key)
    if value is None:
        value = load()
        if value is not None:
            cache.set(key, value, seconds_until_tomorrow())
    return value


def _read_key(tags: list[str], name: str, per_language: bool) -> str | None:
    """The key of a cached read under the current versions of ``tags``; None where they cannot
    be read. Records the tags for the page being rendered."""
    cache_tags.record(*tags)  # inside a page: reads each tag's version once per page
    versions = cache_tags.recorded(tags) or current_versions(tags)
    if versions is None:
        return None
    language = get_language() if per_language else "-"
    return f"{READ_PREFIX}{name}:{language}:" + ":".join(versions[tag] for tag in tags)
