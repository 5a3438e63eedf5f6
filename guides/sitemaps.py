from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from guides.models import Guide


class GuideSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def items(self):
        return Guide.objects.published().order_by("slug")

    def lastmod(self, guide: Guide):
        return guide.updated_at


class PageSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def items(self) -> list[tuple[str, dict]]:
        return [
            ("guides:index", {}),
            ("guides:gpus", {}),
            ("guides:vram", {}),
            ("guides:compare", {"first": "h100", "second": "a100-80gb"}),
        ]

    def location(self, item: tuple[str, dict]) -> str:
        name, kwargs = item
        return reverse(name, kwargs=kwargs)


SITEMAPS = {"guides": GuideSitemap, "pages": PageSitemap}
