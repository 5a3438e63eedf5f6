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
    """For the small tables every page reads (providers, methods, blocks, facts), under the
    ``site`` version. The version is read before the data, so a write committing meanwhile
    leaves the entry unused."""
    return cached_under([cache_tags.SITE], name, load)


def cached_under(
    tags: list[str], name: str, load: Callable[[], object], *, per_language: bool = True
) -> object:
    """``load()``'s result, cached under the current versions of ``tags`` (and the language),
    which the page being rendered records. None is not cached."""
    cache_tags.record(*tags)  # inside a page: reads each tag's version once per page
    versions = cache_tags.recorded(tags) or current_versions(tags)
    if versions is None:  # the database is down: read directly
        return load()
    language = get_language() if per_language else "-"
    key = f"{READ_PREFIX}{name}:{language}:" + ":".join(versions[tag] for tag in tags)
    value = cache.get(key)
    if value is None:
        value = load()
        if value is not None:
            cache.set(key, value, seconds_until_tomorrow())
    return value
