"""Training tokens per second of a run on a configuration: a model calibrated on measured runs.

Framework-free like ``training_memory``: an architecture and a ``TrainingSetup`` (whose
``num_gpus`` is the configuration's GPU count) in, ``Decimal`` seconds and tokens out. A step
on each GPU (its micro-batch of ``seq_len x batch_size`` tokens) takes the sum of

- **compute**: the matrix products' FLOPs at the GPU's dense BF16 peak times a calibrated
  efficiency. 2 FLOPs per weight and token for each pass over the weights: the forward pass,
  the gradient with respect to the inputs, with respect to the weights (full fine-tuning only:
  the adapter methods' base is frozen; the adapters' own products are negligible at rank 16)
  and, under gradient checkpointing, the recomputed forward pass; so 6·N per token for full
  fine-tuning, 4·N for the adapters, 8·N and 6·N with checkpointing. Attention adds
  4·seq·q FLOPs per token and layer forward (half of it under a causal fused kernel), twice
  that backward.
- **fp32 compute**: where a recipe leaves work in fp32 (QLoRA without autocast: peft casts the
  output layer to fp32 and attention runs on the math kernel, see ``training_memory``), those
  FLOPs run ``fp32_slowdown`` times slower than the BF16 ones: calibrated, not a datasheet figure.
- **memory traffic**: each pass reads every weight it multiplies (4-bit weights are read, then
  written and read again as their bf16 copy: 4.5 bytes; fp32 master weights under autocast are
  read and cast: 8 bytes; bf16 weights 2 bytes) and the optimizer reads and writes its states
  once a step (AdamW 32 bytes a parameter, 8-bit AdamW 20; ZeRO-3 shards it), at the GPU's
  memory bandwidth.
- **interconnect** (more than one GPU; FSDP full sharding / ZeRO-3): every pass gathers the
  stored weights from the other GPUs ((n-1)/n of them per GPU, each direction of a ring) and
  the backward pass reduce-scatters the trainable gradients (fp32), over each GPU's link
  (``GpuSpeed.link_gb_s``, one direction): NVLink or PCIe. No overlap with compute is assumed:
  an upper bound on time where the link is slow, negligible where it is NVLink.

Two constants (``CALIBRATION``) are fitted to the steps timed on one H200
(``content/measured/h200-throughput.jsonl``; ``measurements.throughput_runs``): the BF16
efficiency and the fp32 slowdown. Nothing here was measured on more than one GPU or on any other
card: every figure but a measured run is derived, and says so (``docs/planner.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

from pricing.domain.training_memory import (
    NF4_BYTES_PER_PARAM,
    Architecture,
    Attention,
    EstimateError,
    Method,
    TrainingSetup,
)

TERA = Decimal(10) ** 12
GIGA = Decimal(10) ** 9
SECONDS_PER_HOUR = Decimal(3600)
# Bytes a pass reads per weight: bf16 (frozen or the autocast copy's product), NF4 read and
# its bf16 copy written and read (bitsandbytes dequantises before the product), fp32 master
# weights read, cast and the copy read under autocast.
BF16_PASS_BYTES = Decimal(2)
NF4_PASS_BYTES = NF4_BYTES_PER_PARAM + 2 * BF16_PASS_BYTES
MASTER_PASS_BYTES = 4 + 2 * BF16_PASS_BYTES
# The optimizer step's traffic per trainable parameter: the fp32 weight read and written, its
# fp32 gradient written in the backward pass and read, and the two states read and written
# (AdamW: fp32; bitsandbytes' 8-bit AdamW: one byte each).
ADAMW_STEP_BYTES = Decimal(4 + 4 + 4 + 4 + 16)
ADAM_8BIT_STEP_BYTES = Decimal(4 + 4 + 4 + 4 + 4)
# What FSDP gathers per weight (the stored form: NF4 under QLoRA with bf16 quant storage, bf16
# otherwise: mixed precision gathers full fine-tuning's master weights as bf16) and what the
# backward pass reduce-scatters per trainable parameter (fp32 gradients).
GATHERED_BYTES = {Method.QLORA: NF4_BYTES_PER_PARAM}
GATHERED_BF16_BYTES = BF16_PASS_BYTES
REDUCED_GRADIENT_BYTES = Decimal(4)


class ThroughputError(EstimateError):
    """A GPU or a calibration that cannot describe a real run."""


@dataclass(frozen=True)
class GpuSpeed:
    """What the model reads of a GPU: the datasheet's dense BF16 peak, its memory bandwidth
    and its GPU-to-GPU link in one direction (NVLink, or PCIe where it has none)."""

    bf16_dense_tflops: Decimal
    bandwidth_gb_s: Decimal
    link_gb_s: Decimal

    def __post_init__(self) -> None:
        if min(self.bf16_dense_tflops, self.bandwidth_gb_s, self.link_gb_s) <= 0:
            raise ThroughputError("a GPU's compute, bandwidth and link must be positive")


@dataclass(frozen=True)
class Calibration:
    """The fitted constants: the share of the BF16 peak the products reach, and how many
    times slower than that a recipe's fp32 products run."""

    bf16_efficiency: Decimal
    fp32_slowdown: Decimal

    def __post_init__(self) -> None:
        if not (0 < self.bf16_efficiency <= 1) or self.fp32_slowdown < 1:
            raise ThroughputError(
                "the BF16 efficiency must lie in (0, 1] and the fp32 slowdown be at least 1"
            )


