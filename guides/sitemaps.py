from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap as DjangoSitemap
from django.urls import reverse

from guides.models import Guide
from guides.pages import selectors, site, tutorial


class Sitemap(DjangoSitemap):
    """Every page in three languages, on the site's own address (``guides.pages.site``).

    x-default names the English page, as the pages' own ``hreflang="x-default"`` links do
    (Django's would name the unprefixed URL, which only redirects by the visitor's language).
    """

    i18n = True
    alternates = True
    x_default = True

    def get_domain(self, site_=None) -> str:
        configured = site.site_url()
        return urlsplit(configured).netloc if configured else super().get_domain(site_)

    def get_protocol(self, protocol=None) -> str:
        configured = site.site_url()
        return urlsplit(configured).scheme if configured else super().get_protocol(protocol)

    def get_urls(self, page=1, site=None, protocol=None) -> list[dict]:
        urls = super().get_urls(page=page, site=site, protocol=protocol)
        for url in urls:
            default = next(
                (a["location"] for a in url["alternates"] if a["lang_code"] == "en"), None
            )
            for alternate in url["alternates"]:
                if alternate["lang_code"] == "x-default" and default:
                    alternate["location"] = default
        return urls


class GuideSitemap(Sitemap):
    def items(self):
        return sorted(selectors.published_guides(), key=lambda guide: guide.slug)

    def lastmod(self, guide: Guide):
        return guide.updated_at


class TutorialSitemap(GuideSitemap):
    def items(self):
        return [guide for guide in super().items() if tutorial.has_tutorial(guide)]

    def location(self, guide: Guide) -> str:
        return reverse("guides:tutorial", kwargs={"slug": guide.slug})


class PageSitemap(Sitemap):
    def items(self) -> list[tuple[str, dict]]:
        comparisons = selectors.published_comparison_pairs()
        return [
            ("guides:index", {}),
            ("guides:gpus", {}),
            ("guides:vram", {}),
            ("guides:serving", {}),
            *(("guides:compare", {"first": a, "second": b}) for a, b in comparisons),
            *(("guides:legal", {"kind": kind}) for kind in selectors.legal_page_kinds()),
        ]

    def location(self, item: tuple[str, dict]) -> str:
        name, kwargs = item
        return reverse(name, kwargs=kwargs)


SITEMAPS = {"guides": GuideSitemap, "tutorials": TutorialSitemap, "pages": PageSitemap}
