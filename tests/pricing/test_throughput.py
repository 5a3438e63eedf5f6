"""The throughput model: FLOPs and bytes per step, step time per GPU, the calibration on the
runs timed on one H200, and its error on each run left out (docs/planner.md quotes them)."""

from decimal import Decimal as D

import pytest

from pricing.domain import measurements
from pricing.domain import throughput as tp
from pricing.domain.training_memory import MEASURED, Architecture, Method, TrainingSetup

# h=64, 2 layers, 4 heads of 16, 2 KV heads, MLP 128, vocabulary 1,000. One layer's
# projections: q and o 64x64, k and v 64x32, gate, up and down 64x128 = 36,864; two layers
# 73,728. The output layer: 64,000.
TINY = Architecture(64, 2, 4, 2, 128, 1000)
SPEED = tp.GpuSpeed(D(100), D(1000), D(10))


def test_lora_step_counts_three_passes_over_the_frozen_weights_with_checkpointing():
    work = tp.step_work(TINY, TrainingSetup(Method.LORA, seq_len=8, batch_size=2))
    # 16 tokens x 2 FLOPs x (73,728 x 3 passes + 64,000 x 2) + attention under FlashAttention:
    # 4 x 8 x 64 x 2 layers x 16 tokens x 4 passes / 2 (causal) = 131,072.
    assert work.tokens == 16
    assert work.bf16_flops == 2 * 16 * (73_728 * 3 + 64_000 * 2) + 131_072 == 11_304_960
    assert work.fp32_flops == 0
    # bf16 weights read per pass: 2 bytes x (73,728 x 3 + 64,000 x 2)
    assert work.memory_bytes == 2 * (73_728 * 3 + 64_000 * 2) == 698_368
    assert work.link_bytes == 0  # one GPU


def test_full_fine_tuning_adds_the_weight_gradients_and_the_optimizer_traffic():
    setup = TrainingSetup(Method.FULL_ADAMW, seq_len=8, batch_size=2, gradient_checkpointing=False)
    work = tp.step_work(TINY, setup)
    # 3 passes without recompute over both; attention 65,536 x 3 / 2
    assert work.bf16_flops == 2 * 16 * (73_728 * 3 + 64_000 * 3) + 98_304 == 13_320_192
    # fp32 master weights: 8 bytes a pass; the output layer 2; AdamW 32 bytes a parameter
    assert work.memory_bytes == 8 * 73_728 * 3 + 2 * 64_000 * 3 + 32 * TINY.params == 8_619_008


def test_qlora_as_measured_runs_its_output_layer_and_attention_in_fp32_and_gathers_nf4():
    setup = TrainingSetup(Method.QLORA, seq_len=8, batch_size=2, recipe=MEASURED, num_gpus=4)
    work = tp.step_work(TINY, setup)
    assert work.bf16_flops == 2 * 16 * 73_728 * 3 == 7_077_888
    # output layer 2 passes + attention on the math kernel (no causal halving), 4 passes
    assert work.fp32_flops == 2 * 16 * 64_000 * 2 + 65_536 * 4 == 4_358_144
    # three gathers of the NF4 weights, 3/4 from the others, plus the fp32 adapter gradients
    nf4 = tp.NF4_BYTES_PER_PARAM * TINY.params
    assert work.link_bytes == D(3) / 4 * (3 * nf4 + 4 * TINY.lora_params(16))


def test_step_time_sums_compute_fp32_memory_and_link():
    work = tp.StepWork(16, D(1650), D(330), D(2000), D(50))
    time = tp.step_time(work, SPEED, tp.Calibration(D("0.5"), D(3)))
    # 1,650 / (100e12 x 0.5); 330 x 3 / 50e12; 2,000 / 1e12; 50 / 10e9
    assert time.compute_s == D("3.3E-11")
    assert time.fp32_s == D("1.98E-11")
    assert time.memory_s == D("2E-9")
    assert time.link_s == D("5E-9")
    assert time.total_s == D("7.0528E-9")


def test_a_pcie_link_makes_sharding_slower_than_nvlink():
    arch = measurements.ARCHITECTURES["llama-3.1-70b"]
    setup = TrainingSetup(Method.QLORA, seq_len=2048, num_gpus=4)
    nvlink = tp.GpuSpeed(D(362), D(864), D(450))
    pcie = tp.GpuSpeed(D(362), D(864), D(32))
    fast, slow = (tp.tokens_per_second(arch, setup, g) for g in (nvlink, pcie))
    assert slow < fast
    one = tp.tokens_per_second(arch, TrainingSetup(Method.QLORA, seq_len=2048), pcie)
    assert slow < 4 * one  # four PCIe cards do not scale linearly


def test_the_calibration_is_the_fit_to_the_timed_runs():
    assert (
        tp.calibrate(measurements.timed_runs())
        == tp.CALIBRATION
        == tp.Calibration(D("0.332"), D("9.8"))
    )


# Each run timed on the H200: the model's tokens per second calibrated on all nine and with the
# run left out, in percent (docs/planner.md, "Run time").
ERRORS = {
    "qlora llama-3.1-70b 2048×1 ckpt": ("-6.8", "-8.3"),
    "qlora llama-3.1-70b 4096×1 ckpt": ("-1.6", "-2.2"),
    "qlora llama-3.1-8b 2048×4 ckpt": ("6.6", "12.4"),
    "lora llama-3.1-8b 2048×4 ckpt": ("8.4", "10.3"),
    "lora llama-3.1-8b 2048×4": ("12.3", "15.0"),
    "full8bit llama-3.1-8b 2048×1 ckpt": ("19.6", "22.0"),
    "full llama-3.2-3b 2048×4 ckpt": ("-21.4", "-27.7"),
    "full llama-3.2-1b 2048×4": ("-11.5", "-14.2"),
    "lora llama-3.1-70b 512×1 ckpt": ("64.3", "70.8"),
}


def test_the_models_error_on_each_timed_run_with_it_in_and_left_out():
    found = {
        e.run.name: (
            str((e.fitted_error * 100).quantize(D("0.1"))),
            str((e.left_out_error * 100).quantize(D("0.1"))),
        )
        for e in tp.model_errors(measurements.timed_runs())
    }
    assert found == ERRORS


def test_the_measured_70b_qlora_run_and_the_model_beside_it():
    run = measurements.timed_runs()[0]
    assert run.tokens_per_s == D("508.2")
    derived = tp.tokens_per_second(run.architecture, run.setup, run.gpu)
    assert derived.quantize(D("0.1")) == D("473.7")


def test_calibration_needs_runs_with_and_without_fp32_work():
    adapters_only = [r for r in measurements.timed_runs() if r.setup.method is Method.LORA]
    with pytest.raises(tp.ThroughputError):
        tp.calibrate(adapters_only)


@pytest.mark.parametrize(
    "speed",
    [(0, 1, 1), (1, 0, 1), (1, 1, 0)],
)
def test_a_gpu_without_compute_bandwidth_or_link_is_refused(speed):
    with pytest.raises(tp.ThroughputError):
        tp.GpuSpeed(*(D(v) for v in speed))


def test_hours_for_a_budget():
    assert tp.hours_for(3_600_000, D(1000)) == 1
    with pytest.raises(tp.ThroughputError):
        tp.hours_for(0, D(1000))
