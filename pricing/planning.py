"""What the planner's JSON endpoints answer: our GPUs and prices, which configurations fit a
run, what a run costs, a GPU's price history. Each function takes ``at`` (prices as they stood
after that day's checks; today by default); before any check, prices are None and histories
empty. Something a parameter names that is not on file raises ``NotOnFile``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone

from pricing import selectors
from pricing.domain import calculations as calc
from pricing.domain import throughput, training_memory
from pricing.models import LanguageModel, Provider


class PlanningError(Exception):
    """A parameter whose value cannot be planned with, and why."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter
        self.message = message


class NotOnFile(PlanningError, LookupError):
    """The parameter names a model, method, GPU or provider that is not on file."""


class UnusableRecord(PlanningError, ValueError):
    """The record the parameter names is on file but the estimate refuses it."""


def language_model_on_file(*, slug: str) -> LanguageModel:
    language_model = selectors.language_model_by_slug(slug=slug)
    if language_model is None:
        known = ", ".join(m.slug for m in selectors.language_models())
        raise NotOnFile("model", f"no language model {slug!r} on file (known: {known})")
    return language_model


def architecture_of(language_model: LanguageModel) -> training_memory.Architecture:
    try:
        return language_model.architecture
    except training_memory.EstimateError as exc:
        raise UnusableRecord("model", f"the architecture on file is inconsistent: {exc}") from exc


NO_HOUSE_PROVIDER = "no house provider on file: no prices recorded yet"


def _house() -> Provider:
    try:
        return selectors.house_provider()
    except Provider.DoesNotExist:
        raise NotOnFile("provider", NO_HOUSE_PROVIDER) from None


def _method(method: training_memory.Method) -> selectors.MethodListing:
    listings = selectors.method_listings()
    for listing in listings:
        if listing.slug == method.value:
            return listing
    known = ", ".join(m.slug for m in listings)
    raise NotOnFile("method", f"no memory rules on file for {method.value!r} (known: {known})")


# --- GET /api/v1/gpus/ --------------------------------------------------------------------


@dataclass(frozen=True)
class GpuCatalogue:
    provider: str
    as_of: date
    gpus: list[selectors.GpuListing]


def gpu_catalogue(*, at: date | None = None) -> GpuCatalogue:
    """Every GPU with its specs and our price as of ``at``; one we do not rent has no price,
    whatever an old check recorded."""
    at = at or timezone.localdate()
    house = _house()
    listings = selectors.gpu_listings_for_provider(provider=house, at=at)
    return GpuCatalogue(
        provider=house.slug,
        as_of=at,
        gpus=[gpu if gpu.rentable else _unpriced(gpu) for gpu in listings],
    )


def _unpriced(gpu: selectors.GpuListing) -> selectors.GpuListing:
    return dataclasses.replace(
        gpu, usd_per_gpu_hour=None, checked_on=None, quoted_usd_per_hour=None, gpus_in_quote=None
    )


# --- GET /api/v1/fit/ ---------------------------------------------------------------------


def peaks_by_count(
    architecture: training_memory.Architecture, setup: training_memory.TrainingSetup
) -> dict[int, training_memory.PeakMemory]:
    """``setup``'s run estimated for each count we rent per host (FSDP shards the peak)."""
    return {
        count: training_memory.estimate_peak_memory(
            architecture, dataclasses.replace(setup, num_gpus=count)
        )
        for count in calc.HOST_GPU_COUNTS
    }


def planned(
    configurations: Iterable[calc.Configuration],
    peaks: Mapping[int, training_memory.PeakMemory],
    planning_gb: Decimal,
) -> list[calc.PlannedFit]:
    """Each configuration against the estimate for its GPU count (``peaks_by_count``) and the
    cited rule's ``planning_gb``: the one fit computation of the guides, planner and API."""
    by_count = {count: (p.peak_gb, p.reserved_gb, p.host_gb) for count, p in peaks.items()}
    return calc.planned_fits(configurations, planning_gb, by_count)


