"""The JSON API's parameters and answers (django-ninja schemas, which the OpenAPI description
is generated from). Query strings are parsed strictly (``int()`` takes ``1_000`` and ``１２``,
pydantic's lax mode ``+5`` and ``5.0``; booleans only as ``true``/``false``), every bad parameter
reported at once (``QueryError``). Figures are rounded from their ``Decimal`` here only."""

from __future__ import annotations

import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, ClassVar, Literal

from django.http import HttpRequest
from django.utils import timezone, translation
from ninja import Schema
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    StringConstraints,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import ErrorDetails

from pricing import planning, selectors, services
from pricing.domain import calculations, training_memory
from pricing.domain.training_memory import Method

MODEL_SLUG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
MODEL_SLUG_MAX_LENGTH = 50

MIN_HOURS = Decimal("0.01")
MAX_HOURS = Decimal(8760)  # a run of at most a year

NOT_A_WHOLE_NUMBER = "must be a whole number in plain ASCII digits (0-9)"
NOT_TRUE_OR_FALSE = "must be true or false"
METHOD_CHOICES = "must be one of " + ", ".join(m.value for m in Method)
NOT_A_SLUG_OF = "must be a {noun} slug: ASCII letters, digits, '.', '-' and '_'"
NOT_A_SLUG = NOT_A_SLUG_OF.format(noun="model")
SLUG_NOUNS = {"gpu": "GPU"}  # otherwise the parameter's name: a provider slug
COUNT_CHOICES = "must be one of " + ", ".join(map(str, calculations.HOST_GPU_COUNTS))
RECIPE_CHOICES = "must be one of " + ", ".join(training_memory.RECIPES)
NOT_HOURS = "must be a number of hours in plain ASCII digits with at most 2 decimals, e.g. 7.5"
IN_THE_FUTURE = "must not be in the future"
REQUIRED = "required"
REQUIRED_WITHOUT_MODEL = "required unless model is given"
NOT_WITH_MODEL = "cannot be combined with model: give either model or the architecture fields"
UNKNOWN_PARAMETER = "unknown parameter"
REPEATED_PARAMETER = "given more than once"


class QueryError(Exception):
    """Parameters refused, each with why: ``{"seq_len": "must be at least 1"}``. Not a
    ``ValueError``, so pydantic lets it through its validators to the API's handler."""

    def __init__(self, errors: dict[str, str], status: int = 400) -> None:
        super().__init__(errors)
        self.errors = errors
        self.status = status


def slug_message(parameter: str) -> str:
    return NOT_A_SLUG_OF.format(noun=SLUG_NOUNS.get(parameter, parameter))


