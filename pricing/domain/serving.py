"""Serving memory per GPU as the pinned vLLM budgets it, and whether ``vllm serve`` starts.

Read from vLLM 0.34.0's source, as ``docs/serving.md`` sets out term by term; what the source
does not give (the CUDA context, NCCL, the CUDA graphs' pool, the activation peak's terms) is
estimated. Memory in GB (10**9 bytes); vLLM's error texts, as it writes them, in GiB.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, Decimal

from pricing.domain.calculations import CUDA_CONTEXT_GB, GB_BYTES, GIB_BYTES, NCCL_GB
from pricing.domain.training_memory import Architecture, EstimateError

VLLM_VERSION = "0.34.0"
BLOCK_TOKENS = 16  # vLLM's default block size on CUDA for full attention
NULL_BLOCKS = 1  # the block pool's null block, never handed to a request
VOCAB_PADDING = 64  # vocab_parallel_embedding.DEFAULT_VOCAB_PADDING_SIZE
# measure_kv_cache_bytes: the margin kept free beyond the activation peak.
MARGIN_FLOOR_BYTES = 2**30
MARGIN_FRACTION = Decimal("0.75")
# The CUDA graphs' pool: vLLM's log for a 27B-class model, 0.73 GiB (vllm-project/vllm PR
# 39559), rounded up.
CUDA_GRAPHS_GB = Decimal("0.79")
# The profile run's peak (estimated): per token, hidden-size buffers and the MLP's gate, up and
# activation in bf16; per sampler row, bf16 and fp32 logits and fp32 probabilities.
HIDDEN_BUFFERS = 4
MLP_BUFFERS = 3
ACTIVATION_BYTES = 2
SAMPLER_BYTES_PER_LOGIT = 10
# engine/arg_utils.py: `vllm serve`'s defaults by the card's memory (OPENAI_API_SERVER).
LARGE_CARD_GIB = 160
HOPPER_CLASS_GIB = 70
# AWQ and GPTQ: a 16-bit scale and a 4-bit zero per group of 128 inputs, whole on each GPU.
QUANT_GROUP = 128


class ServingError(EstimateError):
    """A serving setup that cannot describe anything real."""


@dataclass(frozen=True)
class WeightPrecision:
    """How the decoder's linear layers are stored; embeddings, norms and a router stay bf16."""

    slug: str
    bytes_per_param: Decimal
    quantization: str | None  # `--quantization` for an online conversion; None: as stored
    grouped: bool = False  # AWQ/GPTQ: inputs in groups of QUANT_GROUP per GPU

    @property
    def needs_quantized_checkpoint(self) -> bool:
        return self.grouped


GROUP_OVERHEAD = (Decimal(2) + Decimal("0.5")) / QUANT_GROUP  # scale + zero point per group
BF16 = WeightPrecision("bf16", Decimal(2), None)
FP8 = WeightPrecision("fp8", Decimal(1), "fp8")  # one scale per tensor: negligible
AWQ = WeightPrecision("awq", Decimal("0.5") + GROUP_OVERHEAD, None, grouped=True)
GPTQ = WeightPrecision("gptq", Decimal("0.5") + GROUP_OVERHEAD, None, grouped=True)
WEIGHT_PRECISIONS = {p.slug: p for p in (BF16, FP8, AWQ, GPTQ)}

# `--kv-cache-dtype`: "auto" is the model's dtype (bf16 here), fp8 is fp8_e4m3.
KV_BYTES = {"auto": 2, "fp8": 1}


@dataclass(frozen=True)
class ServingSetup:
    weights: WeightPrecision = BF16
    kv_cache_dtype: str = "auto"
    context: int = 8192  # --max-model-len
    tensor_parallel_size: int = 1
    gpu_memory_utilization: Decimal = Decimal(1)

    def __post_init__(self) -> None:
        if self.kv_cache_dtype not in KV_BYTES:
            raise ServingError(f"kv_cache_dtype must be one of {', '.join(KV_BYTES)}")
        if self.context < 1 or self.tensor_parallel_size < 1:
            raise ServingError("context and tensor_parallel_size must be at least 1")
        if not 0 < self.gpu_memory_utilization <= 1:
            raise ServingError("gpu_memory_utilization must be above 0 and at most 1")


@dataclass(frozen=True)
class SchedulerDefaults:
    max_num_batched_tokens: int
    max_num_seqs: int


