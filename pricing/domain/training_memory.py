"""Peak GPU memory of one fine-tuning step, derived term by term from the model's architecture.

What PyTorch keeps alive in a step of a Llama-style decoder, per method and recipe, checked
against the peaks ``../shared/reference/measured/measure_memory.py`` measured (``docs/planner.md``
lists every term, its source and each point's error). The peak is the largest of four moments:
the end of the forward pass, the start of the backward pass (the loss), the backward pass
through one layer, and its end; optimizer states count at every moment (from the second step).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache

GB = Decimal(10) ** 9
LORA_TARGETS = 7  # q, k, v, o, gate, up, down
# cuBLAS's two 32 MiB workspaces on Hopper, inside max_memory_allocated (measured).
CUDA_WORKSPACE_BYTES = 2 * 32 * 2**20
# NF4: half a byte a weight, a quantised absmax per 64 weights and an fp32 per 256 of those.
NF4_BYTES_PER_PARAM = Decimal("0.5") + Decimal(1) / 64 + Decimal(4) / (64 * 256)
# bitsandbytes' 8-bit AdamW: two one-byte states plus one fp32 absmax per 256 values each.
ADAM_8BIT_BYTES_PER_PARAM = 2 + Decimal(2 * 4) / 256
ADAMW_BYTES_PER_PARAM = 8
# A recomputed layer's materialised scores: scores, softmax, _safe_softmax's -inf test and
# output (13 bytes); measured 13.4-14.8, planned at the upper end (docs/planner.md).
RECOMPUTED_SCORE_BYTES = Decimal("14.5")
# Without checkpointing each layer keeps only its softmax output (fp32) for the backward pass.
SAVED_SCORE_BYTES = 4
# The loss: backward, fp32 log-softmax, its gradient and the logits' gradient; forward, the
# 16-bit logits, their fp32 copy and the log-softmax.
LOSS_BACKWARD_BYTES_PER_LOGIT = 12
LOSS_FORWARD_BYTES_PER_LOGIT = 10
# trl 1.16's fused LM head (trl/kernels/chunked_logprob.py) works in tiles of at most this many
# tokens and vocabulary entries: the logits never exist whole, nor a copy of the output layer.
LOSS_TILE_TOKENS = 4096
LOSS_TILE_VOCAB = 32768
# The caching allocator reserves more than a step's peak: beyond the resident weights, 2.5 % to
# 35.6 % more on the 26 steps measured. A fit plans with the percentile that covers nine in ten
# steps each left out in turn (the 92nd), rounded up; docs/planner.md says why, and
# tests/pricing/domain/test_training_memory.py derives it again.
ALLOCATOR_MARGIN = Decimal("0.33")
ALLOCATOR_MARGIN_PERCENTILE = 92


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


class Attention(StrEnum):
    """transformers' ``attn_implementation`` or an SDPA backend; eager and SDPA's math kernel
    materialise the score matrix, the fused kernels do not."""

    EAGER = "eager"
    SDPA = "sdpa"  # PyTorch picks: a fused kernel for 16-bit inputs, the math kernel in fp32
    SDPA_MATH = "sdpa-math"
    SDPA_EFFICIENT = "sdpa-efficient"
    FLASH = "flash"


@dataclass(frozen=True)
class Recipe:
    """The precision and kernels of a training step, named so that an answer can say which."""

    slug: str
    autocast: bool  # bf16 autocast around the forward pass, for every method
    attention: Attention
    lora_dropout: bool  # the adapters apply dropout (a mask and a copy of each input kept)
    measured: bool  # False: every figure is derived, none was measured on a GPU
    versions: str  # the library versions the terms were counted from

    def kernel(self, fp32_attention: bool) -> Attention:
        """The kernel that runs: SDPA has no fused kernel for fp32 inputs with grouped KV
        heads (FlashAttention needs 16-bit inputs), so it falls back to its math kernel."""
        if self.attention is Attention.SDPA:
            return Attention.SDPA_MATH if fp32_attention else Attention.FLASH
        return self.attention


# What measure_memory.py ran: autocast for full fine-tuning only, SDPA, no adapter dropout.
MEASURED = Recipe(
    "measured",
    autocast=False,
    attention=Attention.SDPA,
    lora_dropout=False,
    measured=True,
    versions="torch 2.11.0, transformers 5.17.0, peft 0.21.0, bitsandbytes 0.50.2",
)
# What the published `trl sft` commands run (``trl_commands``): bf16 autocast, SDPA, dropout.
TRL = Recipe(
    "trl",
    autocast=True,
    attention=Attention.SDPA,
    lora_dropout=True,
    measured=False,
    versions=(
        "trl 1.16, transformers 5.24, peft 0.21, accelerate 1.16, bitsandbytes 0.50, torch 2.11"
    ),
)
RECIPES = {recipe.slug: recipe for recipe in (TRL, MEASURED)}


@dataclass(frozen=True)
class Architecture:
    """A decoder's shape, by the names of its Hugging Face ``config.json``; the expert counts
    for a mixture-of-experts MLP (Mixtral): SwiGLU experts and a hidden_size x experts router."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False
    head_dim: int | None = None
    num_local_experts: int | None = None
    num_experts_per_tok: int | None = None

    def __post_init__(self) -> None:
        for name in (f.name for f in fields(self)):  # every count, in order
            value = getattr(self, name)
            if not isinstance(value, bool) and value is not None and value < 1:
                raise EstimateError(f"{name} must be at least 1")
        if self.head_dim is None and self.hidden_size % self.num_attention_heads:
            raise EstimateError(
                "hidden_size must be a multiple of num_attention_heads (or give head_dim)"
            )
        if self.num_attention_heads % self.num_key_value_heads:
            raise EstimateError("num_attention_heads must be a multiple of num_key_value_heads")
        if (self.num_local_experts is None) != (self.num_experts_per_tok is None):
            raise EstimateError(
                "num_experts_per_tok must be given with num_local_experts (both or neither)"
            )
        if self.is_moe and self.num_experts_per_tok > self.num_local_experts:
            raise EstimateError("num_experts_per_tok must be at most num_local_experts")

    @property
    def is_moe(self) -> bool:
        return self.num_local_experts is not None

    @property
    def experts(self) -> int:
        return self.num_local_experts or 1

    @property
    def routed_experts(self) -> int:
        return self.num_experts_per_tok or 1

    @property
    def attention_head_dim(self) -> int:
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @property
    def q_size(self) -> int:
        return self.num_attention_heads * self.attention_head_dim

    @property
    def kv_size(self) -> int:
        return self.num_key_value_heads * self.attention_head_dim

    @property
    def router_params(self) -> int:
        return self.hidden_size * self.num_local_experts if self.is_moe else 0

    def layer_linear_params(self, experts: int) -> int:
        """One decoder layer's projections (q, o: h x q; k, v: h x kv; gate, up, down of
        ``experts`` MLPs: h x intermediate) and a mixture's router."""
        h, q, kv, i = self.hidden_size, self.q_size, self.kv_size, self.intermediate_size
        return 2 * h * q + 2 * h * kv + experts * 3 * h * i + self.router_params

    @property
    def linear_params(self) -> int:
        return self.num_hidden_layers * self.layer_linear_params(self.experts)

    @property
    def embedding_params(self) -> int:
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
        return max(h * self.q_size, h * self.kv_size, h * self.intermediate_size)

    def lora_params(self, rank: int) -> int:
        """rank x (inputs + outputs) on every linear layer (peft's ``all-linear``)."""
        h, q, kv, i = self.hidden_size, self.q_size, self.kv_size, self.intermediate_size
        attention = (h + q) + 2 * (h + kv) + (q + h)
        mlp = self.experts * (2 * (h + i) + (i + h))
        router = h + self.num_local_experts if self.is_moe else 0
        return rank * (attention + mlp + router) * self.num_hidden_layers


