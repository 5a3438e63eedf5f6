"""The JSON API's parameters and answers (django-ninja schemas); the OpenAPI description is
generated from these classes.

Query strings are parsed strictly: whole numbers in ASCII digits only (Python's ``int()``
takes ``1_000`` and ``１２``, pydantic's lax mode ``+5``, `` 5`` and ``5.0``), booleans as
``true``/``false`` only (not ``1``, ``yes`` or ``True``), and every number the estimate computes
with is capped. Every bad parameter is reported at once as ``{name: why}``; see ``QueryError``.
Rules between architecture fields (hidden_size a multiple of num_attention_heads, ...) are
``training_memory``'s own and are checked once each field is valid on its own.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Schema
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

from pricing import training_memory
from pricing.training_memory import Method

GB_STEP = Decimal("0.001")  # answers in GB to 3 decimals
MAX_SEQ_LEN = 1_048_576
MAX_BATCH_SIZE = 1024
MAX_LORA_RANK = 4096
MAX_GPUS = 4096
MAX_SIZE = 1_000_000  # hidden and MLP widths, layers, heads
MAX_VOCAB_SIZE = 10_000_000
MODEL_SLUG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
MODEL_SLUG_MAX_LENGTH = 50

_DIGITS = re.compile(r"[0-9]{1,12}")
NOT_A_WHOLE_NUMBER = "must be a whole number in plain ASCII digits (0-9)"
NOT_TRUE_OR_FALSE = "must be true or false"
METHOD_CHOICES = "must be one of " + ", ".join(m.value for m in Method)
NOT_A_SLUG = "must be a model slug: ASCII letters, digits, '.', '-' and '_'"
REQUIRED = "required"
REQUIRED_WITHOUT_MODEL = "required unless model is given"
NOT_WITH_MODEL = "cannot be combined with model: give either model or the architecture fields"
UNKNOWN_PARAMETER = "unknown parameter"
REPEATED_PARAMETER = "given more than once"


class QueryError(Exception):
    """Parameters refused, each with why: ``{"seq_len": "must be at least 1"}``.

    Not a ``ValueError``, so pydantic lets it through its validators to the API's handler,
    which answers ``status`` with ``{"errors": errors}``.
    """

    def __init__(self, errors: dict[str, str], status: int = 400) -> None:
        super().__init__(errors)
        self.errors = errors
        self.status = status


def _plain_digits(value: Any) -> Any:
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value):
            raise ValueError(NOT_A_WHOLE_NUMBER)
        return int(value)
    return value


def _true_or_false(value: Any) -> Any:
    if value in ("true", "false"):
        return value == "true"
    if isinstance(value, bool):
        return value
    raise ValueError(NOT_TRUE_OR_FALSE)


def _whole_number(maximum: int) -> Any:
    """An int parameter from 1 to ``maximum``; the bounds come first so that the OpenAPI
    schema states them as minimum and maximum."""
    return Annotated[int, Field(ge=1, le=maximum), BeforeValidator(_plain_digits)]


Size = _whole_number(MAX_SIZE)
VocabSize = _whole_number(MAX_VOCAB_SIZE)
SeqLen = _whole_number(MAX_SEQ_LEN)
BatchSize = _whole_number(MAX_BATCH_SIZE)
Rank = _whole_number(MAX_LORA_RANK)
GpuCount = _whole_number(MAX_GPUS)
Flag = Annotated[bool, BeforeValidator(_true_or_false)]
ModelSlug = Annotated[
    str, StringConstraints(pattern=MODEL_SLUG_PATTERN, max_length=MODEL_SLUG_MAX_LENGTH)
]

ARCHITECTURE_FIELDS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "intermediate_size",
    "vocab_size",
)


class MemoryQuery(BaseModel):
    """A model (on file, or by its architecture) and a training run."""

    model: ModelSlug | None = Field(
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
    method: Method = Field(description="The fine-tuning recipe.")
    seq_len: SeqLen = Field(description="Tokens per sequence.")
    batch_size: BatchSize = Field(1, description="Sequences per micro-batch, per GPU.")
    gradient_checkpointing: Flag = Field(True, description="true or false.")
    lora_rank: Rank = Field(16, description="LoRA rank (used by qlora and lora only).")
    num_gpus: GpuCount = Field(1, description="GPUs, with ZeRO-3/FSDP full sharding.")

    @model_validator(mode="wrap")
    @classmethod
    def _every_problem_at_once(cls, data: Any, handler: Any, info: Any) -> MemoryQuery:
        """Unknown, repeated, conflicting and missing parameters and each field's own errors,
        all in one ``QueryError``; then the architecture's own rules (``EstimateError``)."""
        request = (info.context or {}).get("request")
        errors = _parameter_errors(request, data if isinstance(data, dict) else {})
        try:
            query = handler(data)
        except ValidationError as exc:
            for error in exc.errors():
                errors.setdefault(_parameter(error), _message(error))
        if errors:
            raise QueryError(errors)
        if query.model is None:
            try:
                query.architecture()
            except training_memory.EstimateError as exc:
                raise QueryError(estimate_errors(exc)) from exc
        return query

    def architecture(self) -> training_memory.Architecture:
        """The architecture given by its fields (only when no ``model`` is given)."""
        return training_memory.Architecture(
            hidden_size=self.hidden_size,
            num_hidden_layers=self.num_hidden_layers,
            num_attention_heads=self.num_attention_heads,
            num_key_value_heads=self.num_key_value_heads,
            intermediate_size=self.intermediate_size,
            vocab_size=self.vocab_size,
            tie_word_embeddings=bool(self.tie_word_embeddings),
        )

    def training_setup(self) -> training_memory.TrainingSetup:
        return training_memory.TrainingSetup(
            method=self.method,
            seq_len=self.seq_len,
            batch_size=self.batch_size,
            gradient_checkpointing=self.gradient_checkpointing,
            lora_rank=self.lora_rank,
            num_gpus=self.num_gpus,
        )


