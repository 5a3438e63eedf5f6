"""Peak GPU memory of one fine-tuning step, derived term by term from the model's architecture.

Framework-free like ``calculations``: plain values in, ``Decimal`` gigabytes (10**9 bytes) out.
The terms follow what PyTorch keeps alive during a training step of a Llama-style decoder
(RMSNorm, rotary attention with grouped KV heads, SwiGLU MLP) under four recipes, as run by
``../shared/reference/measured/measure_memory.py`` and checked against its measured peaks
(``docs/planner.md`` lists every term, its source and each point's error):

``qlora``
    4-bit NF4 linear layers; peft's ``prepare_model_for_kbit_training`` casts embeddings, norms
    and the output layer to fp32, so the residual stream is fp32, attention runs in fp32 and
    PyTorch has no fused kernel for it (FlashAttention needs 16-bit inputs; the memory-efficient
    kernel takes no grouped KV heads): the score matrix is materialised.
``lora``
    bf16 frozen base, fp32 LoRA adapters on all seven projections; peft casts each adapter's
    input to fp32. Attention runs in FlashAttention.
``full-adamw`` / ``full-8bit-adam``
    fp32 master weights under bf16 autocast; AdamW (8 bytes of state per parameter) or
    bitsandbytes' 8-bit AdamW (2 bytes plus a block scale per 256 values).

A step's peak is the largest of four moments, each a sum of what is alive then:
the end of the forward pass (inside autocast), the start of the backward pass (the loss over
the whole vocabulary), the backward pass through one recomputed layer (with checkpointing), and
the end of the backward pass (every gradient). Optimizer states exist from the second step on,
so they count at every moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache

GB = Decimal(10) ** 9
LORA_TARGETS = 7  # q, k, v, o, gate, up, down
# cuBLAS keeps two 32 MiB workspaces on Hopper once the first matrix product has run; they are
# inside torch.cuda.max_memory_allocated (the measured runs' static memory grows by exactly this
# after their first step).
CUDA_WORKSPACE_BYTES = 2 * 32 * 2**20
# NF4 storage: half a byte per weight, plus the block scales: one byte per 64 weights (the
# absmax, itself quantised, bitsandbytes' default "double quantisation") and one fp32 per
# 256 of those.
NF4_BYTES_PER_PARAM = Decimal("0.5") + Decimal(1) / 64 + Decimal(4) / (64 * 256)
# bitsandbytes' 8-bit AdamW: two one-byte states plus one fp32 absmax per 256 values each.
ADAM_8BIT_BYTES_PER_PARAM = 2 + Decimal(2 * 4) / 256
ADAMW_BYTES_PER_PARAM = 8
# One recomputed attention layer with materialised scores: the scores, the softmax output, the
# "row is all -inf" test (one byte) and the masked output of PyTorch's _safe_softmax are alive
# together (4 + 4 + 1 + 4 = 13 bytes per score); the measured points ask 13.4-14.8 at 4,096-8,192
# tokens, so the estimate plans with the upper end (docs/planner.md, "Not derived").
RECOMPUTED_SCORE_BYTES = Decimal("14.5")
# Without checkpointing each layer keeps only its softmax output (fp32) for the backward pass.
SAVED_SCORE_BYTES = 4
# The loss over the vocabulary at the start of the backward pass: log-softmax output (kept for
# the backward pass), its gradient and the gradient of the logits, all fp32.
LOSS_BACKWARD_BYTES_PER_LOGIT = 12
# At the end of the forward pass: the 16-bit logits, their fp32 copy and the log-softmax output.
LOSS_FORWARD_BYTES_PER_LOGIT = 10


class EstimateError(ValueError):
    """Inputs that describe no real model or training run."""


class Method(StrEnum):
    QLORA = "qlora"
    LORA = "lora"
    FULL_8BIT_ADAM = "full-8bit-adam"
    FULL_ADAMW = "full-adamw"

    @property
    def uses_adapters(self) -> bool:
        return self in (Method.QLORA, Method.LORA)


@dataclass(frozen=True)
class Architecture:
    """A decoder's shape, by the names of its Hugging Face ``config.json``."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        for name in (
            "hidden_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "intermediate_size",
            "vocab_size",
        ):
            if getattr(self, name) < 1:
                raise EstimateError(f"{name} must be at least 1")
        if self.hidden_size % self.num_attention_heads:
            raise EstimateError("hidden_size must be a multiple of num_attention_heads")
        if self.num_attention_heads % self.num_key_value_heads:
            raise EstimateError("num_attention_heads must be a multiple of num_key_value_heads")

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def kv_size(self) -> int:
        """Width of the key (and of the value) projection: KV heads x head size."""
        return self.num_key_value_heads * self.head_dim

    @property
    def layer_linear_params(self) -> int:
        """The seven projections of one decoder layer: q and o are h x h, k and v h x kv,
        gate, up and down h x intermediate."""
        h, kv, i = self.hidden_size, self.kv_size, self.intermediate_size
        return 2 * h * h + 2 * h * kv + 3 * h * i

    @property
    def linear_params(self) -> int:
        return self.num_hidden_layers * self.layer_linear_params

    @property
    def embedding_params(self) -> int:
        """Input embeddings plus, unless tied to them, the output layer."""
        tables = 1 if self.tie_word_embeddings else 2
        return tables * self.vocab_size * self.hidden_size

    @property
    def norm_params(self) -> int:
        return (2 * self.num_hidden_layers + 1) * self.hidden_size

    @property
    def params(self) -> int:
        return self.linear_params + self.embedding_params + self.norm_params

    @property
    def largest_linear_params(self) -> int:
        h = self.hidden_size
        return max(h * h, h * self.kv_size, h * self.intermediate_size)

    def lora_params(self, rank: int) -> int:
        """A and B matrices on all seven projections: rank x (inputs + outputs) each."""
        h, kv, i = self.hidden_size, self.kv_size, self.intermediate_size
        per_layer = (h + h) + 2 * (h + kv) + (h + h) + 2 * (h + i) + (i + h)
        return rank * per_layer * self.num_hidden_layers


