"""Assemble what a guide page shows: load (fixed number of queries), compute, render prose.

Views call ``guide_page``; templates receive its dataclasses and only format and lay them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Max, Prefetch
from django.utils import timezone
from django.utils.safestring import SafeString

from guides import tokens
from guides.figures import PageFigures
from guides.models import (
    CostScenario,
    FitConfiguration,
    Guide,
    GuideSource,
    Recommendation,
    Section,
)
from guides.presentation import config_label
from pricing import calculations as calc
from pricing import selectors
from pricing.models import Fact, PriceCheck, Provider, Source

# --- the figures every page quotes ---------------------------------------------------


def page_figures(
    *, params_billion: Decimal, at: date | None = None, configurations=(), scenarios=()
) -> PageFigures:
    """Prices of every provider, every method's rules, blocks and facts, as of ``at``.

    Queries: providers 1, one per provider for prices, check dates 1, methods 3, blocks 1,
    facts 1; independent of how long the price history is.
    """
    at = at or timezone.localdate()
    providers = list(Provider.objects.all())
    house = next((p for p in providers if p.is_house), None)
    if house is None:
        raise Provider.DoesNotExist("no house provider is on file")
    listings = {
        p.slug: {g.slug: g for g in selectors.gpu_listings_for_provider(provider=p, at=at)}
        for p in providers
    }
    check_dates = dict(
        PriceCheck.objects.filter(checked_on__lte=at)
        .values("provider__slug")
        .annotate(latest=Max("checked_on"))
        .values_list("provider__slug", "latest")
    )
    figures = PageFigures(
        params_billion=params_billion,
        house=house.slug,
        house_name=house.name,
        methods={m.slug: m for m in selectors.method_listings()},
        listings=listings,
        check_dates=check_dates,
        blocks=selectors.hour_blocks(),
        facts={f.key: (f.value, f.kind) for f in Fact.objects.all()},
    )
    figures.configurations = [
        calc.Configuration(listings[house.slug][gpu_slug].offer, count)
        for gpu_slug, count in configurations
    ]
    figures.scenario_gpu_hours = [hours * count for _gpu, count, hours in scenarios]
    return figures


# --- the guide page ---------------------------------------------------------------


@dataclass(frozen=True)
class MethodColumn:
    slug: str
    name: str
    short_name: str
    estimate: calc.MemoryEstimate


@dataclass(frozen=True)
class Recommended:
    label: str
    usd_per_hour: Decimal | None


@dataclass(frozen=True)
class MethodSummaryRow:
    method: MethodColumn
    recommended: list[Recommended]


@dataclass(frozen=True)
class MemoryRuleRow:
    method: MethodColumn
    source: selectors.SourceRef
    rule: calc.MemoryRule
    memory_gb: Decimal


@dataclass(frozen=True)
class LabelledFitRow:
    label: str
    row: calc.FitRow


@dataclass(frozen=True)
class LabelledCostRow:
    method_name: str
    label: str
    row: calc.CostRow


@dataclass(frozen=True)
class ComparisonRow:
    label: str  # a key the template translates: memory, bf16, bandwidth, price
    first: Decimal | None
    second: Decimal | None

    @property
    def ratio(self) -> Decimal | None:
        if not (self.first and self.second):
            return None
        return calc.ratio(self.first, self.second)


@dataclass(frozen=True)
class Comparison:
    first: selectors.GpuListing
    second: selectors.GpuListing
    rows: list[ComparisonRow]


@dataclass(frozen=True)
class SectionView:
    heading: str
    anchor: str
    body: SafeString
    table: str
    caption: str
    closing: SafeString
    comparison: Comparison | None


@dataclass(frozen=True)
class FaqView:
    question: str
    answer: SafeString
    answer_plain: str


@dataclass(frozen=True)
class GuidePage:
    guide: Guide
    short_answer: SafeString
    meta_description: str
    checked_on: date | None
    house_name: str
    methods: list[MethodColumn]
    method_summary: list[MethodSummaryRow]
    memory_rules: list[MemoryRuleRow]
    fit_rows: list[LabelledFitRow]
    cost_rows: list[LabelledCostRow]
    sections: list[SectionView]
    faq: list[FaqView]
    sources: list[Source]


def published_guides() -> list[Guide]:
    return list(Guide.objects.published().select_related("language_model"))


def load_guide(slug: str, *, include_drafts: bool = False) -> Guide:
    """The guide with everything it lists, prefetched; raises Guide.DoesNotExist."""
    guides = Guide.objects.select_related("language_model").prefetch_related(
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
    if not include_drafts:
        guides = guides.published()
    return guides.get(slug=slug)


def compare_gpus(figures: PageFigures, first: str, second: str) -> Comparison:
    a, b = figures.listing(first), figures.listing(second)
    return Comparison(
        a,
        b,
        [
            ComparisonRow("memory", a.memory_gb, b.memory_gb),
            ComparisonRow("bf16", a.bf16_dense_tflops, b.bf16_dense_tflops),
            ComparisonRow("bandwidth", a.bandwidth_gb_s, b.bandwidth_gb_s),
            ComparisonRow("price", a.usd_per_gpu_hour, b.usd_per_gpu_hour),
        ],
    )


def guide_page(guide: Guide, *, locale: str, at: date | None = None) -> GuidePage:
    configurations = list(guide.configurations.all())
    scenarios = list(guide.cost_scenarios.all())
    figures = page_figures(
        params_billion=guide.language_model.params_billion,
        at=at,
        configurations=[(c.gpu.slug, c.count) for c in configurations],
        scenarios=[(s.gpu.slug, s.count, s.hours) for s in scenarios],
    )
    columns = [
        MethodColumn(m.slug, m.name, m.short_name, figures.estimate(m.slug))
        for m in figures.methods.values()
    ]
    house = figures.listings[figures.house]

    def render(text: str) -> SafeString:
        return tokens.render_prose(text, figures, locale)

    recommendations = list(guide.recommendations.all())
    method_summary = [
        MethodSummaryRow(
            column,
            [
                Recommended(
                    config_label(r.count, r.gpu.name),
                    calc.Configuration(house[r.gpu.slug].offer, r.count).usd_per_hour,
                )
                for r in recommendations
                if r.method.slug == column.slug
            ],
        )
        for column in columns
    ]
    memory_rules = [
        MemoryRuleRow(column, source, figure.rule, figure.memory_gb)
        for column in columns
        for figure, source in zip(
            column.estimate.figures, figures.methods[column.slug].sources, strict=True
        )
    ]
    fit = calc.fit_matrix(figures.configurations, [c.estimate for c in columns])
    fit_rows = [
        LabelledFitRow(config_label(r.configuration.count, r.configuration.gpu.name), r)
        for r in fit
    ]
    cost = calc.cost_table(
        [
            calc.CostScenario(
                s.method.slug, calc.Configuration(house[s.gpu.slug].offer, s.count), s.hours
            )
            for s in scenarios
        ],
        figures.blocks,
    )
    cost_rows = [
        LabelledCostRow(s.method.short_name, config_label(s.count, s.gpu.name), row)
        for s, row in zip(scenarios, cost, strict=True)
    ]
    sections = [
        SectionView(
            heading=s.heading,
            anchor=f"section-{s.position}",
            body=render(s.body),
            table=s.table,
            caption=s.table_caption,
            closing=render(s.closing),
            comparison=(
                compare_gpus(figures, s.compare_gpu.slug, s.compare_with_gpu.slug)
                if s.table == Section.Table.COMPARISON and s.compare_gpu and s.compare_with_gpu
                else None
            ),
        )
        for s in guide.sections.all()
    ]
    faq = [
        FaqView(e.question, render(e.answer), tokens.render_plain(e.answer, figures, locale))
        for e in guide.faq_entries.all()
    ]
    return GuidePage(
        guide=guide,
        short_answer=render(guide.short_answer),
        meta_description=tokens.render_plain(guide.meta_description, figures, locale),
        checked_on=figures.check_dates.get(figures.house),
        house_name=figures.house_name,
        methods=columns,
        method_summary=method_summary,
        memory_rules=memory_rules,
        fit_rows=fit_rows,
        cost_rows=cost_rows,
        sections=sections,
        faq=faq,
        sources=[gs.source for gs in guide.guide_sources.all()],
    )
