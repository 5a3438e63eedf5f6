"""Training tokens per second of a run on a configuration: a model calibrated on measured runs.

A step on each GPU takes the sum of its terms (``step_time``): BF16 compute at a calibrated share
of the dense peak (slowed on small micro-batches), fp32 compute ``fp32_slowdown`` times slower,
memory traffic at the card's bandwidth, FSDP's gathers and reduce-scatters over its link, and
under CPU offload the host's link and optimizer. No overlap is assumed. ``docs/planner.md``
("Run time") gives every term, anchor and error; the constants are fitted and held to the fit
by ``tests/pricing/domain/test_throughput.py``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
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
# The GPU counts we rent per host; eight is the most one host holds.
HOST_GPU_COUNTS = (1, 2, 4, 8)
# Bytes a pass reads per weight: bf16; NF4 read, then its bf16 copy written and read
# (bitsandbytes dequantises); fp32 master weights read, cast and the copy read under autocast.
BF16_PASS_BYTES = Decimal(2)
NF4_PASS_BYTES = NF4_BYTES_PER_PARAM + 2 * BF16_PASS_BYTES
MASTER_PASS_BYTES = 4 + 2 * BF16_PASS_BYTES
# The optimizer step per trainable parameter: fp32 weight read and written, fp32 gradient
# written and read, two states read and written (AdamW fp32; 8-bit AdamW one byte each).
ADAMW_STEP_BYTES = Decimal(4 + 4 + 4 + 4 + 16)
ADAM_8BIT_STEP_BYTES = Decimal(4 + 4 + 4 + 4 + 4)
# FSDP reduce-scatters fp32 gradients (and gathers each weight as stored).
REDUCED_GRADIENT_BYTES = Decimal(4)
# CPU offload crosses the GPU's PCIe Gen4 x16 slot: 32 GB/s one way (ml-engineering-network).
HOST_LINK_GB_S = Decimal(32)
# torch's AdamW on the host, one thread per rank: 536.9 M parameters in 1.93 s on an 8x H100
# node's host (ISEEKYAN/Megatron-LM issue 188, 2026-08-25).
CPU_ADAMW_PARAMS_PER_S = Decimal(536_900_000) / Decimal("1.93")


class ThroughputError(EstimateError):
    """A GPU or a calibration that cannot describe a real run."""


AMPERE, ADA, HOPPER, BLACKWELL = "ampere", "ada", "hopper", "blackwell"
GENERATION_CHOICES = [
    (AMPERE, "Ampere"),
    (ADA, "Ada Lovelace"),
    (HOPPER, "Hopper"),
    (BLACKWELL, "Blackwell"),
]


@dataclass(frozen=True)
class GpuSpeed:
    """A GPU's dense BF16 peak, memory bandwidth, one-way GPU-to-GPU link (NVLink, else PCIe)
    and generation; ``calibration_card``: the card the efficiency was fitted on (the H200)."""

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
    """The fitted constants: the BF16 efficiency on Hopper, the fp32 slowdown, each generation's
    factor relative to Hopper, the micro-batch (tokens) at which the products take twice their
    ideal time, and the per-GPU speed each doubling of the GPU count keeps."""

    bf16_efficiency: Decimal
    fp32_slowdown: Decimal
    generation_factors: tuple[tuple[str, Decimal], ...] = ((HOPPER, Decimal(1)),)
    saturation_tokens: Decimal = Decimal(0)
    per_doubling: Decimal = Decimal(1)

    def __post_init__(self) -> None:
        if not (0 < self.bf16_efficiency <= 1) or self.fp32_slowdown < 1:
            raise ThroughputError(
                "the BF16 efficiency must lie in (0, 1] and the fp32 slowdown be at least 1"
            )
        if any(factor <= 0 for _, factor in self.generation_factors):
            raise ThroughputError("a generation's efficiency factor must be positive")
        if self.saturation_tokens < 0 or not (0 < self.per_doubling <= 1):
            raise ThroughputError(
                "the saturation must not be negative and each doubling of the GPUs must keep "
                "a share in (0, 1] of the per-GPU speed"
            )

    def scaling(self, num_gpus: int) -> Decimal:
        """The share of ``num_gpus`` times one GPU's speed that a run on them reaches."""
        if num_gpus == 1:
            return Decimal(1)
        doublings = Decimal(num_gpus).ln() / Decimal(2).ln()
        return self.per_doubling**doublings

    def efficiency(self, generation: str) -> Decimal:
        factors = dict(self.generation_factors)
        if generation not in factors:
            raise ThroughputError(f"no efficiency calibrated for the {generation} generation")
        return min(self.bf16_efficiency * factors[generation], Decimal(1))


