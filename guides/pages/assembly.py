"""What each public page shows, read through the selectors, computed (``PageFigures``,
``pricing.domain.calculations``) and with its prose rendered: templates only lay it out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from functools import cached_property

from django.conf import settings
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from gpuguide.lib import renting
from guides.content.page_figures import (
    MissingFigure,
    NothingFits,
    PageFigures,
    PriceDates,
    price_dates,
)
from guides.content.phrases import phrased
from guides.content.presentation import (
    beyond_one_host,
    config_label,
    estimated,
    number,
    rent_label,
)
from guides.content.tokens.render import Block, render_plain, render_prose
from guides.models import CostScenario, Guide, Section
from guides.pages import reference_data, structured_data
from guides.pages import selectors as guide_selectors
from guides.pages.charts import (
    ChartAxes,
    ChartFrame,
    DrawnSeries,
    Series,
    chart_axes,
    chart_frame,
    chart_lines,
)
from pricing import planning, selectors, serving_plans
from pricing.domain import calculations as calc
from pricing.domain import footprint as fp
from pricing.domain import throughput
from pricing.domain.training_memory import Architecture, Method, TrainingSetup
from pricing.models import Provider

# --- the figures every guide quotes -----------------------------------------------------


def page_figures(
    *,
    params_billion: Decimal,
    at: date | None = None,
    configurations: Iterable[tuple[str, int]] = (),
    architecture: Architecture | None = None,
    training: TrainingSetup | None = None,
    ours_only: bool = False,
) -> PageFigures:
    """Prices of every provider (``ours_only``: ours alone, so that a competitor's price check
    leaves the page current), every method's rules, blocks and facts, as of ``at``, each read
    cached (``reference_data``). ``configurations``: the fit table's (GPU slug, count)."""
    house = reference_data.house_provider()
    prices = reference_data.latest_prices(at=at, ours_only=ours_only)
    figures = PageFigures(
        params_billion=params_billion,
        house=house.slug,
        house_name=house.name,
        methods={m.slug: m for m in reference_data.method_listings()},
        listings=prices.listings,
        check_dates=prices.check_dates,
        blocks=reference_data.hour_blocks(),
        facts=reference_data.facts(),
        architecture=architecture,
        training=training,
    )
    figures.configurations = [figures.configuration(gpu, count) for gpu, count in configurations]
    return figures


# --- comparing two GPUs -------------------------------------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    heading: str | Promise
    kind: str  # how to format the values: gb, number or usd
    first: Decimal | None
    second: Decimal | None
    ratio: Decimal | None  # first / second, where both are known


@dataclass(frozen=True)
class ModelFit:
    """How many of each GPU (fewest on one host) hold a published guide's run of a method."""

    model: str
    method: str
    first: int | None  # None: no count on one host holds it
    second: int | None


@dataclass(frozen=True)
class Comparison:
    first: selectors.GpuListing
    second: selectors.GpuListing
    rows: list[ComparisonRow]
    fits: list[ModelFit] = field(default_factory=list)  # the comparison page's, by guide

    @property
    def checked(self) -> PriceDates | None:
        """The check days of the two prices it quotes."""
        return price_dates([self.first.checked_on, self.second.checked_on])


def comparison(a: selectors.GpuListing, b: selectors.GpuListing) -> Comparison:
    """Specs and our prices of two GPUs side by side, with the ratio of each."""
    rows = [
        (_("Memory"), "gb", a.memory_gb, b.memory_gb),
        (_("Peak BF16 tensor, dense (TFLOPS)"), "number", a.bf16_dense_tflops, b.bf16_dense_tflops),
        (_("Memory bandwidth (GB/s)"), "number", a.bandwidth_gb_s, b.bandwidth_gb_s),
        (_("Our price per GPU-hour"), "usd", a.usd_per_gpu_hour, b.usd_per_gpu_hour),
    ]
    return Comparison(
        a,
        b,
        [
            ComparisonRow(heading, kind, x, y, calc.ratio(x, y) if x and y else None)
            for heading, kind, x, y in rows
        ],
    )


# The price per compute a buyer weighs: our price per hour for this many dense BF16 TFLOPS.
PER_TFLOPS = Decimal(100)


