from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap as DjangoSitemap
from django.urls import reverse

from guides import selectors
from guides.models import Guide


class Sitemap(DjangoSitemap):
    """URLs on SITE_URL, whatever Host the request named."""

    def get_domain(self, site=None) -> str:
        return urlsplit(settings.SITE_URL).netloc

    def get_protocol(self, protocol=None) -> str:
        return urlsplit(settings.SITE_URL).scheme


class GuideSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def items(self):
        return sorted(selectors.published_guides(), key=lambda guide: guide.slug)

    def lastmod(self, guide: Guide):
        return guide.updated_at


class PageSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def items(self) -> list[tuple[str, dict]]:
        # Comparison pages are listed where a published guide links to them.
        comparisons = selectors.published_comparison_pairs()
        return [
            ("guides:index", {}),
            ("guides:gpus", {}),
            ("guides:vram", {}),
            *(("guides:compare", {"first": a, "second": b}) for a, b in comparisons),
        ]

    def location(self, item: tuple[str, dict]) -> str:
        name, kwargs = item
        return reverse(name, kwargs=kwargs)


SITEMAPS = {"guides": GuideSitemap, "pages": PageSitemap}