# Fitted by ``calibrate`` (the H200's timed steps), ``fit_scaling`` and ``fit_generations``
# (the public runs); the test fits them again and holds these to the fit.
GENERATION_FACTORS = (
    (AMPERE, Decimal("1.27")),
    (ADA, Decimal("1.32")),
    (HOPPER, Decimal(1)),
    (BLACKWELL, Decimal("1.02")),
)
# What the other stacks gain over ours (``fit_generations``), which the pages name.
STACK_FACTORS = (("torchtune-compile", Decimal("1.76")), ("nemo-fp8", Decimal("2.51")))
CALIBRATION = Calibration(
    bf16_efficiency=Decimal("0.376"),
    fp32_slowdown=Decimal("11.0"),
    generation_factors=GENERATION_FACTORS,
    saturation_tokens=Decimal(486),
    per_doubling=Decimal("0.963"),
)


@dataclass(frozen=True)
class StepWork:
    tokens: int  # this GPU's micro-batch
    bf16_flops: Decimal
    fp32_flops: Decimal
    memory_bytes: Decimal
    link_bytes: Decimal  # sent (and received) over the GPU's link; 0 on one GPU
    host_bytes: Decimal = Decimal(0)  # to and from the host's memory under CPU offload
    host_updates: Decimal = Decimal(0)  # parameters the host's optimizer steps under CPU offload


# Cached: the index prices the same few hundred runs on every render (84 -> 74 ms).
@lru_cache(maxsize=1024)
def step_work(arch: Architecture, setup: TrainingSetup) -> StepWork:
    """The FLOPs, memory traffic and link traffic of one step on one of ``setup.num_gpus``:
    2 FLOPs per weight and token for each pass over the weights (forward, input gradient,
    weight gradient for full fine-tuning, recomputed forward under checkpointing); attention
    4·seq·q per token and layer forward (half under a fused kernel), twice that backward."""
    method, recipe = setup.method, setup.recipe
    full = not method.uses_adapters
    checkpointing = setup.gradient_checkpointing
    tokens = setup.tokens
    body = arch.num_hidden_layers * arch.layer_linear_params(arch.routed_experts)
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
    trainable = arch.params if full else arch.lora_params(setup.lora_rank)
    if full and not setup.cpu_offload:
        step_bytes = ADAMW_STEP_BYTES if method is Method.FULL_ADAMW else ADAM_8BIT_STEP_BYTES
        memory += arch.params * step_bytes / n

    link = host = host_updates = Decimal(0)
    stored = NF4_BYTES_PER_PARAM if method is Method.QLORA else BF16_PASS_BYTES
    gathers = 2 + checkpointing  # forward, recomputed forward, backward
    traffic = stored * arch.params * gathers + trainable * REDUCED_GRADIENT_BYTES
    if n > 1:
        link = Decimal(n - 1) / n * traffic
    if setup.cpu_offload:  # the shard crosses the host link; the host steps its optimizer
        host = traffic / n
        host_updates = Decimal(trainable) / n
    return StepWork(tokens, bf16_flops, fp32_flops, memory, link, host, host_updates)


