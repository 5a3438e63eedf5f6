"""The planner page: a model's peak training memory (``pricing.domain.training_memory``), the
fewest of each GPU we rent that hold it (``pricing.planning.configuration_fits``, as
/api/v1/fit/ answers), and what we recommend for the run, as a guide at the same run would.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from guides.content.page_figures import PriceDates, price_dates
from guides.content.presentation import estimated
from pricing import planning, selectors
from pricing.domain import calculations as calc
from pricing.domain.training_memory import (
    MEASURED,
    Architecture,
    PeakMemory,
    TrainingSetup,
    estimate_peak_memory,
)

SHOWN_GB = Decimal("0.1")  # the bar's widths
# The bar's drawing box (SVG user units); the template scales it to the page width.
BAR_WIDTH = Decimal(600)
BREAKDOWN_LABELS = {
    # As the estimate loads them: QLoRA's 4-bit layers with the parts kept in 16 or 32 bits
    # (embeddings, output layer, norms), more than the guides' "4-bit weights alone".
    "weights": _("weights as loaded"),
    "adapters": _("adapters"),
    "optimizer_states": _("optimizer states"),
    "gradients": _("gradients"),
    "activations": _("activations"),
    "logits_and_loss": _("logits and loss"),
    "workspace": _("CUDA workspace"),
}
MOMENT_LABELS = {
    "end of the forward pass": _("at the end of the forward pass"),
    "start of the backward pass": _("at the start of the backward pass (the loss)"),
    "backward pass through a layer": _("in the backward pass through a layer"),
    "end of the backward pass": _("at the end of the backward pass (every gradient)"),
}


@dataclass(frozen=True)
class PlannerRequest:
    """What the visitor asked: a model (on file or pasted) and a training run."""

    architecture: Architecture
    setup: TrainingSetup
    model_name: str
    language_model_slug: str | None  # None for a pasted config.json
    params_billion: Decimal  # for the rule of thumb
    training_tokens: int | None = None  # tokens per epoch x epochs, as the visitor gave them
    assumed_hours: Decimal | None = None  # the visitor's run length, where no tokens are given

    @property
    def budget(self) -> int:
        """The tokens runs are timed and ranked for: the visitor's, else the default budget."""
        return self.training_tokens or planning.DEFAULT_TRAINING_TOKENS

    @property
    def hours_assumed(self) -> bool:
        return self.assumed_hours is not None and not self.training_tokens


@dataclass(frozen=True)
class BarSegment:
    part: str
    gb: Decimal
    x: Decimal
    width: Decimal

    @property
    def label(self) -> str:
        return BREAKDOWN_LABELS[self.part]


@dataclass(frozen=True)
class GpuFit:
    """One GPU we rent: the fewest of it that hold the run, if up to eight do."""

    gpu: selectors.GpuListing
    usable_gb: Decimal
    count: int | None  # None: not even eight fit
    peak_per_gpu_gb: Decimal  # at ``count`` GPUs (or eight when none fit)
    headroom_gb: Decimal | None = None  # beyond the peak and the allocator's margin
    usd_per_hour: Decimal | None = None
    run: calc.RunPlan | None = None  # the training budget on ``count`` GPUs
    run_hours: Decimal | None = None  # as shown: the run's, or the visitor's assumed hours
    run_usd: Decimal | None = None
    # Under CPU offload, where eight cards would hold the step but their host's memory not
    # what offload keeps there: that host's memory.
    host_short_gb: Decimal | None = None


@dataclass(frozen=True)
class PlannerResult:
    request: PlannerRequest
    estimate: PeakMemory
    peak_gb: Decimal
    host_gb: Decimal  # kept on the host under CPU offload; 0 without
    segments: list[BarSegment]
    fits: list[GpuFit]
    rule: calc.MemoryEstimate
    method: selectors.MethodListing
    throughput: selectors.ThroughputListing | None  # this run as timed on one GPU, if it was
    # What we recommend for the budget and the fastest other run (``calc.recommendation``,
    # as the guides and /api/v1/guides/ decide): empty where nothing on one host holds it.
    recommended: list[calc.RunPlan]
    close_call: bool = False  # the model cannot tell the cheapest runs apart

    @property
    def moment(self) -> str:
        return MOMENT_LABELS[self.estimate.moment]

    @property
    def checked(self) -> PriceDates | None:
        """The check days of the prices in the fit table."""
        return price_dates(fit.gpu.checked_on for fit in self.fits if fit.usd_per_hour is not None)