@dataclass(frozen=True)
class TrainingSetup:
    method: Method
    seq_len: int
    batch_size: int = 1
    gradient_checkpointing: bool = True
    lora_rank: int = 16
    num_gpus: int = 1  # data parallel with FSDP full sharding (ZeRO-3)
    recipe: Recipe = TRL
    cpu_offload: bool = False  # sharded weights, gradients and optimizer states kept on the CPU

    def __post_init__(self) -> None:
        for name in ("seq_len", "batch_size", "lora_rank", "num_gpus"):
            if getattr(self, name) < 1:
                raise EstimateError(f"{name} must be at least 1")

    @property
    def tokens(self) -> int:
        return self.seq_len * self.batch_size

    @property
    def sharded(self) -> bool:
        """Weights gathered one unit at a time (FSDP): over several GPUs, or offloaded."""
        return self.num_gpus > 1 or self.cpu_offload


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
    resident_gb: Decimal = Decimal(0)  # allocated before the first step: stored weights, adapters
    recipe: str = MEASURED.slug
    measured: bool = True  # False: the recipe's figures are derived, not measured
    parameters: int = 0
    trainable_parameters: int = 0
    host_gb: Decimal = Decimal(0)  # what CPU offload keeps in the host's memory

    @property
    def peak_gb(self) -> Decimal:
        return sum(self.breakdown().values(), Decimal(0))

    @property
    def reserved_gb(self) -> Decimal:
        """What a card must hold: the peak with the allocator's margin beyond resident weights."""
        return self.peak_gb + ALLOCATOR_MARGIN * (self.peak_gb - self.resident_gb)

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