def gpu_comparison(*, first: str, second: str, at: date | None = None) -> Comparison:
    """The comparison page of two GPUs at our prices: their specs, prices and price per
    compute, and for each published guide's run of each method the fewest of each GPU that
    hold it (the guides' own estimate). Raises MissingFigure for an unknown GPU."""
    base = page_figures(params_billion=Decimal(1), at=at, ours_only=True)
    a, b = base.listing(first), base.listing(second)
    shown = comparison(a, b)
    per_compute = [
        None
        if g.usd_per_gpu_hour is None
        else g.usd_per_gpu_hour * PER_TFLOPS / g.bf16_dense_tflops
        for g in (a, b)
    ]
    price_row = ComparisonRow(
        gettext("Our price per hour for %(tflops)s TFLOPS (BF16, dense)")
        % {"tflops": number(PER_TFLOPS)},
        "usd",
        *(None if v is None else v.quantize(calc.CENT, ROUND_HALF_UP) for v in per_compute),
        calc.ratio(*per_compute) if all(per_compute) else None,
    )
    return replace(shown, rows=[*shown.rows, price_row], fits=_model_fits(base, first, second))


def _model_fits(base: PageFigures, first: str, second: str) -> list[ModelFit]:
    fits = []
    # The fine-tuning guides' runs (a serving guide of the same model states none).
    for guide in (g for g in guide_selectors.published_guides() if not g.serves):
        figures = replace(
            base,
            params_billion=guide.language_model.params_billion,
            architecture=guide.language_model.architecture,
            training=guide.training_setup(Method.QLORA),
        )
        for method in figures.methods.values():
            try:
                counts = [_fewest(figures, method.slug, gpu) for gpu in (first, second)]
            except MissingFigure:  # a method the estimate does not know
                continue
            fits.append(ModelFit(guide.language_model.name, method.name, *counts))
    return fits


def _fewest(figures: PageFigures, method: str, gpu: str) -> int | None:
    for count in calc.HOST_GPU_COUNTS:
        if figures.plan(method, figures.configuration(gpu, count)).fits_by_estimate:
            return count
    return None


# --- the guide page -----------------------------------------------------------------------

# Each table's include, and how its section folds on a phone (docs/public-face.md): the
# methods table is the answer and never folds; the tables the recommendation is derived from
# are reference, and fold with the section's text around them; a comparison folds alone.
FOLD_ANSWER, FOLD_SECTION, FOLD_TABLE = "answer", "section", "table"
SECTION_TABLES = {
    Section.Table.METHODS: ("method_table", FOLD_ANSWER),
    Section.Table.MEMORY: ("memory_table", FOLD_SECTION),
    Section.Table.ESTIMATE: ("estimate_table", FOLD_SECTION),
    Section.Table.FIT: ("fit_table", FOLD_SECTION),
    Section.Table.COST: ("cost_table", FOLD_SECTION),
    Section.Table.COMPARISON: ("comparison_table", FOLD_TABLE),
    Section.Table.SERVING_PRECISIONS: ("serving_precisions_table", FOLD_ANSWER),
    Section.Table.SERVING_MEMORY: ("serving_memory_table", FOLD_SECTION),
    Section.Table.SERVING_FIT: ("serving_fit_table", FOLD_SECTION),
    Section.Table.SERVING_COST: ("serving_cost_table", FOLD_SECTION),
}


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
    config: str  # "a100-80gb:1", the page's mark of what it recommends (data-config)
    run: calc.RunPlan | None  # the training budget on it (None: an override it outgrew)
    rent_url: str  # the house's page that rents it (RENT_URL_TEMPLATE)
    rent_label: str  # "Rent 1× B200": the link says what it rents


@dataclass(frozen=True)
class MethodSummaryRow:
    method: MethodColumn
    recommended: list[Recommended]  # empty where nothing on one host holds the method
    not_offered: str  # what the row says then
    override: bool  # the editor chose the recommendations (the row says so)
    # The estimated peak per GPU on the first recommendation (on one GPU where none fits)
    # and that configuration's label ("" for one GPU).
    peak_gb_per_gpu: Decimal
    peak_on: str
    close_call: CloseCall | None = None  # None where the cost decided


@dataclass(frozen=True)
class CloseCall:
    """Where the model cannot tell the cheapest runs apart (``calc.recommendation``): how many
    cost about the same, the rule that chose among them, and the up-front block it chose."""

    runs: int  # the cheapest and those within the error of their ratio to it
    decided_by: str  # calc.BY_UPFRONT, BY_GPUS, BY_TIME or BY_COST
    block_hours: int | None
    upfront_usd: Decimal | None
    cheapest: str  # the cheapest run's configuration, as the tables label it


def _close_call(figures: PageFigures, found: calc.Recommendation | None) -> CloseCall | None:
    if found is None:
        return None
    cheapest = found.contenders[0].configuration
    return CloseCall(
        runs=len(found.contenders),
        decided_by=found.decided_by,
        block_hours=calc.blocks_covering(found.chosen.gpu_hours, figures.blocks),
        upfront_usd=calc.upfront_usd(found.chosen, figures.blocks),
        cheapest=config_label(cheapest.count, cheapest.gpu.name),
    )


