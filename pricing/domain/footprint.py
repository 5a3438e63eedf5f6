"""What the published command's run needs besides its GPUs: the model's download, disk for its
checkpoints and its result, and the host's memory (``run_footprint``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from pricing.domain import training_memory as tm
from pricing.domain.trl_commands import SAVE_TOTAL_LIMIT, load_dtype

# bf16 safetensors, exactly twice the parameters (tests/pricing/domain/test_footprint.py).
PUBLISHED_BYTES_PER_PARAMETER = 2
# huggingface_hub's downloader tops out near 500 MB/s (hf_transfer's README).
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
        return self.download_gb + self.checkpoint_gb * self.checkpoints_kept + self.result_gb

    @property
    def download_minutes(self) -> Decimal:
        """The least the download takes, in whole minutes rounded up."""
        seconds = self.download_gb / DOWNLOAD_GB_PER_S
        return (seconds / SECONDS_PER_MINUTE).to_integral_value(ROUND_CEILING)


def run_footprint(arch: tm.Architecture, setup: tm.TrainingSetup) -> Footprint:
    """A checkpoint holds the trained weights as stored and the optimizer's states; the
    result, the trained weights."""
    trained = tm.trained_state(arch, setup)
    return Footprint(
        download_gb=Decimal(PUBLISHED_BYTES_PER_PARAMETER * arch.params) / tm.GB,
        checkpoint_gb=(trained.weights_bytes + trained.optimizer_bytes) / tm.GB,
        checkpoints_kept=int(SAVE_TOTAL_LIMIT),
        result_gb=trained.weights_bytes / tm.GB,
        host_gb=host_memory(arch, setup),
    )


def host_memory(arch: tm.Architecture, setup: tm.TrainingSetup) -> Decimal:
    """The host memory the run takes at its largest: what CPU offload keeps there, else the
    model as loaded, once (FSDP2 loads on the first process only); a 4-bit model on one GPU
    loads straight onto it."""
    if setup.cpu_offload:
        return tm.estimate_peak_memory(arch, setup).host_gb
    if setup.method is tm.Method.QLORA and not setup.sharded:
        return Decimal(0)
    return Decimal(BYTES_PER_VALUE[load_dtype(setup)] * arch.params) / tm.GB