@dataclass(frozen=True)
class _Precision:
    frozen: Decimal  # a frozen weight outside the quantised projections (or every weight)
    trainable: int  # a trained weight as stored, and its gradient
    residual: int  # a hidden value of the residual stream
    weight_copies: bool  # autocast keeps a bf16 copy of each fp32 weight while it is used
    chunked_loss: bool  # trl's fused LM head: the logits never exist whole


def _precision(setup: TrainingSetup) -> _Precision:
    method, recipe = setup.method, setup.recipe
    if recipe is MEASURED or not recipe.autocast:
        # peft casts QLoRA's non-quantised weights and every adapter to fp32; full: fp32 masters.
        if method is Method.LORA:
            return _Precision(Decimal(2), 4, 2, False, False)
        if method is Method.QLORA:
            return _Precision(Decimal(4), 4, 4, False, False)
        return _Precision(Decimal(4), 4, 4, True, False)
    # trl loads in bf16: SFTTrainer casts a quantised model's adapters to bf16, peft keeps a bf16
    # model's in fp32; FSDP2 upcasts full shards to fp32 masters, gathered in bf16. Full on one
    # GPU loads in fp32 (``trl_commands.load_dtype``) under autocast, as the measured recipe.
    if method is Method.QLORA:
        return _Precision(Decimal(2), 2, 2, False, True)
    if method is Method.LORA:
        return _Precision(Decimal(2), 4, 2, False, True)
    if setup.sharded:
        return _Precision(Decimal(4), 4, 2, False, True)
    return _Precision(Decimal(4), 4, 4, True, True)