@dataclass(frozen=True)
class FitCell:
    """One mark of the fit table: the estimate's, which decides."""

    label: str  # the column's heading, repeated for narrow screens: "LoRA"
    method: str
    plan: calc.PlannedFit

    @property
    def fits(self) -> bool:
        return self.plan.fits_by_estimate

    @property
    def rule_disagrees(self) -> bool:
        """The cited rule of thumb would mark it the other way (the page says so)."""
        return self.plan.fits_by_rule != self.plan.fits_by_estimate


@dataclass(frozen=True)
class LabelledFitRow:
    configuration: calc.Configuration
    cells: list[FitCell]  # the row's cells with their column's heading (formatted once)


@dataclass(frozen=True)
class LabelledRunRow:
    """A row of the run-cost table: the training budget on a configuration that holds it."""

    method: MethodColumn
    run: calc.RunPlan
    cost: calc.CostRow  # the same hours as a cost row: the GPU-hour block that covers them


@dataclass(frozen=True)
class RunNeeds:
    """What a method's run on a configuration needs besides the GPUs, as pages show it (to a
    tenth of a GB): the guide's table and the tutorial say it from here
    (``PageFigures.footprint``)."""

    method: str
    method_name: str
    label: str
    download_gb: Decimal
    download_minutes: Decimal  # at least; billed like the run, never inside its cost
    disk_gb: Decimal
    checkpoint_gb: Decimal
    checkpoints_kept: int
    result_gb: Decimal
    host_gb: Decimal  # 0: the model loads straight onto the GPU
    download_gb_per_s: Decimal = fp.DOWNLOAD_GB_PER_S  # the download time's assumed ceiling


def run_needs(
    figures: PageFigures, method: str, name: str, configuration: calc.Configuration
) -> RunNeeds:
    found = figures.footprint(method, configuration)
    return RunNeeds(
        method,
        name,
        config_label(configuration.count, configuration.gpu.name),
        estimated(found.download_gb),
        found.download_minutes,
        estimated(found.disk_gb),
        estimated(found.checkpoint_gb),
        found.checkpoints_kept,
        estimated(found.result_gb),
        estimated(found.host_gb),
    )


def _needs_rows(figures: PageFigures, columns: list[MethodColumn]) -> list[RunNeeds]:
    """Each method's first recommendation and what its run needs besides the GPUs."""
    rows = []
    for column in columns:
        try:
            configuration = figures.recommended(column.slug)[0]
        except MissingFigure:  # NothingFits, or a method the estimate does not know
            continue
        rows.append(run_needs(figures, column.slug, column.short_name, configuration))
    return rows


@dataclass(frozen=True)
class SectionView:
    heading: SafeString  # HTML: Japanese phrases joined by <wbr>; never for an attribute
    anchor: str
    body: list[Block]
    table_template: str | None  # the include that lays out its computed table, if any
    fold: str  # on a phone: FOLD_ANSWER (never), FOLD_SECTION (all but the heading), FOLD_TABLE
    caption: str
    closing: list[Block]
    comparison: Comparison | None


@dataclass(frozen=True)
class FaqView:
    question: SafeString  # HTML, as SectionView.heading; the JSON-LD has the plain question
    answer: list[Block]


@dataclass(frozen=True)
class GuidePageBase:
    """What a guide's page shows of either kind: its prose, FAQ and sources."""

    guide: Guide
    short_answer: list[Block]
    meta_description: str
    faq_json_ld: dict  # schema.org FAQPage
    checked: PriceDates | None  # every price the page quotes, in tables and prose
    sections: list[SectionView]
    faq: list[FaqView]
    fit_checked: PriceDates | None  # the prices in the fit table
    figures: PageFigures = field(repr=False)

    @cached_property
    def sources(self) -> list:
        return [gs.source for gs in self.guide.guide_sources.all()]


def guide_prose(guide: Guide, figures: PageFigures) -> dict:
    """The guide's prose, rendered (noting the check day of each price it quotes), as
    ``GuidePageBase``'s fields."""
    faq = [(render_plain(e.question, figures), e.answer) for e in guide.faq_entries.all()]
    return {
        "short_answer": render_prose(guide.short_answer, figures),
        "meta_description": render_plain(guide.meta_description, figures),
        "faq_json_ld": structured_data.faq_page([(q, render_plain(a, figures)) for q, a in faq]),
        "sections": [section_view(s, figures) for s in guide.sections.all()],
        "faq": [FaqView(phrased(q), render_prose(a, figures)) for q, a in faq],
    }


