"""Whole-page caching for visitors: keyed on what a page shows, versioned by what it read.

- **Key**: the language, the path and only the query parameters the page uses (the view
  declares them; any other parameter is dropped before the view runs, so it can neither make
  an entry nor show up in the page). The host is not part of it: absolute URLs come from
  ``SITE_URL``.
- **Versions**: a page records the tags of the data it reads (``gpuguide.cache_tags``), each
  with the tag's current token, and is stored with them. A write replaces the tokens of the
  tags it touches, so only the pages that read that data go stale (a price check: the pages
  quoting that provider; an edit: that guide). Tokens are random (never repeated, even after a
  restore), kept in the cache so that a cached visit reads no table, and in the database as
  the fallback when the cache has lost them.
- **After a write commits**, a background task (``guides.tasks``) renders the affected pages
  again. A visitor who comes first gets the previous page for up to
  ``PAGE_CACHE_STALE_SECONDS`` after the change (stale-while-revalidate), and the page is
  re-rendered in the background; after that, a stale page is rendered on the spot.
- Entries expire at the next local midnight ("today" moves on), at the latest.
- Each worker serves the pages it found current for ``PAGE_CACHE_LOCAL_SECONDS`` from its own
  memory before it asks the shared cache again (see ``_recent``).
- Signed-in staff (previews, drafts) are never served from or stored in the cache, and their
  responses say ``private, no-store``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils import timezone
from django.utils.cache import (
    add_never_cache_headers,
    get_conditional_response,
    patch_vary_headers,
)
from django.utils.http import http_date
from django.utils.text import compress_string
from django.utils.translation import get_language

from gpuguide import cache_tags

logger = logging.getLogger(__name__)

# Cached values are pickled objects (CachedPage, the selectors' dataclasses and models): raise
# this when one of them changes shape, so that a deploy never unpickles the previous shape.
CACHE_FORMAT = 2
PAGE_PREFIX = f"gpuguide:page:{CACHE_FORMAT}:"
TOKEN_PREFIX = "gpuguide:version:"
REFRESH_PREFIX = "gpuguide:refreshing:"
REFRESH_LOCK_SECONDS = 60  # one background re-render per page at a time

# Set while a background task re-renders pages: skip the lookup, render and store.
_refreshing: ContextVar[bool] = ContextVar("gpuguide_refreshing", default=False)


@dataclass(frozen=True)
class CachedPage:
    body: bytes
    content_type: str
    tokens: dict[str, str]  # tag -> the token the page was rendered under
    etag: str
    stored_at: float  # Unix time
    # The body gzipped once when stored (the bytes GZipMiddleware would send): a visit that
    # accepts gzip is sent these instead of compressing the page again, which took longer
    # (0.3 ms for a guide) than the rest of the visit. (Brotli was tried: 7 % smaller, but
    # 0.4-1 ms more per render.)
    gzipped: bytes


_ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as GZipMiddleware


# --- version tokens ----------------------------------------------------------------------


def new_token() -> str:
    """A random token, prefixed with the time in milliseconds (how long ago data changed)."""
    return f"{time.time_ns() // 1_000_000}-{secrets.token_hex(8)}"


def _token_age_seconds(token: str) -> float:
    milliseconds, _, _random = token.partition("-")
    return time.time() - int(milliseconds) / 1000 if milliseconds.isdigit() else float("inf")


def current_tokens(tags: Iterable[str]) -> dict[str, str] | None:
    """Each tag's current token, from the cache, else from the database (and cached again).

    None when the cache lacks one and the database cannot be reached.
    """
    tags = list(tags)
    found = {
        key.removeprefix(TOKEN_PREFIX): token
        for key, token in cache.get_many([TOKEN_PREFIX + tag for tag in tags]).items()
    }
    missing = [tag for tag in tags if tag not in found]
    if missing:
        try:
            loaded = _tokens_from_database(missing)
        except DatabaseError:
            return None
        for tag, token in loaded.items():
            # add, not set: a writer may have put a newer token there since we read ours.
            cache.add(TOKEN_PREFIX + tag, token, None)
        found.update(loaded)
    return found


def _tokens_from_database(tags: list[str]) -> dict[str, str]:
    from guides.models import ContentVersion

    rows = dict(ContentVersion.objects.filter(tag__in=tags).values_list("tag", "token"))
    unseen = [tag for tag in tags if tag not in rows]
    if unseen:  # never written: a first token (the row a concurrent worker wrote first wins)
        ContentVersion.objects.bulk_create(
            [ContentVersion(tag=tag, token=new_token()) for tag in unseen], ignore_conflicts=True
        )
        rows.update(ContentVersion.objects.filter(tag__in=unseen).values_list("tag", "token"))
    return rows


def _replace_tokens(tags: Iterable[str]) -> None:
    from guides.models import ContentVersion

    forget_recent_pages()  # this worker's copy may hold pages that read them

    token, tags = new_token(), sorted(set(tags))
    for tag in tags:
        if not ContentVersion.objects.filter(tag=tag).update(token=token):  # a tag's first write
            ContentVersion.objects.get_or_create(tag=tag, defaults={"token": token})
    cache.set_many({TOKEN_PREFIX + tag: token for tag in tags}, None)


# --- writes ------------------------------------------------------------------------------


def note_write(sender, instance, created: bool = True, raw: bool = False, **_kwargs) -> None:
    """post_save / post_delete of a guides or pricing model: its pages are stale."""
    invalidate(cache_tags.tags_for_write(instance, created=created))


def note_sources_changed(sender, instance, **_kwargs) -> None:
    """m2m_changed of a guide's sources."""
    invalidate(cache_tags.tags_for_write(instance))