def _parameter_errors(request: HttpRequest | None, given: dict[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if request is not None:
        known = MemoryQuery.model_fields
        for name in request.GET:
            if name not in known:
                errors[name] = f"{UNKNOWN_PARAMETER} (known: {', '.join(known)})"
            elif len(request.GET.getlist(name)) > 1:
                errors[name] = REPEATED_PARAMETER
    architecture = (*ARCHITECTURE_FIELDS, "tie_word_embeddings")
    if "model" in given:
        errors.update({name: NOT_WITH_MODEL for name in architecture if name in given})
    else:
        errors.update(
            {name: REQUIRED_WITHOUT_MODEL for name in ARCHITECTURE_FIELDS if name not in given}
        )
    return errors


def _parameter(error: ErrorDetails) -> str:
    return str(error["loc"][-1]) if error["loc"] else "parameters"


def _message(error: ErrorDetails) -> str:
    kind, context = error["type"], error.get("ctx", {})
    if kind == "missing":
        return REQUIRED
    if kind == "greater_than_equal":
        return f"must be at least {context['ge']}"
    if kind == "less_than_equal":
        return f"must be at most {context['le']:,}"
    if kind == "enum":
        return METHOD_CHOICES
    if kind in ("string_pattern_mismatch", "string_too_long"):
        return f"{NOT_A_SLUG}, at most {MODEL_SLUG_MAX_LENGTH} characters"
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


def gigabytes(value: Decimal) -> float:
    """GB to 3 decimals; the float is taken from the rounded Decimal, so it prints as such."""
    return float(value.quantize(GB_STEP, ROUND_HALF_UP))


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
    method: Method
    seq_len: int
    batch_size: int
    gradient_checkpointing: bool
    lora_rank: int
    num_gpus: int


class MemoryEstimate(Schema):
    peak_gb: float = Field(description="Peak memory per GPU, GB (10^9 bytes), 3 decimals.")
    breakdown: Breakdown = Field(
        description="What is alive at the peak, GB (summed before rounding)."
    )
    moment: str = Field(description="The moment of the training step the peak falls in.")
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
            breakdown=Breakdown(**{k: gigabytes(v) for k, v in peak.breakdown().items()}),
            moment=peak.moment,
            assumptions=list(peak.assumptions),
            inputs=EstimateInputs(
                model=model,
                hidden_size=architecture.hidden_size,
                num_hidden_layers=architecture.num_hidden_layers,
                num_attention_heads=architecture.num_attention_heads,
                num_key_value_heads=architecture.num_key_value_heads,
                intermediate_size=architecture.intermediate_size,
                vocab_size=architecture.vocab_size,
                tie_word_embeddings=architecture.tie_word_embeddings,
                method=setup.method,
                seq_len=setup.seq_len,
                batch_size=setup.batch_size,
                gradient_checkpointing=setup.gradient_checkpointing,
                lora_rank=setup.lora_rank,
                num_gpus=setup.num_gpus,
            ),
        )


class Errors(Schema):
    errors: dict[str, str] = Field(description="Each refused parameter and why.")
