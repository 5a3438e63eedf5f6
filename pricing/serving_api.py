"""``GET /api/v1/serving/``: which GPUs we rent serve a model with vLLM, as ``serving_plans``
computes it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from pydantic import BeforeValidator

from gpuguide.lib import api_caching
from pricing import serving_plans
from pricing.domain import serving, serving_speed
from pricing.schemas import (
    AS_OF,
    ArchitectureQuery,
    Day,
    Errors,
    QueryError,
    SeqLen,
    Size,
    _whole_number,
    dollars,
    gigabytes,
)

router = Router(tags=["serving"])

SERVING_FIELDS = ("max_position_embeddings", "sliding_window")  # config.json's, for serving
SLIDING_WINDOW_REFUSED = (
    "a model with a sliding window is not planned yet: vLLM sizes its cache by the window"
)

KV_PRECISIONS = {"bf16": "auto", "fp8": "fp8"}  # the API's names -> --kv-cache-dtype
Concurrency = _whole_number(4096)
TargetMs = _whole_number(10_000)
NOT_A_SHARE = "must be a share of the card from 0.50 to 1.00, at most 2 decimals, e.g. 0.9"


def _share(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value = Decimal(value)
        except ArithmeticError:
            raise ValueError(NOT_A_SHARE) from None
    if not isinstance(value, Decimal) or not value.is_finite() or value.as_tuple().exponent < -2:
        raise ValueError(NOT_A_SHARE)
    if Decimal("0.5") <= value <= 1:
        return value
    raise ValueError(NOT_A_SHARE)


Share = Annotated[Decimal, BeforeValidator(_share)]


class ServingQuery(ArchitectureQuery):
    """A model (on file, or by its config.json fields) and how it is to be served."""

    WITH_ARCHITECTURE = SERVING_FIELDS

    max_position_embeddings: SeqLen | None = Field(
        None, description="config.json's longest context; context may not exceed it."
    )
    sliding_window: Size | None = Field(
        None,
        description="config.json's sliding_window where the model uses one: refused (400), "
        "as vLLM sizes such a cache by the window, which this planner does not model yet.",
    )
    weight_precision: Literal[tuple(serving.WEIGHT_PRECISIONS)] = Field(
        "bf16",
        description="bf16 (as published), fp8 (converted as vLLM loads it: --quantization "
        "fp8), awq or gptq (4-bit, groups of 128, from a checkpoint exported so).",
    )
    kv_precision: Literal[tuple(KV_PRECISIONS)] = Field(
        "bf16", description="The KV cache's: bf16 (vLLM's auto) or fp8 (--kv-cache-dtype fp8)."
    )
    context: SeqLen = Field(
        serving_plans.DEFAULT_CONTEXT,
        description="--max-model-len: the longest request in tokens, prompt and output.",
    )
    concurrency: Concurrency = Field(
        serving_plans.DEFAULT_CONCURRENCY,
        description="Requests at the full context to hold at once ('serves' says which do).",
    )
    gpu_memory_utilization: Share = Field(
        Decimal(1),
        description="--gpu-memory-utilization: vLLM's share of each card (1.0 by default "
        "with its extensible KV cache).",
    )
    prompt_tokens: SeqLen = Field(
        serving_plans.DEFAULT_PROMPT_TOKENS,
        description="Each user's prompt in tokens (history included), for the speeds.",
    )
    output_tokens: SeqLen = Field(
        serving_plans.DEFAULT_OUTPUT_TOKENS, description="Each answer's length in tokens."
    )
    tpot_target_ms: TargetMs = Field(
        serving_plans.DEFAULT_TPOT_TARGET_MS,
        description="The latency target: the longest time per output token, ms (40: MLPerf's "
        "interactive target, 25 tokens a second per user).",
    )
    as_of: Day | None = Field(None, description=AS_OF)

    def _check_together(self) -> None:
        """As ``serving_plans.refuse_unplannable`` refuses a model on file, for the fields."""
        super()._check_together()
        if self.prompt_tokens + self.output_tokens > self.context:
            raise QueryError(
                {"output_tokens": f"with prompt_tokens at most context ({self.context})"}
            )
        if self.model is not None:
            return
        if self.sliding_window:
            raise QueryError({"sliding_window": SLIDING_WINDOW_REFUSED})
        longest = self.max_position_embeddings
        if longest and self.context > longest:
            raise QueryError({"context": f"must be at most max_position_embeddings ({longest})"})

    def serving_setup(self) -> serving.ServingSetup:
        return serving.ServingSetup(
            weights=serving.WEIGHT_PRECISIONS[self.weight_precision],
            kv_cache_dtype=KV_PRECISIONS[self.kv_precision],
            context=self.context,
            gpu_memory_utilization=self.gpu_memory_utilization,
        )


class ServingFix(Schema):
    flag: str = Field(
        description="--max-model-len, --kv-cache-dtype or --tensor-parallel-size (a "
        "`vllm serve` flag), or weights (serve smaller weights: the value is a "
        "weight_precision)."
    )
    value: str


def with_range(name: str, values, unit) -> dict[str, float | None]:
    """A modelled figure and its range as ``name``, ``name_low``, ``name_high``."""
    values = values or (None, None, None)
    return {f"{name}{end}": unit(v) for end, v in zip(("", "_low", "_high"), values, strict=True)}


def tenth(value: Decimal | None) -> float | None:
    return None if value is None else float(value.quantize(Decimal("0.1")))


class AtLatencyTarget(Schema):
    users: int = Field(description="The most users whose time per output token meets the target.")
    itl_ms: float
    itl_ms_low: float
    itl_ms_high: float
    tokens_per_s: float
    tokens_per_s_low: float
    tokens_per_s_high: float
    usd_per_million_tokens: float | None
    usd_per_million_tokens_low: float | None
    usd_per_million_tokens_high: float | None

    @classmethod
    def of(cls, speed: serving_plans.RowSpeed | None) -> AtLatencyTarget | None:
        if speed is None:
            return None
        return cls(
            users=speed.users,
            **with_range("itl_ms", speed.itl_ms, tenth),
            **with_range("tokens_per_s", speed.tokens_per_s, tenth),
            **with_range("usd_per_million_tokens", speed.usd_per_million_tokens, dollars),
        )


class ServingConfiguration(Schema):
    gpu: str
    gpu_name: str
    count: int = Field(description="GPUs on one host, tensor parallel over all of them.")
    usd_per_hour: float | None = Field(description="The whole configuration per hour.")
    checked_on: date | None
    card_gb: float = Field(description="The total PyTorch reports on each card, GB (10^9).")
    weights_gb_per_gpu: float
    runtime_gb_per_gpu: float = Field(
        description="CUDA context, NCCL's buffers, CUDA graphs, the profiled activation peak "
        "and vLLM's margin beside it."
    )
    kv_cache_gb_per_gpu: float
    kv_tokens_per_gpu: int = Field(
        description="Tokens the KV cache holds (each GPU holds its share of every one): what "
        "vLLM logs as 'GPU KV cache size'."
    )
    max_concurrent_requests: int = Field(
        description="Requests at the full context held at once, at most vLLM's max_num_seqs."
    )
    longest_request: int = Field(description="The most tokens one request could hold.")
    starts: bool
    serves: bool = Field(description="Starts and holds the asked concurrency.")
    refusal: str | None = Field(
        description="Why vLLM would not start: heads_not_divisible, groups_not_whole, "
        "no_memory_for_cache or context_does_not_fit; null where it starts."
    )
    vllm_error: str = Field(description="vLLM's own message for the refusal, else empty.")
    fixes: list[ServingFix] = Field(description="Each single change that makes it start.")
    command: str = Field(description="The `vllm serve` command for this configuration.")
    usd_per_month: float | None = Field(
        description="A month (30 days, 720 hours) of the configuration."
    )
    usd_per_month_block: float | None = Field(
        description="What those GPU-hours cost bought up front: the block of this GPU that "
        "covers them (or as many of the largest as do), at its hourly rate; what a close call "
        "is decided by."
    )
    ttft_ms: float | None = Field(
        description="Time to first token at the asked users, ms (vLLM; _low/_high: its range). "
        "Null where vLLM does not start."
    )
    ttft_ms_low: float | None
    ttft_ms_high: float | None
    tokens_per_s_per_user: float | None
    tokens_per_s_per_user_low: float | None
    tokens_per_s_per_user_high: float | None
    tokens_per_s: float | None = Field(description="All the asked users' output tokens a second.")
    tokens_per_s_low: float | None
    tokens_per_s_high: float | None
    usd_per_million_tokens: float | None = Field(
        description="The configuration's price per hour over its output tokens in an hour at "
        "the asked users, per million."
    )
    usd_per_million_tokens_low: float | None
    usd_per_million_tokens_high: float | None
    at_latency_target: AtLatencyTarget | None = Field(
        description="The most users within tpot_target_ms that the cache holds, and what a "
        "million output tokens cost then; null where not even one user meets it."
    )

    @classmethod
    def of(cls, row: serving_plans.ServingRow, blocks: tuple[int, ...]) -> ServingConfiguration:
        memory, speed = row.memory, row.at_concurrency
        return cls(
            gpu=row.gpu.slug,
            gpu_name=row.gpu.name,
            count=row.count,
            usd_per_hour=dollars(row.usd_per_hour),
            checked_on=row.gpu.checked_on,
            card_gb=gigabytes(memory.card_gb),
            weights_gb_per_gpu=gigabytes(memory.weights_gb),
            runtime_gb_per_gpu=gigabytes(memory.runtime_gb),
            kv_cache_gb_per_gpu=gigabytes(memory.kv_cache_gb),
            kv_tokens_per_gpu=memory.kv_tokens,
            max_concurrent_requests=memory.max_concurrent_requests,
            longest_request=memory.kv_tokens,
            starts=row.starts,
            serves=row.serves,
            refusal=memory.refusal,
            vllm_error=memory.vllm_error,
            fixes=[ServingFix(flag=fix.flag, value=fix.value) for fix in row.fixes],
            command=serving.shell_line(row.command),
            usd_per_month=dollars(row.usd_per_month),
            usd_per_month_block=dollars(serving_plans.month_block_usd(row, blocks)),
            **with_range("ttft_ms", speed and speed.ttft_ms, tenth),
            **with_range("tokens_per_s_per_user", speed and speed.tokens_per_s_per_user, tenth),
            **with_range("tokens_per_s", speed and speed.tokens_per_s, tenth),
            **with_range("usd_per_million_tokens", speed and speed.usd_per_million_tokens, dollars),
            at_latency_target=AtLatencyTarget.of(row.at_target),
        )


class ServingChoice(Schema):
    gpu: str
    count: int
    alternative_gpu: str | None
    alternative_count: int | None
    close_call: bool
    decided_by: str = Field(description="cost, upfront or gpus.")

    @classmethod
    def of(cls, choice: serving_plans.ServingRecommendation | None) -> ServingChoice | None:
        if choice is None:
            return None
        other = choice.alternative
        return cls(
            gpu=choice.chosen.gpu.slug,
            count=choice.chosen.count,
            alternative_gpu=other.gpu.slug if other else None,
            alternative_count=other.count if other else None,
            close_call=choice.close_call,
            decided_by=choice.decided_by,
        )


class ServingAnswer(Schema):
    model: str | None = Field(description="The model on file; null for config.json fields.")
    provider: str = Field(description="Whose prices: ours.")
    as_of: date
    vllm_version: str = Field(description="The vLLM whose budgeting is modelled.")
    weight_precision: str
    kv_precision: str
    context: int
    concurrency: int
    gpu_memory_utilization: float
    kv_bytes_per_token: int = Field(
        description="Keys and values of one token for the whole model: 2 x layers x KV heads "
        "x head size x bytes (327,680 for Llama 3.1 70B in bf16)."
    )
    prompt_tokens: int
    output_tokens: int
    tpot_target_ms: int
    stack: str = Field(description="Whose speed: vLLM's, the stack the commands run.")
    recommendation: ServingChoice | None = Field(
        description="The configuration whose million output tokens cost least at the latency "
        "target (or, in a close call, whose month's GPU-hour block costs least, then the fewest "
        "GPUs), and the fastest other one per user."
    )
    configurations: list[ServingConfiguration] = Field(
        description="Each GPU we rent, 1, 2, 4 and 8 per host."
    )

    @classmethod
    def of(cls, plan: serving_plans.ServingPlan, query: ServingQuery) -> ServingAnswer:
        return cls(
            model=plan.model.slug if plan.model else None,
            provider=plan.provider,
            as_of=plan.as_of,
            vllm_version=serving.VLLM_VERSION,
            weight_precision=query.weight_precision,
            kv_precision=query.kv_precision,
            context=plan.setup.context,
            concurrency=plan.concurrency,
            gpu_memory_utilization=float(plan.setup.gpu_memory_utilization),
            kv_bytes_per_token=plan.kv_bytes_per_token,
            prompt_tokens=plan.workload.prompt_tokens,
            output_tokens=plan.workload.output_tokens,
            tpot_target_ms=plan.tpot_target_ms,
            stack=serving_speed.VLLM.name,
            recommendation=ServingChoice.of(plan.recommendation),
            configurations=[ServingConfiguration.of(row, plan.blocks) for row in plan.rows],
        )


@router.get(
    "/",
    response={200: ServingAnswer, 400: Errors, 404: Errors},
    url_name="serving",
    summary="Which GPUs we rent serve a model with vLLM, and whether it starts",
)
def serving_configurations(
    request: HttpRequest, response: HttpResponse, query: Query[ServingQuery]
) -> ServingAnswer:
    """Each GPU we rent, 1, 2, 4 and 8 per host with tensor parallelism, serving a model on
    file (``model``) or given by its config.json fields: weights, runtime and KV cache per GPU
    as vLLM budgets them, the cache's capacity in tokens, the requests it holds at the full
    ``context``, whether `vllm serve` starts (vLLM's own error and the fixes where not) and the
    command; our price as of ``as_of``. A model with a sliding window is refused (400); an
    unknown ``model`` is a 404."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    plan = serving_plans.serving_plan(
        model=query.model,
        architecture=None if query.model else query.architecture(),
        setup=query.serving_setup(),
        concurrency=query.concurrency,
        prompt_tokens=query.prompt_tokens,
        output_tokens=query.output_tokens,
        tpot_target_ms=query.tpot_target_ms,
        at=query.as_of,
    )
    return ServingAnswer.of(plan, query)


router.add_api_operation("/", ["HEAD"], serving_configurations, include_in_schema=False)
