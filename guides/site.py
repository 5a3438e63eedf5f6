"""The site as the outside world names it: its name, its address, its publisher.

Absolute URLs (canonical, hreflang, sitemap, feeds, JSON-LD, Open Graph) are built here and
nowhere else. ``site_url`` reads ``settings.SITE_URL`` where it is configured (issue 17 adds
it) and falls back to the request's own scheme and host until then.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.templatetags.static import static

from guides.structured_data import Publisher
from pricing import selectors as pricing_selectors
from pricing.models import Provider

LOGO = "img/logo.svg"
LOGO_RASTER = "img/apple-touch-icon.png"  # 180 px: what search engines take as a logo
SHARE_IMAGE = "img/share.png"  # 1200 x 630, for Open Graph and Twitter cards


def site_url(request: HttpRequest | None = None) -> str:
    """'https://guide.example.com': SITE_URL if configured, else the request's origin."""
    configured = getattr(settings, "SITE_URL", "")
    if configured or request is None:
        return configured.rstrip("/")
    return f"{request.scheme}://{request.get_host()}"


def absolute(request: HttpRequest | None, path: str) -> str:
    """The absolute URL of a path on this site ('/en/gpus/' -> 'https://…/en/gpus/')."""
    if urlsplit(path).scheme:  # a static file on a CDN is absolute already
        return path
    return site_url(request) + path


def publisher(request: HttpRequest | None, house: Provider | None = None) -> Publisher:
    """The company that publishes the site: our house provider (read unless given)."""
    house = house or pricing_selectors.house_provider()
    return Publisher(
        name=house.name,
        url=house.url or site_url(request) + "/",
        logo_url=absolute(request, static(LOGO_RASTER)),
    )
