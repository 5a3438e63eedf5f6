"""What a run needs besides its GPUs: the model's download, disk for its checkpoints and its
result, and the host's memory (``run_footprint``).

Plain values, like the other domain modules. The figures follow the published command's path
(``trl_commands``): ``trl sft`` downloads the repository's weights, loads them, saves a
checkpoint every tenth of the run keeping the newest ``checkpoints_kept``, and saves the
trained weights at the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from pricing.domain import training_memory as tm
from pricing.domain.trl_commands import SAVE_TOTAL_LIMIT, load_dtype

GB = Decimal(10) ** 9
# The repositories publish their weights as bf16 safetensors: two bytes a parameter. Llama 3.1
# 70B's model.safetensors.index.json totals 141,107,412,992 bytes, 8B's 16,060,522,496: each
# exactly twice its parameters (tests/pricing/domain/test_footprint.py).
PUBLISHED_BYTES_PER_PARAMETER = 2
# huggingface_hub's Python downloader tops out near 500 MB/s even on a fast link (the README of
# hf_transfer, which exists to go beyond it): a download takes at least its size over this.
DOWNLOAD_GB_PER_S = Decimal("0.5")
SECONDS_PER_MINUTE = 60
BYTES_PER_VALUE = {"bfloat16": 2, "float32": 4}  # of each dtype the command may load in


@dataclass(frozen=True)
class Footprint:
    download_gb: Decimal  # the repository's weights
    checkpoint_gb: Decimal  # one checkpoint: the trained weights as stored, the optimizer states
    checkpoints_kept: int
    result_gb: Decimal  # the trained weights saved at the end: the adapters, or every weight
    host_gb: Decimal  # the host memory the run takes at its largest (``host_memory``)

    @property
    def disk_gb(self) -> Decimal:
        """The download, the checkpoints kept and the result, at once on the disk."""
        return self.download_gb + self.checkpoint_gb * self.checkpoints_kept + self.result_gb

    @property
    def download_minutes(self) -> Decimal:
        """The least the download takes (``DOWNLOAD_GB_PER_S``), in whole minutes rounded up;
        the rented GPUs' meter runs meanwhile."""
        seconds = self.download_gb / DOWNLOAD_GB_PER_S
        return (seconds / SECONDS_PER_MINUTE).to_integral_value(ROUND_CEILING)


def run_footprint(
    arch: tm.Architecture, setup: tm.TrainingSetup, checkpoints_kept: int = int(SAVE_TOTAL_LIMIT)
) -> Footprint:
    """What the published command's run of ``setup`` needs besides its GPUs. A checkpoint
    holds the trained weights as stored and the optimizer's states, whole or as every GPU's
    shard (full fine-tuning: 12 bytes a parameter with AdamW); the result, the trained
    weights."""
    trained = tm.trained_state(arch, setup)
    return Footprint(
        download_gb=Decimal(PUBLISHED_BYTES_PER_PARAMETER * arch.params) / GB,
        checkpoint_gb=(trained.weights_bytes + trained.optimizer_bytes) / GB,
        checkpoints_kept=checkpoints_kept,
        result_gb=trained.weights_bytes / GB,
        host_gb=host_memory(arch, setup),
    )


def host_memory(arch: tm.Architecture, setup: tm.TrainingSetup) -> Decimal:
    """The host memory the run takes at its largest, in GB. Under CPU offload, what offload
    keeps there (``PeakMemory.host_gb``). Otherwise the model as loaded, once: transformers
    loads it into host memory before the trainer moves it to the GPU (in fp32 for full
    fine-tuning on one GPU, ``trl_commands.load_dtype``, else bf16); on several GPUs, TRL's
    FSDP2 profile loads it on the first process only (``fsdp_cpu_ram_efficient_loading``).
    A 4-bit model on one GPU loads straight onto it (TRL places a quantised model there)."""
    if setup.cpu_offload:
        return tm.estimate_peak_memory(arch, setup).host_gb
    if setup.method is tm.Method.QLORA and not setup.sharded:
        return Decimal(0)
    return Decimal(BYTES_PER_VALUE[load_dtype(setup)] * arch.params) / GB
