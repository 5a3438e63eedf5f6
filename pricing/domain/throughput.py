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

The constants (``CALIBRATION``) come from measured runs, each on its own stack:

- the BF16 efficiency and the fp32 slowdown, fitted to the steps timed on one H200
  (``content/measured/h200-throughput.jsonl``): transformers + PEFT in bf16, the stack the
  tutorial's TRL commands run. Every speed here is a speed of that stack.
- one efficiency factor per chip generation (``GENERATION_FACTORS``, Hopper = 1), fitted to
  public runs of other stacks (``content/measured/public-throughput.jsonl``) where that stack also
  ran on a card whose factor is known, so that the stack's own speed-up cancels
  (``fit_generations``): Blackwell from MLPerf's B200 against its H100 and H200 (NeMo), Ada
  from torchtune's RTX 4090 against its A100s; Ampere from the H100's cited 2-3x lead over the
  A100 in half precision (no one stack ran both in public).

What the model cannot know it says as a range (``speed_band``): the left-out error of comparable
runs (same method family), widened by the error of the card's factor and, on several GPUs, of
the scaling; ``ratio_band`` is the smaller error of a *ratio* between two runs of one method,
where the shared terms cancel. ``docs/planner.md`` lists every anchor with its error.
"""

from __future__ import annotations

import dataclasses
import math
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
HUNDREDTH = Decimal("0.01")
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
# CPU offload moves every gathered weight from the host and every trainable gradient back over
# the GPU's PCIe slot: a Gen4 x16 slot, 32 GB/s in one direction (ml-engineering-network, as
# Gpu.link_gb_s records PCIe).
HOST_LINK_GB_S = Decimal(32)


class ThroughputError(EstimateError):
    """A GPU or a calibration that cannot describe a real run."""


# Chip generations: each reaches its own share of its datasheet peak (``GENERATION_FACTORS``).
AMPERE, ADA, HOPPER, BLACKWELL = "ampere", "ada", "hopper", "blackwell"
GENERATION_CHOICES = [
    (AMPERE, "Ampere"),
    (ADA, "Ada Lovelace"),
    (HOPPER, "Hopper"),
    (BLACKWELL, "Blackwell"),
]


@dataclass(frozen=True)
class GpuSpeed:
    """What the model reads of a GPU: the datasheet's dense BF16 peak, its memory bandwidth,
    its GPU-to-GPU link in one direction (NVLink, or PCIe where it has none) and its chip
    generation. ``calibration_card``: the card the efficiency was fitted on (the H200)."""

    bf16_dense_tflops: Decimal
    bandwidth_gb_s: Decimal
    link_gb_s: Decimal
    generation: str = HOPPER
    calibration_card: bool = False

    def __post_init__(self) -> None:
        if min(self.bf16_dense_tflops, self.bandwidth_gb_s, self.link_gb_s) <= 0:
            raise ThroughputError("a GPU's compute, bandwidth and link must be positive")


@dataclass(frozen=True)
class Calibration:
    """The fitted constants: the share of the BF16 peak the products reach on the calibration
    card's generation, how many times slower than that a recipe's fp32 products run, and
    each generation's efficiency relative to Hopper's (a tuple of pairs: hashable)."""

    bf16_efficiency: Decimal
    fp32_slowdown: Decimal
    generation_factors: tuple[tuple[str, Decimal], ...] = ((HOPPER, Decimal(1)),)

    def __post_init__(self) -> None:
        if not (0 < self.bf16_efficiency <= 1) or self.fp32_slowdown < 1:
            raise ThroughputError(
                "the BF16 efficiency must lie in (0, 1] and the fp32 slowdown be at least 1"
            )
        if any(factor <= 0 for _, factor in self.generation_factors):
            raise ThroughputError("a generation's efficiency factor must be positive")

    def efficiency(self, generation: str) -> Decimal:
        """The share of a GPU's BF16 peak its products reach."""
        factors = dict(self.generation_factors)
        if generation not in factors:
            raise ThroughputError(f"no efficiency calibrated for the {generation} generation")
        return min(self.bf16_efficiency * factors[generation], Decimal(1))


