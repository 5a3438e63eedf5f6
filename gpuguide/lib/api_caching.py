"""The JSON API's HTTP caching: how long each kind of answer may be reused, and an ETag on
every successful GET or HEAD answer for a 304."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response, set_response_etag

# /memory/ from architecture fields: a pure function of its query string.
PURE_ANSWER = "public, max-age=3600"
# /memory/ for a model on file: an editor may correct the model's figures at any time.
ON_FILE_ANSWER = "no-cache"
# Prices as of today (no as_of, or as_of today): a check recorded now shows within 5 minutes.
CURRENT_ANSWER = "public, max-age=300"
# Prices as of a past day: changed only by a check recorded late for that day or a corrected
# spec or rule, so a day's reuse is fine.
PAST_ANSWER = "public, max-age=86400"


def for_day(as_of: date | None) -> str:
    """The Cache-Control of an answer with prices as of ``as_of`` (None: today)."""
    if as_of is not None and as_of < timezone.localdate():
        return PAST_ANSWER
    return CURRENT_ANSWER


def conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A 200 answer to GET or HEAD with its ETag (a hash of its body), or a 304 where the
    request's If-None-Match names that ETag already."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200:
        return response
    set_response_etag(response)
    return get_conditional_response(request, etag=response["ETag"], response=response)