@dataclass(frozen=True)
class StepTime:
    compute_s: Decimal
    fp32_s: Decimal
    memory_s: Decimal
    link_s: Decimal
    host_s: Decimal = Decimal(0)
    host_optimizer_s: Decimal = Decimal(0)

    @property
    def total_s(self) -> Decimal:
        return sum(dataclasses.astuple(self), Decimal(0))


def step_time(work: StepWork, gpu: GpuSpeed, calibration: Calibration = CALIBRATION) -> StepTime:
    effective = gpu.bf16_dense_tflops * TERA * calibration.efficiency(gpu.generation)
    saturation = 1 + calibration.saturation_tokens / work.tokens
    return StepTime(
        compute_s=work.bf16_flops / effective * saturation,
        fp32_s=work.fp32_flops * calibration.fp32_slowdown / effective,
        memory_s=work.memory_bytes / (gpu.bandwidth_gb_s * GIGA),
        link_s=work.link_bytes / (gpu.link_gb_s * GIGA),
        host_s=work.host_bytes / (HOST_LINK_GB_S * GIGA),
        host_optimizer_s=work.host_updates / CPU_ADAMW_PARAMS_PER_S,
    )


def tokens_per_second(
    arch: Architecture,
    setup: TrainingSetup,
    gpu: GpuSpeed,
    calibration: Calibration = CALIBRATION,
) -> Decimal:
    """Training tokens per second over all ``setup.num_gpus`` GPUs (data parallel)."""
    work = step_work(arch, setup)
    one_gpu = work.tokens / step_time(work, gpu, calibration).total_s
    return setup.num_gpus * one_gpu * calibration.scaling(setup.num_gpus)


def hours_for(tokens: int, tokens_per_s: Decimal) -> Decimal:
    if tokens < 1 or tokens_per_s <= 0:
        raise ThroughputError("a run needs tokens and a positive speed")
    return Decimal(tokens) / tokens_per_s / SECONDS_PER_HOUR


# --- calibration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TimedRun:
    """A timed run and its tokens per second over all its GPUs: ours, or a public source's on
    its own stack (whose speed-up, FP8, torch.compile or packing, is one factor per stack)."""

    name: str
    architecture: Architecture
    setup: TrainingSetup
    gpu: GpuSpeed
    tokens_per_s: Decimal
    source: str = ""
    stack: str = ""


def _least_squares(rows: Sequence[tuple[Decimal, ...]]) -> list[Decimal] | None:
    """The coefficients c minimising the squared residuals of ``row[-1] = sum(c_i row[i])``
    over ``rows`` (the normal equations by elimination); None where they do not determine c."""
    size = len(rows[0]) - 1
    normal = [[sum(row[i] * row[j] for row in rows) for j in range(size + 1)] for i in range(size)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(normal[r][column]))
        if normal[pivot][column] == 0:
            return None
        normal[column], normal[pivot] = normal[pivot], normal[column]
        for below in range(column + 1, size):
            ratio = normal[below][column] / normal[column][column]
            normal[below] = [
                a - ratio * b for a, b in zip(normal[below], normal[column], strict=True)
            ]
    solution = [Decimal(0)] * size
    for row in reversed(range(size)):
        known = sum(normal[row][j] * solution[j] for j in range(row + 1, size))
        solution[row] = (normal[row][size] - known) / normal[row][row]
    return solution


