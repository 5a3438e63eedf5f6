"""The memory, fit and cost rules behind every figure on a guide page, framework-free.

Memory in decimal GB, model sizes in billions of parameters (bytes per parameter x billions is
GB), money in US dollars. A card's advertised memory is binary: the cited rules are compared
with it, the peak-memory estimate with what PyTorch can use of it (``usable_memory_gb``). Every
fit is "at least": an estimate equal to the memory on hand fits. The estimate decides every fit,
the cost of a run the recommendation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

from pricing.domain.throughput import (
    EXACT,
    HOST_GPU_COUNTS,
    UNCERTAINTY,
    Band,
    GpuSpeed,
    Uncertainty,
    hours_for,
)

ZERO = Decimal(0)
CENT = Decimal("0.01")
GB_BYTES = Decimal(10) ** 9
GIB_BYTES = Decimal(2) ** 30
# What each process holds outside PyTorch's allocator, in GB rounded up: the CUDA context, 0.47
# GiB on an A100 under lazy loading (ml-engineering, "Preloaded CUDA kernels memory usage"); on
# several GPUs NCCL's buffers, 1.5 GiB (ml-engineering, "torch.distributed memory usage").
CUDA_CONTEXT_GB = Decimal("0.51")
NCCL_GB = Decimal("1.62")
# Steps ratios between prices or specs are rounded to: "about 40x", "3.2x".
WHOLE = Decimal(1)
TENTH = Decimal("0.1")


class RuleError(ValueError):
    """A memory rule or configuration that cannot describe anything real."""


@dataclass(frozen=True)
class MemoryComponent:
    part: str
    bytes_per_param: Decimal


@dataclass(frozen=True)
class MemoryRule:
    """A cited memory rule: a sum of bytes per parameter (EleutherAI's 2 + 12 + 2), or a ratio
    measured on a reference run, rounded up (QLoRA's 48 GB for 65 B: 0.74, planned as 0.75)."""

    source: str
    components: tuple[MemoryComponent, ...] = ()
    reference_memory_gb: Decimal | None = None
    reference_params_billion: Decimal | None = None
    round_up_to: Decimal | None = None

    def __post_init__(self) -> None:
        measured = self.reference_memory_gb is not None
        if measured == bool(self.components):
            raise RuleError(f"{self.source}: give either components or a measured reference")
        if measured and (self.reference_params_billion or 0) <= 0:
            raise RuleError(f"{self.source}: the reference model size must be positive")
        if any(c.bytes_per_param < 0 for c in self.components):
            raise RuleError(f"{self.source}: bytes per parameter cannot be negative")

    @property
    def is_measured(self) -> bool:
        return self.reference_memory_gb is not None

    @property
    def measured_ratio(self) -> Decimal:
        assert self.reference_memory_gb is not None and self.reference_params_billion
        return self.reference_memory_gb / self.reference_params_billion

    @property
    def gb_per_billion(self) -> Decimal:
        if not self.is_measured:
            return sum((c.bytes_per_param for c in self.components), ZERO)
        ratio = self.measured_ratio
        if self.round_up_to:
            steps = (ratio / self.round_up_to).to_integral_value(rounding=ROUND_CEILING)
            return steps * self.round_up_to
        return ratio

    bytes_per_param = gb_per_billion  # the same figure, as a sum of components reads

    def memory_gb(self, params_billion: Decimal) -> Decimal:
        return params_billion * self.gb_per_billion


@dataclass(frozen=True)
class MethodRule:
    """A fine-tuning method's memory rules and the margin we plan with on top of the highest."""

    slug: str
    rules: tuple[MemoryRule, ...]
    planning_margin: Decimal = ZERO  # a fraction: 0.20 for 20 %
    weight_bytes_per_param: Decimal | None = None  # the (frozen) base weights alone

    def __post_init__(self) -> None:
        if not self.rules:
            raise RuleError(f"{self.slug}: a method needs at least one memory rule")
        if self.planning_margin < 0:
            raise RuleError(f"{self.slug}: the planning margin cannot be negative")


@dataclass(frozen=True)
class RuleFigure:
    rule: MemoryRule
    memory_gb: Decimal


@dataclass(frozen=True)
class MemoryEstimate:
    method: str
    params_billion: Decimal
    figures: tuple[RuleFigure, ...]
    planning_margin: Decimal

    @property
    def lower_gb(self) -> Decimal:
        return min(f.memory_gb for f in self.figures)

    @property
    def upper_gb(self) -> Decimal:
        return max(f.memory_gb for f in self.figures)

    @property
    def planning_gb(self) -> Decimal:
        return self.upper_gb * (1 + self.planning_margin)

    @property
    def has_range(self) -> bool:
        return self.lower_gb != self.upper_gb


def estimate_memory(method: MethodRule, params_billion: Decimal) -> MemoryEstimate:
    if params_billion <= 0:
        raise RuleError("a model needs a positive number of parameters")
    figures = tuple(RuleFigure(rule, rule.memory_gb(params_billion)) for rule in method.rules)
    return MemoryEstimate(method.slug, params_billion, figures, method.planning_margin)


# --- Configurations, fit and cost ---------------------------------------------------------


@dataclass(frozen=True)
class GpuOffer:
    """A GPU as the maths sees it; None where a figure is unknown."""

    slug: str
    name: str
    memory_gb: Decimal
    usd_per_gpu_hour: Decimal | None = None
    measured_memory_gb: Decimal | None = None  # what PyTorch reports on such a card
    speed: GpuSpeed | None = None
    host_gb_per_gpu: Decimal | None = None  # the host's memory per GPU rented on it

    @property
    def reported_gb(self) -> Decimal:
        return reported_memory_gb(self.memory_gb, self.measured_memory_gb)

    @property
    def usable_gb(self) -> Decimal:
        return usable_memory_gb(self.memory_gb, self.measured_memory_gb)


@dataclass(frozen=True)
class Configuration:
    gpu: GpuOffer
    count: int = 1

    def __post_init__(self) -> None:
        if self.count < 1:
            raise RuleError("a configuration needs at least one GPU")

    @property
    def total_memory_gb(self) -> Decimal:
        return self.gpu.memory_gb * self.count

    @property
    def usd_per_hour(self) -> Decimal | None:
        if self.gpu.usd_per_gpu_hour is None:
            return None
        return self.gpu.usd_per_gpu_hour * self.count

    @property
    def usable_gb_per_gpu(self) -> Decimal:
        return usable_memory_gb(self.gpu.memory_gb, self.gpu.measured_memory_gb, self.count)

    @property
    def host_gb(self) -> Decimal | None:
        if self.gpu.host_gb_per_gpu is None:
            return None
        return self.gpu.host_gb_per_gpu * self.count

    def cost(self, hours: Decimal) -> Decimal | None:
        return run_cost(self.count, hours, self.gpu.usd_per_gpu_hour)


def headroom_gb(configuration: Configuration, memory_gb: Decimal) -> Decimal:
    return configuration.total_memory_gb - memory_gb


def usable_memory_gb(
    advertised_gb: Decimal, measured_gb: Decimal | None = None, gpu_count: int = 1
) -> Decimal:
    """What a training step may allocate on each card of ``gpu_count``: the card's total as
    PyTorch reports it, less the CUDA context and, on several GPUs, NCCL's buffers."""
    return reported_memory_gb(advertised_gb, measured_gb) - runtime_gb(gpu_count)


def reported_memory_gb(advertised_gb: Decimal, measured_gb: Decimal | None = None) -> Decimal:
    """The total PyTorch reports on a card where measured, else the advertised GiB (exact)."""
    if advertised_gb <= 0:
        raise RuleError(f"a card of {advertised_gb} GB has no memory to use")
    return measured_gb if measured_gb is not None else advertised_gb * GIB_BYTES / GB_BYTES


def runtime_gb(gpu_count: int) -> Decimal:
    return CUDA_CONTEXT_GB + (NCCL_GB if gpu_count > 1 else ZERO)


def host_configurations(gpus: Iterable[GpuOffer]) -> list[Configuration]:
    return [Configuration(gpu, count) for gpu in gpus for count in HOST_GPU_COUNTS]


@dataclass(frozen=True)
class PlannedFit:
    """One configuration against a cited rule's planning figure (its advertised memory) and
    against the estimate: the reserve per GPU against each card's usable memory, and what CPU
    offload keeps on the host against the host's memory."""

    configuration: Configuration
    planning_gb: Decimal
    peak_gb_per_gpu: Decimal
    reserved_gb_per_gpu: Decimal
    host_gb: Decimal = ZERO  # needed in host memory (CPU offload); 0 without

    @property
    def fits_by_rule(self) -> bool:
        return self.configuration.total_memory_gb >= self.planning_gb

    @property
    def rule_headroom_gb(self) -> Decimal:
        return headroom_gb(self.configuration, self.planning_gb)

    @property
    def usable_gb_per_gpu(self) -> Decimal:
        return self.configuration.usable_gb_per_gpu

    @property
    def fits_on_host(self) -> bool:
        """A host of unknown memory is not refused (an editor has not recorded it)."""
        host = self.configuration.host_gb
        return not self.host_gb or host is None or host >= self.host_gb

    @property
    def fits_by_estimate(self) -> bool:
        return self.usable_gb_per_gpu >= self.reserved_gb_per_gpu and self.fits_on_host

    @property
    def estimate_headroom_gb_per_gpu(self) -> Decimal:
        return self.usable_gb_per_gpu - self.reserved_gb_per_gpu


def planned_fits(
    configurations: Iterable[Configuration],
    planning_gb: Decimal,
    peaks: Mapping[int, tuple[Decimal, ...]],
) -> list[PlannedFit]:
    """Each configuration against ``planning_gb`` and ``peaks[count]``: the peak, the reserve
    per GPU and optionally the host memory, for its GPU count."""
    return [PlannedFit(c, planning_gb, *peaks[c.count]) for c in configurations]


@dataclass(frozen=True)
class RunPlan:
    """A configuration that holds the run, its speed (measured where this very run was timed,
    else derived) and what the run takes: hours, GPU-hours and cost, with their ranges."""

    plan: PlannedFit
    tokens_per_s: Decimal
    measured: bool
    training_tokens: int  # tokens per epoch x epochs
    band: Band = EXACT  # how far a derived speed may be off (``throughput.Uncertainty``)

    @property
    def configuration(self) -> Configuration:
        return self.plan.configuration

    @property
    def time_basis(self) -> str:
        return "measured" if self.measured else "derived"

    @property
    def hours(self) -> Decimal:
        """Unrounded: cost and blocks are worked out from it, not from ``shown_hours``."""
        return hours_for(self.training_tokens, self.tokens_per_s)

    @property
    def gpu_hours(self) -> Decimal:
        return self.hours * self.configuration.count

    @property
    def shown_hours(self) -> Decimal:
        return shown_hours(self.hours)

    @property
    def shown_gpu_hours(self) -> Decimal:
        return shown_hours(self.gpu_hours)

    @property
    def usd_per_run(self) -> Decimal | None:
        return self.configuration.cost(self.hours)

    @property
    def hours_low(self) -> Decimal:
        return self.hours * (1 + self.band.low)

    @property
    def hours_high(self) -> Decimal:
        return self.hours * (1 + self.band.high)

    @property
    def shown_hours_low(self) -> Decimal:
        return shown_hours(self.hours_low)

    @property
    def shown_hours_high(self) -> Decimal:
        return shown_hours(self.hours_high)

    @property
    def usd_per_run_low(self) -> Decimal | None:
        return self.configuration.cost(self.hours_low)

    @property
    def usd_per_run_high(self) -> Decimal | None:
        return self.configuration.cost(self.hours_high)

    @property
    def has_range(self) -> bool:
        return self.band != EXACT


def shown_hours(hours: Decimal) -> Decimal:
    """Hours as pages and the API show them: to the tenth, half up, at least 0.1 h."""
    return max(hours.quantize(TENTH, ROUND_HALF_UP), TENTH)


def rankable(runs: Iterable[RunPlan]) -> list[RunPlan]:
    return [
        r
        for r in runs
        if r.plan.fits_by_estimate
        and r.usd_per_run is not None
        and r.configuration.count <= HOST_GPU_COUNTS[-1]
    ]


def ranked_runs(runs: Iterable[RunPlan]) -> list[RunPlan]:
    """The recommendation policy: the cheapest run first (then fewest GPUs, then the faster)."""
    return sorted(rankable(runs), key=lambda r: (r.usd_per_run, r.configuration.count, r.hours))


def blocks_covering(gpu_hours: Decimal, blocks: Iterable[int]) -> int | None:
    """The GPU-hours bought up front for ``gpu_hours`` of one GPU model: the smallest block
    that covers them, or as many of the largest as do; None where no blocks are sold."""
    blocks = tuple(blocks)
    if not blocks:
        return None
    block = covering_block(gpu_hours, blocks)
    if block is None:
        largest = max(blocks)
        block = largest * int((gpu_hours / largest).to_integral_value(ROUND_CEILING))
    return block


def upfront_usd(run: RunPlan, blocks: Iterable[int]) -> Decimal | None:
    """What a run's GPU-hours bought up front in blocks cost; None without a price or blocks."""
    hours = blocks_covering(run.gpu_hours, blocks)
    if hours is None:
        return None
    return run_cost(1, Decimal(hours), run.configuration.gpu.usd_per_gpu_hour)


# What decides a recommendation: its cost, or where the model cannot tell the cheapest runs
# apart (a close call), in turn the up-front block, the GPUs it needs and its time.
BY_COST, BY_UPFRONT, BY_GPUS, BY_TIME = "cost", "upfront", "gpus", "time"


@dataclass(frozen=True)
class Recommendation:
    """The run we recommend, its alternative (the fastest other run), whether other runs cost
    the same within the model's error (``contenders``) and the rule that picked it."""

    chosen: RunPlan
    alternative: RunPlan | None
    close_call: bool
    decided_by: str
    contenders: tuple[RunPlan, ...]  # the cheapest and those it cannot be told from

    @property
    def runs(self) -> list[RunPlan]:
        return [self.chosen] if self.alternative is None else [self.chosen, self.alternative]


def cannot_tell_apart(
    cheapest: RunPlan, other: RunPlan, uncertainty: Uncertainty = UNCERTAINTY
) -> bool:
    """Whether ``other`` may cost no more than ``cheapest``: within the cheapest's range and
    within the error of the two runs' cost *ratio*, where shared errors cancel."""
    first = (cheapest.configuration.gpu.speed, cheapest.configuration.count)
    second = (other.configuration.gpu.speed, other.configuration.count)
    if first[0] is None or second[0] is None:
        return False
    same_card = cheapest.configuration.gpu.slug == other.configuration.gpu.slug
    width = uncertainty.ratio_width(first, second, same_card=same_card)
    return (
        other.usd_per_run <= cheapest.usd_per_run_high
        and other.usd_per_run <= cheapest.usd_per_run * (1 + width)
    )


def recommendation(
    runs: Iterable[RunPlan], blocks: Iterable[int], uncertainty: Uncertainty = UNCERTAINTY
) -> Recommendation | None:
    """The cheapest run, unless the model cannot tell it from others: then, among those, the
    cheapest up-front block, then the fewest GPUs, then the shortest time. None where no run
    is possible."""
    ranked = ranked_runs(runs)
    if not ranked:
        return None
    blocks = tuple(blocks)
    cheapest = ranked[0]
    contenders = [cheapest] + [r for r in ranked[1:] if cannot_tell_apart(cheapest, r, uncertainty)]
    chosen, decided_by = cheapest, BY_COST
    if len(contenders) > 1:

        def keys(run: RunPlan) -> tuple:
            # A ranked run has a price, so only a site selling no blocks has no up-front cost,
            # and then for every run alike.
            return (
                upfront_usd(run, blocks) or ZERO,
                run.configuration.count,
                run.hours,
                run.usd_per_run,
            )

        chosen, runner_up = sorted(contenders, key=keys)[:2]
        # The rule a reader needs: what put the chosen run before the cheapest one (or, where
        # the cheapest won, before the next).
        beaten = cheapest if chosen is not cheapest else runner_up
        rules = (BY_UPFRONT, BY_GPUS, BY_TIME, BY_COST)
        pairs = zip(rules, keys(chosen), keys(beaten), strict=True)
        decided_by = next((rule for rule, mine, theirs in pairs if mine != theirs), BY_COST)
    others = [r for r in ranked if r is not chosen]
    alternative = (
        min(others, key=lambda r: (r.hours, r.usd_per_run, r.configuration.count))
        if others
        else None
    )
    return Recommendation(chosen, alternative, len(contenders) > 1, decided_by, tuple(contenders))


def closest_miss(plans: Iterable[PlannedFit]) -> PlannedFit | None:
    """Of the configurations too small by the estimate, the one that misses by the least."""
    short = [p for p in plans if not p.fits_by_estimate]
    if not short:
        return None
    return min(
        short,
        key=lambda p: (
            -p.estimate_headroom_gb_per_gpu,
            p.configuration.count,
            p.configuration.usd_per_hour is None,
            p.configuration.usd_per_hour or ZERO,
        ),
    )


def smallest_fitting_gpu(gpus: Iterable[GpuOffer], required_gb: Decimal) -> GpuOffer | None:
    """The single card with the least memory that still holds the requirement (cheapest on ties)."""
    fitting = [g for g in gpus if g.memory_gb >= required_gb and g.usd_per_gpu_hour is not None]
    if not fitting:
        return None
    return min(fitting, key=lambda g: (g.memory_gb, g.usd_per_gpu_hour))


@dataclass(frozen=True)
class CostScenario:
    method: str
    configuration: Configuration
    hours: Decimal

    def __post_init__(self) -> None:
        if self.hours <= 0:
            raise RuleError("a run needs a positive number of hours")

    @property
    def gpu_hours(self) -> Decimal:
        return self.hours * self.configuration.count


@dataclass(frozen=True)
class CostRow:
    scenario: CostScenario
    block_hours: int | None  # the GPU-hour block that covers the run, if any does

    @property
    def gpu_hours(self) -> Decimal:
        return self.scenario.gpu_hours

    @property
    def cost_usd(self) -> Decimal | None:
        return self.scenario.configuration.cost(self.scenario.hours)

    @property
    def block_cost_usd(self) -> Decimal | None:
        if self.block_hours is None:
            return None
        return run_cost(
            1, Decimal(self.block_hours), self.scenario.configuration.gpu.usd_per_gpu_hour
        )


def run_cost(gpus: int, hours: Decimal, usd_per_gpu_hour: Decimal | None) -> Decimal | None:
    """GPUs x hours x price per GPU-hour, to the cent; None without a price."""
    if usd_per_gpu_hour is None:
        return None
    return (gpus * hours * usd_per_gpu_hour).quantize(CENT, ROUND_HALF_UP)


def block_prices(usd_per_gpu_hour: Decimal | None, blocks: Iterable[int]) -> list[Decimal | None]:
    return [run_cost(1, Decimal(hours), usd_per_gpu_hour) for hours in blocks]


def covering_block(gpu_hours: Decimal, blocks: Iterable[int]) -> int | None:
    covering = [b for b in blocks if b >= gpu_hours]
    return min(covering) if covering else None


def cost_table(scenarios: Iterable[CostScenario], blocks: Iterable[int]) -> list[CostRow]:
    blocks = tuple(blocks)
    return [CostRow(s, covering_block(s.gpu_hours, blocks)) for s in scenarios]


# --- Ratios and prices -------------------------------------------------------------------


def ratio(numerator: Decimal, denominator: Decimal, step: Decimal = TENTH) -> Decimal:
    """numerator / denominator rounded half-up to ``step`` (989.5 / 312 -> 3.2)."""
    if denominator <= 0:
        raise RuleError("cannot compare against zero")
    return (numerator / denominator).quantize(step, ROUND_HALF_UP)


def per_gpu_price(instance_usd_per_hour: Decimal, gpus_in_instance: int) -> Decimal:
    """A quote's per-GPU price: $43.46 / 8 = $5.4325."""
    if gpus_in_instance < 1:
        raise RuleError("an instance has at least one GPU")
    return instance_usd_per_hour / gpus_in_instance
