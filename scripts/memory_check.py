"""The peak-memory estimate against every measured point, as the Markdown table in docs/planner.md.

    .venv/bin/python scripts/memory_check.py            # the table, then median and largest error
    .venv/bin/python scripts/memory_check.py FILE.jsonl # other measurements, same format

Reads ``content/measured/h200-peak-memory.jsonl`` (lines written by
``../shared/reference/measured/measure_memory.py``); the models are the published Llama
configurations that script builds. Needs no database.
"""

from __future__ import annotations

import json
import statistics
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricing.training_memory import (  # noqa: E402 - after the path is set
    Architecture,
    Method,
    TrainingSetup,
    estimate_peak_memory,
)

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


def main(path: Path) -> None:
    errors = []
    print(
        "| method | model | tokens × batch | checkpointing | rank | measured GB | "
        "estimate GB | error | peak at |"
    )
    print("|---|---|---|---|---|---:|---:|---:|---|")
    for line in path.read_text().splitlines():
        point = json.loads(line)
        if "method" not in point or point.get("skipped"):
            continue
        setup = TrainingSetup(
            RECIPES[point["method"]],
            seq_len=point["seq"],
            batch_size=point["batch"],
            gradient_checkpointing=point["checkpointing"],
            lora_rank=point["lora_rank"] or 16,
        )
        estimate = estimate_peak_memory(ARCHITECTURES[point["model"]], setup)
        peak = estimate.peak_gb.quantize(Decimal("0.1"))
        if point["ok"]:
            measured = Decimal(str(point["peak_gb"]))
            error = ((estimate.peak_gb - measured) / measured * 100).quantize(Decimal("0.01"))
            errors.append(abs(error))
            shown, error_text = f"{measured:.1f}", f"{error:+.2f} %" if error else "0.00 %"
        else:
            shown, error_text = point["error"], "above the card" if peak > 150 else "BELOW"
        print(
            f"| {point['method']} | {point['model']} | {point['seq']:,} × {point['batch']} | "
            f"{'on' if point['checkpointing'] else 'off'} | {point['lora_rank'] or '–'} | "
            f"{shown} | {peak} | {error_text} | {estimate.moment} |"
        )
    print()
    print(
        f"{len(errors)} points: median error {statistics.median(errors):.2f} %, "
        f"largest {max(errors):.2f} %"
    )


if __name__ == "__main__":
    main(
        Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "content/measured/h200-peak-memory.jsonl"
    )
