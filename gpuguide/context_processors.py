from django.conf import settings
from django.http import HttpRequest


def site_url(request: HttpRequest) -> dict[str, str]:
    """The site's configured address, for absolute URLs in pages (never the Host header)."""
    return {"site_url": settings.SITE_URL}
