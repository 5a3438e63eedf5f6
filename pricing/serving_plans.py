"""Which GPUs we rent serve a model with vLLM, and how: the one computation behind
``/api/v1/serving/`` and the serving planner page.

Reads through ``selectors`` (via ``planning``'s catalogue) and computes with
``pricing.domain.serving``; no queries, requests or formatting of its own. Configurations are
1, 2, 4 or 8 GPUs of one kind on one host, with tensor parallelism over all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from pricing import planning, selectors
from pricing.domain import serving, throughput
from pricing.domain.calculations import HOST_GPU_COUNTS, reported_memory_gb
from pricing.domain.training_memory import Architecture
from pricing.models import LanguageModel

DEFAULT_CONTEXT = 8192
DEFAULT_CONCURRENCY = 1


@dataclass(frozen=True)
class ServingRow:
    """One configuration: ``count`` GPUs of a kind, tensor parallel over all of them."""

    gpu: selectors.GpuListing
    count: int
    memory: serving.ServingMemory  # per GPU
    fixes: tuple[serving.Fix, ...]
    command: tuple[str, ...]
    concurrency: int  # what was asked: requests at the full context at once

    @property
    def starts(self) -> bool:
        return self.memory.starts

    @property
    def serves(self) -> bool:
        """Starts and holds the asked concurrency at the full context."""
        return self.starts and self.memory.max_concurrent_requests >= self.concurrency

    @property
    def usd_per_hour(self) -> Decimal | None:
        price = self.gpu.usd_per_gpu_hour
        return None if price is None else price * self.count


@dataclass(frozen=True)
class ServingPlan:
    model: LanguageModel | None  # None where the architecture was given field by field
    architecture: Architecture
    setup: serving.ServingSetup  # as asked, on one GPU; each row sets its own count
    concurrency: int
    provider: str
    as_of: date
    rows: tuple[ServingRow, ...]

    @property
    def kv_bytes_per_token(self) -> int:
        """Keys and values of one token for the whole model, as one GPU would hold them."""
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
    at: date | None = None,
) -> ServingPlan:
    """Each GPU we rent, 1, 2, 4 and 8 on one host, serving a model on file (``model``) or
    given by its architecture, with ``setup``'s precisions and context; prices as of ``at``."""
    language_model = None
    if model is not None:
        language_model = planning.language_model_on_file(slug=model)
        refuse_unplannable(language_model, setup.context)
        architecture = planning.architecture_of(language_model)
    catalogue = planning.gpu_catalogue(at=at)
    # A model given by its fields has no repository on file: the command names the checkpoint
    # variable, as it does for 4-bit weights.
    unnamed = f"${serving.CHECKPOINT_VARIABLE}"
    repository = language_model.repository if language_model else unnamed
    rows = tuple(
        _row(architecture, gpu, count, setup, concurrency, repository)
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
    )


def _row(
    architecture: Architecture,
    gpu: selectors.GpuListing,
    count: int,
    setup: serving.ServingSetup,
    concurrency: int,
    repository: str,
) -> ServingRow:
    setup = replace(setup, tensor_parallel_size=count)
    card = {
        "card_gb": reported_memory_gb(gpu.memory_gb, gpu.measured_memory_gb),
        "ampere": gpu.generation == throughput.AMPERE,
    }
    memory = serving.serving_memory(architecture, setup, **card)
    return ServingRow(
        gpu=gpu,
        count=count,
        memory=memory,
        fixes=tuple(serving.fixes(architecture, setup, **card)),
        command=tuple(serving.vllm_serve_command(repository, setup)),
        concurrency=concurrency,
    )
