"""How fast a `vllm serve` configuration answers a closed loop of ``concurrency`` users.

Each engine step decodes a token for every user (each GPU's weights and the users' caches read
at the stack's share of the bandwidth), computes those tokens and the prompts mixed in
(chunked prefill) at its share of the dense peak, and on several GPUs all-reduces twice a
layer. Time per output token is that step; time to first token the prefill, half a step and
an M/D/1 wait. Fitted to public runs (``content/measured/public-serving.jsonl``); the pages show
vLLM's speed. ``docs/serving.md`` gives every term, anchor and error.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from pricing.domain import throughput
from pricing.domain.serving import ServingSetup, kv_bytes_per_token, weights_bytes_per_gpu
from pricing.domain.throughput import GIGA, SECONDS_PER_HOUR, TERA, Band, GpuSpeed
from pricing.domain.training_memory import Architecture, EstimateError

MILLION = Decimal(10) ** 6
THOUSAND = Decimal(1000)
# 30 days, exactly our largest one-GPU block (a 730-hour month would need a second block).
HOURS_PER_MONTH = Decimal(720)
# fp8 tensor cores at twice the BF16 rate; Ampere has none (Marlin dequantises to BF16).
FP8_GENERATIONS = {throughput.ADA, throughput.HOPPER, throughput.BLACKWELL}
# MLPerf Inference's interactive target for a 70B model, per output token.
DEFAULT_TPOT_TARGET_MS = 40


class ServingSpeedError(EstimateError):
    """A workload or a calibration that cannot describe a real run."""


@dataclass(frozen=True)
class Workload:
    prompt_tokens: int
    output_tokens: int
    concurrency: int = 1

    def __post_init__(self) -> None:
        if min(self.prompt_tokens, self.output_tokens, self.concurrency) < 1:
            raise ServingSpeedError("prompt, output and concurrency must each be at least 1")

    @property
    def mean_context(self) -> Decimal:
        return self.prompt_tokens + Decimal(self.output_tokens) / 2


@dataclass(frozen=True)
class Stack:
    """An inference engine's fitted shares of bandwidth and dense peak, and all-reduce time."""

    name: str
    bandwidth_efficiency: Decimal
    compute_efficiency: Decimal
    allreduce_s_per_layer: Decimal

    def __post_init__(self) -> None:
        if not (0 < self.bandwidth_efficiency <= 1 and 0 < self.compute_efficiency <= 1):
            raise ServingSpeedError("a stack's efficiencies must lie in (0, 1]")
        if self.allreduce_s_per_layer < 0:
            raise ServingSpeedError("an all-reduce cannot take negative time")


# Least-squares optima the test holds them to; NIM's bandwidth at HBM's measured ceiling, and
# vLLM's runs cannot tell compute or all-reduce from NIM's.
NIM = Stack("nim", Decimal("0.92"), Decimal("0.43"), Decimal("0.000065"))
VLLM = Stack("vllm", Decimal("0.59"), NIM.compute_efficiency, NIM.allreduce_s_per_layer)
STACKS = {stack.name: stack for stack in (NIM, VLLM)}


def compute_tflops(gpu: GpuSpeed, setup: ServingSetup) -> Decimal:
    fp8 = setup.weights.slug == "fp8" and gpu.generation in FP8_GENERATIONS
    return gpu.bf16_dense_tflops * (2 if fp8 else 1)