@dataclass(frozen=True)
class TrainingSetup:
    method: Method
    seq_len: int
    batch_size: int = 1
    gradient_checkpointing: bool = True
    lora_rank: int = 16
    num_gpus: int = 1  # data parallel with ZeRO-3 / FSDP full sharding

    def __post_init__(self) -> None:
        for name in ("seq_len", "batch_size", "lora_rank", "num_gpus"):
            if getattr(self, name) < 1:
                raise EstimateError(f"{name} must be at least 1")

    @property
    def tokens(self) -> int:
        return self.seq_len * self.batch_size


@dataclass(frozen=True)
class PeakMemory:
    """The peak per GPU and what is alive at that moment, in GB (10**9 bytes)."""

    weights_gb: Decimal
    adapters_gb: Decimal
    gradients_gb: Decimal
    optimizer_states_gb: Decimal
    activations_gb: Decimal
    logits_and_loss_gb: Decimal
    workspace_gb: Decimal
    moment: str
    assumptions: tuple[str, ...] = field(default=())

    @property
    def peak_gb(self) -> Decimal:
        return sum(
            (
                self.weights_gb,
                self.adapters_gb,
                self.gradients_gb,
                self.optimizer_states_gb,
                self.activations_gb,
                self.logits_and_loss_gb,
                self.workspace_gb,
            ),
            Decimal(0),
        )

    def breakdown(self) -> dict[str, Decimal]:
        return {
            "weights": self.weights_gb,
            "adapters": self.adapters_gb,
            "gradients": self.gradients_gb,
            "optimizer_states": self.optimizer_states_gb,
            "activations": self.activations_gb,
            "logits_and_loss": self.logits_and_loss_gb,
            "workspace": self.workspace_gb,
        }


@dataclass(frozen=True)
class _Moment:
    name: str
    weights: Decimal = Decimal(0)
    gradients: Decimal = Decimal(0)
    activations: Decimal = Decimal(0)
    logits: Decimal = Decimal(0)

    @property
    def total(self) -> Decimal:
        return self.weights + self.gradients + self.activations + self.logits


def _sharded(total: Decimal, unit: Decimal, gpus: int) -> Decimal:
    """One GPU's share under ZeRO-3/FSDP: its 1/n of everything, plus the rest of the unit
    being gathered for computation. Equal to ``total`` on one GPU, never more on more GPUs."""
    return total / gpus + unit * (gpus - 1) / gpus


def _layer_activation_bytes(arch: Architecture, method: Method, rank: int) -> int:
    """Bytes one decoder layer keeps for its backward pass, per token, without the scores.

    Counted from what autograd saves (frozen weights save no inputs; adding saves nothing):
    """
    h, kv, i = arch.hidden_size, arch.kv_size, arch.intermediate_size
    if method is Method.QLORA:
        # fp32 throughout. Each RMSNorm keeps its input (4h) and the adapters keep the norm's
        # output (4h, shared by q, k, v, and by gate, up); attention keeps the scaled query,
        # the keys and values repeated to every head and the output (4 x 4h); the MLP keeps
        # gate, SiLU, up and product (4 x 4i); the adapters' rank-wide middles (7 x 4r).
        return 2 * (4 * h + 4 * h) + 16 * h + 16 * i + LORA_TARGETS * 4 * rank
    if method is Method.LORA:
        # bf16 residual. Each RMSNorm keeps its fp32 upcast (4h); peft casts each adapter's
        # input to fp32 separately (q, k, v, o, gate, up: 6 x 4h; down: 4i); FlashAttention
        # keeps q, k, v and its output (2h + 2kv + 2kv + 2h); the MLP keeps gate, SiLU and up
        # in bf16 (3 x 2i); the adapters' rank-wide middles (7 x 4r).
        return 8 * h + 24 * h + 4 * i + (4 * h + 4 * kv) + 6 * i + LORA_TARGETS * 4 * rank
    # Full fine-tuning under bf16 autocast with an fp32 residual: each RMSNorm keeps its input
    # and its normalised output (2 x 4h, the weight is trained); each projection keeps its
    # own bf16 cast of its input (q, k, v, gate, up: 5 x 2h; o: 2h); FlashAttention keeps the
    # rotated fp32 query and key cast back to bf16 and the value (2h + 2kv + 2kv) and its
    # output (2h); the MLP keeps gate, SiLU, up and product (4 x 2i).
    return 16 * h + 12 * h + (4 * h + 4 * kv) + 8 * i


