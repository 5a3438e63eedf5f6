"""How fast a `vllm serve` configuration answers: time to first token, tokens per second per
user and in total, and what a million output tokens cost at a latency target.

Framework-free like ``serving``: an architecture, a ``ServingSetup`` (precisions and GPU count),
a card's ``GpuSpeed`` and a ``Workload`` in, ``Decimal`` seconds and tokens out. Steady state of
a closed loop: ``concurrency`` users each send a prompt of ``prompt_tokens``, read
``output_tokens``, and send the next. Each engine step then

- **decodes** one token for every user: it reads each GPU's weights once and every user's keys
  and values so far (on average ``prompt + output / 2`` tokens) at the card's bandwidth times
  the stack's bandwidth efficiency — bandwidth-bound with few users, so one user never gets more
  than bandwidth / bytes read per token;
- **computes** those tokens and, mixed into the same step (chunked prefill), the prompts of the
  users who start meanwhile (``concurrency x prompt / output`` tokens a step), at 2 FLOPs per
  weight and token plus attention, at the card's dense peak in the weights' compute precision
  (fp8 on Ada, Hopper and Blackwell; Ampere runs fp8 and 4-bit weights at its BF16 peak) times
  the stack's compute efficiency and Truth III's generation factor — compute-bound when batched;
- on several GPUs, **all-reduces** twice a layer (a latency per layer, fitted).

Time per output token (``itl``) is that step; time to first token is the prompt's prefill, half
a step of waiting, and the wait behind other users' prefills (an M/D/1 queue at the step's
prefill share).

The constants are fitted to public runs, each on its own stack (``content/measured/
public-serving.jsonl``): NVIDIA NIM's concurrency table (TensorRT-LLM, FP8 weights and cache,
Llama 3.3 70B on 2x H100) teaches the compute efficiency and the all-reduce latency; vLLM's own
performance benchmark (H200, BF16, Llama 3 70B on 4 GPUs and Llama 3.1 8B on one) teaches
vLLM's bandwidth efficiency. The pages and the API show **vLLM's** speed, the stack the
commands run; ``serving_bands`` says how far each figure may be off (the runs' errors, widened
by the card's generation error off Hopper). No serving run was timed by us.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from pricing.domain import throughput
from pricing.domain.serving import ServingSetup, kv_bytes_per_token, weights_bytes_per_gpu
from pricing.domain.throughput import GIGA, TERA, Band, GpuSpeed
from pricing.domain.training_memory import Architecture, EstimateError

MILLION = Decimal(10) ** 6
THOUSAND = Decimal(1000)
SECONDS_PER_HOUR = Decimal(3600)
# A month of serving: 30 days around the clock, 720 hours, which is exactly our largest
# GPU-hour block for one GPU (a 730-hour month, a year / 12, would need a second block for
# its last ten hours and double what a month is bought in up front).
HOURS_PER_MONTH = Decimal(720)
# Generations whose tensor cores multiply fp8 at twice their BF16 rate (datasheets: H100 1,979
# against 989.5 TFLOPS dense); Ampere has none and runs fp8 and 4-bit weights through BF16
# products (vLLM's Marlin kernels dequantise).
FP8_GENERATIONS = {throughput.ADA, throughput.HOPPER, throughput.BLACKWELL}
# MLPerf Inference's interactive target for a 70B model: 40 ms per output token (25 a second
# per user); the default latency target of cost per million tokens.
DEFAULT_TPOT_TARGET_MS = 40


class ServingSpeedError(EstimateError):
    """A workload or a calibration that cannot describe a real run."""


@dataclass(frozen=True)
class Workload:
    """Each user's request, and how many users at once."""

    prompt_tokens: int
    output_tokens: int
    concurrency: int = 1

    def __post_init__(self) -> None:
        if min(self.prompt_tokens, self.output_tokens, self.concurrency) < 1:
            raise ServingSpeedError("prompt, output and concurrency must each be at least 1")

    @property
    def mean_context(self) -> Decimal:
        """The keys and values a user's decode step reads on average."""
        return self.prompt_tokens + Decimal(self.output_tokens) / 2


@dataclass(frozen=True)
class Stack:
    """An inference engine's fitted efficiencies: the share of the card's bandwidth its decode
    reaches, the share of the dense peak its products reach, and the seconds each layer's two
    all-reduces take over several GPUs."""

    name: str
    bandwidth_efficiency: Decimal
    compute_efficiency: Decimal
    allreduce_s_per_layer: Decimal

    def __post_init__(self) -> None:
        if not (0 < self.bandwidth_efficiency <= 1 and 0 < self.compute_efficiency <= 1):
            raise ServingSpeedError("a stack's efficiencies must lie in (0, 1]")
        if self.allreduce_s_per_layer < 0:
            raise ServingSpeedError("an all-reduce cannot take negative time")


# Fitted by tests/pricing/domain/test_serving_speed.py, which holds each figure to a least-
# squares optimum over the runs (no single step of any constant lowers the error).
# NIM 1.8.0 (TensorRT-LLM): the bandwidth efficiency at its bound, 0.92 (HBM's measured ceiling:
# Azure's GB200 reached 92 % of its datasheet bandwidth), compute 0.43, 65 us per layer's
# all-reduces; vLLM: 0.59 of the bandwidth, NIM's compute and all-reduce (its two runs, fixed
# batches of short prompts, cannot tell those apart).
NIM = Stack("nim", Decimal("0.92"), Decimal("0.43"), Decimal("0.000065"))
VLLM = Stack("vllm", Decimal("0.59"), NIM.compute_efficiency, NIM.allreduce_s_per_layer)
STACKS = {stack.name: stack for stack in (NIM, VLLM)}


