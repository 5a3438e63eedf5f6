"""Response headers the settings cannot express: Permissions-Policy, and the admin's CSP.

The Content-Security-Policy itself is django-csp's (``CONTENT_SECURITY_POLICY`` in settings);
this middleware must come after ``csp.middleware.CSPMiddleware`` in MIDDLEWARE so that the
allowance it sets on admin responses is read when that middleware builds the header.
"""

from __future__ import annotations

from csp.constants import SELF, UNSAFE_INLINE
from django.http import HttpRequest, HttpResponse

# Powerful features no page of ours uses: denied to the page and anything it might embed.
# Only features Chromium knows (an unknown one, such as the retired interest-cohort, is logged
# as a console error on every page).
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)

# Django's admin (and modeltranslation's tabs) write style="" attributes in their markup;
# scripts stay 'self' only there too.
ADMIN_CSP_UPDATE = {"style-src": [SELF, UNSAFE_INLINE]}


def is_admin(request: HttpRequest) -> bool:
    """Whether the admin site answered (by its URL namespace, wherever ADMIN_URL puts it)."""
    match = getattr(request, "resolver_match", None)
    return match is not None and "admin" in match.namespaces


class SecurityHeadersMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if is_admin(request) and not hasattr(response, "_csp_update"):
            response._csp_update = ADMIN_CSP_UPDATE
        return response