def _residual_bytes(method: Method) -> int:
    """Bytes per hidden value of the residual stream (a checkpoint stores one per layer)."""
    return 2 if method is Method.LORA else 4


# Pure functions of frozen values, remembered per process (bounded): a guide page asks for the
# same estimates and searches on every render, and a search costs a few dozen estimates.
@lru_cache(maxsize=4096)
def estimate_peak_memory(arch: Architecture, setup: TrainingSetup) -> PeakMemory:
    method, n = setup.method, setup.num_gpus
    tokens = setup.tokens
    h, layers = arch.hidden_size, arch.num_hidden_layers
    rank = setup.lora_rank if method.uses_adapters else 0
    lora_params = arch.lora_params(rank)
    logits = tokens * arch.vocab_size
    layer_params = arch.layer_linear_params + 2 * h
    # Sharding gathers one unit at a time: a decoder layer, or the embeddings or output layer
    # where those are larger.
    unit_params = max(layer_params, arch.vocab_size * h)
    assumptions: list[str] = []

    # Weights and adapters, as stored.
    if method is Method.QLORA:
        weights = arch.linear_params * NF4_BYTES_PER_PARAM + 4 * (
            arch.embedding_params + arch.norm_params
        )
        unit = max(layer_params * NF4_BYTES_PER_PARAM, Decimal(4 * arch.vocab_size * h))
        assumptions.append(
            "Base linear layers in 4-bit NF4 with double-quantised block scales; embeddings, "
            "norms and the output layer cast to fp32 (peft's prepare_model_for_kbit_training)."
        )
    elif method is Method.LORA:
        weights = Decimal(2 * arch.params)
        unit = Decimal(2 * unit_params)
        assumptions.append("Frozen base weights in bf16.")
    else:
        weights = Decimal(4 * arch.params)
        unit = Decimal(4 * unit_params)
        assumptions.append("fp32 master weights, bf16 autocast.")
    weights = _sharded(weights, unit, n)
    adapters = Decimal(4 * lora_params) / n
    if method.uses_adapters:
        assumptions.append(
            f"LoRA rank {rank} on all seven projections, adapters and their gradients in fp32."
        )

    trainable = lora_params if method.uses_adapters else arch.params
    if method is Method.FULL_8BIT_ADAM:
        optimizer = trainable * ADAM_8BIT_BYTES_PER_PARAM / n
        assumptions.append("bitsandbytes 8-bit AdamW: 2 bytes of state per parameter.")
    else:
        optimizer = Decimal(ADAMW_BYTES_PER_PARAM * trainable) / n
        assumptions.append("AdamW: two fp32 states, 8 bytes per trainable parameter.")

    gradients = Decimal(4 * trainable)
    gradient_unit = Decimal(4 * (lora_params // layers if method.uses_adapters else unit_params))
    all_gradients = _sharded(gradients, gradient_unit, n)

    materialised = method is Method.QLORA
    if materialised:
        assumptions.append(
            "Attention in fp32 has no fused kernel: the score matrix (heads x tokens^2) is "
            "materialised."
        )
    else:
        assumptions.append("Attention in a fused kernel (FlashAttention): no score matrix kept.")
    scores = setup.batch_size * arch.num_attention_heads * setup.seq_len**2
    causal_mask = 5 * setup.seq_len**2 if materialised else 0  # bool tril + float mask
    per_layer = tokens * _layer_activation_bytes(arch, method, rank)
    saved_scores = SAVED_SCORE_BYTES * scores if materialised else 0
    residual = _residual_bytes(method)
    final_norm = tokens * (8 if not method.uses_adapters else 4) * h

    autocast_copies = Decimal(0)
    if not method.uses_adapters:
        # bf16 copies of every weight: cached by autocast during the forward pass, then kept by
        # the backward graph (without checkpointing) or only for the output layer (with it).
        autocast_copies = _sharded(Decimal(2 * arch.params), Decimal(2 * unit_params), n)
    output_layer_copy = Decimal(2 * arch.vocab_size * h) if not method.uses_adapters else Decimal(0)

    # What the backward pass through one layer holds beyond that layer's saved activations:
    # the score matrix's transients and the largest dequantised 4-bit weight.
    layer_transient = Decimal(
        (RECOMPUTED_SCORE_BYTES - SAVED_SCORE_BYTES) * scores + causal_mask if materialised else 0
    ) + (2 * arch.largest_linear_params if method is Method.QLORA else 0)
    # The first layer the backward pass reaches holds the most activations; by then only the
    # output layer and that layer have gradients (later layers trade activations for
    # gradients, which the end of the backward pass bounds).
    output_layer_gradients = 0 if method.uses_adapters else 4 * arch.vocab_size * h
    first_layer_gradients = _sharded(
        Decimal(output_layer_gradients) + gradient_unit, gradient_unit, n
    )
    saved_layer = per_layer + saved_scores
    if setup.gradient_checkpointing:
        assumptions.append(
            "Gradient checkpointing (non-reentrant): one stored input per layer, "
            "one layer recomputed at a time."
        )
        kept = Decimal(layers * tokens * residual * h + final_norm)
        # The recomputed layer's first RMSNorm keeps the stored input itself where it is
        # already fp32 (QLoRA, full); with a bf16 input it keeps an fp32 copy (LoRA).
        shared_input = 0 if method is Method.LORA else tokens * residual * h
        through_layer = kept + (saved_layer - shared_input) + layer_transient
        backward_weights = output_layer_copy
        layer_weights = Decimal(2 * layer_params) if not method.uses_adapters else Decimal(0)
    else:
        assumptions.append("No gradient checkpointing: every layer keeps its activations.")
        kept = Decimal(layers * saved_layer + final_norm)
        through_layer = kept + layer_transient
        backward_weights = layer_weights = autocast_copies

    moments = [
        _Moment(
            "end of the forward pass",
            weights=autocast_copies,
            activations=kept,
            logits=Decimal(LOSS_FORWARD_BYTES_PER_LOGIT * logits),
        ),
        _Moment(
            "start of the backward pass",
            weights=backward_weights,
            activations=kept,
            logits=Decimal(LOSS_BACKWARD_BYTES_PER_LOGIT * logits),
        ),
        _Moment(
            "backward pass through a layer",
            weights=layer_weights,
            gradients=first_layer_gradients,
            activations=through_layer,
        ),
    ]
    # A tied embedding receives its second gradient as a new table before it is added in.
    tied_extra = (
        Decimal(4 * arch.vocab_size * h)
        if arch.tie_word_embeddings and not method.uses_adapters
        else Decimal(0)
    )
    moments.append(_Moment("end of the backward pass", gradients=all_gradients + tied_extra))
    peak = max(moments, key=lambda m: m.total)
    if n > 1:
        assumptions.append(
            f"ZeRO-3/FSDP over {n} GPUs: weights, gradients and optimizer states sharded, one "
            "layer gathered at a time; activations are per GPU (each runs its own micro-batch)."
        )
    assumptions.append(f"Peak at the {peak.name}.")
    return PeakMemory(
        weights_gb=(weights + peak.weights) / GB,
        adapters_gb=adapters / GB,
        gradients_gb=peak.gradients / GB,
        optimizer_states_gb=optimizer / GB,
        activations_gb=peak.activations / GB,
        logits_and_loss_gb=peak.logits / GB,
        workspace_gb=Decimal(CUDA_WORKSPACE_BYTES) / GB,
        moment=peak.name,
        assumptions=tuple(assumptions),
    )


@lru_cache(maxsize=1024)
def longest_sequence(
    arch: Architecture, setup: TrainingSetup, usable_gb: Decimal, *, step: int = 256
) -> int:
    """The longest sequence, in multiples of ``step`` tokens up to 1,048,576, whose peak per GPU
    fits in ``usable_gb`` with the rest of ``setup`` unchanged; 0 where not even ``step`` fits.

    A binary search: the peak never falls as sequences grow (a tested property).
    """
    low, high = 0, 1_048_576 // step  # low fits (or is zero), high + 1 is known not to
    while low < high:
        middle = (low + high + 1) // 2
        trial = TrainingSetup(
            setup.method,
            seq_len=middle * step,
            batch_size=setup.batch_size,
            gradient_checkpointing=setup.gradient_checkpointing,
            lora_rank=setup.lora_rank,
            num_gpus=setup.num_gpus,
        )
        if estimate_peak_memory(arch, trial).peak_gb <= usable_gb:
            low = middle
        else:
            high = middle - 1
    return low * step
