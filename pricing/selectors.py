"""Every read of pricing data: keyword-only, typed, a fixed number of queries whatever the
history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import F, OuterRef, Prefetch, Q, Subquery, Window
from django.db.models.functions import Lag, Lead
from django.utils import timezone

from gpuguide.lib import cache_tags
from pricing import cache_tags as pricing_tags
from pricing.domain import calculations, measurements, throughput
from pricing.models import (
    Fact,
    Gpu,
    HourBlock,
    LanguageModel,
    MemoryRule,
    Method,
    Price,
    PriceCheck,
    Provider,
    Source,
    ThroughputMeasurement,
)

HISTORY_DAYS = 365  # how far back price-history charts reach


@dataclass(frozen=True)
class GpuListing:
    """A GPU with its specs and its latest price at one provider (None where never priced)."""

    pk: int
    slug: str
    name: str
    vendor: str
    memory_gb: Decimal
    bandwidth_gb_s: Decimal
    bf16_dense_tflops: Decimal
    form_factor: str
    rentable: bool
    usd_per_gpu_hour: Decimal | None
    checked_on: date | None
    quoted_usd_per_hour: Decimal | None = None  # as quoted: per GPU, or per instance
    gpus_in_quote: int | None = None
    form_factor_code: str = ""  # a Gpu.FormFactor value (sxm, pcie, consumer), for the API
    measured_memory_gb: Decimal | None = None  # what PyTorch reports on such a card
    host_memory_gb_per_gpu: Decimal | None = None  # the host's memory / its GPUs
    link_gb_s: Decimal = Decimal(32)  # per GPU, one direction
    generation: str = throughput.HOPPER  # picks the throughput model's efficiency

    @property
    def speed(self) -> throughput.GpuSpeed:
        return throughput.GpuSpeed(
            self.bf16_dense_tflops,
            self.bandwidth_gb_s,
            self.link_gb_s,
            self.generation,
            calibration_card=self.slug == measurements.CALIBRATION_CARD,
        )

    @property
    def offer(self) -> calculations.GpuOffer:
        return calculations.GpuOffer(
            self.slug,
            self.name,
            self.memory_gb,
            self.usd_per_gpu_hour,
            self.measured_memory_gb,
            self.speed,
            self.host_memory_gb_per_gpu,
        )

    @property
    def reported_gb(self) -> Decimal:
        return self.offer.reported_gb

    @property
    def usable_gb(self) -> Decimal:
        return self.offer.usable_gb

    def configuration(self, count: int) -> calculations.Configuration:
        """``count`` of this GPU at this provider's price, as the calculations take it."""
        return calculations.Configuration(self.offer, count)


@dataclass(frozen=True)
class SourceRef:
    key: str
    title: str
    publisher: str
    url: str
    read_on: date


@dataclass(frozen=True)
class MethodListing:
    slug: str
    name: str
    short_name: str
    prose_name: str  # as a sentence names it (the name where the editors gave none)
    rule: calculations.MethodRule
    sources: tuple[SourceRef, ...]  # one per rule, in rule order


@dataclass(frozen=True)
class FactValue:
    value: Decimal
    kind: str  # a Fact.Kind: number, usd or percent


def house_provider() -> Provider:
    """The provider whose prices our pages quote; raises Provider.DoesNotExist before setup."""
    return Provider.objects.get(is_house=True)


def providers() -> list[Provider]:
    """Every provider, ours first."""
    return list(Provider.objects.all())


def gpu_listings_for_provider(
    *,
    provider: Provider,
    at: date | None = None,
    rentable_only: bool = False,
    slugs: Sequence[str] | None = None,
) -> list[GpuListing]:
    listings = gpu_listings_for_providers(
        providers=[provider], at=at, rentable_only=rentable_only, slugs=slugs
    )
    return listings[provider.slug]