# The training budget a run is costed for where neither the guide nor the visitor states one.
DEFAULT_TRAINING_TOKENS = 100_000_000


def run_plans(
    plans: Iterable[calc.PlannedFit],
    architecture: training_memory.Architecture,
    setup: training_memory.TrainingSetup,
    training_tokens: int,
    measured: Mapping[str, Decimal] | None = None,
) -> list[calc.RunPlan]:
    """Each plan that holds the run by the estimate, with the time and cost of
    ``training_tokens`` on it at the speed timed for this run on one such GPU (``measured``: GPU
    slug -> tokens per second, measured recipe only), else the throughput model's."""
    measured = measured if setup.recipe is training_memory.MEASURED else {}
    runs = []
    for plan in plans:
        configuration = plan.configuration
        speed = configuration.gpu.speed
        if not plan.fits_by_estimate or speed is None:
            continue
        timed = measured.get(configuration.gpu.slug) if configuration.count == 1 else None
        sharded = dataclasses.replace(setup, num_gpus=configuration.count)
        tokens_per_s = timed or throughput.tokens_per_second(architecture, sharded, speed)
        if timed is None:  # a derived speed to the token, so that hours follow what is shown
            tokens_per_s = tokens_per_s.quantize(calc.WHOLE, ROUND_HALF_UP)
        band = (
            throughput.EXACT
            if timed is not None
            else throughput.UNCERTAINTY.speed_band(setup.method, speed, configuration.count)
        )
        runs.append(calc.RunPlan(plan, tokens_per_s, timed is not None, training_tokens, band))
    return runs


def configuration_fits(
    architecture: training_memory.Architecture,
    setup: training_memory.TrainingSetup,
    rented: list[selectors.GpuListing],
    planning_gb: Decimal,
) -> list[calc.PlannedFit]:
    """``setup``'s run on each GPU of ``rented`` in 1, 2, 4 and 8 (``planned``)."""
    configurations = calc.host_configurations(gpu.offer for gpu in rented)
    return planned(configurations, peaks_by_count(architecture, setup), planning_gb)


@dataclass(frozen=True)
class FitPlan:
    """Every configuration we rent against a method's rule and the run's estimate."""

    model: str
    setup: training_memory.TrainingSetup  # num_gpus: 1; each configuration shards over its own
    provider: str
    as_of: date
    estimate: calc.MemoryEstimate  # the cited rules' figures for the model's size
    sources: tuple[str, ...]  # the rules' sources, in rule order
    fits: list[calc.PlannedFit]
    checked_on: dict[str, date | None]  # GPU slug -> the day of its price
    architecture: training_memory.Architecture


def run_fit(*, model: str, setup: training_memory.TrainingSetup, at: date | None = None) -> FitPlan:
    """``setup``'s run of ``model`` on each GPU we rent in 1, 2, 4 and 8, at our prices."""
    at = at or timezone.localdate()
    language_model = language_model_on_file(slug=model)
    architecture = architecture_of(language_model)
    method = _method(setup.method)
    house = _house()
    rented = selectors.gpu_listings_for_provider(provider=house, at=at, rentable_only=True)
    estimate = calc.estimate_memory(method.rule, language_model.params_billion)
    return FitPlan(
        model=language_model.slug,
        setup=dataclasses.replace(setup, num_gpus=1),
        provider=house.slug,
        as_of=at,
        estimate=estimate,
        sources=tuple(source.key for source in method.sources),
        fits=configuration_fits(architecture, setup, rented, estimate.planning_gb),
        checked_on={gpu.slug: gpu.checked_on for gpu in rented},
        architecture=architecture,
    )


# --- GET /api/v1/cost/ --------------------------------------------------------------------