def breakdown_bar(estimate: PeakMemory) -> list[BarSegment]:
    """The non-zero terms as consecutive segments of one bar, widths proportional to GB."""
    parts = [(part, estimate.breakdown()[part]) for part in BREAKDOWN_LABELS]
    total = sum((gb for _part, gb in parts), Decimal(0))
    segments, x = [], Decimal(0)
    for part, gb in parts:
        if estimated(gb) == 0:
            continue  # under 0.05 GB: neither visible in the bar nor worth a legend entry
        width = (BAR_WIDTH * gb / total).quantize(SHOWN_GB)
        segments.append(BarSegment(part, estimated(gb), x, width))
        x += width
    return segments


def gpu_fit(
    request: PlannerRequest,
    gpu: selectors.GpuListing,
    fits: list[calc.PlannedFit],
    runs: dict[calc.Configuration, calc.RunPlan],
) -> GpuFit:
    """The fewest of ``gpu`` that hold the run, from ``fits`` (its 1, 2, 4 and 8 in order),
    with the budget's run on them (``runs``) or the visitor's assumed hours."""
    holding = next((fit for fit in fits if fit.fits_by_estimate), None)
    if holding is None:
        largest = fits[-1]
        cards_hold = largest.usable_gb_per_gpu >= largest.reserved_gb_per_gpu
        return GpuFit(
            gpu,
            estimated(largest.usable_gb_per_gpu),
            None,
            estimated(largest.peak_gb_per_gpu),
            host_short_gb=(
                largest.configuration.host_gb if cards_hold and not largest.fits_on_host else None
            ),
        )
    configuration = holding.configuration
    run = runs.get(configuration)
    if request.hours_assumed:
        hours, cost = request.assumed_hours, None
        if gpu.usd_per_gpu_hour is not None:
            cost = calc.run_cost(configuration.count, hours, gpu.usd_per_gpu_hour)
    else:
        hours = run.shown_hours if run else None
        cost = run.usd_per_run if run else None
    return GpuFit(
        gpu,
        estimated(holding.usable_gb_per_gpu),
        configuration.count,
        estimated(holding.peak_gb_per_gpu),
        estimated(holding.estimate_headroom_gb_per_gpu),
        configuration.usd_per_hour,
        run,
        hours,
        cost,
    )


def plan(request: PlannerRequest, *, at: date | None = None) -> PlannerResult:
    """The estimate and, with our prices as of ``at`` (today by default), what holds it."""
    estimate = estimate_peak_memory(request.architecture, request.setup)
    method = next(m for m in selectors.method_listings() if m.slug == request.setup.method)
    throughput = None
    # Only the measured recipe was timed: trl's run of the same model is derived.
    if request.language_model_slug is not None and request.setup.recipe is MEASURED:
        throughput = selectors.throughput_for(
            language_model=request.language_model_slug,
            method=request.setup.method,
            seq_len=request.setup.seq_len,
            batch_size=request.setup.batch_size,
            gradient_checkpointing=request.setup.gradient_checkpointing,
        )
    house = selectors.house_provider()
    gpus = selectors.gpu_listings_for_provider(provider=house, at=at, rentable_only=True)
    rule = calc.estimate_memory(method.rule, request.params_billion)
    fits = planning.configuration_fits(request.architecture, request.setup, gpus, rule.planning_gb)
    measured = {throughput.gpu_slug: throughput.tokens_per_s} if throughput else {}
    runs = planning.run_plans(fits, request.architecture, request.setup, request.budget, measured)
    by_configuration = {run.configuration: run for run in runs}
    recommendation = calc.recommendation(runs, selectors.hour_blocks())
    return PlannerResult(
        request=request,
        estimate=estimate,
        peak_gb=estimated(estimate.peak_gb),
        host_gb=estimated(estimate.host_gb),
        segments=breakdown_bar(estimate),
        fits=[
            gpu_fit(
                request,
                gpu,
                [f for f in fits if f.configuration.gpu.slug == gpu.slug],
                by_configuration,
            )
            for gpu in gpus
        ],
        rule=rule,
        method=method,
        throughput=throughput,
        recommended=[] if recommendation is None else recommendation.runs,
        close_call=recommendation is not None and recommendation.close_call,
    )