def gpu_listings_for_providers(
    *,
    providers: Sequence[Provider],
    at: date | None = None,
    rentable_only: bool = False,
    slugs: Sequence[str] | None = None,
) -> dict[str, list[GpuListing]]:
    """Per provider slug, every GPU (or those in ``slugs``) with its latest price there as of
    ``at``, in one query. Written as SQL: the ORM's took 8 ms of CPU to compile, this 0.6 ms."""
    at = at or timezone.localdate()
    cache_tags.record(*(pricing_tags.prices(provider.pk) for provider in providers))
    gpus = list(Gpu.objects.raw(*_latest_prices_sql(providers, at, rentable_only, slugs)))
    # A GPU's own fields (its choices' labels among them) worked out once, not per provider.
    specs = [gpu_specs(gpu) for gpu in gpus]
    listings = {}
    for provider in providers:
        pk = int(provider.pk)
        quoted, quote_gpus, priced_on = f"quoted_{pk}", f"quote_gpus_{pk}", f"priced_on_{pk}"
        listings[provider.slug] = [
            _listing(
                spec,
                quoted=getattr(gpu, quoted),
                gpus_in_quote=getattr(gpu, quote_gpus),
                checked_on=getattr(gpu, priced_on),
            )
            for gpu, spec in zip(gpus, specs, strict=True)
        ]
    return listings


def _latest_prices_sql(
    providers: Sequence[Provider], at: date, rentable_only: bool, slugs: Sequence[str] | None
) -> tuple[str, list]:
    """GPU rows, each joined to its latest current price at each provider as columns
    ``quoted_<pk>``, ``quote_gpus_<pk>`` and ``priced_on_<pk>`` (NULL where never priced by
    ``at``). ``NOT superseded`` repeats the index's condition word for word, as SQLite needs."""
    columns, joins, params = ["g.*"], [], []
    for provider in providers:
        alias = f"p{int(provider.pk)}"
        columns += [
            f"{alias}.quoted_usd_per_hour AS quoted_{int(provider.pk)}",
            f"{alias}.gpus_in_quote AS quote_gpus_{int(provider.pk)}",
            f"{alias}.checked_on AS priced_on_{int(provider.pk)}",
        ]
        joins.append(
            f"LEFT JOIN pricing_price {alias} ON {alias}.id = ("
            "SELECT latest.id FROM pricing_price latest WHERE latest.provider_id = %s "
            "AND latest.gpu_id = g.id AND latest.checked_on <= %s AND NOT latest.superseded "
            "ORDER BY latest.checked_on DESC LIMIT 1)"
        )
        params += [provider.pk, at]
    where = ["1 = 1"]
    if rentable_only:
        where.append("g.rentable = %s")
        params.append(True)
    if slugs is not None:
        where.append(f"g.slug IN ({', '.join(['%s'] * len(slugs))})" if slugs else "1 = 0")
        params += list(slugs)
    sql = (
        f"SELECT {', '.join(columns)} FROM pricing_gpu g {' '.join(joins)} "
        f"WHERE {' AND '.join(where)} ORDER BY g.position, g.memory_gb, g.slug"  # Gpu's order
    )
    return sql, params


# Raw columns skip the DecimalField converter (SQLite answers a float): quantize like the field.
_PRICE_PLACES = Decimal(1).scaleb(-Price._meta.get_field("quoted_usd_per_hour").decimal_places)


def gpu_specs(gpu: Gpu) -> dict:
    """The GpuListing fields that are the GPU's own (also of an edited, unsaved GPU)."""
    return {
        "pk": gpu.pk,
        "slug": gpu.slug,
        "name": gpu.name,
        "vendor": gpu.vendor,
        "memory_gb": gpu.memory_gb,
        "bandwidth_gb_s": gpu.bandwidth_gb_s,
        "bf16_dense_tflops": gpu.bf16_dense_tflops,
        "form_factor": gpu.get_form_factor_display(),
        "rentable": gpu.rentable,
        "form_factor_code": gpu.form_factor,
        "measured_memory_gb": gpu.measured_memory_gb,
        "host_memory_gb_per_gpu": gpu.host_memory_gb_per_gpu,
        "link_gb_s": gpu.link_gb_s,
        "generation": gpu.generation,
    }


