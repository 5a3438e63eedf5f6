"""The site as the outside world names it: its name, its address, its publisher. Absolute URLs
(canonical, hreflang, sitemap, feeds, JSON-LD, Open Graph) are built here, from
``settings.SITE_URL``: never from the request's Host header, which a visitor may forge.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.templatetags.static import static

from guides.pages import reference_data
from pricing.models import Provider

LOGO_RASTER = "img/apple-touch-icon.png"  # 180 px: what search engines take as a logo
SHARE_IMAGE = "img/share.png"  # 1200 x 630, for Open Graph and Twitter cards


def site_url() -> str:
    """'https://guide.example.com'."""
    return settings.SITE_URL.rstrip("/")


def absolute(path: str) -> str:
    """The absolute URL of a path on this site ('/en/gpus/' -> 'https://…/en/gpus/')."""
    if urlsplit(path).scheme:  # a static file on a CDN is absolute already
        return path
    return site_url() + path


def publisher(house: Provider | None = None) -> dict:
    """The company that publishes the site, as a schema.org Organization: our house provider
    (read unless given), with the site's logo."""
    house = house or reference_data.house_provider()  # cached with the reference tables
    return {
        "@type": "Organization",
        "name": house.name,
        "url": house.url or site_url() + "/",
        "logo": {"@type": "ImageObject", "url": absolute(static(LOGO_RASTER))},
    }
