"""pricing.domain.serving_speed: speed at a number of users against the public runs it is fitted
to (content/measured/public-serving.jsonl), its fit, its bounds and cost per million tokens."""

import json
from dataclasses import replace
from decimal import Decimal as D
from pathlib import Path

import pytest

from pricing.domain import serving, serving_speed, throughput
from pricing.domain.serving_speed import Engine, Workload
from pricing.domain.training_memory import Architecture

ROOT = Path(__file__).resolve().parents[3]
RUNS = [
    json.loads(line)
    for line in (ROOT / "content/measured/public-serving.jsonl").read_text().splitlines()
]
MODELS = {
    "llama-3.1-8b": Architecture(4096, 32, 32, 8, 14336, 128256),
    "llama-3.1-70b": Architecture(8192, 80, 64, 8, 28672, 128256),
}
CARDS = {  # datasheet figures as the GPU records hold them
    "h100": throughput.GpuSpeed(D("989.5"), D(3350), D(450), throughput.HOPPER),
    "h200": throughput.GpuSpeed(D("989.5"), D(4800), D(450), throughput.HOPPER),
    "a100": throughput.GpuSpeed(D(312), D(2039), D(300), throughput.AMPERE),
    "b200": throughput.GpuSpeed(D(2250), D(8000), D(900), throughput.BLACKWELL),
}


def engine(run, stacks=serving_speed.STACKS):
    setup = serving.ServingSetup(
        weights=serving.WEIGHT_PRECISIONS[run["weights"]],
        kv_cache_dtype="fp8" if run["kv"] == "fp8" else "auto",
        tensor_parallel_size=run["gpus"],
    )
    return Engine(MODELS[run["model"]], setup, CARDS[run["gpu"]], stacks[run["stack"]])


def errors(run, stacks=serving_speed.STACKS):
    """Measured time / modelled time - 1, for each time the run publishes."""
    model = engine(run, stacks)
    if "latency_ms" in run:  # a fixed batch: its prefill, then one step per further token
        batch, prompt, output = run["concurrency"], run["prompt"], run["output"]
        prefill = model.compute_s(D(batch * prompt), D(prompt) / 2) + model.decode_step_s(0, D(0))
        steps = sum(model.decode_step_s(batch, D(prompt + k)) for k in range(1, output))
        return {"latency": D(str(run["latency_ms"])) / ((prefill + steps) * 1000) - 1}
    speed = model.speed(Workload(run["prompt"], run["output"], run["concurrency"]))
    return {
        "itl": D(str(run["itl_ms"])) / speed.itl_ms - 1,
        "ttft": D(str(run["ttft_ms"])) / speed.ttft_ms - 1,
    }


# Each run's errors in percent (measured / modelled - 1), to the tenth: what docs/serving.md and
# the closing note quote.
EXPECTED_ERRORS = {
    "NIM 1.8.0 Llama 3.3 70B, 2x H100 FP8, 5000 in / 500 out, 1 user": ("2.8", "-10.1"),
    "NIM 1.8.0 Llama 3.3 70B, 2x H100 FP8, 5000 in / 500 out, 5 users": ("-2.6", "10.4"),
    "NIM 1.8.0 Llama 3.3 70B, 2x H100 FP8, 5000 in / 500 out, 25 users": ("-12.1", "4.6"),
    "NIM 1.8.0 Llama 3.3 70B, 2x H100 FP8, 5000 in / 500 out, 50 users": ("-16.1", "5.1"),
    "NIM 1.8.0 Llama 3.3 70B, 2x H100 FP8, 500 in / 2000 out, 1 user": ("10.4", "-12.9"),
    "vLLM benchmark latency_llama70B_tp4, 4x H200 BF16, 8 x (32 in / 128 out)": ("-12.2",),
    "vLLM benchmark latency_llama8B_tp1, 1x H200 BF16, 8 x (32 in / 128 out)": ("7.5",),
}


def percent(error):
    return str((error * 100).quantize(D("0.1")))


@pytest.mark.parametrize("run", RUNS, ids=[run["name"] for run in RUNS])
def test_each_public_run_against_the_model(run):
    assert tuple(percent(e) for e in errors(run).values()) == EXPECTED_ERRORS[run["name"]]


def squared_error(stacks):
    return sum(float(e) ** 2 for run in RUNS for e in errors(run, stacks).values())


