"""The peak-memory estimate against measured runs, pinned terms and its properties."""

import json
import os
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.training_memory import (
    Architecture,
    EstimateError,
    Method,
    TrainingSetup,
    estimate_peak_memory,
)

ROOT = Path(__file__).resolve().parents[2]
MEASURED_DIR = ROOT / "content" / "measured"
SHARED_DIR = ROOT.parent / "shared" / "reference" / "measured"
MEASURED = MEASURED_DIR / "h200-peak-memory.jsonl"
# Timed runs of other configurations: no peak recorded, but each of them fitted on the card.
TIMED = MEASURED_DIR / "h200-throughput.jsonl"
# What PyTorch could allocate on the measuring H200 (its README: 150.1 GB = 139.8 GiB).
H200_USABLE_GB = Decimal("150.1")
TOLERANCE = Decimal("0.10")

# The published configurations the measurements were built from (measure_memory.py's SIZES).
ARCHITECTURES = {
    "llama-3.1-70b": Architecture(8192, 80, 64, 8, 28672, 128256, tie_word_embeddings=False),
    "llama-3.1-8b": Architecture(4096, 32, 32, 8, 14336, 128256, tie_word_embeddings=False),
    "llama-3.2-3b": Architecture(3072, 28, 24, 8, 8192, 128256, tie_word_embeddings=True),
    "llama-3.2-1b": Architecture(2048, 16, 32, 8, 8192, 128256, tie_word_embeddings=True),
}
LLAMA_405B = Architecture(16384, 126, 128, 8, 53248, 128256)
RECIPES = {
    "qlora": Method.QLORA,
    "lora": Method.LORA,
    "full": Method.FULL_ADAMW,
    "full8bit": Method.FULL_8BIT_ADAM,
}


def _read_points(path: Path) -> list[dict]:
    lines = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return [point for point in lines if "method" in point]


def _point_id(point: dict) -> str:
    rank = f"-r{point['lora_rank']}" if point["lora_rank"] else ""
    checkpointing = "ckpt" if point["checkpointing"] else "nockpt"
    return (
        f"{point['method']}-{point['model']}-{point['seq']}x{point['batch']}-{checkpointing}{rank}"
    )


def _estimate(point: dict):
    setup = TrainingSetup(
        RECIPES[point["method"]],
        seq_len=point["seq"],
        batch_size=point["batch"],
        gradient_checkpointing=point["checkpointing"],
        lora_rank=point["lora_rank"] or 16,
    )
    return estimate_peak_memory(ARCHITECTURES[point["model"]], setup)


POINTS = _read_points(MEASURED)
TIMED_POINTS = _read_points(TIMED)


@pytest.mark.parametrize("name", [MEASURED.name, TIMED.name])
def test_the_copy_of_the_measurements_matches_the_shared_reference(name):
    if not SHARED_DIR.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI needs {SHARED_DIR} to check content/measured against it")
        pytest.skip(f"{SHARED_DIR} is not on this machine")
    assert (MEASURED_DIR / name).read_bytes() == (SHARED_DIR / name).read_bytes()
    assert (len(POINTS), len(TIMED_POINTS)) == (27, 9)


@pytest.mark.parametrize(
    "point", [p for p in POINTS if p["ok"]], ids=[_point_id(p) for p in POINTS if p["ok"]]
)
def test_every_measured_peak_is_estimated_within_ten_percent(point):
    measured = Decimal(str(point["peak_gb"]))
    estimate = _estimate(point).peak_gb
    assert abs(estimate - measured) <= TOLERANCE * measured, (estimate, measured)


@pytest.mark.parametrize(
    "point", [p for p in POINTS if not p["ok"]], ids=[_point_id(p) for p in POINTS if not p["ok"]]
)
def test_a_step_that_ran_out_of_memory_is_estimated_above_the_card(point):
    assert point["error"] == "OOM"
    assert _estimate(point).peak_gb > H200_USABLE_GB


@pytest.mark.parametrize("point", TIMED_POINTS, ids=[_point_id(p) for p in TIMED_POINTS])
def test_every_timed_configuration_is_estimated_to_fit_the_card_it_ran_on(point):
    assert point["ok"]
    assert _estimate(point).peak_gb <= H200_USABLE_GB


def test_the_static_memory_of_every_measured_model_matches_within_half_a_percent():
    """Weights, adapters and workspace alone, against what was allocated before the first step
    of each later configuration (the first one ran before cuBLAS allocated its workspace)."""
    for point in POINTS[1:]:
        estimate = _estimate(point)
        weights = estimate.weights_gb
        if RECIPES[point["method"]] in (Method.FULL_ADAMW, Method.FULL_8BIT_ADAM):
            # before the first step there are only the fp32 weights, no bf16 copies
            weights = Decimal(4 * ARCHITECTURES[point["model"]].params) / 10**9
        static = weights + estimate.adapters_gb + estimate.workspace_gb
        measured = Decimal(str(point["static_gb"]))
        assert abs(static - measured) <= Decimal("0.005") * measured, (_point_id(point), static)


