"""Which GPUs we rent serve a model with vLLM (1, 2, 4 or 8 of a kind on one host, tensor
parallel), and how: the one computation behind ``/api/v1/serving/``, the serving planner page
and the serving guides."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from functools import cached_property

from pricing import planning, selectors
from pricing.domain import serving, serving_speed, throughput
from pricing.domain.calculations import (
    BY_COST,
    BY_GPUS,
    BY_UPFRONT,
    HOST_GPU_COUNTS,
    blocks_covering,
    reported_memory_gb,
    run_cost,
)
from pricing.domain.serving_speed import Speed, SpeedBands, Workload
from pricing.domain.training_memory import Architecture
from pricing.models import LanguageModel

DEFAULT_CONTEXT = 8192
DEFAULT_CONCURRENCY = 1
# A chat turn: a prompt of 1,000 tokens (history included) and an answer of 500.
DEFAULT_PROMPT_TOKENS = 1000
DEFAULT_OUTPUT_TOKENS = 500
DEFAULT_TPOT_TARGET_MS = serving_speed.DEFAULT_TPOT_TARGET_MS


@dataclass(frozen=True)
class RowSpeed:
    """A configuration's steady state for some users, with its ranges and price."""

    speed: Speed
    bands: SpeedBands
    usd_per_hour: Decimal | None

    @property
    def users(self) -> int:
        return self.speed.workload.concurrency

    @property
    def ttft_ms(self) -> tuple[Decimal, Decimal, Decimal]:
        ms, band = self.speed.ttft_ms, self.bands.ttft
        return ms, ms * (1 + band.low), ms * (1 + band.high)

    @property
    def itl_ms(self) -> tuple[Decimal, Decimal, Decimal]:
        ms, band = self.speed.itl_ms, self.bands.itl
        return ms, ms * (1 + band.low), ms * (1 + band.high)

    @property
    def tokens_per_s_per_user(self) -> tuple[Decimal, Decimal, Decimal]:
        """Modelled, low, high: the slower time per token is the lower speed."""
        ms, fast, slow = self.itl_ms
        return 1000 / ms, 1000 / slow, 1000 / fast

    @property
    def tokens_per_s(self) -> tuple[Decimal, Decimal, Decimal]:
        return tuple(self.users * speed for speed in self.tokens_per_s_per_user)

    @property
    def usd_per_million_tokens(self) -> tuple[Decimal, Decimal, Decimal] | None:
        """Modelled, low, high (the faster end is the cheaper); None without a price."""
        if self.usd_per_hour is None:
            return None
        modelled, slow, fast = self.tokens_per_s
        return tuple(
            serving_speed.usd_per_million_tokens(self.usd_per_hour, speed)
            for speed in (modelled, fast, slow)
        )


@dataclass(frozen=True)
class ServingRow:
    gpu: selectors.GpuListing
    count: int
    memory: serving.ServingMemory  # per GPU
    fixes: tuple[serving.Fix, ...]
    command: tuple[str, ...]
    concurrency: int  # what was asked: requests at the full context at once
    at_concurrency: RowSpeed | None  # the asked users' speed; None where vLLM does not start
    at_target: RowSpeed | None  # the most users within the latency target; None where none

    @property
    def starts(self) -> bool:
        return self.memory.starts

    @property
    def serves(self) -> bool:
        return self.starts and self.memory.max_concurrent_requests >= self.concurrency

    @property
    def usd_per_hour(self) -> Decimal | None:
        price = self.gpu.usd_per_gpu_hour
        return None if price is None else price * self.count

    @property
    def usd_per_month(self) -> Decimal | None:
        return run_cost(self.count, serving_speed.HOURS_PER_MONTH, self.gpu.usd_per_gpu_hour)


@dataclass(frozen=True)
class ServingRecommendation:
    chosen: ServingRow
    alternative: ServingRow | None
    close_call: bool
    decided_by: str
    contenders: tuple[ServingRow, ...]


def month_block_usd(row: ServingRow, blocks: tuple[int, ...]) -> Decimal | None:
    """What the GPU-hour block covering a month of the configuration costs up front; None
    without blocks or a price."""
    hours = blocks_covering(serving_speed.HOURS_PER_MONTH * row.count, blocks)
    return None if hours is None else run_cost(1, Decimal(hours), row.gpu.usd_per_gpu_hour)


