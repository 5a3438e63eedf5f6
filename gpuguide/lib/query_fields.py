"""A query string with too many fields: a quick 400, under ``DEBUG`` as without it.

Under ``DEBUG`` Django's technical 400 page reads ``request.GET`` again, which raises again in
every middleware around (a planner URL with 1,100 ``&`` took 23 s, then escaped as a 500:
Django ticket 35673). Django marks a failed form body parsed; this does so for the query.
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