def _layer_activation_bytes(arch: Architecture, setup: TrainingSetup) -> int:
    """Bytes one decoder layer saves for its backward pass, per token, without the scores, as
    autograd saves them; the measured recipes' terms are itemised in docs/planner.md."""
    method = setup.method
    h, q, kv, i = arch.hidden_size, arch.q_size, arch.kv_size, arch.intermediate_size
    r = setup.lora_rank  # the adapters' branches below use it
    residual = _precision(setup).residual
    if setup.recipe.autocast and method.uses_adapters:
        # bf16 residual under autocast (trl). Each RMSNorm keeps its fp32 upcast (4h); each
        # adapter its dropout mask (1 byte) and the bf16 input of its first matrix (2 bytes):
        # q, k, v, gate, up read h values, o reads q, down reads i; FlashAttention keeps q, k, v
        # and its output in bf16 (4q + 4kv); the MLP keeps gate, SiLU and up in bf16 (3 x 2i);
        # each adapter its rank-wide middle in bf16 (2r).
        per_input = 3 if setup.recipe.lora_dropout else 2
        norms = 2 * 4 * h
        attention = per_input * (3 * h + q) + (4 * q + 4 * kv) + 4 * 2 * r
        mlp = per_input * (2 * h + i) + 3 * 2 * i + 3 * 2 * r
    elif method is Method.QLORA:
        norms = 2 * (4 * h + 4 * h)
        attention = 16 * q + 4 * 4 * r
        mlp = 16 * i + 3 * 4 * r
    elif method is Method.LORA:
        norms = 8 * h
        attention = 3 * 4 * h + 4 * q + (4 * q + 4 * kv) + 4 * 4 * r
        mlp = 2 * 4 * h + 4 * i + 6 * i + 3 * 4 * r
    elif residual == 2:
        # Full fine-tuning in bf16 (trl): each RMSNorm keeps its fp32 upcast and its bf16
        # output (the weight is trained; 4h + 2h), which q, k, v (and gate, up) keep as their
        # input; FlashAttention keeps q, k, v and its output (4q + 4kv), o's input; the MLP
        # keeps gate, SiLU, up and product (4 x 2i), the last down's input.
        norms = 2 * (4 * h + 2 * h)
        attention = 4 * q + 4 * kv
        mlp = 4 * 2 * i
    else:  # full fine-tuning with an fp32 residual
        norms = 16 * h
        attention = 3 * 2 * h + 2 * q + (4 * q + 4 * kv)
        mlp = 2 * 2 * h + 8 * i
    if not arch.is_moe:
        return norms + attention + mlp
    # A mixture: the router's fp32 probabilities (4 bytes per expert), and per routed expert
    # the gathered input and the expert's output kept for the routing weight's product.
    router = 4 * arch.num_local_experts
    return norms + attention + router + arch.routed_experts * (mlp + 2 * residual * h)


def _score_bytes(setup: TrainingSetup, fp32: bool) -> tuple[Decimal, Decimal]:
    """Bytes per attention score a layer keeps for its backward pass, and what its recomputation
    holds at once; zero where a fused kernel runs."""
    kernel = setup.recipe.kernel(fp32)
    if kernel not in (Attention.EAGER, Attention.SDPA_MATH):
        return Decimal(0), Decimal(0)
    if fp32:
        return Decimal(SAVED_SCORE_BYTES), RECOMPUTED_SCORE_BYTES
    # 16-bit: the math kernel keeps its bf16 softmax (2 bytes), eager the fp32 one and its bf16
    # cast (6); recomputing holds the fp32 count's proportion of that (not measured).
    saved = Decimal(6 if kernel is Attention.EAGER else 2)
    return saved, saved * RECOMPUTED_SCORE_BYTES / SAVED_SCORE_BYTES


@dataclass(frozen=True)
class TrainedState:
    """The trained weights as stored and the optimizer's states, whole, in bytes: what a
    checkpoint saves and what sharding splits."""

    weights_bytes: Decimal
    optimizer_bytes: Decimal


def trained_state(arch: Architecture, setup: TrainingSetup) -> TrainedState:
    precision = _precision(setup)
    method = setup.method
    trainable = arch.lora_params(setup.lora_rank) if method.uses_adapters else arch.params
    if method is Method.FULL_8BIT_ADAM:
        optimizer = trainable * ADAM_8BIT_BYTES_PER_PARAM
    else:
        optimizer = Decimal(2 * precision.trainable * trainable)
    return TrainedState(Decimal(precision.trainable * trainable), optimizer)