@dataclass(frozen=True)
class GuidePage(GuidePageBase):
    house_name: str
    methods: list[MethodColumn]
    method_summary: list[MethodSummaryRow]
    training: TrainingSetup  # the guide's stated run (its method is a placeholder)
    fit_rows: list[LabelledFitRow]
    cost_rows: list[tuple[CostScenario, calc.CostRow]]  # the editor's illustration: assumed hours
    run_rows: list[LabelledRunRow]  # the training budget, from the throughput model
    needs_rows: list[RunNeeds]  # what the recommended runs need besides the GPUs
    cost_checked: PriceDates | None  # the prices in the cost table

    @property
    def other_stacks(self) -> dict[str, Decimal]:
        """What other software gains over the stack our speeds are of (TRL + PEFT in bf16), to
        the tenth, by the public runs (``throughput.STACK_FACTORS``)."""
        factors = dict(throughput.STACK_FACTORS)
        return {
            "torchtune": factors["torchtune-compile"].quantize(calc.TENTH, ROUND_HALF_UP),
            "nemo": factors["nemo-fp8"].quantize(calc.TENTH, ROUND_HALF_UP),
        }

    @property
    def rule_disagreements(self) -> bool:
        """Whether the fit table has a cell where the rule of thumb and the estimate differ."""
        return any(cell.rule_disagrees for row in self.fit_rows for cell in row.cells)

    @cached_property
    def memory_rules(self) -> list[tuple[MethodColumn, calc.RuleFigure, selectors.SourceRef]]:
        return [
            (column, figure, source)
            for column in self.methods
            for figure, source in zip(
                column.estimate.figures, self.figures.methods[column.slug].sources, strict=True
            )
        ]

    @cached_property
    def estimates(self) -> list[tuple[MethodColumn, Decimal | None]]:
        """Each method's estimated peak on one GPU at the guide's run (None: not one of its
        recipes), beside its rule."""
        return [(column, _estimated_peak(self.figures, column.slug)) for column in self.methods]


def guide_figures(
    guide: Guide,
    *,
    at: date | None = None,
    catalogue_figures: PageFigures | None = None,
    throughputs: list[selectors.ThroughputRun] | None = None,
) -> PageFigures:
    """Everything the guide's prose and tables quote, with prices as of ``at``, for a guide
    from ``selectors.guide_for_page``. Checking many guides, pass what they share, read once:
    ``catalogue_figures`` (``page_figures``) and ``throughputs`` (``selectors.throughput_runs``).
    """
    if catalogue_figures is None:
        catalogue_figures = page_figures(params_billion=guide.language_model.params_billion, at=at)
    figures = _for_guide(catalogue_figures, guide)
    run = {
        "language_model": guide.language_model.slug,
        "seq_len": guide.seq_len,
        "batch_size": guide.micro_batch_size,
        "gradient_checkpointing": guide.gradient_checkpointing,
    }
    if throughputs is None:
        figures.throughputs = reference_data.throughputs_for_run(**run)
    else:
        figures.throughputs = {t.method: t.listing for t in throughputs if t.run == run}
    figures.model_name = guide.language_model.name
    figures.model_repository = guide.language_model.repository
    figures.guide_slug = guide.slug
    figures.licence_notes = {
        code: getattr(guide.language_model, f"licence_note_{code}") or ""
        for code, _name in settings.LANGUAGES
    }
    # The cost table's runs, in the guide's order: for [[run_cost METHOD]] and the table.
    figures.scenarios = [
        calc.CostScenario(s.method.slug, figures.configuration(s.gpu.slug, s.count), s.hours)
        for s in guide.cost_scenarios.all()
    ]
    figures.scenario_gpu_hours = [s.gpu_hours for s in figures.scenarios]  # [[scenario_blocks]]
    if guide.serves:
        figures.serving = serving_guide_plans(guide, figures, at=at)
    return figures


def serving_guide_plans(
    guide: Guide,
    figures: PageFigures,
    *,
    at: date | None,
    precisions: tuple[str, ...] = serving_plans.GUIDE_PRECISIONS,
) -> dict[str, serving_plans.ServingPlan]:
    """A serving guide's plans at its load, over the prices ``figures`` read (so that an edit
    held in memory, ``editorial.shared_changes``, moves them too); none for a model the
    planner refuses (its figures show a dash, and the guide checks say so)."""
    catalogue = planning.GpuCatalogue(
        provider=figures.house,
        as_of=at or timezone.localdate(),
        gpus=list(figures.listings[figures.house].values()),
    )
    try:
        return serving_plans.guide_plans(
            language_model=guide.language_model,
            context=guide.serving_context,
            prompt_tokens=guide.prompt_tokens,
            output_tokens=guide.output_tokens,
            tpot_target_ms=guide.tpot_target_ms,
            catalogue=catalogue,
            blocks=tuple(figures.blocks),
            precisions=precisions,
        )
    except planning.PlanningError:
        return {}


