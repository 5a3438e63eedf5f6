from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from guides import selectors
from guides.models import Guide


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