def _listing(specs: dict, *, quoted, gpus_in_quote: int | None, checked_on) -> GpuListing:
    quoted = None if quoted is None else Decimal(str(quoted)).quantize(_PRICE_PLACES)
    return GpuListing(
        **specs,
        usd_per_gpu_hour=(
            None if quoted is None else calculations.per_gpu_price(quoted, gpus_in_quote)
        ),
        checked_on=checked_on,
        quoted_usd_per_hour=quoted,
        gpus_in_quote=gpus_in_quote,
    )


def latest_check_dates(*, at: date | None = None) -> dict[str, date]:
    """Provider slug -> the day of its most recent price check on or before ``at``: one seek
    per provider in the index, not a GROUP BY over every check."""
    latest = (
        PriceCheck.objects.current()
        .filter(provider=OuterRef("pk"), checked_on__lte=at or timezone.localdate())
        .order_by("-checked_on")
        .values("checked_on")[:1]
    )
    found = list(
        Provider.objects.annotate(latest=Subquery(latest)).values_list("pk", "slug", "latest")
    )
    cache_tags.record(*(pricing_tags.prices(pk) for pk, _slug, _day in found))
    return {slug: day for _pk, slug, day in found if day is not None}


def latest_check_date(*, provider: Provider, at: date | None = None) -> date | None:
    return _check_day(provider, "-checked_on", checked_on__lte=at or timezone.localdate())


def first_check_date(*, provider: Provider) -> date | None:
    return _check_day(provider, "checked_on")


def _check_day(provider: Provider, order: str, **when) -> date | None:
    """The day of ``provider``'s first current check in ``order`` (one seek), None if none."""
    cache_tags.record(pricing_tags.prices(provider.pk))
    checks = PriceCheck.objects.current().filter(provider=provider, **when).order_by(order)
    return checks.values_list("checked_on", flat=True).first()


def method_listings() -> list[MethodListing]:
    """Every method with its rules and components, in three queries."""
    methods = Method.objects.prefetch_related(
        Prefetch(
            "rules",
            queryset=MemoryRule.objects.select_related("source").prefetch_related("components"),
        )
    )
    return [_method_listing(method) for method in methods]


def _method_listing(method: Method) -> MethodListing:
    rules = tuple(
        calculations.MemoryRule(
            source=rule.source.key,
            components=tuple(
                calculations.MemoryComponent(c.part, c.bytes_per_param)
                for c in rule.components.all()
            ),
            reference_memory_gb=rule.reference_memory_gb,
            reference_params_billion=rule.reference_params_billion,
            round_up_to=rule.round_up_to,
        )
        for rule in method.rules.all()
    )
    return MethodListing(
        slug=method.slug,
        name=method.name,
        short_name=method.short_name,
        prose_name=method.prose_name or method.name,
        rule=calculations.MethodRule(
            slug=method.slug,
            rules=rules,
            planning_margin=method.planning_margin_percent / 100,
            weight_bytes_per_param=method.weight_bytes_per_param,
        ),
        sources=tuple(
            SourceRef(
                r.source.key, r.source.title, r.source.publisher, r.source.url, r.source.read_on
            )
            for r in method.rules.all()
        ),
    )


def gpu_slugs() -> list[str]:
    return list(Gpu.objects.values_list("slug", flat=True))


def hour_blocks() -> list[int]:
    return list(HourBlock.objects.values_list("hours", flat=True))


def language_models() -> list[LanguageModel]:
    return list(LanguageModel.objects.all())


def language_model_by_slug(*, slug: str) -> LanguageModel | None:
    return LanguageModel.objects.filter(slug=slug).first()


@dataclass(frozen=True)
class ThroughputListing:
    """Training speed measured for one recipe on one GPU."""

    gpu_slug: str
    gpu_name: str
    tokens_per_s: Decimal
    measured_on: date
    recipe: str


