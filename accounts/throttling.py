"""The client address that django-axes counts failed sign-ins against."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

_LOOPBACK = {"127.0.0.1", "::1"}


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind the local TLS proxy the address that proxy saw.

    In production gunicorn listens on 127.0.0.1 behind the proxy, so every request would come
    from 127.0.0.1 and one attacker could lock everybody out by address. A request from a
    loopback address is therefore counted against the last ``X-Forwarded-For`` entry (the one
    our proxy appended); one from anywhere else against its own address, since it may have
    written that header itself.
    """
    remote = request.META.get("REMOTE_ADDR", "")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if remote in _LOOPBACK and forwarded:
        return forwarded.rsplit(",", 1)[-1].strip() or remote
    return remote


def lockout_response(request: HttpRequest, original_response, credentials) -> HttpResponse:
    """The translated page shown instead of the sign-in form while signing in is blocked."""
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "accounts/lockout.html", context, status=429)