# Set while writes are rehearsed (a working copy applied in a savepoint that is rolled back,
# see guides.revisions): they never reach visitors, so they leave the cached pages alone.
_writes_not_live: ContextVar[bool] = ContextVar("gpuguide_writes_not_live", default=False)


@contextmanager
def writes_not_live() -> Iterator[None]:
    token = _writes_not_live.set(True)
    try:
        yield
    finally:
        _writes_not_live.reset(token)


def invalidate(tags: Iterable[str]) -> None:
    """New tokens now, inside the writer's transaction (no page rendered from here on counts
    as current), and again once it commits (pages rendered meanwhile read the old data)."""
    if _writes_not_live.get():
        return
    tags = set(tags)
    if not connection.in_atomic_block:  # autocommit: already committed
        _replace_tokens(tags)
        _enqueue_refresh(tags)
        return
    pending = next(
        (c for _savepoints, c, _robust in connection.run_on_commit if isinstance(c, _AfterCommit)),
        None,
    )
    if pending is None:
        pending = _AfterCommit()
        transaction.on_commit(pending)
    # Once per tag and transaction: a guide saved with its 30 inline rows is one replacement.
    _replace_tokens(tags - pending.tags)
    pending.tags |= tags


class _AfterCommit:
    """Runs once when the transaction commits, for every tag it wrote."""

    def __init__(self) -> None:
        self.tags: set[str] = set()

    def __call__(self) -> None:
        _replace_tokens(self.tags)
        _enqueue_refresh(self.tags)


def invalidate_everything() -> None:
    """Every page stale (after bulk loads, which send no signals)."""
    invalidate({cache_tags.SITE, cache_tags.GUIDES})


def renew_after_restore() -> int:
    """New tokens for every tag after a restore put old ones back, and an empty cache.

    The restored tokens are ones pages may have been cached under; random new ones match none.
    Returns how many tags were renewed.
    """
    from guides.models import ContentVersion

    tags = set(ContentVersion.objects.values_list("tag", flat=True)) | {cache_tags.SITE}
    with transaction.atomic():
        _replace_tokens(tags)
    cache.clear()  # this process's cache, which is every worker's with a shared CACHE_URL
    return len(tags)