def _for_guide(base: PageFigures, guide: Guide) -> PageFigures:
    """``base`` (the prices, rules and blocks every guide shares) for ``guide``'s model, run,
    budget, fit table and the editor's recommendations, with nothing quoted yet."""
    figures = replace(
        base,
        params_billion=guide.language_model.params_billion,
        architecture=guide.language_model.architecture,
        training=guide.training_setup(Method.QLORA),
        quoted_on=set(),
        tokens_per_epoch=guide.training_tokens,
        epochs=guide.epochs,
    )
    figures.configurations = [
        figures.configuration(c.gpu.slug, c.count) for c in guide.configurations.all()
    ]
    overrides: dict[str, list[calc.Configuration]] = {}  # the editor's, by method
    for r in guide.recommendations.all():
        overrides.setdefault(r.method.slug, []).append(figures.configuration(r.gpu.slug, r.count))
    figures.recommendations = overrides
    return figures


def guide_page(guide: Guide, *, at: date | None = None) -> GuidePage:
    """Everything the guide's page shows, for the active language, with prices as of ``at``."""
    figures = guide_figures(guide, at=at)
    scenarios = list(guide.cost_scenarios.all())
    columns = [
        MethodColumn(m.slug, m.name, m.short_name, figures.estimate(m.slug))
        for m in figures.methods.values()
    ]
    table = figures.table_configurations()
    # each method's plans for the whole table at once: one planning pass per method
    plans = [figures.plans(column.slug, table) for column in columns]
    fit_rows = [
        LabelledFitRow(
            configuration,
            [
                FitCell(column.short_name, column.slug, planned[row])
                for column, planned in zip(columns, plans, strict=True)
            ],
        )
        for row, configuration in enumerate(table)
    ]
    cost = calc.cost_table(figures.scenarios, figures.blocks)
    run_rows = _run_rows(figures, columns)
    prose = guide_prose(guide, figures)  # first: it notes the prices it quotes
    method_summary = [_method_summary_row(figures, column) for column in columns]
    return GuidePage(
        guide=guide,
        **prose,
        checked=price_dates(figures.quoted_on),
        fit_checked=price_dates(
            figures.listing(r.configuration.gpu.slug).checked_on for r in fit_rows
        ),
        cost_checked=price_dates(figures.listing(s.gpu.slug).checked_on for s in scenarios),
        house_name=figures.house_name,
        methods=columns,
        method_summary=method_summary,
        training=figures.training,
        fit_rows=fit_rows,
        cost_rows=list(zip(scenarios, cost, strict=True)),
        run_rows=run_rows,
        needs_rows=_needs_rows(figures, columns),
        figures=figures,
    )


def _recommended_or_none(figures: PageFigures, method: str) -> list[calc.PlannedFit]:
    """The recommendation and its alternative; none where nothing on one host holds the run."""
    try:
        return figures.recommended_plans(method)
    except NothingFits:
        return []


def _run_rows(figures: PageFigures, columns: list[MethodColumn]) -> list[LabelledRunRow]:
    """The training budget on each configuration of the fit table that holds it, method by
    method, with the GPU-hour block that covers it."""
    rows = []
    for column in columns:
        try:
            runs = figures.runs(column.slug, figures.table_configurations())
        except MissingFigure:
            continue  # a method the estimate does not know
        costs = calc.cost_table(
            [calc.CostScenario(column.slug, r.configuration, r.hours) for r in runs],
            figures.blocks,
        )
        rows += [LabelledRunRow(column, r, cost) for r, cost in zip(runs, costs, strict=True)]
    return rows


def _method_summary_row(figures: PageFigures, column: MethodColumn) -> MethodSummaryRow:
    """The method table's row: what we recommend (nothing where nothing on one host holds
    the method) and the estimated peak per GPU on the first recommendation."""
    advice = method_advice(figures, column.slug)
    plans = advice.recommended
    recommended = [
        Recommended(
            config_label(p.configuration.count, p.configuration.gpu.name),
            p.configuration.usd_per_hour,
            f"{p.configuration.gpu.slug}:{p.configuration.count}",
            advice.runs.get(p.configuration),
            renting.rent_url(p.configuration.gpu.slug, p.configuration.count),
            rent_label(p.configuration.count, p.configuration.gpu.name),
        )
        for p in plans
    ]
    if plans:
        first = plans[0]
        peak_on = config_label(first.configuration.count, first.configuration.gpu.name)
        peak = first.peak_gb_per_gpu
    else:
        peak_on, peak = "", figures.peaks(column.slug)[1].peak_gb
    return MethodSummaryRow(
        column,
        recommended,
        beyond_one_host(calc.HOST_GPU_COUNTS[-1]),
        advice.override,
        estimated(peak),
        peak_on,
        _close_call(figures, advice.close_call),
    )


