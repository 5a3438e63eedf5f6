"""Everything a guide page quotes: ``PageFigures`` answers what prose tokens and tables ask
("the planning memory of LoRA") from data the selectors loaded once per request, using the
pricing calculations. It never queries the database."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from functools import cached_property

from pricing import planning, serving_plans
from pricing.domain import calculations as calc
from pricing.domain import footprint as fp
from pricing.domain import training_memory as tm
from pricing.selectors import FactValue, GpuListing, MethodListing, ThroughputListing


class MissingFigure(LookupError):
    """The data a figure needs is not on file (a GPU never priced at that provider, say)."""


@dataclass(frozen=True)
class PriceDates:
    """The check days of the prices a page (or a table) quotes: the oldest and the newest."""

    oldest: date
    newest: date

    def stale(self, *, today: date, after_days: int) -> bool:
        """Whether the oldest price was checked more than ``after_days`` days before ``today``."""
        return (today - self.oldest).days > after_days


def price_dates(days: Iterable[date | None]) -> PriceDates | None:
    """The span of ``days`` (None, for a GPU never priced, is left out); None if none."""
    known = [day for day in days if day is not None]
    return PriceDates(min(known), max(known)) if known else None


class NothingFits(MissingFigure):
    """No priced configuration of the guide's fit table (one host) holds a method."""


def _found(mapping: Mapping, key: str, what: str):
    try:
        return mapping[key]
    except KeyError:
        raise MissingFigure(what) from None


