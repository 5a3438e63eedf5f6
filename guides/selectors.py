"""Every read of guide content: keyword-only, typed, a fixed number of queries each."""

from __future__ import annotations

from django.db.models import Prefetch

from gpuguide import cache_tags
from guides.models import (
    CostScenario,
    FitConfiguration,
    Guide,
    GuideSource,
    Recommendation,
    Section,
)
from guides.tokens.registry import KnownSlugs
from pricing.models import Fact, Gpu, Method, Provider


def published_guides() -> list[Guide]:
    """Smallest model first: the order a reader scans sizes in."""
    cache_tags.record(cache_tags.GUIDES)
    return list(
        Guide.objects.published()
        .select_related("language_model")
        .order_by("language_model__params_billion", "language_model__name")
    )


def guide_for_page(*, slug: str, include_drafts: bool = False) -> Guide:
    """The guide with everything its page lists, prefetched; raises Guide.DoesNotExist."""
    guides = _guides_for_pages()
    if not include_drafts:
        guides = guides.published()
    guide = guides.get(slug=slug)
    cache_tags.record(cache_tags.guide(guide.pk))
    return guide


def _guides_for_pages():
    return Guide.objects.select_related("language_model").prefetch_related(
        Prefetch(
            "sections", queryset=Section.objects.select_related("compare_gpu", "compare_with_gpu")
        ),
        "faq_entries",
        Prefetch("guide_sources", queryset=GuideSource.objects.select_related("source")),
        Prefetch("configurations", queryset=FitConfiguration.objects.select_related("gpu")),
        Prefetch(
            "recommendations", queryset=Recommendation.objects.select_related("gpu", "method")
        ),
        Prefetch("cost_scenarios", queryset=CostScenario.objects.select_related("gpu", "method")),
    )


def published_guides_for_checking() -> list[Guide]:
    """Every published guide with everything its page reads, prefetched (see guide_for_page)."""
    return list(_guides_for_pages().published())


def guides_with_translation_stamps() -> list[Guide]:
    return list(Guide.objects.prefetch_related("translation_stamps"))


def published_comparison_pairs() -> list[tuple[str, str]]:
    """(GPU slug, GPU slug) of every comparison table in a published guide."""
    return list(
        Section.objects.filter(guide__status=Guide.Status.PUBLISHED, table=Section.Table.COMPARISON)
        .exclude(compare_gpu=None)
        .exclude(compare_with_gpu=None)
        .values_list("compare_gpu__slug", "compare_with_gpu__slug")
        .distinct()
        .order_by("compare_gpu__slug", "compare_with_gpu__slug")
    )


def token_slugs() -> KnownSlugs:
    """What token arguments may name, in four queries: loaded once per admin form."""
    gpus = list(Gpu.objects.values_list("slug", "name"))
    return KnownSlugs(
        methods=frozenset(Method.objects.values_list("slug", flat=True)),
        gpus=frozenset(slug for slug, _name in gpus),
        gpu_names=frozenset(name for _slug, name in gpus),
        providers=frozenset(Provider.objects.values_list("slug", flat=True)),
        facts=frozenset(Fact.objects.values_list("key", flat=True)),
    )