def _enqueue_refresh(tags: set[str]) -> None:
    from guides import tasks

    try:
        tasks.refresh_affected_pages.enqueue(tags=sorted(tags))
    except Exception:  # the write stands; the pages render on their next visit instead
        logger.exception("could not queue the re-render of pages for %s", sorted(tags))


# --- reads -------------------------------------------------------------------------------


def page_key(language: str, path: str, query: QueryDict) -> str:
    # Hashed: visitors choose the path, and a key must stay short and plain (memcached
    # refuses keys over 250 bytes or with spaces).
    canonical_query = "&".join(
        f"{name}={value}" for name, values in sorted(query.lists()) for value in values
    )
    raw = "\n".join((language, path, canonical_query))
    return PAGE_PREFIX + hashlib.sha256(raw.encode()).hexdigest()


def _only(query: QueryDict, names: Iterable[str]) -> QueryDict:
    kept = QueryDict(mutable=True)
    for name in names:
        if name in query:
            kept.setlist(name, query.getlist(name))
    kept._mutable = False
    return kept


def cache_public_page(view: Callable | None = None, *, query: Iterable[str] = ()) -> Callable:
    """Serve anonymous GETs from the cache; store successful renders.

    ``query``: the parameters the page reads. The others are dropped before the view runs.
    """
    names = tuple(query)

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            request.GET = _only(request.GET, names)
            if request.user.is_authenticated:
                response = view(request, *args, **kwargs)
                add_never_cache_headers(response)  # private, no-store: may be a draft
                return response
            return _cached_or_rendered(request, lambda: view(request, *args, **kwargs))

        return wrapper

    return decorate(view) if view is not None else decorate


# Page key -> the tags its cached page read, as last seen by this process: lets a visit fetch
# the page and its tokens in one round trip to a shared cache instead of two.
_tags_seen: dict[str, tuple[str, ...]] = {}
_TAGS_SEEN_MAX = 10_000


def _lookup(key: str) -> tuple[CachedPage | None, dict[str, str] | None]:
    """The cached page at ``key`` and the current tokens of the tags it read."""
    tags = _tags_seen.get(key, ())
    found = cache.get_many([key, *(TOKEN_PREFIX + tag for tag in tags)])
    page = found.pop(key, None)
    if page is None:
        return None, None
    tokens = {k.removeprefix(TOKEN_PREFIX): token for k, token in found.items()}
    if set(tokens) != set(page.tokens):  # first visit here, or tags changed: ask for them
        if len(_tags_seen) >= _TAGS_SEEN_MAX:
            _tags_seen.clear()
        _tags_seen[key] = tuple(page.tokens)
        tokens = current_tokens(page.tokens)
    return page, tokens


def _cached_or_rendered(request: HttpRequest, render: Callable[[], HttpResponse]) -> HttpResponse:
    key = page_key(get_language(), request.path, request.GET)
    if _refreshing.get():
        page, tokens = None, None
    else:
        page = _recent_page(key)
        if page is not None:
            return _response(request, page, "hit")
        page, tokens = _lookup(key)
    if page is not None:
        if tokens is None:  # the database is down and the cache lost a token: still serve
            return _response(request, page, "hit")
        changed = [token for tag, token in tokens.items() if token != page.tokens[tag]]
        if not changed:
            _remember_recent(key, page)
            return _response(request, page, "hit")
        if min(map(_token_age_seconds, changed)) < settings.PAGE_CACHE_STALE_SECONDS:
            _refresh_later(key, request.get_full_path())
            return _response(request, page, "stale")
    return _render_and_store(key, render, request)


# --- this worker's copy of the pages it served last ---------------------------------------
# A page found current in the shared cache is kept in the worker's memory and served from
# there, without asking the shared cache again, for PAGE_CACHE_LOCAL_SECONDS (a second): a
# busy page then costs one round trip to Redis a second per worker rather than one a visit.
# A write in this process empties it at once; a write in another process is seen here up to
# that much later (the shared cache already serves a changed page for up to
# PAGE_CACHE_STALE_SECONDS while it is rendered again).
_recent: dict[str, tuple[float, CachedPage]] = {}  # key -> (monotonic time checked, page)
_recent_lock = threading.Lock()