def _ratio_width(first: ServingRow, second: ServingRow) -> Decimal:
    """How far the ratio of two configurations' costs may be off: their cards' generation
    errors (none between Hopper cards, where both anchors ran, nor on one card) and, between
    GPU counts, the time per token's own error (the all-reduce term differs)."""
    width = Decimal(1)
    if first.gpu.slug != second.gpu.slug:
        for row in (first, second):
            width *= 1 + serving_speed.card_width(row.gpu.speed)
    if first.count != second.count:
        band = serving_speed.ITL_BAND
        width *= 1 + max(-band.low, band.high)
    return width - 1


def recommend(
    rows: tuple[ServingRow, ...], blocks: tuple[int, ...]
) -> ServingRecommendation | None:
    """The fine-tuning guides' rule over cost per million tokens at the target: the cheapest,
    or among those the model cannot tell from it, the cheapest month's block, then fewest GPUs.
    """
    costed = sorted(
        (r for r in rows if r.at_target and r.at_target.usd_per_million_tokens),
        key=lambda r: (r.at_target.usd_per_million_tokens[0], r.count),
    )
    if not costed:
        return None
    cheapest = costed[0]
    cost, _, high = cheapest.at_target.usd_per_million_tokens
    contenders = [cheapest] + [
        r
        for r in costed[1:]
        if (other := r.at_target.usd_per_million_tokens[0]) <= high
        and other <= cost * (1 + _ratio_width(cheapest, r))
    ]
    chosen, decided_by = cheapest, BY_COST
    if len(contenders) > 1:

        def keys(row: ServingRow) -> tuple:
            upfront = month_block_usd(row, blocks)
            return (upfront is None, upfront or Decimal(0)), row.count

        chosen, runner_up = sorted(contenders, key=keys)[:2]
        beaten = cheapest if chosen is not cheapest else runner_up
        pairs = zip((BY_UPFRONT, BY_GPUS), keys(chosen), keys(beaten), strict=True)
        decided_by = next((rule for rule, mine, theirs in pairs if mine != theirs), BY_COST)
    # The alternative: the fastest answer for the asked users (the cheaper on ties).
    others = [r for r in costed if r is not chosen]
    alternative = min(
        others,
        key=lambda r: (r.at_concurrency.speed.itl_s, r.at_target.usd_per_million_tokens[0]),
        default=None,
    )
    return ServingRecommendation(
        chosen, alternative, len(contenders) > 1, decided_by, tuple(contenders)
    )


@dataclass(frozen=True)
class ServingPlan:
    model: LanguageModel | None  # None where the architecture was given field by field
    architecture: Architecture
    setup: serving.ServingSetup  # as asked, on one GPU; each row sets its own count
    concurrency: int
    provider: str
    as_of: date
    rows: tuple[ServingRow, ...]
    workload: Workload  # each user's prompt and answer, the asked users
    tpot_target_ms: int
    blocks: tuple[int, ...]

    @property
    def kv_bytes_per_token(self) -> int:
        return serving.kv_bytes_per_token(self.architecture, self.setup.kv_cache_dtype)

    @property
    def smallest(self) -> tuple[ServingRow, ...]:
        """For each GPU, the fewest that serve the asked concurrency (none where eight do not)."""
        found: dict[str, ServingRow] = {}
        for row in self.rows:
            if row.serves and row.gpu.slug not in found:
                found[row.gpu.slug] = row
        return tuple(found.values())

    @property
    def cheapest(self) -> ServingRow | None:
        """The cheapest per hour of ``smallest`` (then the fewest GPUs), None where none."""
        priced = [row for row in self.smallest if row.usd_per_hour is not None]
        return min(priced, key=lambda row: (row.usd_per_hour, row.count), default=None)

    @cached_property
    def recommendation(self) -> ServingRecommendation | None:
        """``recommend``, worked out once: a guide's tokens ask for it dozens of times."""
        return recommend(self.rows, self.blocks)


# A serving guide's precisions, in its tables' order: as published, converted to fp8 as vLLM
# loads it, and a 4-bit AWQ export (GPTQ's memory and speed are AWQ's).
GUIDE_PRECISIONS = ("bf16", "fp8", "awq")


def guide_plans(
    *,
    language_model: LanguageModel,
    context: int,
    prompt_tokens: int,
    output_tokens: int,
    tpot_target_ms: int,
    catalogue: planning.GpuCatalogue,
    blocks: tuple[int, ...],
    precisions: tuple[str, ...] = GUIDE_PRECISIONS,
) -> dict[str, ServingPlan]:
    """A serving guide's plans, one per weight precision, over the page's own ``catalogue`` and
    ``blocks``; ``planning.PlanningError`` for a model the planner refuses."""
    return {
        precision: serving_plan(
            language_model=language_model,
            setup=serving.ServingSetup(
                weights=serving.WEIGHT_PRECISIONS[precision], context=context
            ),
            prompt_tokens=prompt_tokens,
            output_tokens=output_tokens,
            tpot_target_ms=tpot_target_ms,
            catalogue=catalogue,
            blocks=blocks,
        )
        for precision in precisions
    }