# Fitted to the nine steps timed on one H200 by ``calibrate``
# (tests/pricing/domain/test_throughput.py fits them again and holds these to the fit).
CALIBRATION = Calibration(bf16_efficiency=Decimal("0.332"), fp32_slowdown=Decimal("9.8"))


@dataclass(frozen=True)
class StepWork:
    """What one GPU does in one step, whatever GPU it is."""

    tokens: int  # this GPU's micro-batch
    bf16_flops: Decimal
    fp32_flops: Decimal
    memory_bytes: Decimal
    link_bytes: Decimal  # sent (and received) over the GPU's link; 0 on one GPU


def _active_linear_params(arch: Architecture) -> int:
    """The decoder's projections a token passes through (a mixture's routed experts only)."""
    h, q, kv, i = arch.hidden_size, arch.q_size, arch.kv_size, arch.intermediate_size
    per_layer = 2 * h * q + 2 * h * kv + arch.routed_experts * 3 * h * i + arch.router_params
    return arch.num_hidden_layers * per_layer


# Kept per process: the index prices the same few hundred runs on every render (its render
# 84 -> 74 ms with it); the stack test's staleness through Varnish is paid in such renders.
@lru_cache(maxsize=1024)
def step_work(arch: Architecture, setup: TrainingSetup) -> StepWork:
    """The FLOPs, memory traffic and link traffic of one step on one of ``setup.num_gpus``."""
    method, recipe = setup.method, setup.recipe
    full = not method.uses_adapters
    checkpointing = setup.gradient_checkpointing
    tokens = setup.tokens
    body = _active_linear_params(arch)
    head = arch.vocab_size * arch.hidden_size  # the output layer's product, tied or not
    body_passes = 2 + full + checkpointing  # forward, input gradient, weight gradient, recompute
    head_passes = 2 + full  # outside the checkpointed layers
    fp32 = method is Method.QLORA and not recipe.autocast
    fused = recipe.kernel(fp32) in (Attention.FLASH, Attention.SDPA_EFFICIENT)
    attention_forward = 4 * setup.seq_len * arch.q_size * arch.num_hidden_layers * tokens
    attention = Decimal(attention_forward * (3 + checkpointing)) / (2 if fused else 1)
    body_flops = Decimal(2 * tokens * body * body_passes)
    head_flops = Decimal(2 * tokens * head * head_passes)
    bf16_flops = body_flops + (0 if fp32 else head_flops + attention)
    fp32_flops = head_flops + attention if fp32 else Decimal(0)

    per_pass = {Method.QLORA: NF4_PASS_BYTES, Method.LORA: BF16_PASS_BYTES}.get(
        method, MASTER_PASS_BYTES
    )
    memory = body * per_pass * body_passes + head * BF16_PASS_BYTES * head_passes
    n = setup.num_gpus
    if full:
        step_bytes = ADAMW_STEP_BYTES if method is Method.FULL_ADAMW else ADAM_8BIT_STEP_BYTES
        memory += arch.params * step_bytes / n

    link = Decimal(0)
    if n > 1:
        share = Decimal(n - 1) / n
        gathered = GATHERED_BYTES.get(method, GATHERED_BF16_BYTES) * arch.params
        gathers = 2 + checkpointing  # forward, recomputed forward, backward
        trainable = arch.params if full else arch.lora_params(setup.lora_rank)
        link = share * (gathered * gathers + trainable * REDUCED_GRADIENT_BYTES)
    return StepWork(tokens, bf16_flops, fp32_flops, memory, link)