def _recent_page(key: str) -> CachedPage | None:
    found = _recent.get(key)
    if found is None or time.monotonic() - found[0] >= settings.PAGE_CACHE_LOCAL_SECONDS:
        return None
    return found[1]


def _remember_recent(key: str, page: CachedPage) -> None:
    if settings.PAGE_CACHE_LOCAL_SECONDS <= 0:
        return
    with _recent_lock:
        _recent.pop(key, None)
        while _recent and len(_recent) >= settings.PAGE_CACHE_LOCAL_PAGES:
            del _recent[next(iter(_recent))]  # the oldest
        _recent[key] = (time.monotonic(), page)


def forget_recent_pages() -> None:
    """Empty this worker's copy of pages (a write here, or a test starting)."""
    with _recent_lock:
        _recent.clear()


def forget_local_reads() -> None:
    """Empty this worker's copy of cached reads (a test starting: its data may have been
    written without new tokens)."""
    with _recent_lock:
        _local_reads.clear()
        _frames.clear()


def _render_and_store(
    key: str, render: Callable[[], HttpResponse], request: HttpRequest | None = None
) -> HttpResponse:
    with cache_tags.recording(current_tokens) as tokens:
        response = render()
        if hasattr(response, "render"):
            response.render()  # inside the recording: templates may still read
    if response.status_code != 200 or tokens is None or None in tokens.values():
        return response
    body = response.content
    page = CachedPage(
        body=body,
        content_type=response["Content-Type"],
        tokens=dict(tokens),
        etag=f'"{hashlib.sha256(body).hexdigest()[:32]}"',
        stored_at=time.time(),
        gzipped=compress_string(body),
    )
    cache.set(key, page, _seconds_until_tomorrow())
    _add_http_caching(response, page)
    if request is not None:
        _encode(request, response, page)
    response["X-Page-Cache"] = "miss"
    return response


_CONDITIONAL_HEADERS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE")


def _response(request: HttpRequest, page: CachedPage, status: str) -> HttpResponse:
    """The cached page, or 304 where the request's ETag or date shows it has this one."""
    response = HttpResponse(page.body, content_type=page.content_type)
    _add_http_caching(response, page)
    _encode(request, response, page)
    response["X-Page-Cache"] = status
    if not any(header in request.META for header in _CONDITIONAL_HEADERS):
        return response  # the usual visit: nothing to compare
    return get_conditional_response(
        request, etag=page.etag, last_modified=int(page.stored_at), response=response
    )


def _encode(request: HttpRequest, response: HttpResponse, page: CachedPage) -> None:
    """The stored gzipped body where the client accepts gzip, with the headers
    GZipMiddleware would set (which then leaves the response alone)."""
    if not _ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        return  # GZipMiddleware adds "Vary: Accept-Encoding"
    response.content = page.gzipped
    response["Content-Encoding"] = "gzip"
    response["Content-Length"] = str(len(response.content))
    response["ETag"] = f"W/{page.etag}"  # as GZipMiddleware: these bytes differ from the page's
    patch_vary_headers(response, ("Accept-Encoding",))


def _add_http_caching(response: HttpResponse, page: CachedPage) -> None:
    response["ETag"] = page.etag
    response["Last-Modified"] = http_date(page.stored_at)
    # Set whole rather than patched: a cached page has no Cache-Control of its own to merge.
    response["Cache-Control"] = (
        f"public, max-age={settings.PAGE_BROWSER_MAX_AGE}, "
        f"stale-while-revalidate={settings.PAGE_BROWSER_STALE_SECONDS}"
    )


def _seconds_until_tomorrow() -> int:
    now = timezone.localtime()
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds()))