def calibrate(runs: Sequence[TimedRun]) -> Calibration:
    """The three constants that best fit ``runs``' step times by least squares on relative
    error: time less what no constant scales (memory, link, host transfers and the host's
    optimizer step) is a·X + a·t·X/tokens + b·Z, X and Z the BF16 and fp32 FLOPs over the
    peak, a = 1/efficiency, t the saturation, b = slowdown·a."""
    rows = []
    sizes = set()  # tokens per micro-batch: the saturation needs more than one
    for run in runs:
        work = step_work(run.architecture, run.setup)
        sizes.add(work.tokens)
        measured_s = work.tokens / (run.tokens_per_s / run.setup.num_gpus)
        fixed = step_time(work, run.gpu, Calibration(Decimal(1), Decimal(1)))
        unscaled_s = fixed.memory_s + fixed.link_s + fixed.host_s + fixed.host_optimizer_s
        peak = run.gpu.bf16_dense_tflops * TERA
        bf16 = work.bf16_flops / peak / measured_s
        rows.append(
            (
                bf16,
                bf16 / work.tokens,
                work.fp32_flops / peak / measured_s,
                (measured_s - unscaled_s) / measured_s,
            )
        )
    with_fp32 = {z > 0 for _, _, z, _ in rows}
    solution = _least_squares(rows) if len(sizes) > 1 and len(with_fp32) == 2 else None
    if solution is None:
        raise ThroughputError(
            "calibration needs timed runs with and without fp32 work, "
            "at more than one micro-batch size"
        )
    a, saturation, b = solution
    return Calibration(
        bf16_efficiency=(1 / a).quantize(Decimal("0.001"), ROUND_HALF_UP),
        fp32_slowdown=(b / a).quantize(Decimal("0.1"), ROUND_HALF_UP),
        saturation_tokens=(saturation / a).quantize(Decimal(1), ROUND_HALF_UP),
    )


@dataclass(frozen=True)
class RunError:
    """A run against the model fitted on every run, and on all but this one (None where this
    run alone teaches its generation or stack)."""

    run: TimedRun
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


def _errors(runs: Sequence[TimedRun], predict: Callable) -> list[RunError]:
    return [
        RunError(run, predict(run, runs), predict(run, [*runs[:index], *runs[index + 1 :]]))
        for index, run in enumerate(runs)
    ]


def model_errors(runs: Sequence[TimedRun]) -> list[RunError]:
    return _errors(runs, lambda run, fit: _modelled(run, calibrate(fit)))


# --- other cards: public runs of other stacks ------------------------------------------------

# The H100's lead over the A100 in half-precision training, "2-3x" (ml-engineering-accelerators):
# its middle. No public stack timed LoRA on both.
H100_OVER_A100 = Decimal("2.5")
H100_OVER_A100_SPAN = (Decimal(2), Decimal(3))
H100_PEAK_OVER_A100 = Decimal("989.5") / Decimal(312)


def _modelled(run: TimedRun, calibration: Calibration) -> Decimal:
    return tokens_per_second(run.architecture, run.setup, run.gpu, calibration)


def _with_factor(calibration: Calibration, generation: str, factor: Decimal) -> Calibration:
    factors = dict(calibration.generation_factors) | {generation: factor}
    return dataclasses.replace(calibration, generation_factors=tuple(sorted(factors.items())))


def _stack_factor(runs: Sequence[TimedRun], calibration: Calibration) -> Decimal:
    """The stack's speed-up over the model: the geometric mean of measured / modelled."""
    logs = [math.log(run.tokens_per_s / _modelled(run, calibration)) for run in runs]
    return Decimal(math.exp(sum(logs) / len(logs)))


def _generation_factor(
    runs: Sequence[TimedRun], calibration: Calibration, stacks: dict[str, Decimal]
) -> Decimal:
    """The generation's factor at which its runs' modelled speeds times their stacks' factors
    meet the measured ones on geometric average (bisected: not every term scales with it)."""
    generation = runs[0].gpu.generation
    low, high = 0.05, 20.0
    for _ in range(60):
        middle = math.sqrt(low * high)
        trial = _with_factor(calibration, generation, Decimal(middle))
        excess = sum(
            math.log(_modelled(run, trial) * stacks[run.stack] / run.tokens_per_s) for run in runs
        )
        low, high = (low, middle) if excess > 0 else (middle, high)
    return Decimal(math.sqrt(low * high))


