"""A serving guide's page: the guide's prose with its computed tables, from the guide's serving
plans (``PageFigures.serving``: ``serving_plans.guide_plans``, one per weight precision). The
same sections, FAQ, sources and notices as a fine-tuning guide (``assembly``), other tables."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils import timezone

from gpuguide.lib import renting
from guides.content.page_figures import PageFigures, PriceDates, price_dates
from guides.content.presentation import (
    PRECISION_LABELS,
    config_label,
    estimated,
    rent_label,
    word_list,
)
from guides.models import Guide
from guides.pages import assembly, tutorial
from pricing import serving_plans
from pricing.domain import serving


@dataclass(frozen=True)
class PrecisionRow:
    """What the guide recommends for one weight precision: the configuration whose million
    output tokens cost least at the latency target, as ``serving_plans.recommend`` chose it."""

    precision: str
    label: str
    weights_gb: Decimal  # the whole model's weights in this precision, to the tenth
    choice: serving_plans.ServingRecommendation | None
    fewest: list[str]  # per GPU kind, the fewest vLLM starts on ("2× H100")

    @property
    def fewest_list(self) -> str:
        """``fewest`` as the language lists things ("2× L40S, 1× A100 80GB and 1× H100")."""
        return word_list(self.fewest)

    @property
    def chosen_label(self) -> str:
        return config_label(self.choice.chosen.count, self.choice.chosen.gpu.name)

    @property
    def alternative_label(self) -> str:
        other = self.choice.alternative
        return config_label(other.count, other.gpu.name) if other else ""


@dataclass(frozen=True)
class CostRow:
    """One precision on one GPU kind: the count whose million tokens cost least there (and the
    recommended configuration, where a close call chose another count)."""

    precision: str
    label: str
    row: serving_plans.ServingRow
    recommended: bool


@dataclass(frozen=True)
class ServingGuidePage(assembly.GuidePageBase):
    precision_rows: list[PrecisionRow]
    # Per configuration, each precision's (precision, row): the first's gives GPU and price.
    fit_rows: list[list[tuple[str, serving_plans.ServingRow]]]
    cost_rows: list[CostRow]

    @property
    def plan(self) -> serving_plans.ServingPlan | None:
        """The first precision's plan: the load every plan shares (context, prompt, target)."""
        return next(iter(self.figures.serving.values()), None)


def _weights_gb(plan: serving_plans.ServingPlan) -> Decimal:
    return estimated(next(row for row in plan.rows if row.count == 1).memory.weights_gb)


def _fewest(plan: serving_plans.ServingPlan) -> list[str]:
    found: dict[str, serving_plans.ServingRow] = {}
    for row in plan.rows:
        if row.starts and row.gpu.slug not in found:
            found[row.gpu.slug] = row
    return [config_label(row.count, row.gpu.name) for row in found.values()]


def _cost_rows(figures: PageFigures, rows: list[PrecisionRow]) -> list[CostRow]:
    found = []
    for precision_row in rows:
        plan = figures.serving[precision_row.precision]
        chosen = precision_row.choice.chosen if precision_row.choice else None
        cheapest: dict[str, serving_plans.ServingRow] = {}
        for row in plan.rows:
            if not (row.at_target and row.at_target.usd_per_million_tokens):
                continue
            best = cheapest.get(row.gpu.slug)
            cost = row.at_target.usd_per_million_tokens[0]
            if best is None or cost < best.at_target.usd_per_million_tokens[0]:
                cheapest[row.gpu.slug] = row
        shown = list(cheapest.values())
        if chosen is not None and chosen not in shown:  # a close call chose another count
            shown.append(chosen)
        shown.sort(key=lambda row: (row.at_target.usd_per_million_tokens[0], row.count))
        for row in shown:
            found.append(
                CostRow(
                    precision_row.precision,
                    precision_row.label,
                    row,
                    recommended=row is chosen,
                )
            )
    return found