@dataclass(frozen=True)
class Engine:
    """One configuration's step times, one ``gpu`` per tensor-parallel rank."""

    architecture: Architecture
    setup: ServingSetup
    gpu: GpuSpeed
    stack: Stack = VLLM

    @property
    def _flops_per_s(self) -> Decimal:
        generation = throughput.CALIBRATION.efficiency(self.gpu.generation)
        relative = generation / throughput.CALIBRATION.efficiency(throughput.HOPPER)
        efficiency = min(self.stack.compute_efficiency * relative, Decimal(1))
        return compute_tflops(self.gpu, self.setup) * TERA * efficiency

    @property
    def _fixed_s(self) -> Decimal:
        if self.setup.tensor_parallel_size == 1:
            return Decimal(0)
        return self.architecture.num_hidden_layers * self.stack.allreduce_s_per_layer

    def bytes_per_step(self, users: int, context: Decimal) -> Decimal:
        kv = kv_bytes_per_token(
            self.architecture, self.setup.kv_cache_dtype, self.setup.tensor_parallel_size
        )
        return weights_bytes_per_gpu(self.architecture, self.setup) + users * context * kv

    def compute_s(self, tokens: Decimal, context: Decimal) -> Decimal:
        """One GPU's time for ``tokens`` attending to ``context``: 2 FLOPs per active weight
        (the output layer's included), 4 per query element and attended token."""
        a = self.architecture
        h, i = a.hidden_size, a.intermediate_size
        per_layer = 2 * h * a.q_size + 2 * h * a.kv_size + a.routed_experts * 3 * h * i
        weights = a.num_hidden_layers * per_layer + a.vocab_size * h
        attention = 4 * a.num_hidden_layers * a.q_size * context
        flops = tokens * ((2 * weights + attention) / self.setup.tensor_parallel_size)
        return flops / self._flops_per_s

    def decode_step_s(self, users: int, context: Decimal) -> Decimal:
        bytes_per_s = self.gpu.bandwidth_gb_s * GIGA * self.stack.bandwidth_efficiency
        memory = self.bytes_per_step(users, context) / bytes_per_s
        return self._fixed_s + memory + self.compute_s(Decimal(users), context)

    def bandwidth_limit_tokens_per_s(self, context: Decimal) -> Decimal:
        """The most one user can get: the whole bandwidth over the bytes a token reads."""
        return self.gpu.bandwidth_gb_s * GIGA / self.bytes_per_step(1, context)

    def speed(self, workload: Workload) -> Speed:
        w = workload
        prompt = Decimal(w.prompt_tokens)  # whose tokens attend to half of it on average
        prompts_per_step = Decimal(w.concurrency * w.prompt_tokens) / w.output_tokens
        prefill_share_s = self.compute_s(prompts_per_step, prompt / 2)
        step = self.decode_step_s(w.concurrency, w.mean_context) + prefill_share_s
        busy = prefill_share_s / step  # the share of each step that prefills prompts
        alone = self._fixed_s + self.compute_s(prompt, prompt / 2)  # one prompt's prefill alone
        ttft = alone + step / 2 + busy / (2 * (1 - busy)) * alone
        return Speed(workload=w, itl_s=step, ttft_s=ttft)


@dataclass(frozen=True)
class Speed:
    workload: Workload
    itl_s: Decimal
    ttft_s: Decimal

    @property
    def tokens_per_s_per_user(self) -> Decimal:
        return 1 / self.itl_s

    @property
    def tokens_per_s(self) -> Decimal:
        return self.workload.concurrency / self.itl_s

    @property
    def itl_ms(self) -> Decimal:
        return self.itl_s * THOUSAND

    @property
    def ttft_ms(self) -> Decimal:
        return self.ttft_s * THOUSAND


def usd_per_million_tokens(usd_per_hour: Decimal, tokens_per_s: Decimal) -> Decimal:
    per_million = usd_per_hour * MILLION / (tokens_per_s * SECONDS_PER_HOUR)
    return per_million.quantize(Decimal("0.01"), ROUND_HALF_UP)


def users_within(engine: Engine, workload: Workload, itl_target_s: Decimal, most: int) -> int:
    """The most users, up to ``most``, whose time per output token stays within the target
    (bisected: the step grows with the users); 0 where even one user's does not."""

    def within(users: int) -> bool:
        at = Workload(workload.prompt_tokens, workload.output_tokens, users)
        return engine.speed(at).itl_s <= itl_target_s

    if most < 1 or not within(1):
        return 0
    low, high = 1, most
    while low < high:
        middle = (low + high + 1) // 2
        if within(middle):
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True)
class SpeedBands:
    itl: Band
    ttft: Band


# The runs' errors, measured / modelled - 1, as the test derives them.
ITL_BAND = Band(Decimal("-0.161"), Decimal("0.104"))
TTFT_BAND = Band(Decimal("-0.129"), Decimal("0.104"))


def card_width(gpu: GpuSpeed) -> Decimal:
    """The card's generation error: none on Hopper, where the anchors ran."""
    if gpu.generation == throughput.HOPPER:
        return Decimal(0)
    return throughput.UNCERTAINTY.cards[gpu.generation]


def serving_bands(gpu: GpuSpeed) -> SpeedBands:
    width = card_width(gpu)
    return SpeedBands(ITL_BAND.widened(width), TTFT_BAND.widened(width))
