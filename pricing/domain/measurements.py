"""The fine-tuning steps measured on an H200 and the public runs (``content/measured/``) as the
models' inputs, for their tests and ``scripts/``."""

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
    "llama-2-70b": Architecture(8192, 80, 64, 8, 28672, 32000, tie_word_embeddings=False),
    "llama-2-7b": Architecture(4096, 32, 32, 32, 11008, 32000, tie_word_embeddings=False),
    "llama-3.1-405b": Architecture(16384, 126, 128, 8, 53248, 128256, tie_word_embeddings=False),
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
    """The measured configurations of a file (not its environment line)."""
    lines = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return [point for point in lines if "method" in point and not point.get("skipped")]


def setup_of(point: dict) -> TrainingSetup:
    return TrainingSetup(
        RECIPES[point["method"]],
        seq_len=point["seq"],
        batch_size=point["batch"],
        gradient_checkpointing=point["checkpointing"],
        lora_rank=point["lora_rank"] or 16,
        recipe=MEASURED,
    )


def estimate_for(point: dict) -> PeakMemory:
    return estimate_peak_memory(ARCHITECTURES[point["model"]], setup_of(point))


REFERENCE = MEASURED_DIR.parent / "reference.json"
PUBLIC_THROUGHPUT = MEASURED_DIR / "public-throughput.jsonl"
# The card our steps were timed on: the throughput model's calibration card.
CALIBRATION_CARD = "h200"


def gpu_speeds(path: Path = REFERENCE) -> dict[str, GpuSpeed]:
    """GPU slug -> its speed as the seed data records it."""
    rows = json.loads(path.read_text())
    return {
        row["fields"]["slug"]: GpuSpeed(
            Decimal(row["fields"]["bf16_dense_tflops"]),
            Decimal(row["fields"]["bandwidth_gb_s"]),
            Decimal(row["fields"]["link_gb_s"]),
            row["fields"]["generation"],
            calibration_card=row["fields"]["slug"] == CALIBRATION_CARD,
        )
        for row in rows
        if row["model"] == "pricing.gpu"
    }


H200 = gpu_speeds()[CALIBRATION_CARD]


def timed_runs(path: Path = THROUGHPUT) -> list[TimedRun]:
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


def public_runs(path: Path = PUBLIC_THROUGHPUT) -> list[TimedRun]:
    """The public runs of other stacks (MLPerf, NeMo, torchtune) the generations are fitted to."""
    speeds = gpu_speeds()
    return [
        TimedRun(
            name=point["name"],
            source=point["source"],
            stack=point["stack"],
            architecture=ARCHITECTURES[point["model"]],
            setup=TrainingSetup(
                RECIPES[point["method"]],
                seq_len=point["seq"],
                batch_size=point["batch"],
                gradient_checkpointing=point["checkpointing"],
                num_gpus=point["gpus"],
            ),
            gpu=speeds[point["gpu"]],
            tokens_per_s=Decimal(str(point["tokens_per_s"])),
        )
        for point in read_points(path)
    ]