def _refresh_later(key: str, full_path: str) -> None:
    from guides import tasks

    if not cache.add(REFRESH_PREFIX + key, 1, REFRESH_LOCK_SECONDS):
        return  # already queued
    try:
        tasks.refresh_pages.enqueue(paths=[full_path])
    except Exception:  # the visitor still gets the previous page; the next one renders it
        cache.delete(REFRESH_PREFIX + key)
        logger.exception("could not queue the re-render of %s", full_path)


@contextmanager
def refreshing() -> Iterator[None]:
    """Inside: cached pages are rendered and stored again, never served from the cache."""
    token = _refreshing.set(True)
    try:
        yield
    finally:
        _refreshing.reset(token)


def page_is_current(language: str, path: str, tags: Iterable[str]) -> bool:
    """Whether the cached page at ``path`` exists and read none of ``tags``' data."""
    page = cache.get(page_key(language, path, QueryDict()))
    return page is not None and not (set(page.tokens) & set(tags))


# --- reference data ----------------------------------------------------------------------

CATALOGUE_PREFIX = f"gpuguide:catalogue:{CACHE_FORMAT}:"


def from_catalogue(name: str, load: Callable[[], object]) -> object:
    """``load()``'s result, cached under the ``site`` token and the language.

    For the small tables every page reads (providers, methods, blocks, facts): a write to any
    of them replaces the ``site`` token, so what is cached here is never older than the data.
    The token is read before the data, so a write committing meanwhile leaves it unused.
    """
    return cached_under([cache_tags.SITE], name, load)


def cached_under(
    tags: list[str], name: str, load: Callable[[], object], *, per_language: bool = True
) -> object:
    """``load()``'s result, cached under the current tokens of ``tags`` (and the language).

    The page being rendered records the tags. A write to any of their data replaces a token,
    so the entry is never read again once the data changed: it cannot be stale, and needs no
    deleting (it expires at midnight like the pages). None is not cached.
    """
    cache_tags.record(*tags)  # inside a page: reads each tag's token once per page
    tokens = cache_tags.recorded(tags) or current_tokens(tags)
    if tokens is None:  # the database is down or the cache lost a token: read directly
        return load()
    language = get_language() if per_language else "-"
    key = f"{CATALOGUE_PREFIX}{name}:{language}:" + ":".join(tokens[tag] for tag in tags)
    value = _local_reads.get(key)
    if value is None:
        value = cache.get(key)
    if value is None:
        value = load()
        if value is not None:
            cache.set(key, value, _seconds_until_tomorrow())
    if value is not None:
        _remember_read(key, value)
    return value


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
        f"{CATALOGUE_PREFIX}{cache_tags.guide(guide_pk)}:fragment:{name}:{varies}:"
        f"{get_language()}:" + ":".join(tokens[tag] for tag in tags)
    )
    html = _local_reads.get(key)
    if html is None:
        html = render()
        _remember_read(key, html)
    return html


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
    html = _frames.get(key)
    if html is None:
        html = render()
        with _recent_lock:
            while _frames and len(_frames) >= _FRAMES_MAX:
                del _frames[next(iter(_frames))]
            _frames[key] = html
    return html


# The frames cached_frame rendered, by key: one header per cached path and language, a few
# footers. Oldest first out; nothing in them goes stale, so nothing else removes them.
_frames: dict[str, str] = {}
_FRAMES_MAX = 2048


# What cached_under returned lately, by key, in this worker's memory: asked again (the
# providers three times a page, the guide on every render after a price check), it is not
# fetched from the shared cache and unpickled again. The key holds the tokens, so an entry is
# never older than the data; the oldest go first. Values are shared, so never changed by
# their readers (the selectors' dataclasses are frozen; pages only read the models).
_local_reads: dict[str, object] = {}
_LOCAL_READS_MAX = 512  # the reference tables and guides, and each guide's fragments per language


def _remember_read(key: str, value: object) -> None:
    with _recent_lock:
        _local_reads.pop(key, None)
        while _local_reads and len(_local_reads) >= _LOCAL_READS_MAX:
            del _local_reads[next(iter(_local_reads))]
        _local_reads[key] = value