# The BF16 efficiency and fp32 slowdown: fitted to the nine steps timed on one H200 by
# ``calibrate``. The generations' factors: fitted by ``fit_generations`` to the public runs
# (tests/pricing/domain/test_throughput.py fits all of them again and holds these to the fit).
GENERATION_FACTORS = (
    (AMPERE, Decimal("1.27")),
    (ADA, Decimal("1.49")),
    (HOPPER, Decimal(1)),
    (BLACKWELL, Decimal("1.00")),
)
# What the other stacks gain over ours, as ``fit_generations`` learns it from their public
# runs (torchtune with torch.compile and packing; NeMo in FP8), to the hundredth: the pages say
# it beside the speeds of our stack (the test holds these to the fit).
STACK_FACTORS = (("torchtune-compile", Decimal("1.59")), ("nemo-fp8", Decimal("2.42")))
CALIBRATION = Calibration(
    bf16_efficiency=Decimal("0.332"),
    fp32_slowdown=Decimal("9.8"),
    generation_factors=GENERATION_FACTORS,
)


@dataclass(frozen=True)
class StepWork:
    """What one GPU does in one step, whatever GPU it is."""

    tokens: int  # this GPU's micro-batch
    bf16_flops: Decimal
    fp32_flops: Decimal
    memory_bytes: Decimal
    link_bytes: Decimal  # sent (and received) over the GPU's link; 0 on one GPU
    host_bytes: Decimal = Decimal(0)  # to and from the host's memory under CPU offload


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

    link = host = Decimal(0)
    gathered = GATHERED_BYTES.get(method, GATHERED_BF16_BYTES) * arch.params
    gathers = 2 + checkpointing  # forward, recomputed forward, backward
    trainable = arch.params if full else arch.lora_params(setup.lora_rank)
    if n > 1:
        share = Decimal(n - 1) / n
        link = share * (gathered * gathers + trainable * REDUCED_GRADIENT_BYTES)
    if (
        setup.cpu_offload
    ):  # each GPU's shard comes from the host at every pass, its gradients go back
        host = (gathered * gathers + trainable * REDUCED_GRADIENT_BYTES) / n
    return StepWork(tokens, bf16_flops, fp32_flops, memory, link, host)


@dataclass(frozen=True)
class StepTime:
    """One step's seconds on one GPU, term by term."""

    compute_s: Decimal
    fp32_s: Decimal
    memory_s: Decimal
    link_s: Decimal
    host_s: Decimal = Decimal(0)

    @property
    def total_s(self) -> Decimal:
        return self.compute_s + self.fp32_s + self.memory_s + self.link_s + self.host_s