def _estimated_peak(figures: PageFigures, method: str) -> Decimal | None:
    try:
        return estimated(figures.peak(method).peak_gb)
    except MissingFigure:
        return None


def section_view(section: Section, figures: PageFigures) -> SectionView:
    include, fold = SECTION_TABLES.get(section.table, (None, FOLD_TABLE))
    table_template = f"guides/includes/{include}.html" if include else None
    compared = None
    if section.table == Section.Table.COMPARISON:
        if section.compare_gpu and section.compare_with_gpu:
            compared = comparison(
                figures.listing(section.compare_gpu.slug),
                figures.listing(section.compare_with_gpu.slug),
            )
        else:
            table_template = None  # nothing to compare yet
    return SectionView(
        heading=phrased(render_plain(section.heading, figures)),
        anchor=f"section-{section.position}",
        body=render_prose(section.body, figures),
        table_template=table_template,
        fold=fold,
        caption=render_plain(section.table_caption, figures),
        closing=render_prose(section.closing, figures),
        comparison=compared,
    )


# --- the GPU price list and the VRAM table ----------------------------------------------


@dataclass(frozen=True)
class Offer:
    """One provider's latest price for a GPU, with the day it was checked and where."""

    provider: str
    house: bool
    listing: selectors.GpuListing
    source_url: str  # the page the price was read from ('' where none was recorded)


@dataclass(frozen=True)
class ChartLine:
    """One provider's line on a GPU's chart, summed up: the page's legend, the chart's
    description and a row of the history's summary."""

    provider: str
    house: bool
    index: int  # its line style: 0 for ours, then 1, 2, … for the others
    summary: selectors.PriceSummary

    @property
    def single(self) -> bool:
        """Checked on one day so far: drawn as a dot, no line."""
        return self.summary.checked_once


@dataclass(frozen=True)
class PriceChart:
    """A GPU's price history over the charts' year: the axes and each provider's line in
    words and figures; the lines themselves are the image at ``guides:gpu_lines``."""

    axes: ChartAxes
    lines: list[ChartLine]

    @property
    def drawn(self) -> bool:
        """Some provider's price held over days: a chart. Where each was checked once, the
        prices are said in words instead (a chart of lone dots shows nothing a line could)."""
        return any(not line.single for line in self.lines)


@dataclass(frozen=True)
class GpuPriceRow:
    gpu: selectors.GpuListing  # at our prices
    chart: PriceChart | None
    block_prices: list[tuple[int, Decimal | None]]  # (hours, price of the block)
    offers: list[Offer]  # ours first, then each other provider that prices it


@dataclass(frozen=True)
class GpuPriceList:
    house: Provider
    blocks: list[int]
    checked: PriceDates | None  # every price the page quotes, ours and the others'
    rows: list[GpuPriceRow]

    @property
    def compared(self) -> list[GpuPriceRow]:
        """The GPUs that some other provider prices too."""
        return [row for row in self.rows if len(row.offers) > 1]

    @property
    def charted(self) -> list[GpuPriceRow]:
        """The GPUs with a price in the charts' year."""
        return [row for row in self.rows if row.chart]


def gpu_price_list(*, at: date | None = None) -> GpuPriceList:
    """Every GPU we rent with specs, price, block prices, the other providers' prices and a
    year of everyone's price history summed up (the chart's lines are an image of their own),
    in three queries whatever the history's length. Raises Provider.DoesNotExist before setup.
    """
    blocks = reference_data.hour_blocks()
    end = at or timezone.localdate()
    providers = reference_data.providers()  # ours first
    house = reference_data.house_provider()
    listings = reference_data.latest_prices(at=at).listings
    summaries = reference_data.price_summaries(at=at)
    ours = [g for g in listings[house.slug].values() if g.rentable]
    priced = [
        (p, listings[p.slug][g.slug])
        for g in ours
        for p in providers
        if g.slug in listings[p.slug] and listings[p.slug][g.slug].usd_per_gpu_hour is not None
    ]
    sources = selectors.price_check_sources(
        checks=[(p.slug, listing.checked_on) for p, listing in priced]
    )
    offers: dict[str, list[Offer]] = {}
    for p, listing in priced:
        offers.setdefault(listing.slug, []).append(
            Offer(p.name, p.is_house, listing, sources.get((p.slug, listing.checked_on)) or p.url)
        )
    return GpuPriceList(
        house=house,
        blocks=blocks,
        checked=price_dates(listing.checked_on for _p, listing in priced),
        rows=[
            GpuPriceRow(
                gpu,
                _price_chart(
                    [
                        ChartLine(p.name, p.is_house, index, summaries[p.slug][gpu.pk])
                        for index, p in enumerate(providers)
                        if gpu.pk in summaries[p.slug]
                    ],
                    end=end,
                ),
                list(zip(blocks, calc.block_prices(gpu.usd_per_gpu_hour, blocks), strict=True)),
                offers.get(gpu.slug, []),
            )
            for gpu in ours
        ],
    )