def scheduler_defaults(card_bytes: Decimal, *, ampere: bool) -> SchedulerDefaults:
    """`vllm serve`'s defaults for a card of this total memory (arg_utils)."""
    gib = card_bytes / GIB_BYTES
    if gib >= LARGE_CARD_GIB:
        return SchedulerDefaults(16384, 1024)
    if gib >= HOPPER_CLASS_GIB and not ampere:
        return SchedulerDefaults(8192, 1024)
    return SchedulerDefaults(2048, 256)


def kv_heads_per_gpu(architecture: Architecture, tensor_parallel_size: int) -> int:
    """Split over the GPUs, replicated where they are fewer (vLLM's ``get_num_kv_heads``)."""
    return max(1, architecture.num_key_value_heads // tensor_parallel_size)


def kv_bytes_per_token(
    architecture: Architecture, kv_cache_dtype: str = "auto", tensor_parallel_size: int = 1
) -> int:
    """Keys and values of one token on one GPU: 2 x layers x KV heads x head size x bytes."""
    return (
        2
        * architecture.num_hidden_layers
        * kv_heads_per_gpu(architecture, tensor_parallel_size)
        * architecture.attention_head_dim
        * KV_BYTES[kv_cache_dtype]
    )


def padded_vocab(architecture: Architecture) -> int:
    return -(-architecture.vocab_size // VOCAB_PADDING) * VOCAB_PADDING


def weights_bytes_per_gpu(architecture: Architecture, setup: ServingSetup) -> Decimal:
    """Each GPU's share of the weights: linear layers in the weights' precision, the rest bf16."""
    a, tp = architecture, setup.tensor_parallel_size
    h, head = a.hidden_size, a.attention_head_dim
    attention = h * head * (2 * a.num_attention_heads // tp + 2 * kv_heads_per_gpu(a, tp))
    mlp = a.experts * 3 * h * a.intermediate_size // tp
    linear = a.num_hidden_layers * (attention + mlp)
    tables = 1 if a.tie_word_embeddings else 2
    vocab_rows = -(-padded_vocab(a) // tp)
    plain = tables * vocab_rows * h + a.norm_params + a.router_params * a.num_hidden_layers
    return linear * setup.weights.bytes_per_param + plain * 2


def activation_peak_bytes(
    architecture: Architecture, setup: ServingSetup, scheduler: SchedulerDefaults
) -> int:
    """The profile run's peak on one GPU: its forward pass or its sampler, the larger."""
    a = architecture
    mlp_width = a.routed_experts * a.intermediate_size // setup.tensor_parallel_size
    per_token = (HIDDEN_BUFFERS * a.hidden_size + MLP_BUFFERS * mlp_width) * ACTIVATION_BYTES
    forward = scheduler.max_num_batched_tokens * per_token
    rows = min(scheduler.max_num_batched_tokens, scheduler.max_num_seqs)
    sampler = rows * padded_vocab(a) * SAMPLER_BYTES_PER_LOGIT
    return max(forward, sampler)


# Why vLLM would not start (``ServingMemory.refusal``).
HEADS_NOT_DIVISIBLE = "heads_not_divisible"
GROUPS_NOT_WHOLE = "groups_not_whole"
NO_MEMORY_FOR_CACHE = "no_memory_for_cache"
CONTEXT_DOES_NOT_FIT = "context_does_not_fit"


@dataclass(frozen=True)
class ServingMemory:
    """One GPU of a `vllm serve` setup, in GB (10**9 bytes) and tokens."""

    setup: ServingSetup
    card_gb: Decimal  # the total PyTorch reports on the card
    weights_gb: Decimal
    cuda_context_gb: Decimal
    nccl_gb: Decimal
    cuda_graphs_gb: Decimal
    activation_peak_gb: Decimal
    margin_gb: Decimal
    kv_cache_gb: Decimal  # what the cache gets, 0 where nothing is left
    kv_bytes_per_token: int
    kv_tokens: int  # the cache's capacity in tokens (whole blocks, null block apart)
    max_num_seqs: int
    refusal: str | None  # one of the constants above, None when vLLM starts
    vllm_error: str  # vLLM's own message where it refuses, else ""

    @property
    def starts(self) -> bool:
        return self.refusal is None

    @property
    def runtime_gb(self) -> Decimal:
        """What is neither weights nor KV cache."""
        return (
            self.cuda_context_gb
            + self.nccl_gb
            + self.cuda_graphs_gb
            + self.activation_peak_gb
            + self.margin_gb
        )

    @property
    def max_concurrent_requests(self) -> int:
        """Requests at the full context the cache holds at once, up to ``max_num_seqs``."""
        blocks = self.kv_tokens // BLOCK_TOKENS
        return min(blocks // blocks_for(self.setup.context), self.max_num_seqs)


def blocks_for(tokens: int) -> int:
    return -(-tokens // BLOCK_TOKENS)


def serving_memory(
    architecture: Architecture,
    setup: ServingSetup,
    *,
    card_gb: Decimal,
    ampere: bool = False,
) -> ServingMemory:
    a, tp = architecture, setup.tensor_parallel_size
    card = card_gb * GB_BYTES
    scheduler = scheduler_defaults(card, ampere=ampere)
    weights = weights_bytes_per_gpu(a, setup)
    context = CUDA_CONTEXT_GB * GB_BYTES
    nccl = NCCL_GB * GB_BYTES if tp > 1 else Decimal(0)
    graphs = CUDA_GRAPHS_GB * GB_BYTES
    peak = Decimal(activation_peak_bytes(a, setup, scheduler))
    margin = max(
        Decimal(MARGIN_FLOOR_BYTES), (peak * MARGIN_FRACTION).to_integral_value(ROUND_FLOOR)
    )
    resident = weights + nccl + graphs  # what the engine keeps besides the cache
    budget = (card * setup.gpu_memory_utilization).to_integral_value() - resident
    headroom = card - context - resident  # free memory plus the cache, after warmup
    kv = max(min(budget, headroom - margin) - peak, Decimal(0))
    per_token = kv_bytes_per_token(a, setup.kv_cache_dtype, tp)
    blocks = int(kv // (per_token * BLOCK_TOKENS))
    tokens = max(blocks - NULL_BLOCKS, 0) * BLOCK_TOKENS
    refusal, error = _refusal(a, setup, kv=kv, tokens=tokens, per_token=per_token)
    return ServingMemory(
        setup=setup,
        card_gb=card_gb,
        weights_gb=weights / GB_BYTES,
        cuda_context_gb=CUDA_CONTEXT_GB,
        nccl_gb=nccl / GB_BYTES,
        cuda_graphs_gb=CUDA_GRAPHS_GB,
        activation_peak_gb=peak / GB_BYTES,
        margin_gb=margin / GB_BYTES,
        kv_cache_gb=kv / GB_BYTES,
        kv_bytes_per_token=per_token,
        kv_tokens=tokens,
        max_num_seqs=scheduler.max_num_seqs,
        refusal=refusal,
        vllm_error=error,
    )


def _gib(num_bytes: Decimal | int) -> str:
    """As vLLM's ``format_gib`` writes it: round(bytes / 2**30, 2)."""
    return str(round(float(num_bytes) / 2**30, 2))


def _refusal(
    a: Architecture, setup: ServingSetup, *, kv: Decimal, tokens: int, per_token: int
) -> tuple[str | None, str]:
    tp = setup.tensor_parallel_size
    if a.num_attention_heads % tp:
        return HEADS_NOT_DIVISIBLE, (
            f"Total number of attention heads ({a.num_attention_heads}) must be divisible "
            f"by tensor parallel size ({tp})."
        )
    if setup.weights.grouped and (a.intermediate_size // tp) % QUANT_GROUP:
        return GROUPS_NOT_WHOLE, (
            f"The input size is not aligned with the quantized weight shape. This can be "
            f"caused by too large tensor parallel size. (MLP width {a.intermediate_size} / "
            f"{tp} GPUs is not a multiple of the group size {QUANT_GROUP}.)"
        )
    if kv <= 0:
        return NO_MEMORY_FOR_CACHE, (
            "No available memory for the cache blocks. The extensible KV cache already "
            "takes all device memory left after the model and its activations; decrease "
            "`max_model_len` or `max_num_seqs`, or the model needs a device with more memory."
        )
    if tokens < setup.context:
        needed = blocks_for(setup.context) * BLOCK_TOKENS * per_token
        estimate = (
            f"Based on the available memory, the estimated maximum model length is {tokens}. "
            if tokens
            else ""
        )
        return CONTEXT_DOES_NOT_FIT, (
            f"To serve at least one request with the model's max seq len ({setup.context}), "
            f"({_gib(needed)} GiB KV cache is needed, which is larger than the available KV "
            f"cache memory ({_gib(kv)} GiB). {estimate}"
            "Decreasing `max_model_len` also reduces what is needed."
        )
    return None, ""


# --- what to change when it does not start -------------------------------------------------


@dataclass(frozen=True)
class Fix:
    flag: str  # --max-model-len, --kv-cache-dtype, --tensor-parallel-size, or "weights"
    value: str


def fixes(
    architecture: Architecture,
    setup: ServingSetup,
    *,
    card_gb: Decimal,
    ampere: bool = False,
    counts: Iterable[int] = (1, 2, 4, 8),
) -> list[Fix]:
    """Each single change that makes a refused setup start, cheapest first: a shorter context,
    an fp8 KV cache, the nearest GPU count from ``counts`` that starts (more where memory is
    short, fewer where heads or 4-bit groups do not split), smaller weights."""

    def starts(changed: ServingSetup) -> ServingMemory:
        return serving_memory(architecture, changed, card_gb=card_gb, ampere=ampere)

    memory = starts(setup)
    if memory.starts:
        return []
    found: list[Fix] = []
    if memory.refusal == CONTEXT_DOES_NOT_FIT and memory.kv_tokens:
        found.append(Fix("--max-model-len", str(memory.kv_tokens)))
    if setup.kv_cache_dtype != "fp8" and starts(replace(setup, kv_cache_dtype="fp8")).starts:
        found.append(Fix("--kv-cache-dtype", "fp8"))
    tp = setup.tensor_parallel_size
    if memory.refusal in (HEADS_NOT_DIVISIBLE, GROUPS_NOT_WHOLE):
        others = sorted((c for c in counts if c < tp), reverse=True)
    else:
        others = sorted(c for c in counts if c > tp)
    for count in others:
        if starts(replace(setup, tensor_parallel_size=count)).starts:
            found.append(Fix("--tensor-parallel-size", str(count)))
            break
    for smaller in (FP8, AWQ):
        if smaller.bytes_per_param < setup.weights.bytes_per_param:
            if starts(replace(setup, weights=smaller)).starts:
                found.append(Fix("weights", smaller.slug))
                break
    return found


# --- the command --------------------------------------------------------------------------

CHECKPOINT_VARIABLE = "CHECKPOINT"


def vllm_serve_command(repository: str, setup: ServingSetup) -> list[str]:
    """`vllm serve`'s arguments; an AWQ or GPTQ checkpoint is named ``$CHECKPOINT``."""
    model = f"${CHECKPOINT_VARIABLE}" if setup.weights.needs_quantized_checkpoint else repository
    command = ["vllm", "serve", model, "--max-model-len", str(setup.context)]
    if setup.tensor_parallel_size > 1:
        command += ["--tensor-parallel-size", str(setup.tensor_parallel_size)]
    if setup.weights.quantization:
        command += ["--quantization", setup.weights.quantization]
    if setup.kv_cache_dtype != "auto":
        command += ["--kv-cache-dtype", setup.kv_cache_dtype]
    if setup.gpu_memory_utilization != 1:
        command += ["--gpu-memory-utilization", str(setup.gpu_memory_utilization)]
    return command


BENCH_REQUESTS_PER_USER = 4


def vllm_bench_command(
    model: str, *, prompt_tokens: int, output_tokens: int, users: int
) -> list[str]:
    """`vllm bench serve` (vLLM 0.34.0's options) with the guide's load: ``users`` at once,
    random prompts, every answer full length."""
    return [
        "vllm", "bench", "serve", "--model", model,
        "--dataset-name", "random",
        "--random-input-len", str(prompt_tokens),
        "--random-output-len", str(output_tokens),
        "--ignore-eos",
        "--max-concurrency", str(users),
        "--num-prompts", str(users * BENCH_REQUESTS_PER_USER),
    ]  # fmt: skip


def shell_line(command: Iterable[str]) -> str:
    """The command as one shell line, the checkpoint variable in double quotes (expanded)."""
    variable = f"${CHECKPOINT_VARIABLE}"
    return " ".join(f'"{arg}"' if arg == variable else shlex.quote(arg) for arg in command)