def _same_run_at_more_gpus(runs: Sequence[TimedRun]) -> list[tuple[TimedRun, TimedRun]]:
    return [
        (first, second)
        for first in runs
        for second in runs
        if (first.stack, first.gpu, first.architecture, first.setup.method)
        == (second.stack, second.gpu, second.architecture, second.setup.method)
        and first.setup.num_gpus < second.setup.num_gpus
    ]


def _per_gpu_ratio(first: TimedRun, second: TimedRun, calibration: Calibration) -> float:
    """The modelled per-GPU speed ratio between the two counts over the measured one."""
    modelled = _modelled(second, calibration) / _modelled(first, calibration)
    measured = second.tokens_per_s / first.tokens_per_s
    return float(modelled / measured)


def fit_scaling(runs: Sequence[TimedRun], calibration: Calibration) -> Decimal:
    """The per-GPU speed each doubling of the GPU count keeps, by least squares on the logarithm
    over the runs one stack timed on one card at several counts (1 without such runs)."""
    pairs = _same_run_at_more_gpus(runs)
    if not pairs:
        return Decimal(1)
    linear = dataclasses.replace(calibration, per_doubling=Decimal(1))
    # measured = modelled at linear scaling x s^d, so each ratio is s^-d
    logs = [
        (math.log2(b.setup.num_gpus / a.setup.num_gpus), math.log(_per_gpu_ratio(a, b, linear)))
        for a, b in pairs
    ]
    per_doubling = math.exp(-sum(d * log for d, log in logs) / sum(d * d for d, _ in logs))
    return min(Decimal(per_doubling), Decimal(1)).quantize(Decimal("0.001"), ROUND_HALF_UP)


def fit_generations(
    runs: Sequence[TimedRun], calibration: Calibration
) -> tuple[Calibration, dict[str, Decimal]]:
    """Each generation's factor and each stack's: Hopper 1, Ampere the cited H100 lead; then in
    turn a stack's from its runs on known generations, a generation's from its runs on known
    stacks, until nothing is left to learn."""
    ampere = (H100_PEAK_OVER_A100 / H100_OVER_A100).quantize(HUNDREDTH, ROUND_HALF_UP)
    calibration = dataclasses.replace(
        calibration, generation_factors=((AMPERE, ampere), (HOPPER, Decimal(1)))
    )
    stacks: dict[str, Decimal] = {}
    learning = True
    while learning:
        # A stack learned in this pass teaches its generations in this pass too: only a new
        # generation can teach anything in the next.
        learning = False
        known = dict(calibration.generation_factors)
        for stack in sorted({run.stack for run in runs} - set(stacks)):
            on_known = [r for r in runs if r.stack == stack and r.gpu.generation in known]
            if on_known:
                stacks[stack] = _stack_factor(on_known, calibration)
        for generation in sorted({run.gpu.generation for run in runs} - set(known)):
            on_known = [r for r in runs if r.gpu.generation == generation and r.stack in stacks]
            if on_known:
                factor = _generation_factor(on_known, calibration, stacks)
                calibration = _with_factor(
                    calibration, generation, factor.quantize(HUNDREDTH, ROUND_HALF_UP)
                )
                learning = True
    return calibration, stacks


def _predicted(run: TimedRun, runs: Sequence[TimedRun], calibration: Calibration):
    """``run``'s speed by the scaling, generations and stacks fitted to ``runs``."""
    scaled = dataclasses.replace(calibration, per_doubling=fit_scaling(runs, calibration))
    fitted, stacks = fit_generations(runs, scaled)
    if run.stack not in stacks or run.gpu.generation not in dict(fitted.generation_factors):
        return None
    return _modelled(run, fitted) * stacks[run.stack]


def public_run_errors(runs: Sequence[TimedRun], calibration: Calibration) -> list[RunError]:
    return _errors(runs, lambda run, fit: _predicted(run, fit, calibration))


# --- ranges: what the model cannot know ---------------------------------------------------