def refuse_unplannable(language_model: LanguageModel, context: int) -> None:
    """A model the computation cannot plan for, or a context longer than the model's."""
    if language_model.sliding_window:
        raise planning.UnusableRecord(
            "model",
            f"{language_model.name} attends to the last {language_model.sliding_window} tokens "
            "in its layers (sliding window); vLLM sizes such a cache by the window, which this "
            "planner does not model yet",
        )
    longest = language_model.max_position_embeddings
    if longest and context > longest:
        raise planning.PlanningError(
            "context", f"must be at most {longest}, the longest context {language_model.name} has"
        )


def serving_plan(
    *,
    model: str | None = None,
    architecture: Architecture | None = None,
    setup: serving.ServingSetup,
    concurrency: int = DEFAULT_CONCURRENCY,
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
    output_tokens: int = DEFAULT_OUTPUT_TOKENS,
    tpot_target_ms: int = DEFAULT_TPOT_TARGET_MS,
    at: date | None = None,
    language_model: LanguageModel | None = None,
    catalogue: planning.GpuCatalogue | None = None,
    blocks: tuple[int, ...] | None = None,
) -> ServingPlan:
    """Each GPU we rent, 1, 2, 4 and 8 on one host, serving a model on file (``model`` or
    ``language_model``) or given by its architecture; prices as of ``at`` (or from a
    ``catalogue`` and ``blocks`` already read)."""
    if model is not None:
        language_model = planning.language_model_on_file(slug=model)
    if language_model is not None:
        refuse_unplannable(language_model, setup.context)
        architecture = planning.architecture_of(language_model)
    catalogue = catalogue or planning.gpu_catalogue(at=at)
    # A model given by its fields has no repository on file: the command names the checkpoint
    # variable, as it does for 4-bit weights.
    unnamed = f"${serving.CHECKPOINT_VARIABLE}"
    repository = language_model.repository if language_model else unnamed
    workload = Workload(prompt_tokens, output_tokens, concurrency)
    target_s = Decimal(tpot_target_ms) / 1000
    rows = tuple(
        _row(architecture, gpu, count, setup, workload, target_s, repository)
        for gpu in catalogue.gpus
        if gpu.rentable
        for count in HOST_GPU_COUNTS
    )
    return ServingPlan(
        model=language_model,
        architecture=architecture,
        setup=setup,
        concurrency=concurrency,
        provider=catalogue.provider,
        as_of=catalogue.as_of,
        rows=rows,
        workload=workload,
        tpot_target_ms=tpot_target_ms,
        blocks=tuple(selectors.hour_blocks()) if blocks is None else blocks,
    )


def _row(
    architecture: Architecture,
    gpu: selectors.GpuListing,
    count: int,
    setup: serving.ServingSetup,
    workload: Workload,
    target_s: Decimal,
    repository: str,
) -> ServingRow:
    setup = replace(setup, tensor_parallel_size=count)
    card = {
        "card_gb": reported_memory_gb(gpu.memory_gb, gpu.measured_memory_gb),
        "ampere": gpu.generation == throughput.AMPERE,
    }
    memory = serving.serving_memory(architecture, setup, **card)
    at_concurrency = at_target = None
    if memory.starts:
        engine = serving_speed.Engine(architecture, setup, gpu.speed)
        bands = serving_speed.serving_bands(gpu.speed)
        price = gpu.usd_per_gpu_hour * count if gpu.usd_per_gpu_hour is not None else None
        at_concurrency = RowSpeed(engine.speed(workload), bands, price)
        # What the cache holds of this workload's requests (prompt and answer, whole blocks).
        per_request = serving.blocks_for(workload.prompt_tokens + workload.output_tokens)
        held = min(memory.kv_tokens // serving.BLOCK_TOKENS // per_request, memory.max_num_seqs)
        users = serving_speed.users_within(engine, workload, target_s, most=held)
        if users:
            at = replace(workload, concurrency=users)
            at_target = RowSpeed(engine.speed(at), bands, price)
    return ServingRow(
        gpu=gpu,
        count=count,
        memory=memory,
        fixes=tuple(serving.fixes(architecture, setup, **card)),
        command=tuple(serving.vllm_serve_command(repository, setup)),
        concurrency=workload.concurrency,
        at_concurrency=at_concurrency,
        at_target=at_target,
    )