# Cached: a guide's page asks for about a hundred, the same on every render (docs/performance.md).
@lru_cache(maxsize=4096)
def estimate_peak_memory(arch: Architecture, setup: TrainingSetup) -> PeakMemory:
    method, recipe, n = setup.method, setup.recipe, setup.num_gpus
    precision = _precision(setup)
    tokens = setup.tokens
    h, layers, vocab = arch.hidden_size, arch.num_hidden_layers, arch.vocab_size
    rank = setup.lora_rank if method.uses_adapters else 0
    lora_params = arch.lora_params(rank)
    logits = tokens * vocab
    layer_params = arch.layer_linear_params(arch.experts) + 2 * h
    # Sharding gathers a unit at a time: a decoder layer, or a larger vocabulary table.
    unit_params = max(layer_params, vocab * h)
    trainable = lora_params if method.uses_adapters else arch.params
    assumptions: list[str] = [f"Recipe {recipe.slug!r} ({recipe.versions})."]
    if not recipe.measured:
        assumptions.append("Derived, not measured: no step of this recipe was measured on a GPU.")

    # Weights and adapters, as stored.
    if method is Method.QLORA:
        weights = arch.linear_params * NF4_BYTES_PER_PARAM + precision.frozen * (
            arch.embedding_params + arch.norm_params
        )
        unit = max(layer_params * NF4_BYTES_PER_PARAM, precision.frozen * vocab * h)
        cast = "cast to fp32 (peft's prepare_model_for_kbit_training)"
        assumptions.append(
            "Base linear layers in 4-bit NF4 with double-quantised block scales; embeddings, "
            f"norms and the output layer {cast if precision.frozen == 4 else 'in bf16'}."
        )
    elif method is Method.LORA:
        weights = precision.frozen * arch.params
        unit = Decimal(2 * unit_params)
        assumptions.append("Frozen base weights in bf16.")
    else:
        weights = Decimal(precision.trainable * arch.params)  # fp32 masters, every recipe
        unit = Decimal(2 * unit_params) if setup.sharded else Decimal(4 * unit_params)
        assumptions.append("fp32 master weights, bf16 autocast.")
    resident_weights = Decimal(0) if setup.cpu_offload else weights / n
    all_adapters = Decimal(precision.trainable * lora_params)  # every GPU's shard together
    adapters = all_adapters / n
    if method.uses_adapters:
        width = "fp32" if precision.trainable == 4 else "bf16"
        assumptions.append(
            f"LoRA rank {rank} on every linear layer of the decoder, adapters and their "
            f"gradients in {width}."
        )
    if arch.is_moe:
        assumptions.append(
            f"Mixture of experts: {arch.num_local_experts} experts per layer, each stored and "
            f"trained; each token routed to {arch.num_experts_per_tok}."
        )

    all_optimizer_states = trained_state(arch, setup).optimizer_bytes
    optimizer = all_optimizer_states / n
    if method is Method.FULL_8BIT_ADAM:
        assumptions.append("bitsandbytes 8-bit AdamW: 2 bytes of state per parameter.")
    else:
        state_bytes = 2 * precision.trainable
        width = "fp32" if state_bytes == 8 else "bf16"
        assumptions.append(
            f"AdamW: two {width} states, {state_bytes} bytes per trainable parameter."
        )
    host = Decimal(0)
    if setup.cpu_offload:  # the sharded trained weights and their states live on the CPU
        host = weights + all_adapters + all_optimizer_states + precision.trainable * trainable
        optimizer = Decimal(0)
        adapters = Decimal(0)

    gradients = Decimal(precision.trainable * trainable)
    layer_trainable = lora_params // layers if method.uses_adapters else unit_params
    gradient_unit = Decimal(precision.trainable * layer_trainable)
    if setup.sharded:
        # FSDP2: the layer computed and the next, prefetched, gathered in bf16; a layer's
        # gradients reduce-scattered from a whole bf16 buffer.
        gathered = 2 * unit
        bucket = Decimal(2 * layer_trainable)
        all_gradients = (Decimal(0) if setup.cpu_offload else gradients / n) + bucket
    else:
        gathered = Decimal(0)
        bucket = Decimal(0)
        all_gradients = gradients

    fp32_attention = method is Method.QLORA and precision.residual == 4
    saved_score_bytes, recomputed_score_bytes = _score_bytes(setup, fp32_attention)
    materialised = saved_score_bytes > 0
    kernel = recipe.kernel(fp32_attention)
    if materialised:
        assumptions.append(
            f"Attention on the {kernel.value} kernel: the score matrix (heads x tokens^2) is "
            "materialised."
        )
    else:
        assumptions.append("Attention in a fused kernel (FlashAttention): no score matrix kept.")
    scores = setup.batch_size * arch.num_attention_heads * setup.seq_len**2
    causal_mask = 5 * setup.seq_len**2 if materialised else 0  # bool tril + float mask
    per_layer = tokens * _layer_activation_bytes(arch, setup)
    saved_scores = saved_score_bytes * scores
    residual = precision.residual
    if method.uses_adapters:
        final_norm = tokens * 4 * h
    else:
        final_norm = tokens * (8 if residual == 4 else 6) * h

    autocast_copies = Decimal(0)
    if precision.weight_copies:
        # autocast's bf16 copies of every weight, kept by the backward graph without checkpointing
        autocast_copies = Decimal(2 * arch.params)
        if setup.sharded:
            autocast_copies = autocast_copies / n + gathered
    # With checkpointing, only the output layer's copy stays (trl's fused head casts by tiles).
    output_layer_copy = (
        Decimal(2 * vocab * h)
        if precision.weight_copies and not precision.chunked_loss
        else Decimal(0)
    )

    if precision.chunked_loss:
        # The fused head: the final hidden states gathered (cast to bf16 where fp32), a bf16
        # tile of logits; back, their fp32 gradient, an fp32 output layer's bf16 tile and a
        # trained output layer's fp32 gradient.
        tile = min(tokens, LOSS_TILE_TOKENS) * min(vocab, LOSS_TILE_VOCAB)
        hidden = residual * tokens * h + (2 * tokens * h if residual == 4 else 0)
        fp32_head = not method.uses_adapters and precision.trainable == 4 and not setup.sharded
        weight_tile = 2 * min(vocab, LOSS_TILE_VOCAB) * h if fp32_head else 0
        trained_head = 0 if method.uses_adapters else 4 * vocab * h
        loss_forward = Decimal(hidden + 2 * tile)
        loss_backward = Decimal(hidden + 4 * tokens * h + 2 * tile + weight_tile + trained_head)
        assumptions.append(
            f"trl's fused LM head (tiles of {LOSS_TILE_TOKENS} tokens x {LOSS_TILE_VOCAB} "
            "vocabulary entries): the logits never exist whole, the output layer is not copied."
        )
    else:
        loss_forward = Decimal(LOSS_FORWARD_BYTES_PER_LOGIT * logits)
        loss_backward = Decimal(LOSS_BACKWARD_BYTES_PER_LOGIT * logits)

    # Beyond a layer's saved activations: the scores' transients, the largest dequantised weight.
    layer_transient = Decimal(
        (recomputed_score_bytes - saved_score_bytes) * scores + causal_mask if materialised else 0
    ) + (2 * arch.largest_linear_params if method is Method.QLORA else 0)
    # The first layer reached holds the most activations, and only it and the output layer
    # have gradients yet (the end of the backward pass bounds the later ones).
    output_layer_gradients = 0 if method.uses_adapters else precision.trainable * vocab * h
    first_layer_gradients = Decimal(output_layer_gradients) + gradient_unit
    if setup.sharded:
        first_layer_gradients = (
            Decimal(0) if setup.cpu_offload else first_layer_gradients / n
        ) + bucket
    saved_layer = per_layer + saved_scores
    if setup.gradient_checkpointing:
        assumptions.append(
            "Gradient checkpointing (non-reentrant): one stored input per layer, "
            "one layer recomputed at a time."
        )
        kept = Decimal(layers * tokens * residual * h + final_norm)
        # The recomputed layer's first RMSNorm keeps an fp32 stored input itself, not a copy.
        shared_input = tokens * residual * h if residual == 4 else 0
        through_layer = kept + (saved_layer - shared_input) + layer_transient
        backward_weights = output_layer_copy
        layer_weights = Decimal(2 * layer_params) if precision.weight_copies else Decimal(0)
    else:
        assumptions.append("No gradient checkpointing: every layer keeps its activations.")
        kept = Decimal(layers * saved_layer + final_norm)
        through_layer = kept + layer_transient
        backward_weights = layer_weights = autocast_copies

    # A tied embedding receives its second gradient as a new table before it is added in.
    tied_extra = (
        Decimal(4 * vocab * h) if arch.tie_word_embeddings and not method.uses_adapters else 0
    )
    moments = [
        _Moment(
            "end of the forward pass",
            weights=max(autocast_copies, gathered),
            activations=kept,
            logits=loss_forward,
        ),
        _Moment(
            "start of the backward pass",
            weights=max(backward_weights, gathered),
            activations=kept,
            logits=loss_backward,
        ),
        _Moment(
            "backward pass through a layer",
            weights=max(layer_weights, gathered),
            gradients=first_layer_gradients,
            activations=through_layer,
        ),
        _Moment("end of the backward pass", weights=gathered, gradients=all_gradients + tied_extra),
    ]
    peak = max(moments, key=lambda m: m.total)
    if setup.sharded:
        assumptions.append(
            f"FSDP over {n} GPU{'s' if n > 1 else ''}: weights, gradients and optimizer "
            "states sharded, two units gathered at a time (the layer computed and the next, "
            "prefetched), a layer's gradients reduced from a whole bf16 buffer; activations "
            "are per GPU (each runs its own micro-batch)."
        )
    if setup.cpu_offload:
        assumptions.append(
            "CPU offload: the sharded weights, gradients and optimizer states live in CPU "
            "memory; the optimizer step runs there."
        )
    assumptions.append(f"Peak at the {peak.name}.")
    workspace = Decimal(CUDA_WORKSPACE_BYTES) / GB
    return PeakMemory(
        weights_gb=(resident_weights + peak.weights) / GB,
        adapters_gb=adapters / GB,
        gradients_gb=peak.gradients / GB,
        optimizer_states_gb=optimizer / GB,
        activations_gb=peak.activations / GB,
        logits_and_loss_gb=peak.logits / GB,
        workspace_gb=workspace,
        moment=peak.name,
        assumptions=tuple(assumptions),
        resident_gb=(resident_weights + adapters) / GB + workspace,
        recipe=recipe.slug,
        measured=recipe.measured,
        parameters=arch.params,
        trainable_parameters=trainable,
        host_gb=host / GB,
    )


# Cached: a page asks for the same searches on every render (3.5 % of it, docs/performance.md).
@lru_cache(maxsize=1024)
def longest_sequence(
    arch: Architecture, setup: TrainingSetup, usable_gb: Decimal, *, step: int = 256
) -> int:
    """The longest sequence, in multiples of ``step`` up to 1,048,576, whose ``reserved_gb``
    fits in ``usable_gb``; 0 where none does. Bisected: the peak never falls as it grows."""
    low, high = 0, 1_048_576 // step  # low fits (or is zero), high + 1 is known not to
    while low < high:
        middle = (low + high + 1) // 2
        trial = replace(setup, seq_len=middle * step)
        if estimate_peak_memory(arch, trial).reserved_gb <= usable_gb:
            low = middle
        else:
            high = middle - 1
    return low * step