# --- Parameter counts: the published figures ------------------------------------------------


@pytest.mark.parametrize(
    ("architecture", "params"),
    [
        (ARCHITECTURES["llama-3.1-8b"], 8_030_261_248),
        (ARCHITECTURES["llama-3.1-70b"], 70_553_706_496),
        (LLAMA_405B, 405_853_388_800),
        # measure_memory.py's count for the tied 1B and 3B models
        (ARCHITECTURES["llama-3.2-1b"], 1_235_814_400),
        (ARCHITECTURES["llama-3.2-3b"], 3_212_749_824),
    ],
)
def test_parameter_counts_are_the_published_ones(architecture, params):
    assert architecture.params == params


@pytest.mark.parametrize(
    ("model", "rank", "trainable"),
    [
        ("llama-3.1-8b", 8, 20_971_520),
        ("llama-3.1-8b", 16, 41_943_040),
        ("llama-3.1-8b", 64, 167_772_160),
        ("llama-3.1-8b", 256, 671_088_640),
        ("llama-3.1-70b", 16, 207_093_760),
    ],
)
def test_lora_parameter_counts_are_peft_counts(model, rank, trainable):
    assert ARCHITECTURES[model].lora_params(rank) == trainable


# --- Pinned terms: the 70B guide's assumptions (2,048 tokens, batch 1, checkpointing, rank 16)


def _seventy_b(method: Method, **options):
    return estimate_peak_memory(
        ARCHITECTURES["llama-3.1-70b"], TrainingSetup(method, seq_len=2048, **options)
    )


def test_qlora_on_70b_at_the_guides_assumptions_term_by_term():
    estimate = _seventy_b(Method.QLORA)
    assert estimate.breakdown() == {
        "weights": Decimal("43.722440704"),
        "adapters": Decimal("0.82837504"),
        "gradients": Decimal("0.010354688"),
        "optimizer_states": Decimal("1.65675008"),
        "activations": Decimal("11.229069312"),
        "logits_and_loss": Decimal("0"),
        "workspace": Decimal("0.067108864"),
    }
    assert estimate.peak_gb == Decimal("57.514098688")
    assert estimate.moment == "backward pass through a layer"


def test_lora_on_70b_peaks_at_the_loss_over_the_vocabulary():
    estimate = _seventy_b(Method.LORA)
    assert estimate.moment == "start of the backward pass"
    # 2,048 tokens x 128,256 logits x 12 bytes (log-softmax output, its gradient, theirs)
    assert estimate.logits_and_loss_gb == Decimal("3.152019456")
    assert estimate.weights_gb == Decimal("141.107412992")  # bf16: 2 bytes x 70.55 B
    assert estimate.activations_gb == Decimal("2.751463424")
    assert estimate.peak_gb == Decimal("149.563129856")


def test_full_fine_tuning_peaks_with_every_gradient():
    adamw = _seventy_b(Method.FULL_ADAMW)
    assert adamw.moment == "end of the backward pass"
    # 4 + 4 + 8 = 16 bytes per parameter, the EleutherAI rule's 1,129 GB for 70.55 B
    assert adamw.weights_gb == adamw.gradients_gb == Decimal("282.214825984")
    assert adamw.optimizer_states_gb == Decimal("564.429651968")
    assert adamw.peak_gb == Decimal("1128.9264128")
    eight_bit = _seventy_b(Method.FULL_8BIT_ADAM)
    assert eight_bit.optimizer_states_gb == Decimal("143.31221632")  # 2.03125 bytes a parameter
    assert eight_bit.peak_gb == Decimal("707.808977152")


def test_sharding_over_eight_gpus_divides_all_but_one_gathered_layer():
    estimate = _seventy_b(Method.FULL_ADAMW, num_gpus=8)
    assert estimate.optimizer_states_gb == Decimal("70.553706496")  # exactly an eighth
    # an eighth of the weights plus seven eighths of the largest unit gathered at once, the
    # output layer's 1,051 M fp32 parameters (a decoder layer has 856 M)
    assert estimate.weights_gb == Decimal("38.95420928")
    assert estimate.peak_gb == Decimal("148.52923392")


def test_without_checkpointing_the_fp32_attention_scores_of_every_layer_are_kept():
    estimate = estimate_peak_memory(
        ARCHITECTURES["llama-3.1-70b"],
        TrainingSetup(Method.QLORA, seq_len=512, gradient_checkpointing=False),
    )
    # per layer and token: 32 x 8,192 + 16 x 28,672 + 7 adapters x 4 x rank 16 = 721,344
    # bytes, plus 64 heads x 512^2 fp32 scores; then the final norm's input
    per_layer = 512 * 721_344 + 64 * 512**2 * 4
    assert estimate.activations_gb == Decimal(80 * per_layer + 512 * 4 * 8192) / 10**9