def _plain(pattern: str, parse: Any, message: str) -> BeforeValidator:
    """Text of ``pattern`` only (ASCII digits), then ``parse``d; values already parsed pass."""

    def validate(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if not re.fullmatch(pattern, value):
            raise ValueError(message)
        return parse(value)

    return BeforeValidator(validate)


_plain_digits = _plain(r"[0-9]{1,12}", int, NOT_A_WHOLE_NUMBER)


def _true_or_false(value: Any) -> Any:
    if value in ("true", "false"):
        return value == "true"
    if isinstance(value, bool):
        return value
    raise ValueError(NOT_TRUE_OR_FALSE)


def _whole_number(maximum: int, minimum: int = 1) -> Any:
    """An int parameter from ``minimum`` to ``maximum``; the bounds come first so that the
    OpenAPI schema states them as minimum and maximum."""
    return Annotated[int, Field(ge=minimum, le=maximum), _plain_digits]


Size = _whole_number(1_000_000)  # hidden and MLP widths, layers, heads
VocabSize = _whole_number(10_000_000)
SeqLen = _whole_number(1_048_576)
BatchSize = _whole_number(1024)
Rank = _whole_number(4096)
GpuCount = _whole_number(4096)
Flag = Annotated[bool, BeforeValidator(_true_or_false)]
# A model's, a GPU's or a provider's.
Slug = Annotated[
    str, StringConstraints(pattern=MODEL_SLUG_PATTERN, max_length=MODEL_SLUG_MAX_LENGTH)
]


def _day(value: Any) -> Any:
    """The price checks' date rule, its messages in English; a future day refused without the
    service's advice to people recording checks."""
    if not isinstance(value, str):
        return value
    with translation.override("en"):
        try:
            day = services.parse_check_date(value=value, today=date.max)
        except services.PriceCheckError as exc:
            raise ValueError(str(exc)) from None
        today = timezone.localdate()
        try:
            return services.validate_check_date(day=day, today=today)
        except services.PriceCheckError:
            raise ValueError(f"{IN_THE_FUTURE} (today is {today.isoformat()})") from None


Day = Annotated[date, BeforeValidator(_day)]
Hours = Annotated[
    Decimal,
    Field(ge=MIN_HOURS, le=MAX_HOURS),
    _plain(r"[0-9]{1,5}(\.[0-9]{1,2})?", Decimal, NOT_HOURS),
    WithJsonSchema({"type": "number", "minimum": float(MIN_HOURS), "maximum": float(MAX_HOURS)}),
]
TrainingTokens = _whole_number(10**13, minimum=1_000)  # as a guide's budget (Guide model)
Epochs = _whole_number(100)
HostGpuCount = Annotated[Literal[calculations.HOST_GPU_COUNTS], _plain_digits]

ARCHITECTURE_FIELDS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "intermediate_size",
    "vocab_size",
)
OPTIONAL_ARCHITECTURE_FIELDS = (
    "tie_word_embeddings",
    "head_dim",
    "num_local_experts",
    "num_experts_per_tok",
)
# A run's settings, as the queries, TrainingSetup and the answers all name them (the method
# and the recipe apart: the answers give them elsewhere, or by another name).
RUN_FIELDS = ("seq_len", "batch_size", "gradient_checkpointing", "lora_rank", "cpu_offload")
RecipeName = Literal[tuple(training_memory.RECIPES)]
RECIPE_DESCRIPTION = (
    "trl (default): what `trl sft --dtype bfloat16` runs (bf16 mixed precision, fused "
    "attention, chunked loss), derived, not measured; measured: the recipe of the 46 peaks "
    "measured on an H200 (QLoRA in fp32 with materialised attention scores)."
)
CPU_OFFLOAD_DESCRIPTION = (
    "true: FSDP keeps the sharded weights, gradients and optimizer states in CPU memory."
)


def _named(source: Any, *names: str) -> dict[str, Any]:
    """``source``'s attributes of these names, for a class whose fields bear the same."""
    return {name: getattr(source, name) for name in names}


def _training_setup(query: Any, **more: Any) -> training_memory.TrainingSetup:
    return training_memory.TrainingSetup(
        **_named(query, "method", *RUN_FIELDS), recipe=training_memory.RECIPES[query.recipe], **more
    )


class StrictQuery(BaseModel):
    """Query parameters parsed strictly: unknown, repeated and conflicting parameters and each
    field's own errors are all reported at once in one ``QueryError``."""

    @model_validator(mode="wrap")
    @classmethod
    def _every_problem_at_once(cls, data: Any, handler: Any, info: Any) -> StrictQuery:
        request = (info.context or {}).get("request")
        given = data if isinstance(data, dict) else {}
        errors = {**_unknown_or_repeated(request, cls.model_fields), **cls._conflicts(given)}
        try:
            query = handler(data)
        except ValidationError as exc:
            for error in exc.errors():
                parameter = str(error["loc"][-1]) if error["loc"] else "parameters"
                errors.setdefault(parameter, _message(parameter, error))
        if errors:
            raise QueryError(errors)
        query._check_together()
        return query

    @classmethod
    def _conflicts(cls, given: dict[str, Any]) -> dict[str, str]:
        """Parameters refused for what else is given or missing, before each is parsed."""
        return {}

    def _check_together(self) -> None:
        """Rules between parameters each valid on its own; raises ``QueryError``."""