@dataclass(frozen=True)
class CostRow:
    """One configuration's cost: for assumed hours (``run`` None) or for a training budget."""

    fit: calc.PlannedFit
    cost: calc.CostRow  # GPUs x hours x price, and the GPU-hour block that covers it
    run: calc.RunPlan | None

    @property
    def time_basis(self) -> str:
        return "assumed" if self.run is None else self.run.time_basis


@dataclass(frozen=True)
class CostPlan:
    fit: FitPlan
    hours: Decimal | None  # the assumed hours; None where a training budget was costed
    training_tokens: int | None  # per epoch; None where hours were assumed
    epochs: int | None
    blocks: list[int]
    rows: list[CostRow]


def run_costs(
    *,
    model: str,
    setup: training_memory.TrainingSetup,
    hours: Decimal | None = None,
    training_tokens: int | None = None,
    epochs: int | None = None,
    gpu: str | None = None,
    count: int | None = None,
    at: date | None = None,
) -> CostPlan:
    """What the run costs on each configuration (of ``gpu`` / ``count``) that fits it by the
    estimate, with the smallest GPU-hour block that covers it: for ``hours`` assumed, or for
    ``training_tokens`` x ``epochs`` at each configuration's speed (``run_plans``)."""
    if hours is not None and (training_tokens is not None or epochs is not None):
        raise PlanningError("hours", "give hours or training_tokens (and epochs), not both")
    plan = run_fit(model=model, setup=setup, at=at)
    if gpu is not None and gpu not in plan.checked_on:
        rented = ", ".join(plan.checked_on)
        raise NotOnFile("gpu", f"no GPU {gpu!r} that we rent (we rent: {rented})")
    fitting = [
        fit
        for fit in plan.fits
        if fit.fits_by_estimate
        and gpu in (None, fit.configuration.gpu.slug)
        and count in (None, fit.configuration.count)
    ]
    blocks = selectors.hour_blocks()
    if hours is None:
        training_tokens = training_tokens or DEFAULT_TRAINING_TOKENS
        epochs = epochs or 1
        timed = selectors.throughput_for(
            language_model=plan.model,
            method=setup.method.value,
            seq_len=setup.seq_len,
            batch_size=setup.batch_size,
            gradient_checkpointing=setup.gradient_checkpointing,
        )
        measured = {} if timed is None else {timed.gpu_slug: timed.tokens_per_s}
        runs = run_plans(fitting, plan.architecture, setup, training_tokens * epochs, measured)
    else:
        runs = [None] * len(fitting)
    scenarios = [
        calc.CostScenario(setup.method.value, fit.configuration, hours or run.hours)
        for fit, run in zip(fitting, runs, strict=True)
    ]
    rows = [
        CostRow(fit, cost, run)
        for fit, cost, run in zip(fitting, calc.cost_table(scenarios, blocks), runs, strict=True)
    ]
    return CostPlan(plan, hours, training_tokens, epochs, blocks, rows)


# --- GET /api/v1/prices/<gpu>/ ------------------------------------------------------------


@dataclass(frozen=True)
class PriceHistory:
    gpu: str
    provider: str
    as_of: date
    points: list[tuple[date, Decimal]]  # (day of the check, USD per GPU-hour), oldest first


def price_history(*, gpu: str, provider: str | None = None, at: date | None = None) -> PriceHistory:
    at = at or timezone.localdate()
    slugs = selectors.gpu_slugs()
    if gpu not in slugs:
        raise NotOnFile("gpu", f"no GPU {gpu!r} on file (known: {', '.join(slugs)})")
    if provider is None:
        chosen = _house()
    else:
        providers = selectors.providers()
        chosen = next((p for p in providers if p.slug == provider), None)
        if chosen is None:
            known = ", ".join(p.slug for p in providers)
            raise NotOnFile("provider", f"no provider {provider!r} on file (known: {known})")
    return PriceHistory(
        gpu=gpu,
        provider=chosen.slug,
        as_of=at,
        points=selectors.gpu_price_history(gpu_slug=gpu, provider=chosen, at=at),
    )