def test_the_assumptions_say_what_was_assumed():
    estimate = _seventy_b(Method.QLORA, num_gpus=2)
    text = " ".join(estimate.assumptions)
    for phrase in ("NF4", "rank 16", "score matrix", "checkpointing", "over 2 GPUs", "Peak at"):
        assert phrase in text


# --- Properties ------------------------------------------------------------------------------

architectures = st.builds(
    lambda heads, kv_divisor, head_dim, layers, width, vocab, tied: Architecture(
        hidden_size=heads * head_dim,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads // kv_divisor,
        intermediate_size=width,
        vocab_size=vocab,
        tie_word_embeddings=tied,
    ),
    heads=st.sampled_from([4, 8, 16, 32, 64, 128]),
    kv_divisor=st.sampled_from([1, 2, 4]),
    head_dim=st.sampled_from([32, 64, 128]),
    # one-layer models are left out: with one layer, checkpointing keeps the layer's input as
    # well as what the layer itself keeps, so it can cost more than no checkpointing
    layers=st.integers(2, 160),
    width=st.integers(64, 65536),
    vocab=st.integers(1000, 262144),
    tied=st.booleans(),
)
setups = st.builds(
    TrainingSetup,
    method=st.sampled_from(list(Method)),
    seq_len=st.integers(1, 32768),
    batch_size=st.integers(1, 16),
    gradient_checkpointing=st.booleans(),
    lora_rank=st.integers(1, 512),
    num_gpus=st.integers(1, 64),
)
# 60 examples each keeps the properties near a second in all (the suite's budget is tight);
# 3,000 each passed when the estimate was written.
MONOTONE = settings(max_examples=60, deadline=None)


def _peak(architecture, setup, **change):
    fields = {name: getattr(setup, name) for name in setup.__dataclass_fields__} | change
    return estimate_peak_memory(architecture, TrainingSetup(**fields)).peak_gb


@MONOTONE
@given(architectures, setups, st.integers(1, 4096))
def test_more_tokens_never_lower_the_peak(architecture, setup, more):
    assert _peak(architecture, setup, seq_len=setup.seq_len + more) >= _peak(architecture, setup)


@MONOTONE
@given(architectures, setups, st.integers(1, 8))
def test_a_larger_batch_never_lowers_the_peak(architecture, setup, more):
    assert _peak(architecture, setup, batch_size=setup.batch_size + more) >= _peak(
        architecture, setup
    )


@MONOTONE
@given(architectures, setups)
def test_no_checkpointing_never_lowers_the_peak(architecture, setup):
    assert _peak(architecture, setup, gradient_checkpointing=False) >= _peak(
        architecture, setup, gradient_checkpointing=True
    )


@MONOTONE
@given(architectures, setups, st.integers(1, 256))
def test_a_higher_rank_never_lowers_the_peak(architecture, setup, more):
    assert _peak(architecture, setup, lora_rank=setup.lora_rank + more) >= _peak(
        architecture, setup
    )


@MONOTONE
@given(architectures, setups, st.integers(1, 64))
def test_more_gpus_with_sharding_never_raise_the_per_gpu_peak(architecture, setup, more):
    assert _peak(architecture, setup, num_gpus=setup.num_gpus + more) <= _peak(architecture, setup)


@MONOTONE
@given(architectures, setups)
def test_the_breakdown_adds_up_to_the_peak_and_no_term_is_negative(architecture, setup):
    estimate = estimate_peak_memory(architecture, setup)
    assert sum(estimate.breakdown().values()) == estimate.peak_gb
    assert all(value >= 0 for value in estimate.breakdown().values())


# --- Inputs that describe nothing real ------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"hidden_size": 0}, "hidden_size must be at least 1"),
        ({"num_hidden_layers": 0}, "num_hidden_layers must be at least 1"),
        ({"num_attention_heads": 0}, "num_attention_heads must be at least 1"),
        ({"num_key_value_heads": 0}, "num_key_value_heads must be at least 1"),
        ({"intermediate_size": 0}, "intermediate_size must be at least 1"),
        ({"vocab_size": 0}, "vocab_size must be at least 1"),
        ({"hidden_size": 8190}, "hidden_size must be a multiple of num_attention_heads"),
        ({"num_key_value_heads": 7}, "num_attention_heads must be a multiple of"),
    ],
)
def test_an_impossible_architecture_is_refused(fields, message):
    shape = {
        "hidden_size": 8192,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "intermediate_size": 28672,
        "vocab_size": 128256,
    } | fields
    with pytest.raises(EstimateError, match=message):
        Architecture(**shape)


@pytest.mark.parametrize("name", ["seq_len", "batch_size", "lora_rank", "num_gpus"])
def test_an_impossible_run_is_refused(name):
    fields = {"method": Method.QLORA, "seq_len": 2048} | {name: 0}
    with pytest.raises(EstimateError, match=f"{name} must be at least 1"):
        TrainingSetup(**fields)
