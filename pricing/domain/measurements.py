"""The fine-tuning steps measured on an H200 (``content/measured/``) as the estimate's inputs.

The measured models are the published Llama configurations ``measure_memory.py`` builds; its
recipe names map onto the estimate's methods. Read by the estimate's tests and by
``scripts/memory_check.py``; plain Python, no database.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from pricing.domain.throughput import GpuSpeed, TimedRun
from pricing.domain.training_memory import (
    MEASURED,
    Architecture,
    Method,
    PeakMemory,
    TrainingSetup,
    estimate_peak_memory,
)

MEASURED_DIR = Path(__file__).resolve().parents[2] / "content" / "measured"
PEAK_MEMORY = MEASURED_DIR / "h200-peak-memory.jsonl"
THROUGHPUT = MEASURED_DIR / "h200-throughput.jsonl"

ARCHITECTURES = {
    "llama-3.1-70b": Architecture(8192, 80, 64, 8, 28672, 128256, tie_word_embeddings=False),
    "llama-3.1-8b": Architecture(4096, 32, 32, 8, 14336, 128256, tie_word_embeddings=False),
    "llama-3.2-3b": Architecture(3072, 28, 24, 8, 8192, 128256, tie_word_embeddings=True),
    "llama-3.2-1b": Architecture(2048, 16, 32, 8, 8192, 128256, tie_word_embeddings=True),
}
RECIPES = {
    "qlora": Method.QLORA,
    "lora": Method.LORA,
    "full": Method.FULL_ADAMW,
    "full8bit": Method.FULL_8BIT_ADAM,
}


def read_points(path: Path) -> list[dict]:
    """The measured configurations of a file (its first line, the environment, left out)."""
    lines = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return [point for point in lines if "method" in point and not point.get("skipped")]


def setup_of(point: dict) -> TrainingSetup:
    """The run one measured point describes (as the measured recipe ran it)."""
    return TrainingSetup(
        RECIPES[point["method"]],
        seq_len=point["seq"],
        batch_size=point["batch"],
        gradient_checkpointing=point["checkpointing"],
        lora_rank=point["lora_rank"] or 16,
        recipe=MEASURED,
    )


def estimate_for(point: dict) -> PeakMemory:
    """The estimate for one measured configuration."""
    return estimate_peak_memory(ARCHITECTURES[point["model"]], setup_of(point))


# The card the steps were timed on: NVIDIA's H200 SXM datasheet figures (dense BF16, HBM3e
# bandwidth, NVLink 4 in one direction), as content/reference.json records them.
H200 = GpuSpeed(Decimal("989.5"), Decimal(4800), Decimal(450))


def timed_runs(path: Path = THROUGHPUT) -> list[TimedRun]:
    """The steps timed on one H200, as the throughput model's calibration takes them."""
    return [
        TimedRun(
            name=f"{point['method']} {point['model']} {point['seq']}×{point['batch']}"
            f"{' ckpt' if point['checkpointing'] else ''}",
            architecture=ARCHITECTURES[point["model"]],
            setup=setup_of(point),
            gpu=H200,
            tokens_per_s=Decimal(str(point["tokens_per_s"])),
        )
        for point in read_points(path)
        if point["ok"]
    ]
