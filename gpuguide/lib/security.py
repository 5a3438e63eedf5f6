"""The Permissions-Policy header, which Django has no setting for.

The Content-Security-Policy is django-csp's (``CONTENT_SECURITY_POLICY`` in settings). It holds
for the admin and the API docs too: checked in Chromium, Django's admin, modeltranslation's
tabs (jQuery UI) and Swagger UI set styles only through the DOM, which CSP allows; a per-view
allowance would be ``csp.decorators.csp_update``.
"""

from __future__ import annotations

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


class SecurityHeadersMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