@dataclass(frozen=True)
class Band:
    """A modelled figure's relative error: the truth lies between ``1 + low`` and ``1 + high``
    times the model's."""

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


def family_bands(errors: Sequence[RunError]) -> dict[str, Band]:
    spans: dict[str, list[Decimal]] = {}
    for error in errors:
        spans.setdefault(method_family(error.run.setup.method), []).append(error.left_out_error)
    return {
        family: Band(min(Decimal(0), *found), max(Decimal(0), *found))
        for family, found in spans.items()
    }


def card_errors(errors: Sequence[RunError]) -> dict[str, Decimal]:
    """Per generation, the largest left-out error of its public runs (a generation taught by
    one run: the largest of any; Ampere at least the cited span's). A run also timed at another
    GPU count counts only at a full host's: the others teach the scaling."""
    paired = {run for pair in _same_run_at_more_gpus([e.run for e in errors]) for run in pair}
    left_out = [
        e
        for e in errors
        if e.left_out_error is not None
        and (e.run not in paired or e.run.setup.num_gpus == HOST_GPU_COUNTS[-1])
    ]
    largest = max(abs(e.left_out_error) for e in left_out)
    widths: dict[str, Decimal] = {}
    for generation in {e.run.gpu.generation for e in errors}:
        own = [abs(e.left_out_error) for e in left_out if e.run.gpu.generation == generation]
        widths[generation] = max(own) if own else largest
    cited = max(abs(H100_OVER_A100 / bound - 1) for bound in H100_OVER_A100_SPAN)
    widths[AMPERE] = max(widths.get(AMPERE, Decimal(0)), cited)
    return widths


def scaling_error(runs: Sequence[TimedRun], calibration: Calibration) -> Decimal:
    """The largest error of the modelled per-GPU speed ratio between two GPU counts."""
    pairs = _same_run_at_more_gpus(runs)
    return max(
        (Decimal(abs(_per_gpu_ratio(a, b, calibration) - 1)) for a, b in pairs),
        default=Decimal(0),
    )


@dataclass(frozen=True)
class Uncertainty:
    families: dict[str, Band]
    cards: dict[str, Decimal]
    scaling: Decimal

    def card_width(self, gpu: GpuSpeed) -> Decimal:
        return Decimal(0) if gpu.calibration_card else self.cards[gpu.generation]

    def speed_band(self, method: Method, gpu: GpuSpeed, num_gpus: int) -> Band:
        """Its method family's error, widened by its card's and, on several GPUs, the scaling's."""
        band = self.families[method_family(method)].widened(self.card_width(gpu))
        return band.widened(self.scaling) if num_gpus > 1 else band

    def ratio_width(
        self, first: tuple[GpuSpeed, int], second: tuple[GpuSpeed, int], *, same_card: bool
    ) -> Decimal:
        """How far the modelled ratio of two runs of one method may be off: only what differs
        between them counts (their cards' factors, the scaling)."""
        (gpu_a, count_a), (gpu_b, count_b) = first, second
        width = (
            Decimal(1) if same_card else (1 + self.card_width(gpu_a)) * (1 + self.card_width(gpu_b))
        )
        if count_a != count_b:
            width *= 1 + self.scaling
        return width - 1


# ``family_bands``, ``card_errors`` and ``scaling_error`` to a tenth of a percent; the test
# derives them again from the data.
UNCERTAINTY = Uncertainty(
    families={
        "qlora": Band(Decimal("-0.142"), Decimal("0.195")),
        "lora": Band(Decimal(0), Decimal("0.254")),
        "full": Band(Decimal("-0.222"), Decimal("0.129")),
    },
    cards={
        AMPERE: Decimal("0.250"),
        ADA: Decimal("0.247"),
        HOPPER: Decimal("0.180"),
        BLACKWELL: Decimal("0.247"),
    },
    scaling=Decimal("0.324"),
)