@dataclass(frozen=True)
class StepTime:
    """One step's seconds on one GPU, term by term."""

    compute_s: Decimal
    fp32_s: Decimal
    memory_s: Decimal
    link_s: Decimal

    @property
    def total_s(self) -> Decimal:
        return self.compute_s + self.fp32_s + self.memory_s + self.link_s


def step_time(work: StepWork, gpu: GpuSpeed, calibration: Calibration = CALIBRATION) -> StepTime:
    effective = gpu.bf16_dense_tflops * TERA * calibration.bf16_efficiency
    return StepTime(
        compute_s=work.bf16_flops / effective,
        fp32_s=work.fp32_flops * calibration.fp32_slowdown / effective,
        memory_s=work.memory_bytes / (gpu.bandwidth_gb_s * GIGA),
        link_s=work.link_bytes / (gpu.link_gb_s * GIGA),
    )


def tokens_per_second(
    arch: Architecture,
    setup: TrainingSetup,
    gpu: GpuSpeed,
    calibration: Calibration = CALIBRATION,
) -> Decimal:
    """Training tokens per second over all ``setup.num_gpus`` GPUs (data parallel)."""
    work = step_work(arch, setup)
    return setup.num_gpus * work.tokens / step_time(work, gpu, calibration).total_s


def hours_for(tokens: int, tokens_per_s: Decimal) -> Decimal:
    """Hours to train on ``tokens`` at ``tokens_per_s``, unrounded."""
    if tokens < 1 or tokens_per_s <= 0:
        raise ThroughputError("a run needs tokens and a positive speed")
    return Decimal(tokens) / tokens_per_s / SECONDS_PER_HOUR


# --- calibration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TimedRun:
    """A step timed on one GPU: what ran, on what, and the tokens per second measured."""

    name: str
    architecture: Architecture
    setup: TrainingSetup
    gpu: GpuSpeed
    tokens_per_s: Decimal


def calibrate(runs: Sequence[TimedRun]) -> Calibration:
    """The two constants that best fit ``runs``' step times, each run weighted by its own time
    (least squares on relative error): the step's time less its memory and link terms is
    a·(BF16 FLOPs / peak) + b·(fp32 FLOPs / peak), a = 1/efficiency, b = slowdown/efficiency.
    Needs runs with and without fp32 work."""
    rows = []
    for run in runs:
        work = step_work(run.architecture, run.setup)
        measured_s = run.setup.num_gpus * work.tokens / run.tokens_per_s
        unit = Calibration(Decimal(1), Decimal(1))
        fixed = step_time(work, run.gpu, unit)
        peak = run.gpu.bf16_dense_tflops * TERA
        rows.append(
            (
                work.bf16_flops / peak / measured_s,
                work.fp32_flops / peak / measured_s,
                (measured_s - fixed.memory_s - fixed.link_s) / measured_s,
            )
        )
    xx = sum(x * x for x, _, _ in rows)
    xz = sum(x * z for x, z, _ in rows)
    zz = sum(z * z for _, z, _ in rows)
    xy = sum(x * y for x, _, y in rows)
    zy = sum(z * y for _, z, y in rows)
    determinant = xx * zz - xz * xz
    if determinant == 0:
        raise ThroughputError("calibration needs timed runs with and without fp32 work")
    a = (xy * zz - zy * xz) / determinant
    b = (xx * zy - xz * xy) / determinant
    return Calibration(
        bf16_efficiency=(1 / a).quantize(Decimal("0.001"), ROUND_HALF_UP),
        fp32_slowdown=(b / a).quantize(Decimal("0.1"), ROUND_HALF_UP),
    )


@dataclass(frozen=True)
class ModelError:
    """A timed run against the model: calibrated on every run, and on all but this one."""

    run: TimedRun
    fitted_tokens_per_s: Decimal
    left_out_tokens_per_s: Decimal

    @property
    def fitted_error(self) -> Decimal:
        return self.fitted_tokens_per_s / self.run.tokens_per_s - 1

    @property
    def left_out_error(self) -> Decimal:
        return self.left_out_tokens_per_s / self.run.tokens_per_s - 1


def model_errors(runs: Sequence[TimedRun]) -> list[ModelError]:
    """Each run's error with every run in the calibration and with itself left out."""
    fitted = calibrate(runs)
    errors = []
    for index, run in enumerate(runs):
        left_out = calibrate([*runs[:index], *runs[index + 1 :]])
        errors.append(
            ModelError(
                run,
                tokens_per_second(run.architecture, run.setup, run.gpu, fitted),
                tokens_per_second(run.architecture, run.setup, run.gpu, left_out),
            )
        )
    return errors