class ArchitectureQuery(StrictQuery):
    """A language model on file (``model``) or its config.json's architecture fields, and the
    ``WITH_ARCHITECTURE`` fields a subclass takes, likewise not with ``model``."""

    WITH_ARCHITECTURE: ClassVar[tuple[str, ...]] = ()

    model: Slug | None = Field(
        None,
        description="A language model on file, e.g. llama-3.1-70b. Give this or the "
        "architecture fields, not both.",
    )
    hidden_size: Size | None = Field(None, description="config.json's hidden_size.")
    num_hidden_layers: Size | None = Field(None, description="Decoder layers.")
    num_attention_heads: Size | None = Field(None, description="Query heads.")
    num_key_value_heads: Size | None = Field(None, description="KV heads (grouped queries).")
    intermediate_size: Size | None = Field(None, description="MLP width.")
    vocab_size: VocabSize | None = Field(None, description="Vocabulary size.")
    tie_word_embeddings: Flag | None = Field(
        None, description="Output layer tied to the embeddings: true or false (default false)."
    )
    head_dim: Size | None = Field(
        None, description="config.json's head_dim, where it is not hidden_size / heads."
    )
    num_local_experts: Size | None = Field(
        None, description="Experts per layer of a mixture of experts (Mixtral's config name)."
    )
    num_experts_per_tok: Size | None = Field(
        None, description="Experts each token is routed to; with num_local_experts."
    )

    @classmethod
    def _conflicts(cls, given: dict[str, Any]) -> dict[str, str]:
        if "model" in given:
            names = (*ARCHITECTURE_FIELDS, *OPTIONAL_ARCHITECTURE_FIELDS, *cls.WITH_ARCHITECTURE)
            return {name: NOT_WITH_MODEL for name in names if name in given}
        return {name: REQUIRED_WITHOUT_MODEL for name in ARCHITECTURE_FIELDS if name not in given}

    def _check_together(self) -> None:
        if self.model is None:
            try:
                self.architecture()
            except training_memory.EstimateError as exc:
                raise QueryError(estimate_errors(exc)) from exc

    def architecture(self) -> training_memory.Architecture:
        return training_memory.Architecture(
            **{
                **_named(self, *ARCHITECTURE_FIELDS, *OPTIONAL_ARCHITECTURE_FIELDS),
                "tie_word_embeddings": bool(self.tie_word_embeddings),
            }
        )


class MemoryQuery(ArchitectureQuery):
    """A model (on file, or by its architecture) and a training run."""

    method: Method = Field(description="The fine-tuning method.")
    seq_len: SeqLen = Field(description="Tokens per sequence.")
    batch_size: BatchSize = Field(1, description="Sequences per micro-batch, per GPU.")
    gradient_checkpointing: Flag = Field(True, description="true or false.")
    lora_rank: Rank = Field(16, description="LoRA rank (used by qlora and lora only).")
    num_gpus: GpuCount = Field(1, description="GPUs, with FSDP full sharding.")
    recipe: RecipeName = Field(training_memory.TRL.slug, description=RECIPE_DESCRIPTION)
    cpu_offload: Flag = Field(False, description=CPU_OFFLOAD_DESCRIPTION)

    def training_setup(self) -> training_memory.TrainingSetup:
        return _training_setup(self, num_gpus=self.num_gpus)