@pytest.mark.parametrize(
    "field, step",
    [
        ("compute_efficiency", D("0.02")),
        ("allreduce_s_per_layer", D("0.000005")),
    ],
)
def test_nims_constants_are_the_fit(field, step):
    """No step of a fitted constant either way lowers the NIM runs' squared error (the
    bandwidth efficiency sits at its bound, 0.92)."""
    nim_runs = [run for run in RUNS if run["stack"] == "nim"]

    def error(stack):
        stacks = {**serving_speed.STACKS, "nim": stack}
        return sum(float(e) ** 2 for run in nim_runs for e in errors(run, stacks).values())

    best = error(serving_speed.NIM)
    value = getattr(serving_speed.NIM, field)
    for nudged in (value - step, value + step):
        assert error(replace(serving_speed.NIM, **{field: nudged})) > best


def test_vllms_bandwidth_efficiency_is_the_fit():
    best = squared_error(serving_speed.STACKS)
    for nudged in (D("0.58"), D("0.60")):
        stacks = {
            **serving_speed.STACKS,
            "vllm": replace(serving_speed.VLLM, bandwidth_efficiency=nudged),
        }
        assert squared_error(stacks) > best


def test_the_bands_are_the_runs_errors():
    per_token = [e for run in RUNS for k, e in errors(run).items() if k != "ttft"]
    ttft = [errors(run)["ttft"] for run in RUNS if run["stack"] == "nim"]
    as_band = lambda es: (min(es).quantize(D("0.001")), max(es).quantize(D("0.001")))  # noqa: E731
    assert as_band(per_token) == (serving_speed.ITL_BAND.low, serving_speed.ITL_BAND.high)
    assert as_band(ttft) == (serving_speed.TTFT_BAND.low, serving_speed.TTFT_BAND.high)
    # Off Hopper, the card's generation error widens them (Truth III's).
    b200 = serving_speed.serving_bands(CARDS["b200"])
    assert b200.itl.high == (1 + D("0.104")) * (1 + D("0.247")) - 1
    assert serving_speed.serving_bands(CARDS["h100"]).itl == serving_speed.ITL_BAND


LLAMA_70B_FP8_TP2 = serving.ServingSetup(weights=serving.FP8, tensor_parallel_size=2)


def test_one_user_never_beats_the_bandwidth():
    """Bandwidth / bytes a token reads bounds one user, on every card and stack."""
    for card in CARDS.values():
        for stack in serving_speed.STACKS.values():
            model = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, card, stack)
            speed = model.speed(Workload(1000, 500))
            limit = model.bandwidth_limit_tokens_per_s(D(1250))
            assert speed.tokens_per_s_per_user < limit
    # The H100 pair: 36.33 GB of weights (fp8 linear layers, bf16 tables) and 0.20 GB of one
    # user's cache (1,250 tokens x 163,840 bytes) a step, at 3,350 GB/s: 91.7 tokens a second.
    h100 = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, CARDS["h100"])
    assert h100.bytes_per_step(1, D(1250)) == 36_534_304_768
    assert h100.bandwidth_limit_tokens_per_s(D(1250)).quantize(D("0.1")) == D("91.7")


def test_vllm_on_two_h100s_term_by_term():
    model = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, CARDS["h100"])
    speed = model.speed(Workload(1000, 500, 1))
    # Bandwidth-bound alone: 36.53 GB at 59 % of 3,350 GB/s = 18.5 ms, 80 layers' all-reduces
    # 5.2 ms, the products of its token and of the two prompt tokens mixed in per step 0.25 ms.
    assert speed.itl_ms.quantize(D("0.1")) == D("23.9")
    assert speed.tokens_per_s_per_user.quantize(D("0.1")) == D("41.8")
    # The prompt's 1,000 tokens at 43 % of 1,979 TFLOPS (82.5 ms), the all-reduces, half a step.
    assert speed.ttft_ms.quantize(D("1")) == D("100")
    # Batched, the products take over: 64 users at 1,000 / 500 tokens.
    many = model.speed(Workload(1000, 500, 64))
    assert many.itl_ms.quantize(D("0.1")) == D("46.1")
    assert many.tokens_per_s.quantize(D("1")) == D("1388")


def test_fp8_products_run_at_twice_the_bf16_peak_only_where_the_card_has_fp8():
    fp8 = serving.ServingSetup(weights=serving.FP8)
    assert serving_speed.compute_tflops(CARDS["h100"], fp8) == D(1979)
    assert serving_speed.compute_tflops(CARDS["a100"], fp8) == D(312)
    awq = serving.ServingSetup(weights=serving.AWQ)
    assert serving_speed.compute_tflops(CARDS["h100"], awq) == D("989.5")