def step_time(work: StepWork, gpu: GpuSpeed, calibration: Calibration = CALIBRATION) -> StepTime:
    effective = gpu.bf16_dense_tflops * TERA * calibration.efficiency(gpu.generation)
    return StepTime(
        compute_s=work.bf16_flops / effective,
        fp32_s=work.fp32_flops * calibration.fp32_slowdown / effective,
        memory_s=work.memory_bytes / (gpu.bandwidth_gb_s * GIGA),
        link_s=work.link_bytes / (gpu.link_gb_s * GIGA),
        host_s=work.host_bytes / (HOST_LINK_GB_S * GIGA),
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


# --- other cards: public runs of other stacks ------------------------------------------------


@dataclass(frozen=True)
class PublicRun:
    """A run a public source timed: on which stack, card and GPU count, and the training tokens
    per second over all its GPUs. A stack's own speed-up (FP8, torch.compile, packing) is one
    factor per stack, fitted where the stack ran on a card whose generation is known."""

    name: str
    source: str
    stack: str
    architecture: Architecture
    setup: TrainingSetup
    gpu: GpuSpeed
    tokens_per_s: Decimal


# The H100's lead over the A100 in half-precision training, "2-3x" (ml-engineering-accelerators):
# its middle, against the datasheets' 989.5 / 312 = 3.17. No public stack timed LoRA on both.
H100_OVER_A100 = Decimal("2.5")
H100_OVER_A100_SPAN = (Decimal(2), Decimal(3))
H100_PEAK_OVER_A100 = Decimal("989.5") / Decimal(312)


def _ln(value: Decimal) -> float:
    return math.log(float(value))


def _modelled(run: PublicRun, calibration: Calibration) -> Decimal:
    return tokens_per_second(run.architecture, run.setup, run.gpu, calibration)


def _with_factor(calibration: Calibration, generation: str, factor: Decimal) -> Calibration:
    factors = dict(calibration.generation_factors) | {generation: factor}
    return dataclasses.replace(calibration, generation_factors=tuple(sorted(factors.items())))


def _stack_factor(runs: Sequence[PublicRun], calibration: Calibration) -> Decimal:
    """The stack's speed-up over the model: the geometric mean of measured / modelled."""
    logs = [_ln(run.tokens_per_s / _modelled(run, calibration)) for run in runs]
    return Decimal(math.exp(sum(logs) / len(logs)))


def _generation_factor(
    runs: Sequence[PublicRun], calibration: Calibration, stacks: dict[str, Decimal]
) -> Decimal:
    """The generation's factor at which its runs' modelled speeds, times their stacks'
    factors, meet the measured ones on (geometric) average: a bisection, since the memory and
    link terms do not scale with the factor."""
    generation = runs[0].gpu.generation
    low, high = 0.05, 20.0
    for _ in range(60):
        middle = math.sqrt(low * high)
        trial = _with_factor(calibration, generation, Decimal(middle))
        excess = sum(
            _ln(_modelled(run, trial) * stacks[run.stack] / run.tokens_per_s) for run in runs
        )
        low, high = (low, middle) if excess > 0 else (middle, high)
    return Decimal(math.sqrt(low * high))


def fit_generations(
    runs: Sequence[PublicRun], calibration: Calibration
) -> tuple[Calibration, dict[str, Decimal]]:
    """Each generation's factor and each stack's, from ``runs``: Hopper is 1 (the calibration
    card's), Ampere the cited H100 lead (``H100_OVER_A100``); then, in turn until nothing is
    left to learn, a stack's factor from its runs on generations already known, and a
    generation's factor from its runs on stacks already known. Generations no run reaches
    keep no factor (a GPU of theirs cannot be timed)."""
    ampere = (H100_PEAK_OVER_A100 / H100_OVER_A100).quantize(HUNDREDTH, ROUND_HALF_UP)
    calibration = dataclasses.replace(
        calibration, generation_factors=((AMPERE, ampere), (HOPPER, Decimal(1)))
    )
    stacks: dict[str, Decimal] = {}
    learning = True
    while learning:
        learning = False
        known = dict(calibration.generation_factors)
        for stack in sorted({run.stack for run in runs} - set(stacks)):
            on_known = [r for r in runs if r.stack == stack and r.gpu.generation in known]
            if on_known:
                stacks[stack] = _stack_factor(on_known, calibration)
                learning = True
        for generation in sorted({run.gpu.generation for run in runs} - set(known)):
            on_known = [r for r in runs if r.gpu.generation == generation and r.stack in stacks]
            if on_known:
                factor = _generation_factor(on_known, calibration, stacks)
                calibration = _with_factor(
                    calibration, generation, factor.quantize(HUNDREDTH, ROUND_HALF_UP)
                )
                learning = True
    return calibration, stacks


@dataclass(frozen=True)
class PublicRunError:
    """A public run against the model fitted on every run, and on all but this one (None
    where this run alone teaches its generation or stack)."""

    run: PublicRun
    fitted_tokens_per_s: Decimal
    left_out_tokens_per_s: Decimal | None

    @property
    def fitted_error(self) -> Decimal:
        return self.fitted_tokens_per_s / self.run.tokens_per_s - 1

    @property
    def left_out_error(self) -> Decimal | None:
        if self.left_out_tokens_per_s is None:
            return None
        return self.left_out_tokens_per_s / self.run.tokens_per_s - 1


def _predicted(run: PublicRun, runs: Sequence[PublicRun], calibration: Calibration):
    fitted, stacks = fit_generations(runs, calibration)
    if run.stack not in stacks or run.gpu.generation not in dict(fitted.generation_factors):
        return None
    return _modelled(run, fitted) * stacks[run.stack]


def public_run_errors(runs: Sequence[PublicRun], calibration: Calibration) -> list[PublicRunError]:
    """Each public run's error with every run in the fit and with itself left out."""
    return [
        PublicRunError(
            run,
            _predicted(run, runs, calibration),
            _predicted(run, [*runs[:index], *runs[index + 1 :]], calibration),
        )
        for index, run in enumerate(runs)
    ]


# --- ranges: what the model cannot know ---------------------------------------------------


@dataclass(frozen=True)
class Band:
    """A modelled figure's relative error: the true hours lie between ``1 + low`` and
    ``1 + high`` times the modelled ones (the model's speed over the measured one, less 1)."""

    low: Decimal
    high: Decimal

    def __post_init__(self) -> None:
        if not (-1 < self.low <= 0 <= self.high):
            raise ThroughputError("a band holds its own figure: -1 < low <= 0 <= high")

    def widened(self, width: Decimal) -> Band:
        """This band combined with a symmetric error of ``width`` (errors multiply)."""
        return Band((1 + self.low) * (1 - width) - 1, (1 + self.high) * (1 + width) - 1)


EXACT = Band(Decimal(0), Decimal(0))


def method_family(method: Method) -> str:
    """Runs whose errors are comparable: 4-bit adapters, bf16 adapters, full fine-tuning."""
    return {Method.QLORA: "qlora", Method.LORA: "lora"}.get(method, "full")


def family_bands(errors: Sequence[ModelError]) -> dict[str, Band]:
    """Per method family, the span of the timed runs' left-out errors (and 0)."""
    spans: dict[str, list[Decimal]] = {}
    for error in errors:
        spans.setdefault(method_family(error.run.setup.method), []).append(error.left_out_error)
    return {
        family: Band(min(Decimal(0), *found), max(Decimal(0), *found))
        for family, found in spans.items()
    }


def card_errors(errors: Sequence[PublicRunError]) -> dict[str, Decimal]:
    """Per generation, the largest left-out error of its public runs: how far the model's
    factor may be off on a card other than the calibration card. A generation taught by one
    run takes the largest error seen on any; Ampere at least the cited span's."""
    left_out = [e for e in errors if e.left_out_error is not None]
    largest = max(abs(e.left_out_error) for e in left_out)
    widths: dict[str, Decimal] = {}
    for generation in {e.run.gpu.generation for e in errors}:
        own = [abs(e.left_out_error) for e in left_out if e.run.gpu.generation == generation]
        widths[generation] = max(own) if own else largest
    cited = max(abs(H100_OVER_A100 / bound - 1) for bound in H100_OVER_A100_SPAN)
    widths[AMPERE] = max(widths.get(AMPERE, Decimal(0)), cited)
    return widths


def scaling_error(runs: Sequence[PublicRun], calibration: Calibration) -> Decimal:
    """The largest error of the modelled per-GPU speed ratio between two GPU counts of one
    card, stack and run, against the measured ratio."""
    worst = Decimal(0)
    for first in runs:
        for second in runs:
            same_run = (first.stack, first.gpu, first.architecture) == (
                second.stack,
                second.gpu,
                second.architecture,
            ) and first.setup.method == second.setup.method
            if not same_run or first.setup.num_gpus >= second.setup.num_gpus:
                continue
            modelled = _modelled(second, calibration) / _modelled(first, calibration)
            measured = second.tokens_per_s / first.tokens_per_s
            worst = max(worst, abs(modelled / measured - 1))
    return worst


@dataclass(frozen=True)
class Uncertainty:
    """The model's errors, as ``speed_band`` and ``ratio_band`` combine them."""

    families: dict[str, Band]
    cards: dict[str, Decimal]
    scaling: Decimal

    def card_width(self, gpu: GpuSpeed) -> Decimal:
        return Decimal(0) if gpu.calibration_card else self.cards[gpu.generation]

    def speed_band(self, method: Method, gpu: GpuSpeed, num_gpus: int) -> Band:
        """The range of a modelled run: its method family's error on the timed runs, widened
        by its card's (unless it is the calibration card) and, on several GPUs, the scaling's."""
        band = self.families[method_family(method)].widened(self.card_width(gpu))
        return band.widened(self.scaling) if num_gpus > 1 else band

    def ratio_width(
        self, first: tuple[GpuSpeed, int], second: tuple[GpuSpeed, int], *, same_card: bool
    ) -> Decimal:
        """How far the modelled ratio of two runs of one method may be off: the method's error
        cancels; what differs between the two does not (their cards' factors unless both are
        one card, the scaling unless both have one GPU count)."""
        (gpu_a, count_a), (gpu_b, count_b) = first, second
        width = Decimal(1)
        if not same_card:
            width *= (1 + self.card_width(gpu_a)) * (1 + self.card_width(gpu_b))
        if count_a != count_b:
            width *= 1 + self.scaling
        return width - 1


# What the fits above give (rounded to a tenth of a percent), as ``speed_band`` and
# ``ratio_width`` apply them: the timed runs' left-out errors per method family
# (``family_bands``), each generation's card error (``card_errors``) and the scaling error
# between GPU counts (``scaling_error``). tests/pricing/domain/test_throughput.py derives them
# again from the data and holds these to it.
UNCERTAINTY = Uncertainty(
    families={
        "qlora": Band(Decimal("-0.083"), Decimal("0.124")),
        "lora": Band(Decimal(0), Decimal("0.708")),
        "full": Band(Decimal("-0.277"), Decimal("0.220")),
    },
    cards={
        AMPERE: Decimal("0.250"),
        ADA: Decimal("0.250"),
        HOPPER: Decimal("0.254"),
        BLACKWELL: Decimal("0.254"),
    },
    scaling=Decimal("0.238"),
)
