"""The HTTP page cache: anonymous GETs served from the cache, successful renders stored
under the versions of the tags they read, with an ETag, Last-Modified, the browser's
Cache-Control and the body gzipped once (see the package's docstring for the rule)."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from functools import wraps

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import connection, transaction
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

from gpuguide.lib import cache_tags, front_cache, metrics
from guides.pagecache import versions
from guides.pagecache.versions import CACHE_FORMAT, seconds_until_tomorrow

PAGE_PREFIX = f"gpuguide:page:{CACHE_FORMAT}:"

# Set while a background task renders pages again: skip the lookup, render and store.
_refreshing: ContextVar[bool] = ContextVar("gpuguide_refreshing", default=False)


@dataclass(frozen=True)
class CachedPage:
    body: bytes
    content_type: str
    versions: dict[str, str]  # tag -> the version the page was rendered under
    etag: str
    stored_at: float  # Unix time
    # The bytes GZipMiddleware would send: compressing a guide again on each visit took longer
    # (0.3 ms) than the rest of the visit. (Brotli: 7 % smaller, 0.4-1 ms more per render.)
    gzipped: bytes


_ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as GZipMiddleware


def page_key(language: str, path: str, query: QueryDict) -> str:
    # Hashed: visitors choose the path, and a key must stay short and plain (memcached
    # refuses keys over 250 bytes or with spaces).
    canonical_query = "&".join(
        f"{name}={value}" for name, values in sorted(query.lists()) for value in values
    )
    raw = "\n".join((language, path, canonical_query))
    return PAGE_PREFIX + hashlib.sha256(raw.encode()).hexdigest()


def _only(query: QueryDict, names: Iterable[str]) -> QueryDict:
    """``query`` with only the parameters ``names``, every value of each kept."""
    kept = QueryDict(mutable=True)
    for name in names:
        if name in query:
            kept.setlist(name, query.getlist(name))
    kept._mutable = False
    return kept


def cache_public_page(
    view: Callable | None = None, *, query: Iterable[str] = (), days: Iterable[str] = ()
) -> Callable:
    """Serve anonymous GETs from the cache; store successful renders.

    ``query``: the parameters the page reads. The others are dropped before the view runs.
    ``days``: those of them that name a day (``?as_of=2026-11-01``). A page for a day more than
    ``PAGE_CACHE_PAST_DAYS`` ago is rendered, never stored: each of the thousands of valid days
    would be an entry per page, and hardly any is asked for twice.
    """
    names, dated = tuple(query), tuple(days)

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            # A front cache keys on the whole query string: only a URL that asks for exactly
            # what the page shows may be kept there, or one page would fill it under many.
            exact = set(request.GET) <= set(names)
            request.GET = _only(request.GET, names)
            # Without a session cookie nobody is signed in: a visitor's hit then loads no
            # session and user (about a tenth of its time).
            cookie = settings.SESSION_COOKIE_NAME in request.COOKIES
            if cookie and request.user.is_authenticated:
                response = view(request, *args, **kwargs)
                add_never_cache_headers(response)  # private, no-store: may be a draft
                return response
            # Rendered as for any visitor, without reading the session (the user is looked
            # up in it): a session read would add "Vary: Cookie" to a page all visitors share.
            request.user = AnonymousUser()
            if _long_ago(request.GET, dated):
                return view(request, *args, **kwargs)
            return _cached_or_rendered(request, lambda: view(request, *args, **kwargs), front=exact)

        return wrapper

    return decorate(view) if view is not None else decorate


def _long_ago(query: QueryDict, names: tuple[str, ...]) -> bool:
    """Whether a day the query names lies more than PAGE_CACHE_PAST_DAYS before today (a
    malformed one is the view's to refuse, and a refusal is never stored)."""
    for name in names:
        try:
            day = date.fromisoformat(query.get(name, ""))
        except ValueError:
            continue
        if (timezone.localdate() - day).days > settings.PAGE_CACHE_PAST_DAYS:
            return True
    return False


def _cached_or_rendered(
    request: HttpRequest, render: Callable[[], HttpResponse], *, front: bool = False
) -> HttpResponse:
    key = page_key(get_language(), request.path, request.GET)
    if _refreshing.get():
        return _render_and_store(key, render, request)
    snapshot = versions.current()  # None: the database is down, so nothing changed since
    # Where the database is down, the front cache keeps nothing (the page may be older).
    front = front and snapshot is not None and front_cache.enabled()

    def current(page: CachedPage | None) -> bool:
        return page is not None and (
            snapshot is None or versions.is_current(page.versions, snapshot)
        )

    page = cache.get(key)
    if current(page):
        metrics.PAGE_CACHE_HITS.inc()
        return _response(request, page, "hit", front=front)
    # A copy found but read data that changed since (stale), or none at all (a miss).
    if page is not None:
        metrics.PAGE_CACHE_STALE.inc()
    else:
        metrics.PAGE_CACHE_MISSES.inc()
    return _render_and_store(key, render, request, front_since=snapshot if front else None)


@contextmanager
def one_snapshot() -> Iterator[None]:
    """On PostgreSQL, a page's reads, its versions included, from one REPEATABLE READ snapshot:
    otherwise a write committed between two reads of one render shows two prices on one page
    (tests/reliability/test_processes.py). Not on SQLite, whose transactions here begin
    IMMEDIATE (renders would queue behind each other and every write)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def _render_and_store(
    key: str,
    render: Callable[[], HttpResponse],
    request: HttpRequest,
    *,
    front_since: versions.Snapshot | None = None,
) -> HttpResponse:
    """Render, and store a successful page under the versions it read. ``front_since``: the
    versions the visit began under, where the front cache may keep the page."""
    with (
        metrics.PAGE_RENDER.time(),
        one_snapshot(),
        cache_tags.recording(versions.current_versions) as read,
    ):
        response = render()
        if hasattr(response, "render"):
            response.render()  # inside the recording: templates may still read
    if response.status_code != 200 or read is None or None in read.values():
        return response
    body = response.content
    page = CachedPage(
        body=body,
        content_type=response["Content-Type"],
        versions=dict(read),
        etag=f'"{hashlib.sha256(body).hexdigest()[:32]}"',
        stored_at=time.time(),
        gzipped=compress_string(body),
    )
    cache.set(key, page, seconds_until_tomorrow())
    _add_http_caching(response, page)
    # Only if no write committed during the render: its purge may have come before this page
    # reaches the front cache, which would then keep it (older data) until the next purge.
    if front_since is not None and versions.generation_unchanged(front_since):
        front_cache.mark_cacheable(response, page.versions, seconds_until_tomorrow())
    _encode(request, response, page)
    response["X-Page-Cache"] = "miss"
    return response


_CONDITIONAL_HEADERS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE")


def _response(
    request: HttpRequest, page: CachedPage, status: str, *, front: bool = False
) -> HttpResponse:
    """The cached page, or 304 where the request's ETag or date shows it has this one."""
    response = HttpResponse(page.body, content_type=page.content_type)
    _add_http_caching(response, page)
    if front:
        front_cache.mark_cacheable(response, page.versions, seconds_until_tomorrow())
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
    # By default browsers keep a page but ask every time (a 304), which keeps the promise that
    # a write is on the next page a visitor sees; a max-age lets them skip asking, so a write
    # reaches them that much later.
    max_age = settings.PAGE_BROWSER_MAX_AGE
    response["Cache-Control"] = "public, no-cache" if max_age <= 0 else f"public, max-age={max_age}"


@contextmanager
def refreshing() -> Iterator[None]:
    """Inside: cached pages are rendered and stored again, never served from the cache."""
    reset = _refreshing.set(True)
    try:
        yield
    finally:
        _refreshing.reset(reset)


def page_is_current(language: str, path: str, tags: Iterable[str]) -> bool:
    """Whether the cached page at ``path`` exists and read none of ``tags``' data."""
    page = cache.get(page_key(language, path, QueryDict()))
    return page is not None and not (set(page.versions) & set(tags))
