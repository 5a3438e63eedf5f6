"""How long a sign-in must wait, and the pages that say so.

django-axes locks the pair (account, address). An account failing from many addresses, or an
address failing on many accounts, is slowed here instead, except in the browser the account
last signed in from (a signed "known browser" cookie, as OWASP's device cookies). Both count
axes' rows in the database, so that they hold with Redis down.
"""

import math
import unicodedata
from datetime import datetime

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from gpuguide.lib.client_address import client_ip

KNOWN_BROWSER_COOKIE = "gpuguide_known_browser"
_KNOWN_BROWSER_SALT = "accounts.throttling.known-browser"
KNOWN_BROWSER_DAYS = 180


def account_name(username: str) -> str:
    """The name as sign-in reads it (NFKC, stripped): "erika ", full-width "ｅｒｉｋａ" and "erika"
    are one account to sign-in, and must be one to every throttle."""
    return unicodedata.normalize("NFKC", username).strip()


def axes_username(request: HttpRequest, credentials: dict | None = None) -> str:
    """``AXES_USERNAME_CALLABLE``: axes records and locks the account under ``account_name``."""
    given = (credentials or {}).get("username") or request.POST.get("username", "")
    return account_name(given)


def slowdown_seconds(failures: int) -> int:
    """How long a try must wait after the last of ``failures`` recent failures: nothing up to
    ``SIGNIN_SLOWDOWN_AFTER``, then 2, 4, 8 ... seconds, never more than the maximum."""
    beyond = failures - settings.SIGNIN_SLOWDOWN_AFTER
    if beyond <= 0:
        return 0
    return min(2 ** min(beyond, 30), settings.SIGNIN_SLOWDOWN_MAX_SECONDS)


def signin_wait(request: HttpRequest, username: str, now: datetime | None = None) -> int:
    """Seconds before ``username`` may try to sign in from this request's address (0: now): the
    longer of the account's and the address's waits, none in a browser known to the account."""
    if username and known_browser(request) == username:
        return 0
    now = now or timezone.now()
    recent = recent_failures(now)
    account = Q(username=username) if username else Q(pk__in=[])
    address = Q(ip_address=client_ip(request))
    return max(_wait(recent.filter(who), now) for who in (account, address))


def recent_failures(now: datetime):
    """axes' rows of failures within ``AXES_COOLOFF_TIME`` before ``now``, every account and
    address (``failures_since_start`` failures each)."""
    return AccessAttempt.objects.filter(
        attempt_time__gte=now - settings.AXES_COOLOFF_TIME, failures_since_start__gt=0
    )


def _wait(attempts, now: datetime) -> int:
    seen = attempts.aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    delay = slowdown_seconds(seen["failures"] or 0)
    if not delay:
        return 0
    return max(0, math.ceil((seen["last"] - now).total_seconds() + delay))


def known_browser(request: HttpRequest) -> str | None:
    """The account this browser last signed in to, if its cookie is ours and recent enough."""
    return request.get_signed_cookie(
        KNOWN_BROWSER_COOKIE,
        default=None,
        salt=_KNOWN_BROWSER_SALT,
        max_age=KNOWN_BROWSER_DAYS * 24 * 3600,
    )


def remember_browser(response: HttpResponse, username: str) -> None:
    """Mark the browser that just signed in as known to ``username``."""
    response.set_signed_cookie(
        KNOWN_BROWSER_COOKIE,
        username,
        salt=_KNOWN_BROWSER_SALT,
        max_age=KNOWN_BROWSER_DAYS * 24 * 3600,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def lockout_response(request: HttpRequest, original_response, credentials) -> HttpResponse:
    """The translated page shown instead of the sign-in form while this pair is locked."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}
    response = render(request, "accounts/lockout.html", context, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response


def slowed_response(request: HttpRequest, seconds: int) -> HttpResponse:
    """The translated page shown instead of checking a password that must wait ``seconds``."""
    response = render(request, "accounts/slowed.html", {"seconds": seconds}, status=429)
    response["Retry-After"] = str(seconds)
    return response