def _price_chart(lines: list[ChartLine], *, end: date) -> PriceChart | None:
    """The chart of ``lines`` up to ``end``; None where no provider priced the GPU. Date
    labels may fall on each line's first day and on its latest changes."""
    if not lines:
        return None
    summaries = [line.summary for line in lines]
    frame = chart_frame(
        days=[day for s in summaries for day in (s.first.first, s.latest.first)],
        prices=[price for s in summaries for price in (s.low, s.high)],
        end=end,
    )
    labelled = [s.first.first for s in summaries] + [r.first for s in summaries for r in s.recent]
    return PriceChart(chart_axes(frame, days=labelled), lines)


class NoSuchGpu(Exception):
    """A GPU we do not rent, or one no provider priced in the charts' year."""


@dataclass(frozen=True)
class PriceLines:
    """The lines of a GPU's chart, with a point at every change in the charts' year."""

    frame: ChartFrame
    lines: list[DrawnSeries]


def gpu_price_lines(*, gpu: str, at: date | None = None) -> PriceLines:
    """The lines of ``gpu``'s chart on the GPU page as of ``at``, in the page's frame: one
    query (its runs at every provider over the year). Raises NoSuchGpu."""
    _listing, by_provider = _gpu_runs(gpu, at)
    every = [run for _provider, runs in by_provider for run in runs]
    if not every:
        raise NoSuchGpu(gpu)
    frame = chart_frame(
        days=[run.first for run in every],
        prices=[run.usd_per_gpu_hour for run in every],
        end=at or timezone.localdate(),
    )
    series = [
        Series(
            [(run.first, run.usd_per_gpu_hour) for run in runs],
            checked_once=len(runs) == 1 and runs[0].first == runs[0].last,
        )
        for _provider, runs in by_provider
    ]
    return PriceLines(frame, chart_lines(frame, series))


def price_history_rows(
    *, gpu: str, at: date | None = None
) -> list[tuple[str, str, selectors.PriceRun]]:
    """(GPU name, provider name, run) of every price of ``gpu`` at every provider over the
    charts' year up to ``at``, oldest first (then ours first): one query. Raises NoSuchGpu."""
    listing, by_provider = _gpu_runs(gpu, at)
    rows = [(listing.name, provider.name, run) for provider, runs in by_provider for run in runs]
    rows.sort(key=lambda row: row[2].first)  # stable: ours first on a day
    return rows


def _gpu_runs(
    slug: str, at: date | None
) -> tuple[selectors.GpuListing, list[tuple[Provider, list[selectors.PriceRun]]]]:
    """A GPU we rent and its runs at each provider (ours first) over the charts' year."""
    listing = (
        reference_data.latest_prices(at=at).listings[reference_data.house_provider().slug].get(slug)
    )
    if listing is None or not listing.rentable:
        raise NoSuchGpu(slug)
    providers = reference_data.providers()
    runs = selectors.price_runs(providers=providers, at=at, gpu=listing.pk)
    return listing, [(p, runs[p.slug].get(listing.pk, [])) for p in providers]


@dataclass(frozen=True)
class VramRow:
    model_name: str | None  # None for the visitor's own size
    params_billion: Decimal
    estimates: list[calc.MemoryEstimate]


@dataclass(frozen=True)
class VramTable:
    methods: list[selectors.MethodListing]
    rows: list[VramRow]


def vram_table(
    *,
    asked_params_billion: Decimal | None,
    methods: list[selectors.MethodListing],
    language_models: list,
) -> VramTable:
    """Every method's estimate for each model on file, the visitor's size first if given."""
    sizes: list[tuple[str | None, Decimal]] = [(m.name, m.params_billion) for m in language_models]
    if asked_params_billion is not None:
        sizes.insert(0, (None, asked_params_billion))
    return VramTable(
        methods,
        [
            VramRow(name, params, [calc.estimate_memory(m.rule, params) for m in methods])
            for name, params in sizes
        ],
    )


# --- the home page ------------------------------------------------------------------------


@dataclass(frozen=True)
class CheapestFit:
    """The cheapest run a guide recommends, over its methods: what its card names."""

    method_name: str
    run: calc.RunPlan


@dataclass(frozen=True)
class GuideCard:
    guide: Guide
    method_names: list[str]
    cheapest: CheapestFit | None  # None where no priced configuration holds any method
    training_tokens: int  # the guide's budget: tokens per epoch x epochs
    checked: PriceDates | None  # the check days of the prices in its fit table


