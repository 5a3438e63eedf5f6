"""The serving planner page: which GPUs we rent serve a model with vLLM, from
``pricing.serving_plans`` (the computation /api/v1/serving/ answers with); plain values for the
template, nothing computed there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from guides.content.page_figures import PriceDates, price_dates
from pricing import serving_plans
from pricing.domain import serving
from pricing.selectors import GpuListing


@dataclass(frozen=True)
class GpuAnswer:
    """One GPU we rent: the fewest that serve the asked load, or why eight do not."""

    serving: serving_plans.ServingRow | None  # None where eight do not serve
    eight: serving_plans.ServingRow  # the largest configuration, for the reason

    @property
    def gpu(self) -> GpuListing:
        return self.eight.gpu


@dataclass(frozen=True)
class ServingPage:
    plan: serving_plans.ServingPlan
    gpus: tuple[GpuAnswer, ...]
    refused: tuple[serving_plans.ServingRow, ...]  # each GPU's one card, where vLLM won't start
    cheapest: serving_plans.ServingRow | None
    command: str  # the cheapest's `vllm serve`, as one shell line
    checked: PriceDates | None
    checkpoint_needed: bool  # AWQ/GPTQ: the command names $CHECKPOINT
    recommendation: serving_plans.ServingRecommendation | None
    version: str = serving.VLLM_VERSION  # the vLLM whose budgeting the page follows

    @property
    def recommended_command(self) -> str:
        choice = self.recommendation
        return serving.shell_line(choice.chosen.command) if choice else ""


def serving_page(*, model: str, setup: serving.ServingSetup, concurrency: int, at: date | None):
    """Raises ``planning.PlanningError`` for a model or context the computation refuses (the
    form refuses both first), ``planning.NotOnFile`` before our prices are set up."""
    plan = serving_plans.serving_plan(model=model, setup=setup, concurrency=concurrency, at=at)
    smallest = {row.gpu.slug: row for row in plan.smallest}
    by_gpu: dict[str, list[serving_plans.ServingRow]] = {}
    for row in plan.rows:
        by_gpu.setdefault(row.gpu.slug, []).append(row)
    gpus = tuple(GpuAnswer(smallest.get(slug), rows[-1]) for slug, rows in by_gpu.items())
    refused = tuple(rows[0] for rows in by_gpu.values() if not rows[0].starts)
    cheapest = plan.cheapest
    return ServingPage(
        plan=plan,
        gpus=gpus,
        refused=refused,
        cheapest=cheapest,
        command=serving.shell_line(cheapest.command) if cheapest else "",
        checked=price_dates(row.gpu.checked_on for row in plan.rows),
        checkpoint_needed=setup.weights.needs_quantized_checkpoint,
        recommendation=plan.recommendation,
    )