def _unknown_or_repeated(request: HttpRequest | None, known: dict[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if request is not None:
        for name in request.GET:
            if name not in known:
                errors[name] = f"{UNKNOWN_PARAMETER} (known: {', '.join(known)})"
            elif len(request.GET.getlist(name)) > 1:
                errors[name] = REPEATED_PARAMETER
    return errors


def _message(parameter: str, error: ErrorDetails) -> str:
    kind, context = error["type"], error.get("ctx", {})
    if kind == "missing":
        return REQUIRED
    if kind == "greater_than_equal":
        return f"must be at least {context['ge']}"
    if kind == "less_than_equal":
        return f"must be at most {context['le']:,}"
    if kind == "enum":
        return METHOD_CHOICES
    if kind == "literal_error":
        return RECIPE_CHOICES if parameter == "recipe" else COUNT_CHOICES
    if kind in ("string_pattern_mismatch", "string_too_long"):
        return f"{slug_message(parameter)}, at most {MODEL_SLUG_MAX_LENGTH} characters"
    if kind == "value_error":
        return str(context["error"])
    return error["msg"]


def estimate_errors(exc: training_memory.EstimateError) -> dict[str, str]:
    """``"hidden_size must be a multiple of num_attention_heads"`` keyed by the parameter it
    starts with."""
    name, _, why = str(exc).partition(" ")
    if name in MemoryQuery.model_fields:
        return {name: why}
    return {"parameters": str(exc)}


def gigabytes(value: Decimal | None) -> float | None:
    """GB to 3 decimals; the float is taken from the rounded Decimal, so it prints as such."""
    return None if value is None else float(value.quantize(Decimal("0.001"), ROUND_HALF_UP))


class Breakdown(Schema):
    weights: float
    adapters: float
    gradients: float
    optimizer_states: float
    activations: float
    logits_and_loss: float
    workspace: float


class EstimateInputs(Schema):
    """The inputs the estimate used, model or not (defaults filled in)."""

    model: str | None
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    head_dim: int = Field(description="As stated, or hidden_size / num_attention_heads.")
    num_local_experts: int | None
    num_experts_per_tok: int | None
    method: Method
    seq_len: int
    batch_size: int
    gradient_checkpointing: bool
    lora_rank: int
    num_gpus: int
    recipe: str
    cpu_offload: bool


MEASURED_BASIS = "measured"
DERIVED_BASIS = "derived, not measured"


def basis(measured: bool) -> str:
    return MEASURED_BASIS if measured else DERIVED_BASIS


class MemoryEstimate(Schema):
    peak_gb: float = Field(description="Peak memory per GPU, GB (10^9 bytes), 3 decimals.")
    reserved_gb: float = Field(
        description="The peak with the memory allocator's margin (a third of what the step "
        "allocates beyond the resident weights): what a card's usable memory must hold."
    )
    breakdown: Breakdown = Field(
        description="What is alive at the peak, GB (summed before rounding)."
    )
    moment: str = Field(description="The moment of the training step the peak falls in.")
    host_memory_gb: float = Field(
        description="Under CPU offload, what the run keeps in its host's memory: every GPU's "
        "shard of the trained weights, adapters, gradients and optimizer states; 0 without."
    )
    parameters: int = Field(description="The model's parameters, every expert counted.")
    trainable_parameters: int = Field(description="Those trained: adapters, or all.")
    recipe: str
    basis: Literal["measured", "derived, not measured"] = Field(
        description="Whether the recipe's figures were measured on a GPU or derived."
    )
    assumptions: list[str]
    inputs: EstimateInputs

    @classmethod
    def of(
        cls,
        peak: training_memory.PeakMemory,
        architecture: training_memory.Architecture,
        setup: training_memory.TrainingSetup,
        model: str | None,
    ) -> MemoryEstimate:
        return cls(
            peak_gb=gigabytes(peak.peak_gb),
            reserved_gb=gigabytes(peak.reserved_gb),
            breakdown=Breakdown(**{k: gigabytes(v) for k, v in peak.breakdown().items()}),
            moment=peak.moment,
            host_memory_gb=gigabytes(peak.host_gb),
            parameters=peak.parameters,
            trainable_parameters=peak.trainable_parameters,
            recipe=peak.recipe,
            basis=basis(peak.measured),
            assumptions=list(peak.assumptions),
            inputs=EstimateInputs(
                **{
                    **_named(architecture, *ARCHITECTURE_FIELDS, *OPTIONAL_ARCHITECTURE_FIELDS),
                    "head_dim": architecture.attention_head_dim,  # as stated, or worked out
                },
                **_named(setup, "method", *RUN_FIELDS, "num_gpus"),
                model=model,
                recipe=setup.recipe.slug,
            ),
        )


class Errors(Schema):
    errors: dict[str, str] = Field(description="Each refused parameter and why.")


# --- the planner: /gpus/, /fit/, /cost/, /prices/<gpu>/ -----------------------------------

AS_OF = (
    "Prices as they stood after this day's checks: YYYY-MM-DD, from 2000-01-01 to today "
    "(the default). A day before any check is answered with no prices."
)


def dollars(value: Decimal | None) -> float | None:
    """US dollars to 4 decimals, as prices are stored."""
    return None if value is None else float(value.quantize(Decimal("0.0001"), ROUND_HALF_UP))


def hours(value: Decimal) -> float:
    return float(value.quantize(Decimal("0.01"), ROUND_HALF_UP))


class GpusQuery(StrictQuery):
    as_of: Day | None = Field(None, description=AS_OF)


class PricesQuery(StrictQuery):
    provider: Slug | None = Field(
        None, description="A provider on file, e.g. massed-compute; ours by default."
    )
    as_of: Day | None = Field(None, description=AS_OF)


class FitQuery(StrictQuery):
    """A model on file, a method and the shape of the run (the estimate's inputs)."""

    model: Slug = Field(description="A language model on file, e.g. llama-3.1-70b.")
    method: Method = Field(description="The fine-tuning recipe.")
    seq_len: SeqLen = Field(2048, description="Tokens per sequence.")
    batch_size: BatchSize = Field(1, description="Sequences per micro-batch, per GPU.")
    gradient_checkpointing: Flag = Field(True, description="true or false.")
    lora_rank: Rank = Field(16, description="LoRA rank (used by qlora and lora only).")
    recipe: RecipeName = Field(training_memory.TRL.slug, description=RECIPE_DESCRIPTION)
    cpu_offload: Flag = Field(False, description=CPU_OFFLOAD_DESCRIPTION)
    as_of: Day | None = Field(None, description=AS_OF)

    def training_setup(self) -> training_memory.TrainingSetup:
        return _training_setup(self)


class CostQuery(FitQuery):
    hours: Hours | None = Field(
        None,
        description="Wall-clock hours of the run, at most 2 decimals, assumed on every "
        "configuration; instead of training_tokens.",
    )
    training_tokens: TrainingTokens | None = Field(
        None,
        description="Tokens per epoch to cost the run for at each configuration's speed "
        f"(measured or derived); {planning.DEFAULT_TRAINING_TOKENS:,} where neither this nor "
        "hours is given.",
    )
    epochs: Epochs | None = Field(None, description="Epochs over training_tokens (1 if not given).")
    gpu: Slug | None = Field(None, description="Only this GPU, e.g. h100.")
    count: HostGpuCount | None = Field(None, description="Only this many GPUs per host.")


class GpuSpecs(Schema):
    slug: str
    name: str
    vendor: str
    memory_gb: float = Field(description="Memory as advertised (binary: 80 means 80 GiB).")
    reported_memory_gb: float = Field(
        description="The total PyTorch reports on a card of this kind, GB (10^9 bytes), from "
        "the measured card or a cited report; else the advertised figure in GiB."
    )
    usable_memory_gb: float = Field(
        description="What a training step can allocate on one card alone: the reported total "
        "less the CUDA context. On several GPUs NCCL's buffers take more (each "
        "configuration's usable_gb_per_gpu on /api/v1/fit/)."
    )
    host_memory_gb_per_gpu: float | None = Field(
        description="The host memory that comes with each GPU (the servers' system memory / "
        "their GPUs), what CPU offload may use; null where not recorded."
    )
    bandwidth_gb_s: float
    bf16_dense_tflops: float = Field(description="Peak BF16 tensor TFLOPS without sparsity.")
    form_factor: str = Field(description="sxm, pcie or consumer.")
    rentable: bool = Field(description="Whether we rent it.")
    usd_per_gpu_hour: float | None = Field(
        description="Our price per GPU-hour as of the day; null where we do not rent it or "
        "had not priced it yet."
    )
    checked_on: date | None = Field(description="The day of that price's check.")

    @classmethod
    def of(cls, gpu: selectors.GpuListing) -> GpuSpecs:
        return cls(
            **_named(gpu, "slug", "name", "vendor", "rentable", "checked_on"),
            memory_gb=gigabytes(gpu.memory_gb),
            reported_memory_gb=gigabytes(gpu.reported_gb),
            usable_memory_gb=gigabytes(gpu.usable_gb),
            host_memory_gb_per_gpu=gigabytes(gpu.host_memory_gb_per_gpu),
            bandwidth_gb_s=gigabytes(gpu.bandwidth_gb_s),
            bf16_dense_tflops=gigabytes(gpu.bf16_dense_tflops),
            form_factor=gpu.form_factor_code,
            usd_per_gpu_hour=dollars(gpu.usd_per_gpu_hour),
        )


class GpuCatalogue(Schema):
    provider: str = Field(description="Whose prices: ours.")
    as_of: date
    gpus: list[GpuSpecs]

    @classmethod
    def of(cls, catalogue: planning.GpuCatalogue) -> GpuCatalogue:
        return cls(
            provider=catalogue.provider,
            as_of=catalogue.as_of,
            gpus=[GpuSpecs.of(gpu) for gpu in catalogue.gpus],
        )


class RunSettings(Schema):
    seq_len: int
    batch_size: int
    gradient_checkpointing: bool
    lora_rank: int
    recipe: str
    cpu_offload: bool
    basis: Literal["measured", "derived, not measured"] = Field(
        description="Whether the recipe's estimates were measured on a GPU or derived."
    )

    @classmethod
    def of(cls, setup: training_memory.TrainingSetup) -> RunSettings:
        return cls(
            **_named(setup, *RUN_FIELDS),
            recipe=setup.recipe.slug,
            basis=basis(setup.recipe.measured),
        )


class RuleFigure(Schema):
    planning_gb: float = Field(
        description="The cited rules' highest figure plus the method's planning margin, GB: "
        "what the guides' fit tables check against."
    )
    sources: list[str] = Field(description="The rules' sources, by key.")


class FitByRule(Schema):
    fits: bool = Field(description="The configuration's advertised memory holds planning_gb.")
    headroom_gb: float = Field(description="Advertised memory less planning_gb (may be < 0).")


class FitByEstimate(Schema):
    peak_gb_per_gpu: float = Field(
        description="Peak memory per GPU of the run sharded over the configuration (FSDP)."
    )
    reserved_gb_per_gpu: float = Field(
        description="The peak with the memory allocator's margin, per GPU."
    )
    usable_gb_per_gpu: float = Field(
        description="What PyTorch reports on each card less the CUDA context and, on several "
        "GPUs, NCCL's buffers."
    )
    fits: bool = Field(
        description="Each card's usable memory holds reserved_gb_per_gpu and, under CPU "
        "offload, the host holds what is offloaded."
    )
    headroom_gb_per_gpu: float = Field(description="Usable less reserved, per GPU (may be < 0).")
    host_memory_gb: float | None = Field(
        description="The host memory that comes with the configuration; null where unknown."
    )
    fits_on_host: bool = Field(
        description="The host holds what CPU offload keeps there (always true without it, "
        "and where the host's memory is unknown)."
    )


class ConfigurationFit(Schema):
    gpu: str
    gpu_name: str
    count: int
    total_memory_gb: float = Field(description="Advertised memory of all its GPUs.")
    by_rule: FitByRule
    by_estimate: FitByEstimate
    usd_per_gpu_hour: float | None
    usd_per_hour: float | None = Field(description="The whole configuration per hour.")
    checked_on: date | None

    @classmethod
    def of(cls, fit: calculations.PlannedFit, checked_on: date | None) -> ConfigurationFit:
        configuration = fit.configuration
        return cls(
            **_configured(configuration),
            total_memory_gb=gigabytes(configuration.total_memory_gb),
            by_rule=FitByRule(fits=fit.fits_by_rule, headroom_gb=gigabytes(fit.rule_headroom_gb)),
            by_estimate=FitByEstimate(
                peak_gb_per_gpu=gigabytes(fit.peak_gb_per_gpu),
                reserved_gb_per_gpu=gigabytes(fit.reserved_gb_per_gpu),
                usable_gb_per_gpu=gigabytes(fit.usable_gb_per_gpu),
                fits=fit.fits_by_estimate,
                headroom_gb_per_gpu=gigabytes(fit.estimate_headroom_gb_per_gpu),
                host_memory_gb=gigabytes(configuration.host_gb),
                fits_on_host=fit.fits_on_host,
            ),
            checked_on=checked_on,
        )


def _configured(configuration: calculations.Configuration) -> dict[str, Any]:
    return {
        "gpu": configuration.gpu.slug,
        "gpu_name": configuration.gpu.name,
        "count": configuration.count,
        "usd_per_gpu_hour": dollars(configuration.gpu.usd_per_gpu_hour),
        "usd_per_hour": dollars(configuration.usd_per_hour),
    }


class RunHeading(Schema):
    """What /fit/ and /cost/ answer first: the model, the run, whose prices as of when."""

    model: str
    method: Method
    provider: str = Field(description="Whose prices: ours.")
    as_of: date
    run: RunSettings

    @staticmethod
    def fields_of(plan: planning.FitPlan) -> dict[str, Any]:
        return {
            **_named(plan, "model", "provider", "as_of"),
            "method": plan.setup.method,
            "run": RunSettings.of(plan.setup),
        }


class FitAnswer(RunHeading):
    rule: RuleFigure
    configurations: list[ConfigurationFit] = Field(
        description="Each GPU we rent, 1, 2, 4 and 8 per host."
    )

    @classmethod
    def of(cls, plan: planning.FitPlan) -> FitAnswer:
        return cls(
            **cls.fields_of(plan),
            rule=RuleFigure(
                planning_gb=gigabytes(plan.estimate.planning_gb), sources=list(plan.sources)
            ),
            configurations=[
                ConfigurationFit.of(fit, plan.checked_on[fit.configuration.gpu.slug])
                for fit in plan.fits
            ],
        )


TIME_BASIS = (
    "How the hours were found: measured (this run was timed on one such GPU), derived (the "
    "throughput model, calibrated on runs timed on one H200 and on public runs of other "
    "cards), or assumed (the hours asked)."
)
HOURS_LOW = (
    "The shortest the run may take, to the tenth: the derived hours less the model's error on "
    "comparable runs (docs/planner.md); equal to hours where measured, null where assumed."
)
HOURS_HIGH = "The longest the run may take, likewise."
USD_LOW = "What the run costs at hours_low, to the cent."
USD_HIGH = "What the run costs at hours_high, to the cent."


class RunCost(Schema):
    gpu: str
    gpu_name: str
    count: int
    tokens_per_s: float | None = Field(
        description="Training tokens per second over all the GPUs; null for assumed hours."
    )
    hours: float = Field(description="Wall-clock hours of the run, to the tenth.")
    time_basis: Literal["measured", "derived", "assumed"] = Field(description=TIME_BASIS)
    gpu_hours: float = Field(description="GPUs x hours.")
    usd_per_gpu_hour: float | None
    usd_per_hour: float | None
    cost_usd: float | None = Field(description="GPUs x hours x price, to the cent.")
    hours_low: float | None = Field(description=HOURS_LOW)
    hours_high: float | None = Field(description=HOURS_HIGH)
    usd_per_run: float | None = Field(
        description="The same: what the run costs at our price (from the unrounded hours)."
    )
    usd_per_run_low: float | None = Field(description=USD_LOW)
    usd_per_run_high: float | None = Field(description=USD_HIGH)
    block_hours: int | None = Field(
        description="The smallest GPU-hour block (GPU-hours of one GPU model, shared by all "
        "the run's GPUs) that covers gpu_hours; null if none does."
    )
    block_cost_usd: float | None = Field(description="That block at the GPU's hourly price.")
    fits_by_rule: bool = Field(description="Whether the cited rule agrees that it fits.")
    checked_on: date | None

    @classmethod
    def of(cls, costed: planning.CostRow, checked_on: date | None) -> RunCost:
        fit, row, run = costed.fit, costed.cost, costed.run
        return cls(
            **_configured(fit.configuration),
            tokens_per_s=None if run is None else float(run.tokens_per_s),
            hours=hours(row.scenario.hours if run is None else run.shown_hours),
            time_basis=costed.time_basis,
            gpu_hours=hours(row.gpu_hours if run is None else run.shown_gpu_hours),
            cost_usd=dollars(row.cost_usd),
            hours_low=None if run is None else hours(run.shown_hours_low),
            hours_high=None if run is None else hours(run.shown_hours_high),
            usd_per_run=dollars(row.cost_usd),
            usd_per_run_low=None if run is None else dollars(run.usd_per_run_low),
            usd_per_run_high=None if run is None else dollars(run.usd_per_run_high),
            block_hours=row.block_hours,
            block_cost_usd=dollars(row.block_cost_usd),
            fits_by_rule=fit.fits_by_rule,
            checked_on=checked_on,
        )


class CostAnswer(RunHeading):
    hours: float | None = Field(description="The hours assumed; null for a training budget.")
    training_tokens: int | None = Field(
        description="Tokens per epoch costed; null where hours were assumed."
    )
    epochs: int | None
    blocks: list[int] = Field(description="The GPU-hour blocks we sell.")
    rows: list[RunCost] = Field(
        description="Each configuration (of gpu and count, if given) that fits the run by "
        "the estimate; empty if none does."
    )

    @classmethod
    def of(cls, plan: planning.CostPlan) -> CostAnswer:
        fit = plan.fit
        return cls(
            **cls.fields_of(fit),
            hours=None if plan.hours is None else hours(plan.hours),
            training_tokens=plan.training_tokens,
            epochs=plan.epochs,
            blocks=plan.blocks,
            rows=[
                RunCost.of(row, fit.checked_on[row.fit.configuration.gpu.slug]) for row in plan.rows
            ],
        )


class PricePoint(Schema):
    checked_on: date
    usd_per_gpu_hour: float


class PriceHistory(Schema):
    gpu: str
    provider: str
    as_of: date
    prices: list[PricePoint] = Field(description="Oldest first; empty before the first check.")

    @classmethod
    def of(cls, history: planning.PriceHistory) -> PriceHistory:
        return cls(
            gpu=history.gpu,
            provider=history.provider,
            as_of=history.as_of,
            prices=[
                PricePoint(checked_on=day, usd_per_gpu_hour=dollars(price))
                for day, price in history.points
            ],
        )