@dataclass(frozen=True)
class ServingCard:
    """A serving guide on the home page: what it recommends with FP8 weights, as it says."""

    guide: Guide
    choice: serving_plans.ServingRecommendation | None  # None where nothing serves it


CARD_PRECISION = "fp8"  # what a serving guide's short answer recommends first


@dataclass(frozen=True)
class HomePage:
    house: Provider
    cards: list[GuideCard]
    serving_cards: list[ServingCard]
    prices: list[selectors.GpuListing]  # every GPU we rent that has our price
    checked: PriceDates | None
    comparisons: list[guide_selectors.ComparisonLink]
    checked_today: bool = False  # every price shown was checked today: "today's prices"


def home_page(*, at: date | None = None) -> HomePage:
    """The guides as cards (model, methods, cheapest recommended run, last checked) and our
    prices as of ``at``, read once for every card. Raises Provider.DoesNotExist before setup."""
    guides = guide_selectors.published_guides_with_configurations()
    base = page_figures(params_billion=Decimal(1), at=at)
    cards = [_guide_card(guide, base) for guide in guides if not guide.serves]
    serving_cards = [_serving_card(guide, base, at) for guide in guides if guide.serves]
    ours = [g for g in base.listings[base.house].values() if g.rentable and g.usd_per_gpu_hour]
    checked = price_dates(g.checked_on for g in ours)
    return HomePage(
        house=selectors.house_provider(),
        cards=cards,
        serving_cards=serving_cards,
        prices=ours,
        checked=checked,
        comparisons=guide_selectors.published_comparisons(),
        checked_today=checked is not None and checked.oldest == timezone.localdate(),
    )


def _serving_card(guide: Guide, base: PageFigures, at: date | None) -> ServingCard:
    plans = serving_guide_plans(guide, base, at=at, precisions=(CARD_PRECISION,))
    choice = plans[CARD_PRECISION].recommendation if plans else None
    return ServingCard(guide, choice)


def _guide_card(guide: Guide, base: PageFigures) -> GuideCard:
    figures = _for_guide(base, guide)
    options = []
    for method in figures.methods.values():
        plans = _recommended_or_none(figures, method.slug)
        runs = figures.runs(method.slug, [p.configuration for p in plans[:1]])
        if runs and runs[0].usd_per_run is not None:
            options.append(CheapestFit(method.short_name, runs[0]))
    return GuideCard(
        guide=guide,
        method_names=[m.short_name for m in figures.methods.values()],
        cheapest=min(options, key=lambda option: option.run.usd_per_run, default=None),
        training_tokens=figures.training_tokens,
        checked=price_dates(
            figures.listing(c.gpu.slug).checked_on for c in guide.configurations.all()
        ),
    )


# --- what a guide recommends, as /api/v1/guides/<slug>/ answers ----------------------------


@dataclass(frozen=True)
class MethodAdvice:
    """A method's recommendation and alternative, as the guide's method table shows them."""

    method: str
    recommended: list[calc.PlannedFit]  # empty where nothing on one host holds the run
    override: bool  # an editor chose them (each still fits by the estimate: the guide check)
    runs: dict[calc.Configuration, calc.RunPlan]  # the training budget on each of them
    close_call: calc.Recommendation | None  # as the method table's row says


@dataclass(frozen=True)
class TableRow:
    """A row of the guide's fit table: the estimate's mark per method."""

    configuration: calc.Configuration
    fits: dict[str, bool]


@dataclass(frozen=True)
class GuideAdvice:
    guide: Guide
    as_of: date
    training: TrainingSetup  # the guide's stated run (its method is a placeholder)
    training_tokens: int  # per epoch
    epochs: int
    configurations: list[TableRow]
    methods: list[MethodAdvice]


def method_advice(figures: PageFigures, method: str) -> MethodAdvice:
    plans = _recommended_or_none(figures, method)
    runs = figures.runs(method, [p.configuration for p in plans])
    return MethodAdvice(
        method,
        plans,
        figures.is_override(method),
        {r.configuration: r for r in runs},
        figures.close_call(method),
    )


def guide_advice(guide: Guide, *, at: date | None = None) -> GuideAdvice:
    """The guide's fit table and recommendations with prices as of ``at``: the same
    ``PageFigures`` calls its page makes (``guide_page``), so the two cannot differ."""
    figures = guide_figures(guide, at=at)
    return GuideAdvice(
        guide=guide,
        as_of=at or timezone.localdate(),
        training=figures.training,
        training_tokens=figures.tokens_per_epoch,
        epochs=figures.epochs,
        configurations=[
            TableRow(c, {slug: figures.fits(slug, c) for slug in figures.methods})
            for c in figures.table_configurations()
        ],
        methods=[method_advice(figures, slug) for slug in figures.methods],
    )
