"""Answers that must work while the database (or the cache) is down: the static 500 and 503
pages (no database, no context processors, the language from the URL prefix), and the health
probes.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from health_check.checks import Cache, Database
from health_check.views import HealthCheckView

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30
UNAVAILABLE = (OperationalError, InterfaceError)  # cannot reach or talk to the database


def outage_response(path: str, status: int) -> HttpResponse:
    """The branded static page for ``status`` (500 or 503) in the language of ``path``."""
    language = translation.get_language_from_path(path) or settings.LANGUAGE_CODE
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


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """A view that cannot reach the database answers the branded 503 (DEBUG too)."""

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


class Readiness(HealthCheckView):
    """503 when the database does not answer; 200 otherwise, even when the cache fails (pages
    then render from the database: slower, still right)."""

    checks = (Database, Cache)

    async def get(self, request, *args, **kwargs):
        response = await super().get(request, *args, **kwargs)
        if response.status_code == 500:  # a check failed
            database = any(r.error for r in self.results if isinstance(r.check, Database))
            response.status_code = 503 if database else 200
            if database:
                response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    def render_to_response(self, context, **response_kwargs):
        # JSON for a browser too: the HTML page's context processors would read the database.
        return self.render_to_response_json(response_kwargs["status"])