@dataclass
class PageFigures:
    params_billion: Decimal
    house: str
    house_name: str
    methods: dict[str, MethodListing]
    listings: dict[str, dict[str, GpuListing]]  # provider slug -> GPU slug -> listing
    check_dates: dict[str, date | None]
    configurations: list[calc.Configuration] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    scenario_gpu_hours: list[Decimal] = field(default_factory=list)
    scenarios: list[calc.CostScenario] = field(default_factory=list)  # the cost table's runs
    facts: dict[str, FactValue] = field(default_factory=dict)
    # The guide's model and training run, for the peak-memory estimate (None off guide pages).
    architecture: tm.Architecture | None = None
    training: tm.TrainingSetup | None = None
    # The editor's override per method; without one, recommendations are computed.
    recommendations: dict[str, list[calc.Configuration]] = field(default_factory=dict)
    throughputs: dict[str, ThroughputListing] = field(default_factory=dict)  # at the guide's run
    # The check day of every price handed out so far, for the page's "prices checked on".
    quoted_on: set[date] = field(default_factory=set)
    model_name: str = ""  # the guide's language model, for [[model]]
    model_repository: str = ""  # its Hugging Face repository: the tutorial needs one
    guide_slug: str = ""  # the guide's own, for [[tutorial_link]] ("" off guide pages)
    licence_notes: dict[str, str] = field(default_factory=dict)  # language code -> note
    # The training budget runs are costed for: tokens per epoch x epochs.
    tokens_per_epoch: int = planning.DEFAULT_TRAINING_TOKENS
    epochs: int = 1
    # A serving guide's plans by weight precision (``serving_plans.guide_plans``); empty for a
    # fine-tuning guide, or where the planner refuses the model.
    serving: dict[str, serving_plans.ServingPlan] = field(default_factory=dict)
    # Peaks, plans, runs and recommendations by (what, method): a page asks for each dozens of
    # times. Like the cached properties, this assumes the data is set before the first question.
    _known: dict[tuple[str, str], dict] = field(default_factory=dict, init=False, repr=False)

    # --- serving ------------------------------------------------------------------------

    def serving_plan(self, precision: str) -> serving_plans.ServingPlan:
        return _found(self.serving, precision, f"a serving plan in {precision}")

    def serving_choice(self, precision: str) -> serving_plans.ServingRecommendation:
        """The cheapest million output tokens at the latency target in ``precision``."""
        choice = self.serving_plan(precision).recommendation
        if choice is None:
            raise MissingFigure(f"a configuration serving {precision} within the target")
        self.quoted_on.add(choice.chosen.gpu.checked_on)
        return choice

    # --- memory -------------------------------------------------------------------------

    def method(self, slug: str) -> MethodListing:
        return _found(self.methods, slug, f"method {slug}")

    def estimate(self, slug: str) -> calc.MemoryEstimate:
        return calc.estimate_memory(self.method(slug).rule, self.params_billion)

    def memory(self, slug: str, which: str = "planning") -> Decimal:
        estimate = self.estimate(slug)
        return {"lower": estimate.lower_gb, "upper": estimate.upper_gb}.get(
            which, estimate.planning_gb
        )

    def rule(self, slug: str, index: int = 1) -> calc.MemoryRule:
        rules = self.method(slug).rule.rules
        if not 1 <= index <= len(rules):
            raise MissingFigure(f"rule {index} of {slug}")
        return rules[index - 1]

    def weights_gb(self, slug: str) -> Decimal:
        weight_bytes = self.method(slug).rule.weight_bytes_per_param
        if weight_bytes is None:
            raise MissingFigure(f"weight bytes of {slug}")
        return self.params_billion * weight_bytes

    def training_setup(self, method: str, num_gpus: int = 1) -> tm.TrainingSetup:
        if self.architecture is None or self.training is None:
            raise MissingFigure("the guide's model architecture and training run")
        try:
            return replace(self.training, method=tm.Method(method), num_gpus=num_gpus)
        except ValueError:
            raise MissingFigure(f"a peak-memory estimate for {method}") from None

    def peak(self, method: str, num_gpus: int = 1) -> tm.PeakMemory:
        """The estimated peak per GPU at the guide's stated training run."""
        return tm.estimate_peak_memory(self.architecture, self.training_setup(method, num_gpus))

    def longest_sequence(self, method: str, configuration: calc.Configuration) -> int:
        """The longest sequence the configuration holds at the guide's batch, by the estimate."""
        setup = self.training_setup(method, configuration.count)
        return tm.longest_sequence(self.architecture, setup, configuration.usable_gb_per_gpu)

    def footprint(self, method: str, configuration: calc.Configuration) -> fp.Footprint:
        """The download, disk and host memory of the guide's run on ``configuration``."""
        return fp.run_footprint(self.architecture, self.training_setup(method, configuration.count))

    def throughput(self, method: str) -> ThroughputListing:
        what = f"a throughput measured for {method} at the guide's run"
        return _found(self.throughputs, method, what)

    # --- the estimate decides: fits and recommendations ------------------------------
    # Every fit, recommendation and claim of a guide is the run's peak-memory estimate
    # against each card's usable memory (``pricing.planning.planned``), as the planner page
    # and the API decide; the cited rules (``memory``) are shown as the rules of thumb they are.

    def peaks(self, method: str) -> dict[int, tm.PeakMemory]:
        """The estimate at the guide's run for each GPU count we rent per host."""
        if ("peaks", method) not in self._known:
            setup = self.training_setup(method)
            self._known["peaks", method] = planning.peaks_by_count(self.architecture, setup)
        return self._known["peaks", method]

    def plans(
        self, method: str, configurations: Iterable[calc.Configuration] | None = None
    ) -> list[calc.PlannedFit]:
        """``configurations`` (by default every one we rent: each GPU in 1, 2, 4 and 8) against
        the estimate at the guide's run."""
        if configurations is None:
            configurations = self.host_configurations
        configurations = list(configurations)
        known = self._known.setdefault(("plans", method), {})
        missing = list(dict.fromkeys(c for c in configurations if c not in known))
        if missing:
            planned = planning.planned(missing, self.peaks(method), self.memory(method))
            known.update(zip(missing, planned, strict=True))
        return [known[c] for c in configurations]

    @cached_property
    def host_configurations(self) -> list[calc.Configuration]:
        """Every configuration we rent (``calc.host_configurations``), made once a page."""
        return calc.host_configurations(self.rentable_offers)

    def plan(self, method: str, configuration: calc.Configuration) -> calc.PlannedFit:
        return self.plans(method, [configuration])[0]

    def fits(self, method: str, configuration: calc.Configuration) -> bool:
        return self.plan(method, configuration).fits_by_estimate

    @property
    def training_tokens(self) -> int:
        return self.tokens_per_epoch * self.epochs

    def runs(
        self, method: str, configurations: Iterable[calc.Configuration] | None = None
    ) -> list[calc.RunPlan]:
        """The training budget on each of ``configurations`` (by default every one we rent)
        that holds the run by the estimate: hours, GPU-hours and cost per run
        (``planning.run_plans``; measured where this run was timed on the GPU, else derived)."""
        plans = self.plans(method, configurations)
        known = self._known.setdefault(("runs", method), {})
        missing = list({p.configuration: p for p in plans if p.configuration not in known}.values())
        if missing:
            timed = self.throughputs.get(method)
            measured = {timed.gpu_slug: timed.tokens_per_s} if timed is not None else {}
            runs = planning.run_plans(
                missing,
                self.architecture,
                self.training_setup(method),
                self.training_tokens,
                measured,
            )
            found = {r.configuration: r for r in runs}
            known.update({p.configuration: found.get(p.configuration) for p in missing})
        return [r for p in plans if (r := known[p.configuration]) is not None]

    def is_override(self, method: str) -> bool:
        """Whether the editor chose the method's recommendations (the page says so)."""
        return bool(self.recommendations.get(method))

    def recommended(self, method: str) -> list[calc.Configuration]:
        """The editor's override, or the computed recommendation and (as the alternative) the
        fastest other run (``calc.recommendation``)."""
        override = self.recommendations.get(method)
        if override:
            return override
        found = self._recommendation(method)
        if found is None:
            raise NothingFits(f"a configuration on one host that holds {method}")
        chosen = [r.configuration for r in found.runs]
        for configuration in chosen:
            self.listing(configuration.gpu.slug)  # its price's day counts as quoted
        return chosen

    def close_call(self, method: str) -> calc.Recommendation | None:
        """The computed recommendation where it was a close call (the model cannot tell the
        cheapest runs apart); None where the cheapest run decided, or the editor chose."""
        if self.is_override(method):
            return None
        found = self._recommendation(method)
        return found if found is not None and found.close_call else None

    def _recommendation(self, method: str) -> calc.Recommendation | None:
        if ("recommendation", method) not in self._known:
            found = calc.recommendation(self.runs(method), self.blocks)
            self._known["recommendation", method] = found
        return self._known["recommendation", method]

    def recommended_plans(self, method: str) -> list[calc.PlannedFit]:
        return self.plans(method, self.recommended(method))

    def recommended_runs(self, method: str) -> list[calc.RunPlan]:
        """The recommended configurations' runs (an override the run outgrew has none)."""
        return self.runs(method, self.recommended(method))

    def table_configurations(self) -> list[calc.Configuration]:
        """The fit table's rows: the guide's configurations and every one it recommends, by
        total memory, then price (so a recommendation is always a row of the table)."""
        for configuration in self._table_configurations:
            self.listing(configuration.gpu.slug)  # its price's day counts as quoted
        return list(self._table_configurations)

    @cached_property
    def _table_configurations(self) -> list[calc.Configuration]:
        rows = list(self.configurations)
        for method in self.methods:
            rows += [c for c in self._named_by_prose(method) if c not in rows]
        return sorted(
            rows, key=lambda c: (c.total_memory_gb, c.usd_per_hour is None, c.usd_per_hour or 0)
        )

    def _named_by_prose(self, method: str) -> list[calc.Configuration]:
        """What the page says a method needs and what it recommends: rows of the fit table."""
        named = []
        with suppress(MissingFigure):
            named.append(self.smallest_fit(method).configuration)
        with suppress(MissingFigure):
            named += self.recommended(method)
        return named

    # --- GPUs, configurations, prices ---------------------------------------------------

    def listing(self, gpu: str, provider: str | None = None) -> GpuListing:
        """The GPU at the provider (ours by default); its price's check day counts as quoted."""
        at = provider or self.house
        found = _found(self.listings.get(at, {}), gpu, f"GPU {gpu} at {at}")
        if found.checked_on is not None:
            self.quoted_on.add(found.checked_on)
        return found

    def configuration(
        self, gpu: str, count: int = 1, *, provider: str | None = None
    ) -> calc.Configuration:
        return self.listing(gpu, provider).configuration(count)

    def price(self, gpu: str, count: int = 1, *, provider: str | None = None) -> Decimal:
        price = self.configuration(gpu, count, provider=provider).usd_per_hour
        if price is None:
            raise MissingFigure(f"a price for {gpu} at {provider or self.house}")
        return price

    def check_date(self, provider: str | None = None) -> date:
        checked = self.check_dates.get(provider or self.house)
        if checked is None:
            raise MissingFigure(f"a price check of {provider or self.house}")
        return checked

    @cached_property
    def rentable_offers(self) -> list[calc.GpuOffer]:
        return [g.offer for g in self.listings[self.house].values() if g.rentable]

    def smallest_gpu(self, slug: str) -> GpuListing:
        """The single card we rent with the least memory that holds the run, the cheaper on ties."""
        singles = [calc.Configuration(o) for o in self.rentable_offers]
        fitting = [p.configuration.gpu for p in _priced_fits(self.plans(slug, singles))]
        if not fitting:
            raise MissingFigure(f"a single GPU that fits {slug}")
        offer = min(fitting, key=lambda o: (o.memory_gb, o.usd_per_gpu_hour))
        return self.listing(offer.slug)

    def smallest_fit(self, method: str) -> calc.PlannedFit:
        """What a method needs: the configuration we rent with the fewest GPUs, then the
        smallest card, that holds the run by the estimate (the cheaper on ties). Every
        "needs" sentence names it; the recommendation (``recommended``) may be larger."""
        fitting = _priced_fits(self.plans(method))
        if not fitting:
            raise NothingFits(f"a configuration on one host that holds {method}")
        plan = min(fitting, key=_smallest_first)
        self.listing(plan.configuration.gpu.slug)  # its price's day counts as quoted
        return plan

    def cheapest(self, slug: str) -> calc.Configuration:
        """The first run in the recommendation policy's order (``calc.ranked_runs``)."""
        ranked = calc.ranked_runs(self.runs(slug))
        if not ranked:
            raise NothingFits(f"a configuration that fits {slug}")
        return ranked[0].configuration

    def scenario_blocks(self) -> list[int]:
        """The hour blocks that the guide's cost scenarios fill, smallest first."""
        covering = {calc.covering_block(h, self.blocks) for h in self.scenario_gpu_hours}
        return sorted(b for b in covering if b is not None)

    def fact(self, key: str) -> FactValue:
        return _found(self.facts, key, f"fact {key}")


def _priced_fits(plans: Iterable[calc.PlannedFit]) -> list[calc.PlannedFit]:
    return [p for p in plans if p.fits_by_estimate and p.configuration.usd_per_hour is not None]


def _smallest_first(plan: calc.PlannedFit) -> tuple:
    configuration = plan.configuration
    return (configuration.count, configuration.gpu.memory_gb, configuration.usd_per_hour)