def throughputs_for_run(
    *, language_model: str, seq_len: int, batch_size: int, gradient_checkpointing: bool
) -> dict[str, ThroughputListing]:
    """Method slug -> its measurement of exactly this run: where several GPUs timed it, the
    first GPU in the catalogue's order (so every page quotes the same one)."""
    found = ThroughputMeasurement.objects.select_related("gpu", "method").filter(
        language_model__slug=language_model,
        seq_len=seq_len,
        batch_size=batch_size,
        gradient_checkpointing=gradient_checkpointing,
    )
    listings: dict[str, ThroughputListing] = {}
    for measurement in found:
        listings.setdefault(measurement.method.slug, _throughput_listing(measurement))
    return listings


def throughput_for(
    *,
    language_model: str,
    method: str,
    seq_len: int,
    batch_size: int,
    gradient_checkpointing: bool,
) -> ThroughputListing | None:
    """One method's measurement of the run: ``throughputs_for_run``'s, so the planner and
    the guides pick the same."""
    run = throughputs_for_run(
        language_model=language_model,
        seq_len=seq_len,
        batch_size=batch_size,
        gradient_checkpointing=gradient_checkpointing,
    )
    return run.get(method)


@dataclass(frozen=True)
class ThroughputRun:
    """One measurement with the run it measured, keyed as ``throughputs_for_run`` asks."""

    run: dict  # language_model (slug), seq_len, batch_size, gradient_checkpointing
    method: str
    listing: ThroughputListing


def throughput_runs() -> list[ThroughputRun]:
    found = ThroughputMeasurement.objects.select_related("gpu", "method", "language_model")
    return [
        ThroughputRun(
            run={
                "language_model": m.language_model.slug,
                "seq_len": m.seq_len,
                "batch_size": m.batch_size,
                "gradient_checkpointing": m.gradient_checkpointing,
            },
            method=m.method.slug,
            listing=_throughput_listing(m),
        )
        for m in found
    ]


def _throughput_listing(found: ThroughputMeasurement) -> ThroughputListing:
    return ThroughputListing(
        gpu_slug=found.gpu.slug,
        gpu_name=found.gpu.name,
        tokens_per_s=found.tokens_per_s,
        measured_on=found.measured_on,
        recipe=found.recipe,
    )


def facts() -> dict[str, FactValue]:
    return {f.key: FactValue(f.value, f.kind) for f in Fact.objects.all()}


def sources_by_key(*, keys: Sequence[str]) -> list[Source]:
    """Those that exist, in the order asked."""
    found = {source.key: source for source in Source.objects.filter(key__in=keys)}
    return [found[key] for key in keys if key in found]


def sources_read_before(*, day: date) -> list[Source]:
    return list(Source.objects.filter(read_on__lt=day))


@dataclass(frozen=True)
class PriceRun:
    """One price at one provider, from the first check that quoted it to the last before it
    changed (the same day where only one check quoted it)."""

    first: date
    last: date
    usd_per_gpu_hour: Decimal


