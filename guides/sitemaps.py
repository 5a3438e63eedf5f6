from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from guides.models import Guide, Section


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
        # Comparison pages are listed where a published guide links to them.
        comparisons = (
            Section.objects.filter(
                guide__status=Guide.Status.PUBLISHED, table=Section.Table.COMPARISON
            )
            .exclude(compare_gpu=None)
            .exclude(compare_with_gpu=None)
            .values_list("compare_gpu__slug", "compare_with_gpu__slug")
            .distinct()
            .order_by("compare_gpu__slug", "compare_with_gpu__slug")
        )
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
