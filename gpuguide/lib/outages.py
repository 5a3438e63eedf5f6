"""Answers that must work while the database (or the cache) is down.

- ``server_error`` (handler500) and ``DatabaseUnavailableMiddleware`` render the static
  ``500.html`` / ``503.html``: no database, no context processors, no cache. The language comes
  from the URL prefix (/en/, /de/, /ja/), English otherwise.
- ``healthz`` (the process is alive) and ``readyz`` (the database and the cache answer), for
  load balancers and orchestrators; neither is cached nor language-prefixed.
"""

from __future__ import annotations

import logging
import re
import sys
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30
UNAVAILABLE = (OperationalError, InterfaceError)  # cannot reach or talk to the database
_PREFIX = re.compile(r"^/([a-z]{2})(?:/|$)")


def language_from_path(path: str) -> str:
    match = _PREFIX.match(path)
    codes = {code for code, _name in settings.LANGUAGES}
    return match.group(1) if match and match.group(1) in codes else settings.LANGUAGE_CODE


def outage_response(path: str, status: int) -> HttpResponse:
    """The branded static page for ``status`` (500 or 503) in the language of ``path``."""
    language = language_from_path(path)
    home = f"/{language}/"
    with translation.override(language):
        try:
            # No request: no context processors run, so nothing can query or read the session.
            body = render_to_string(
                f"{status}.html", {"home": home, "site_name": settings.SITE_NAME}
            )
        except Exception:  # e.g. a missing static manifest: an error page must not fail
            logger.exception("The %s page could not be rendered", status)
            body = _plain_page(status, home)
    response = HttpResponse(body, status=status, content_type="text/html; charset=utf-8")
    response["Content-Language"] = language
    response["Cache-Control"] = "no-store"
    if status == 503:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _plain_page(status: int, home: str) -> str:
    title = _("Temporarily unavailable") if status == 503 else _("Something went wrong")
    return (
        f'<!DOCTYPE html><html lang="{translation.get_language()}"><meta charset="utf-8">'
        f"<title>{title} · {escape(settings.SITE_NAME)}</title><h1>{title}</h1>"
        f'<p><a href="{home}">{_("Back to the GPU Guide home page")}</a></p></html>'
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database that cannot be reached is an outage (503), anything else a 500."""
    exc = sys.exc_info()[1]
    return outage_response(request.path, 503 if isinstance(exc, UNAVAILABLE) else 500)


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database answers the branded 503 with Retry-After.

    (handler500 does the same for errors raised outside views; this also covers DEBUG.)
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, UNAVAILABLE):
            logger.error("Database unavailable: %s %s", request.method, request.path,
                         exc_info=exception)  # fmt: skip
            return outage_response(request.path, 503)
        return None


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Touches neither the database nor the cache."""
    return HttpResponse("ok", content_type="text/plain; charset=utf-8")


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        logger.exception("Readiness: the database does not answer")
        return False


def _cache_ok() -> bool:
    key, value = f"gpuguide:readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    try:
        cache.set(key, value, 10)
        ok = cache.get(key) == value
        cache.delete(key)
    except Exception:  # every cache backend raises its own errors
        logger.exception("Readiness: the cache does not answer")
        return False
    return ok


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: 503 when the database does not answer; 200 otherwise, "degraded" when only
    the cache fails (pages then render from the database: slower, still right, so a load
    balancer must keep sending visitors)."""
    checks = {"database": _database_ok(), "cache": _cache_ok()}
    failed = sorted(name for name, ok in checks.items() if not ok)
    unavailable = not checks["database"]
    body = {
        "status": "unavailable" if unavailable else "degraded" if failed else "ok",
        "checks": {name: "ok" if ok else "failed" for name, ok in checks.items()},
        "failed": failed,
    }
    response = JsonResponse(body, status=503 if unavailable else 200)
    if unavailable:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
