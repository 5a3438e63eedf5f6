"""The peak-memory estimate against every measured point, as the Markdown table in docs/planner.md.

    .venv/bin/python scripts/memory_check.py            # the table, then median and largest error
    .venv/bin/python scripts/memory_check.py FILE.jsonl # other measurements, same format

Reads ``content/measured/h200-peak-memory.jsonl`` (lines written by
``../shared/reference/measured/measure_memory.py``); the models are the published Llama
configurations that script builds. Needs no database.
"""

from __future__ import annotations

import statistics
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricing.domain.measurements import PEAK_MEMORY, estimate_for, read_points  # noqa: E402


def main(path: Path) -> None:
    errors = []
    print(
        "| method | model | tokens × batch | checkpointing | rank | measured GB | "
        "estimate GB | error | peak at |"
    )
    print("|---|---|---|---|---|---:|---:|---:|---|")
    for point in read_points(path):
        estimate = estimate_for(point)
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
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PEAK_MEMORY)
