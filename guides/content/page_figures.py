"""Everything a guide page quotes, gathered once per request as plain values.

``PageFigures`` answers the questions prose tokens and tables ask ("the planning memory of
LoRA", "the price of 8x B200 at Massed Compute") from data the selectors already loaded, using
the pricing calculations. It never queries the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal

from pricing.domain import calculations as calc
from pricing.domain import training_memory as tm
from pricing.selectors import FactValue, GpuListing, MethodListing, ThroughputListing


class MissingFigure(LookupError):
    """The data a figure needs is not on file (a GPU never priced at that provider, say)."""


@dataclass(frozen=True)
class PriceDates:
    """The check days of the prices a page (or a table) quotes: the oldest and the newest."""

    oldest: date
    newest: date


def price_dates(days: Iterable[date | None]) -> PriceDates | None:
    """The span of ``days`` (None, for a GPU never priced, is left out); None if none."""
    known = [day for day in days if day is not None]
    return PriceDates(min(known), max(known)) if known else None


class NothingFits(MissingFigure):
    """No priced configuration of the guide's fit table (one host) holds a method."""


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
    licence_notes: dict[str, str] = field(default_factory=dict)  # language code -> note

    # --- memory -------------------------------------------------------------------------

    def method(self, slug: str) -> MethodListing:
        try:
            return self.methods[slug]
        except KeyError:
            raise MissingFigure(f"method {slug}") from None

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
        return calc.weights_only_gb(self.params_billion, weight_bytes)

    def training_setup(self, method: str, num_gpus: int = 1) -> tm.TrainingSetup:
        if self.architecture is None or self.training is None:
            raise MissingFigure("the guide's model architecture and training run")
        try:
            return replace(self.training, method=tm.Method(method), num_gpus=num_gpus)
        except ValueError:
            raise MissingFigure(f"a peak-memory estimate for {method}") from None

    def peak(self, method: str, num_gpus: int = 1) -> tm.PeakMemory:
        """The estimated peak per GPU at the guide's stated training run."""
        setup = self.training_setup(method, num_gpus)
        return tm.estimate_peak_memory(self.architecture, setup)

    def longest_sequence(self, method: str, configuration: calc.Configuration) -> int:
        """The longest sequence the configuration holds at the guide's batch, by the estimate."""
        setup = self.training_setup(method, configuration.count)
        usable = configuration.gpu.usable_gb
        return tm.longest_sequence(self.architecture, setup, usable)

    def throughput(self, method: str) -> ThroughputListing:
        """Training speed measured for the guide's model and run; only where it was measured."""
        try:
            return self.throughputs[method]
        except KeyError:
            raise MissingFigure(f"a throughput measured for {method} at the guide's run") from None

    def ranked(self, method: str) -> list[calc.Configuration]:
        """The fit table's configurations that hold a method, in the recommendation policy's
        order (``calc.ranked_fits``: priced, one host, cheapest per hour, then fewest GPUs)."""
        return calc.ranked_fits(self.configurations, self.memory(method))

    def recommended(self, method: str) -> list[calc.Configuration]:
        """The editor's override, or the first and (as the alternative) the runner-up."""
        override = self.recommendations.get(method)
        if override:
            return override
        ranked = self.ranked(method)
        if not ranked:
            raise NothingFits(f"a configuration on one host that holds {method}")
        return ranked[:2]

    def closest_miss(self, method: str) -> calc.Configuration | None:
        """The fit table's largest configuration that is still too small for a method."""
        return calc.closest_miss(self.configurations, self.memory(method))

    # --- GPUs, configurations, prices ---------------------------------------------------

    def listing(self, gpu: str, provider: str | None = None) -> GpuListing:
        """The GPU at the provider (ours by default); its price's check day counts as quoted."""
        try:
            found = self.listings[provider or self.house][gpu]
        except KeyError:
            raise MissingFigure(f"GPU {gpu} at {provider or self.house}") from None
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

    def rentable_offers(self) -> list[calc.GpuOffer]:
        return [g.offer for g in self.listings[self.house].values() if g.rentable]

    def smallest_gpu(self, slug: str) -> GpuListing:
        offer = calc.smallest_fitting_gpu(self.rentable_offers(), self.memory(slug))
        if offer is None:
            raise MissingFigure(f"a single GPU that fits {slug}")
        return self.listing(offer.slug)

    def cheapest(self, slug: str) -> calc.Configuration:
        config = calc.cheapest_fit(self.configurations, self.memory(slug))
        if config is None:
            raise NothingFits(f"a configuration that fits {slug}")
        return config

    def scenario_blocks(self) -> list[int]:
        """The hour blocks that the guide's cost scenarios fill, smallest first."""
        covering = {calc.covering_block(h, self.blocks) for h in self.scenario_gpu_hours}
        return sorted(b for b in covering if b is not None)

    def fact(self, key: str) -> FactValue:
        try:
            return self.facts[key]
        except KeyError:
            raise MissingFigure(f"fact {key}") from None