def price_runs(
    *,
    providers: Sequence[Provider],
    at: date | None = None,
    days: int = HISTORY_DAYS,
    gpu: int | None = None,
) -> dict[str, dict[int, list[PriceRun]]]:
    """Provider slug -> GPU id -> its runs of one price over the ``days`` up to ``at``, oldest
    first, in one query. The database (LAG and LEAD) returns only each run's first and last
    check, so a year of daily checks at one price is 2 rows."""
    at = at or timezone.localdate()
    cache_tags.record(*(pricing_tags.prices(p.pk) for p in providers))
    window = {"partition_by": [F("provider_id"), F("gpu_id")], "order_by": F("checked_on").asc()}
    quoted, gpus = "quoted_usd_per_hour", "gpus_in_quote"
    prices = (
        Price.objects.current()
        .filter(provider__in=providers, checked_on__gt=at - timedelta(days=days))
        .as_of(at)
    )
    if gpu is not None:
        prices = prices.filter(gpu=gpu)
    rows = (
        prices.values("provider_id", "gpu_id", "checked_on", quoted, gpus)
        .annotate(
            before=Window(Lag(quoted), **window),
            gpus_before=Window(Lag(gpus), **window),
            after=Window(Lead(quoted), **window),
            gpus_after=Window(Lead(gpus), **window),
        )
        .filter(
            Q(before=None)
            | ~Q(before=F(quoted))
            | ~Q(gpus_before=F(gpus))
            | Q(after=None)
            | ~Q(after=F(quoted))
            | ~Q(gpus_after=F(gpus))
        )  # fmt: skip
        .order_by("provider_id", "gpu_id", "checked_on")
        .values_list("provider_id", "gpu_id", "checked_on", quoted, gpus)
    )
    slugs = {p.pk: p.slug for p in providers}
    runs: dict[str, dict[int, list[PriceRun]]] = {p.slug: {} for p in providers}
    for provider_id, gpu_id, day, price, count in rows:
        gpu_runs = runs[slugs[provider_id]].setdefault(gpu_id, [])
        usd = calculations.per_gpu_price(price, count)
        if gpu_runs and gpu_runs[-1].usd_per_gpu_hour == usd:
            # The run goes on: its last check (a new quote at the same price per GPU too).
            gpu_runs[-1] = replace(gpu_runs[-1], last=day)
        else:
            gpu_runs.append(PriceRun(day, day, usd))
    return runs


RECENT_PRICES = 3  # the latest prices a summary keeps (a chart line's description names them)


@dataclass(frozen=True)
class PriceSummary:
    """One provider's prices for one GPU over a window: the first and the latest runs, the
    lowest, the highest, how many, and the latest RECENT_PRICES, oldest first."""

    first: PriceRun
    latest: PriceRun
    low: Decimal
    high: Decimal
    prices: int
    recent: tuple[PriceRun, ...]

    @property
    def changes(self) -> int:
        return self.prices - 1

    @property
    def checked_once(self) -> bool:
        """One price checked on one day: nothing says how long it held."""
        return self.prices == 1 and self.first.first == self.first.last


def price_summaries(
    *, providers: Sequence[Provider], at: date | None = None
) -> dict[str, dict[int, PriceSummary]]:
    """Provider slug -> GPU id -> the summary of its prices over the year up to ``at``."""
    return {
        slug: {gpu: _summary(gpu_runs) for gpu, gpu_runs in by_gpu.items()}
        for slug, by_gpu in price_runs(providers=providers, at=at).items()
    }


def _summary(runs: list[PriceRun]) -> PriceSummary:
    prices = [run.usd_per_gpu_hour for run in runs]
    return PriceSummary(
        first=runs[0],
        latest=runs[-1],
        low=min(prices),
        high=max(prices),
        prices=len(runs),
        recent=tuple(runs[-RECENT_PRICES:]),
    )


def gpu_price_history(
    *, gpu_slug: str, provider: Provider, at: date | None = None
) -> list[tuple[date, Decimal]]:
    """One GPU's (date, USD per GPU-hour) points at ``provider`` up to ``at``, oldest first."""
    cache_tags.record(pricing_tags.prices(provider.pk))
    prices = (
        Price.objects.current()
        .filter(gpu__slug=gpu_slug, provider=provider)
        .as_of(at)
        .order_by("checked_on")
        .values_list("checked_on", "quoted_usd_per_hour", "gpus_in_quote")
    )
    return [(day, calculations.per_gpu_price(quoted, gpus)) for day, quoted, gpus in prices]


def price_check_sources(*, checks: Sequence[tuple[str, date]]) -> dict[tuple[str, date], str]:
    """(provider slug, check day) -> the page its prices were read from, for ``checks``."""
    if not checks:
        return {}
    wanted = set(checks)
    found = (
        PriceCheck.objects.current()
        .filter(checked_on__in={day for _slug, day in wanted})
        .values_list("provider__slug", "checked_on", "source_url")
    )
    return {(slug, day): url for slug, day, url in found if (slug, day) in wanted}


def price_check_exists(*, provider: Provider, checked_on: date) -> bool:
    return PriceCheck.objects.current().filter(provider=provider, checked_on=checked_on).exists()