def compute_tflops(gpu: GpuSpeed, setup: ServingSetup) -> Decimal:
    """The dense peak the products run at: fp8 weights on a card with fp8 tensor cores at
    twice the BF16 peak, everything else at the BF16 peak."""
    fp8 = setup.weights.slug == "fp8" and gpu.generation in FP8_GENERATIONS
    return gpu.bf16_dense_tflops * (2 if fp8 else 1)


def flops_per_token(architecture: Architecture, setup: ServingSetup, context: Decimal) -> Decimal:
    """One GPU's FLOPs for a token that attends to ``context`` tokens: 2 per active weight
    (a mixture's routed experts only) and 4 per query element and attended token, split over
    the GPUs; the output layer's logits included."""
    a, tp = architecture, setup.tensor_parallel_size
    h, i = a.hidden_size, a.intermediate_size
    per_layer = 2 * h * a.q_size + 2 * h * a.kv_size + a.routed_experts * 3 * h * i
    weights = a.num_hidden_layers * per_layer + a.vocab_size * h
    attention = 4 * a.num_hidden_layers * a.q_size * context
    return (2 * weights + attention) / tp


@dataclass(frozen=True)
class Engine:
    """One configuration's step times: ``architecture`` served with ``setup`` on cards like
    ``gpu`` (one per tensor-parallel rank) by ``stack``."""

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
    def _bytes_per_s(self) -> Decimal:
        return self.gpu.bandwidth_gb_s * GIGA * self.stack.bandwidth_efficiency

    @property
    def _fixed_s(self) -> Decimal:
        if self.setup.tensor_parallel_size == 1:
            return Decimal(0)
        return self.architecture.num_hidden_layers * self.stack.allreduce_s_per_layer

    def bytes_per_step(self, users: int, context: Decimal) -> Decimal:
        """What one GPU reads for a decode step: its weights and every user's cache."""
        kv = kv_bytes_per_token(
            self.architecture, self.setup.kv_cache_dtype, self.setup.tensor_parallel_size
        )
        return weights_bytes_per_gpu(self.architecture, self.setup) + users * context * kv

    def compute_s(self, tokens: Decimal, context: Decimal) -> Decimal:
        flops = tokens * flops_per_token(self.architecture, self.setup, context)
        return flops / self._flops_per_s

    def decode_step_s(self, users: int, context: Decimal) -> Decimal:
        """A step that decodes one token for each of ``users`` (no prompts mixed in)."""
        memory = self.bytes_per_step(users, context) / self._bytes_per_s
        return self._fixed_s + memory + self.compute_s(Decimal(users), context)

    def prefill_s(self, prompt_tokens: int) -> Decimal:
        """One prompt's prefill alone: compute-bound, its tokens attending to half of it on
        average (causal)."""
        return self._fixed_s + self.compute_s(Decimal(prompt_tokens), Decimal(prompt_tokens) / 2)

    def bandwidth_limit_tokens_per_s(self, context: Decimal) -> Decimal:
        """The most tokens a second one user can get: the card's bandwidth over the bytes a
        token reads (weights and its own cache)."""
        return self.gpu.bandwidth_gb_s * GIGA / self.bytes_per_step(1, context)

    def speed(self, workload: Workload) -> Speed:
        """The steady state of ``workload`` on this configuration."""
        w = workload
        context = w.mean_context
        prompts_per_step = Decimal(w.concurrency * w.prompt_tokens) / w.output_tokens
        prefill_share_s = self.compute_s(prompts_per_step, Decimal(w.prompt_tokens) / 2)
        step = self.decode_step_s(w.concurrency, context) + prefill_share_s
        busy = prefill_share_s / step  # the share of each step that prefills prompts
        alone = self.prefill_s(w.prompt_tokens)
        ttft = alone + step / 2 + busy / (2 * (1 - busy)) * alone
        return Speed(workload=w, itl_s=step, ttft_s=ttft)


@dataclass(frozen=True)
class Speed:
    """A workload's steady state: seconds per output token per user and to its first token."""

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
    """A configuration's hourly price over the output tokens it writes in an hour, per
    million, to the cent."""
    per_million = usd_per_hour * MILLION / (tokens_per_s * SECONDS_PER_HOUR)
    return per_million.quantize(Decimal("0.01"), ROUND_HALF_UP)


def users_within(engine: Engine, workload: Workload, itl_target_s: Decimal, most: int) -> int:
    """The most users (at most ``most``: what the cache holds) whose time per output token
    stays within the target; 0 where even one user's does not. The step grows with the users,
    so a bisection finds it."""

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
    """How far modelled times may be off (true time = modelled x (1 + low .. 1 + high)):
    per output token and to the first token."""

    itl: Band
    ttft: Band


# The runs' errors (measured time / modelled time - 1), as the test derives them from the data:
# for the time per output token vLLM's two runs and NIM's five (only NIM's were batched with
# prompts arriving), for the time to first token NIM's five (vLLM's runs publish none); widened
# off Hopper by Truth III's card errors.
ITL_BAND = Band(Decimal("-0.161"), Decimal("0.104"))
TTFT_BAND = Band(Decimal("-0.129"), Decimal("0.104"))


def card_width(gpu: GpuSpeed) -> Decimal:
    """The card's generation error (Truth III's): none on Hopper, where the anchors ran."""
    if gpu.generation == throughput.HOPPER:
        return Decimal(0)
    return throughput.UNCERTAINTY.cards[gpu.generation]


def serving_bands(gpu: GpuSpeed) -> SpeedBands:
    """The ranges of a configuration's modelled times on ``gpu``."""
    width = card_width(gpu)
    return SpeedBands(ITL_BAND.widened(width), TTFT_BAND.widened(width))
