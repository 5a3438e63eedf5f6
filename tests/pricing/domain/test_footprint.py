"""What a run needs besides its GPUs: download, disk, host memory (pricing.domain.footprint)."""

from decimal import Decimal

import pytest

from pricing.domain import footprint as fp
from pricing.domain import measurements
from pricing.domain.training_memory import TRL, Method, TrainingSetup

ARCHITECTURES = measurements.ARCHITECTURES
GB = Decimal(10) ** 9


def footprint(model: str, method: Method, gpus: int = 1, **options) -> fp.Footprint:
    setup = TrainingSetup(method, 2048, num_gpus=gpus, recipe=TRL, **options)
    return fp.run_footprint(ARCHITECTURES[model], setup)


@pytest.mark.parametrize(
    ("model", "published_bytes"),
    [
        # "total_size" of each repository's model.safetensors.index.json (bf16 weights)
        ("llama-3.1-8b", 16_060_522_496),
        ("llama-3.1-70b", 141_107_412_992),
    ],
)
def test_the_download_is_the_repositorys_bf16_weights(model, published_bytes):
    assert footprint(model, Method.LORA).download_gb == Decimal(published_bytes) / GB


@pytest.mark.parametrize(
    ("model", "minutes"),
    [
        ("llama-3.1-8b", 1),  # 16.1 GB at 0.5 GB/s: 32.1 s, a minute begun
        ("llama-3.1-70b", 5),  # 141.1 GB: 282.2 s
        ("llama-3.1-405b", 28),  # 811.7 GB: 1,623.4 s, 27.1 minutes
    ],
)
def test_the_download_takes_at_least_its_size_at_python_downloads_ceiling(model, minutes):
    assert fp.DOWNLOAD_GB_PER_S == Decimal("0.5")
    assert footprint(model, Method.QLORA).download_minutes == minutes


@pytest.mark.parametrize(
    ("download_gb", "minutes"),
    [
        ("30", 1),  # 60 s: exactly a minute
        ("30.000000001", 2),  # a byte more, 60.000000002 s, begins a second minute
        ("60", 2),
        ("0.000000001", 1),  # a byte
    ],
)
def test_the_downloads_minutes_are_sixty_seconds_each_rounded_up(download_gb, minutes):
    run = fp.Footprint(Decimal(download_gb), Decimal(0), 2, Decimal(0), Decimal(0))
    assert run.download_minutes == minutes


@pytest.mark.parametrize(
    ("method", "bytes_per_parameter"),
    [
        (Method.FULL_ADAMW, "12"),  # fp32 weights and AdamW's two fp32 states
        (Method.FULL_8BIT_ADAM, "6.03125"),  # fp32 weights, two bytes and a scale per 256
    ],
)
def test_a_full_fine_tuning_checkpoint_holds_the_fp32_weights_and_the_optimizer(
    method, bytes_per_parameter
):
    """70B with AdamW: 12 x 70,553,706,496 bytes, 846.6 GB a checkpoint, sharded or not; two
    kept, the download and the fp32 result: 2,116.6 GB of disk."""
    params = ARCHITECTURES["llama-3.1-70b"].params
    for gpus in (1, 8):
        run = footprint("llama-3.1-70b", method, gpus)
        assert run.checkpoint_gb == Decimal(bytes_per_parameter) * params / GB
        assert run.result_gb == Decimal(4 * params) / GB
        assert run.checkpoints_kept == 2
        assert run.disk_gb == run.download_gb + 2 * run.checkpoint_gb + run.result_gb
    assert round(footprint("llama-3.1-70b", Method.FULL_ADAMW).disk_gb, 1) == Decimal("2116.6")


def test_an_adapter_checkpoint_holds_the_adapters_and_their_states():
    """LoRA keeps fp32 adapters (4 bytes) with fp32 states (8); trl's QLoRA bf16 ones (2 + 4)."""
    seventy_b = ARCHITECTURES["llama-3.1-70b"]
    adapters = seventy_b.lora_params(16)
    lora, qlora = footprint("llama-3.1-70b", Method.LORA), footprint("llama-3.1-70b", Method.QLORA)
    assert (lora.checkpoint_gb, lora.result_gb) == (12 * adapters / GB, 4 * adapters / GB)
    assert (qlora.checkpoint_gb, qlora.result_gb) == (6 * adapters / GB, 2 * adapters / GB)


@pytest.mark.parametrize(
    ("method", "gpus", "bytes_per_parameter"),
    [
        (Method.QLORA, 1, 0),  # a 4-bit model loads straight onto its one GPU
        (Method.QLORA, 8, 2),  # FSDP's first process loads the bf16 model
        (Method.LORA, 1, 2),  # loaded in bf16 on the host, then moved
        (Method.LORA, 2, 2),
        (Method.FULL_ADAMW, 1, 4),  # loaded in fp32 (fp32 masters on one GPU)
        (Method.FULL_ADAMW, 8, 2),  # bf16 on the first process; FSDP2 upcasts the shards
    ],
)
def test_the_host_holds_the_model_as_loaded_once(method, gpus, bytes_per_parameter):
    params = ARCHITECTURES["llama-3.1-70b"].params
    host = footprint("llama-3.1-70b", method, gpus).host_gb
    assert host == Decimal(bytes_per_parameter * params) / GB


def test_under_cpu_offload_the_host_holds_what_offload_keeps_there():
    run = footprint("llama-3.1-70b", Method.FULL_ADAMW, 8, cpu_offload=True)
    assert run.host_gb == Decimal(16 * ARCHITECTURES["llama-3.1-70b"].params) / GB
