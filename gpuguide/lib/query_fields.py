"""A query string with too many fields: a quick 400, under ``DEBUG`` as without it.

Django refuses more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (1,000) fields the first time
``request.GET`` is read (``TooManyFieldsSent``, 400). Under ``DEBUG`` its technical 400 page reads
``request.GET`` again, which raises again in the exception handler of every middleware around,
each rendering a longer chain of tracebacks: a planner URL with 1,100 ``&`` took 23 s and then
escaped as a 500 (Django ticket 35673, open). For a form body Django marks the parse as failed
so that the error page does not read it again; this does the same for the query string.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, QueryDict


def parsed_first(get_response: Callable[[HttpRequest], HttpResponse]):
    """Reads the query once, before any other middleware; a refused one is left empty."""

    def middleware(request: HttpRequest) -> HttpResponse:
        try:
            request.GET  # noqa: B018 (parsed here, where a refusal is cheap)
        except TooManyFieldsSent:
            request.GET = QueryDict()  # what the 400 page (DEBUG's included) reads instead
            raise
        return get_response(request)

    return middleware