def precision_rows(figures: PageFigures) -> list[PrecisionRow]:
    """The guide's recommendation per precision: what its page, prose and API answer say."""
    return [
        PrecisionRow(
            precision,
            str(PRECISION_LABELS[precision]),
            _weights_gb(plan),
            plan.recommendation,
            _fewest(plan),
        )
        for precision, plan in figures.serving.items()
    ]


@dataclass(frozen=True)
class ServingAdvice:
    """What a serving guide recommends, as its page says it, for the API."""

    guide: Guide
    as_of: date
    precisions: list[PrecisionRow]


def serving_advice(guide: Guide, *, at: date | None = None) -> ServingAdvice:
    figures = assembly.guide_figures(guide, at=at)
    return ServingAdvice(guide, at or timezone.localdate(), precision_rows(figures))


def serving_guide_page(guide: Guide, *, at: date | None = None) -> ServingGuidePage:
    """Everything a serving guide's page shows, for the active language, as of ``at``."""
    figures = assembly.guide_figures(guide, at=at)
    plans = figures.serving
    rows = precision_rows(figures)
    by_configuration = zip(*(plan.rows for plan in plans.values()), strict=True)  # same order
    fit_rows = [list(zip(plans, same, strict=True)) for same in by_configuration]
    prose = assembly.guide_prose(guide, figures)  # first: it notes the prices it quotes
    cost_rows = _cost_rows(figures, rows)
    quoted = {row.row.gpu.checked_on for row in cost_rows} | figures.quoted_on
    return ServingGuidePage(
        guide=guide,
        **prose,
        checked=price_dates(quoted),
        precision_rows=rows,
        fit_rows=fit_rows,
        cost_rows=cost_rows,
        fit_checked=price_dates(cells[0][1].gpu.checked_on for cells in fit_rows),
        figures=figures,
    )


# --- the tutorial: the vllm serve commands of each recommendation --------------------------


@dataclass(frozen=True)
class ServingStep:
    """One precision's recommended configuration: rent it, start vLLM, measure it."""

    row: PrecisionRow
    serve_command: str
    bench_command: str
    rent_url: str
    rent_label: str

    @property
    def chosen(self) -> serving_plans.ServingRow:
        return self.row.choice.chosen


@dataclass(frozen=True)
class ServingTutorialPage:
    guide: Guide
    access: tutorial.ModelAccess
    install_command: str
    steps: list[ServingStep]  # one per precision something serves within the target
    plan: serving_plans.ServingPlan | None  # the load every step shares
    checked: PriceDates | None


def serving_tutorial_page(guide: Guide, *, at: date | None = None) -> ServingTutorialPage:
    """The commands that serve ``guide``'s model on each precision's recommendation; raises
    ``tutorial.NoRepository`` where the model names no repository to download."""
    model = guide.language_model
    if not tutorial.has_tutorial(guide):
        raise tutorial.NoRepository(model.slug)
    figures = assembly.guide_figures(guide, at=at)
    steps = []
    for row in precision_rows(figures):
        if row.choice is None:
            continue
        chosen = row.choice.chosen
        # The model as `vllm serve` names it (the repository, or $CHECKPOINT): the bench's too.
        bench = serving.vllm_bench_command(
            chosen.command[2],
            prompt_tokens=guide.prompt_tokens,
            output_tokens=guide.output_tokens,
            users=chosen.at_target.users,
        )
        steps.append(
            ServingStep(
                row,
                serving.shell_line(chosen.command),
                serving.shell_line(bench),
                renting.rent_url(chosen.gpu.slug, chosen.count),
                rent_label(chosen.count, chosen.gpu.name),
            )
        )
    return ServingTutorialPage(
        guide=guide,
        access=tutorial.model_access(model, figures.licence_notes),
        install_command=f"pip install vllm=={serving.VLLM_VERSION}",
        steps=steps,
        plan=next(iter(figures.serving.values()), None),
        checked=price_dates(step.chosen.gpu.checked_on for step in steps),
    )


def guide_page_for(guide: Guide, *, at: date | None = None):
    """The page of either kind of guide."""
    if guide.serves:
        return serving_guide_page(guide, at=at)
    return assembly.guide_page(guide, at=at)