def test_users_within_a_latency_target_and_the_cost_of_a_million_tokens():
    model = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, CARDS["h100"])
    work = Workload(1000, 500)
    users = serving_speed.users_within(model, work, D("0.040"), most=1024)
    at = lambda n: model.speed(Workload(1000, 500, n)).itl_s  # noqa: E731
    assert at(users) <= D("0.040") < at(users + 1)
    assert users == 46
    # Capped by what the cache holds, and 0 where one user misses the target.
    assert serving_speed.users_within(model, work, D("0.040"), most=4) == 4
    assert serving_speed.users_within(model, work, D("0.010"), most=1024) == 0
    # Two H100s at $2.00 an hour each, 400 tokens a second: $4.00 / 1.44 M tokens.
    assert serving_speed.usd_per_million_tokens(D("4.00"), D(400)) == D("2.78")


def test_a_workload_needs_tokens_and_users():
    with pytest.raises(serving_speed.ServingSpeedError):
        Workload(0, 500)
    with pytest.raises(serving_speed.ServingSpeedError):
        serving_speed.Stack("x", D("1.1"), D("0.5"), D(0))


@pytest.mark.parametrize(
    "bandwidth, compute, allreduce",
    [(D(0), D("0.5"), D(0)), (D("0.5"), D(0), D(0)), (D("1.01"), D("0.5"), D(0)),
     (D("0.5"), D("1.01"), D(0)), (D("0.5"), D("0.5"), D("-0.000001"))],
)  # fmt: skip
def test_a_stack_outside_its_bounds_is_refused(bandwidth, compute, allreduce):
    said = (
        "an all-reduce cannot take negative time"
        if allreduce < 0
        else ("a stack's efficiencies must lie in (0, 1]")
    )
    with pytest.raises(serving_speed.ServingSpeedError) as refused:
        serving_speed.Stack("x", bandwidth, compute, allreduce)
    assert str(refused.value) == said


def test_a_stack_at_its_bounds_and_a_workload_of_one_are_real():
    assert serving_speed.Stack("ideal", D(1), D(1), D(0)).compute_efficiency == D(1)
    assert Workload(1, 1, 1).mean_context == D("1.5")
    for fields in [(0, 1, 1), (1, 0, 1), (1, 1, 0)]:
        with pytest.raises(serving_speed.ServingSpeedError) as refused:
            Workload(*fields)
        assert str(refused.value) == "prompt, output and concurrency must each be at least 1"


@pytest.mark.parametrize("target_ms", ["20", "25", "40", "80"])
def test_users_within_is_the_most_a_scan_finds(target_ms):
    """The bisection against a plain scan, users 1 to 200, for several targets and caps."""
    model = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, CARDS["h200"])
    work, target = Workload(1000, 500), D(target_ms) / 1000
    within = [n for n in range(1, 201) if model.speed(Workload(1000, 500, n)).itl_s <= target]
    for most in (1, 2, 3, 7, 64, 200):
        expected = max((n for n in within if n <= most), default=0)
        assert serving_speed.users_within(model, work, target, most=most) == expected
    assert serving_speed.users_within(model, work, target, most=0) == 0


def test_users_within_counts_a_step_exactly_at_the_target_and_one_user_alone():
    model = Engine(MODELS["llama-3.1-70b"], LLAMA_70B_FP8_TP2, CARDS["h200"])
    work = Workload(1000, 500)
    step = {n: model.speed(Workload(1000, 500, n)).itl_s for n in (1, 2, 10)}
    assert serving_speed.users_within(model, work, step[10], most=200) == 10  # "or faster"
    between = (step[1] + step[2]) / 2  # one user meets it, two do not
    assert serving_speed.users_within(model, work, between, most=200) == 1


def test_a_million_tokens_is_rounded_half_up_to_the_cent():
    # $0.45 an hour over 1,000 tokens a second: exactly $0.125 a million.
    assert serving_speed.usd_per_million_tokens(D("0.45"), D(1000)) == D("0.13")


def test_the_first_token_keeps_its_own_range():
    assert serving_speed.serving_bands(CARDS["h100"]).ttft == serving_speed.TTFT_BAND
    assert (
        serving_speed.serving_bands(CARDS["a100"]).ttft.high
        == (1 + D("0.104")) * (1 + D("0.250")) - 1
    )
