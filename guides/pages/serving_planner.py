"""The serving planner page: which GPUs we rent serve a model with vLLM, from
``pricing.serving_plans`` (the computation /api/v1/serving/ answers with); plain values for the
template, nothing computed there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from guides.content.page_figures import PriceDates, price_dates
from pricing import serving_plans
from pricing.domain import serving
from pricing.selectors import GpuListing

SHOWN_GB = Decimal("0.1")  # memory as the table shows it


def shown_gb(value: Decimal) -> Decimal:
    return value.quantize(SHOWN_GB, ROUND_HALF_UP)


@dataclass(frozen=True)
class ShownMemory:
    """A configuration's memory per GPU as the page shows it, to the tenth of a GB."""

    weights_gb: Decimal
    runtime_gb: Decimal
    kv_cache_gb: Decimal
    card_gb: Decimal

    @classmethod
    def of(cls, memory: serving.ServingMemory) -> ShownMemory:
        return cls(
            shown_gb(memory.weights_gb),
            shown_gb(memory.runtime_gb),
            shown_gb(memory.kv_cache_gb),
            shown_gb(memory.card_gb),
        )


WHOLE = Decimal(1)
CENT = Decimal("0.01")


@dataclass(frozen=True)
class ShownSpeed:
    """A configuration's speed and cost as the page shows them: milliseconds and tokens whole,
    dollars to the cent, each with its range (low, high)."""

    users: int
    ttft_ms: tuple[Decimal, Decimal, Decimal]
    tokens_per_s_per_user: tuple[Decimal, Decimal, Decimal]
    usd_per_million_tokens: tuple[Decimal, Decimal, Decimal] | None

    @classmethod
    def of(cls, speed: serving_plans.RowSpeed | None) -> ShownSpeed | None:
        if speed is None:
            return None
        whole = lambda values: tuple(v.quantize(WHOLE, ROUND_HALF_UP) for v in values)  # noqa: E731
        return cls(
            users=speed.users,
            ttft_ms=whole(speed.ttft_ms),
            tokens_per_s_per_user=whole(speed.tokens_per_s_per_user),
            usd_per_million_tokens=speed.usd_per_million_tokens,
        )


@dataclass(frozen=True)
class GpuAnswer:
    """One GPU we rent: the fewest that serve the asked load, or why eight do not."""

    serving: serving_plans.ServingRow | None  # None where eight do not serve
    eight: serving_plans.ServingRow  # the largest configuration, for the reason

    @property
    def gpu(self) -> GpuListing:
        return self.eight.gpu

    @property
    def shown(self) -> ShownMemory | None:
        return ShownMemory.of(self.serving.memory) if self.serving else None

    @property
    def eight_shown(self) -> ShownMemory:
        return ShownMemory.of(self.eight.memory)

    @property
    def speed(self) -> ShownSpeed | None:
        """At the asked users, on the fewest that serve them."""
        return ShownSpeed.of(self.serving.at_concurrency) if self.serving else None

    @property
    def at_target(self) -> ShownSpeed | None:
        return ShownSpeed.of(self.serving.at_target) if self.serving else None


@dataclass(frozen=True)
class Refused:
    """A configuration vLLM would not start on, with its own message and the fixes."""

    row: serving_plans.ServingRow

    @property
    def shown(self) -> ShownMemory:
        return ShownMemory.of(self.row.memory)


@dataclass(frozen=True)
class ServingPage:
    plan: serving_plans.ServingPlan
    gpus: tuple[GpuAnswer, ...]
    refused: tuple[Refused, ...]  # each GPU's single-card configuration, where it does not start
    cheapest: serving_plans.ServingRow | None
    command: str  # the cheapest's `vllm serve`, as one shell line
    checked: PriceDates | None
    checkpoint_needed: bool  # AWQ/GPTQ: the command names $CHECKPOINT
    recommendation: serving_plans.ServingRecommendation | None

    @property
    def recommended(self) -> ShownSpeed | None:
        """The recommended configuration at the latency target, as shown."""
        choice = self.recommendation
        return ShownSpeed.of(choice.chosen.at_target) if choice else None

    @property
    def recommended_command(self) -> str:
        choice = self.recommendation
        return serving.shell_line(choice.chosen.command) if choice else ""

    @property
    def kv_bytes_per_token(self) -> int:
        return self.plan.kv_bytes_per_token

    @property
    def version(self) -> str:
        """The vLLM whose budgeting the page follows."""
        return serving.VLLM_VERSION


def serving_page(*, model: str, setup: serving.ServingSetup, concurrency: int, at: date | None):
    """Raises ``planning.PlanningError`` for a model or context the computation refuses (the
    form refuses both first), ``planning.NotOnFile`` before our prices are set up."""
    plan = serving_plans.serving_plan(model=model, setup=setup, concurrency=concurrency, at=at)
    smallest = {row.gpu.slug: row for row in plan.smallest}
    by_gpu: dict[str, list[serving_plans.ServingRow]] = {}
    for row in plan.rows:
        by_gpu.setdefault(row.gpu.slug, []).append(row)
    gpus = tuple(GpuAnswer(smallest.get(slug), rows[-1]) for slug, rows in by_gpu.items())
    refused = tuple(Refused(rows[0]) for rows in by_gpu.values() if not rows[0].starts)
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
