"""The throughput model against every timed run, as the Markdown table in docs/planner.md.

    .venv/bin/python scripts/throughput_check.py            # the calibration, then the table
    .venv/bin/python scripts/throughput_check.py FILE.jsonl # other timings, same format

Reads ``content/measured/h200-throughput.jsonl`` (lines written by
``../shared/reference/measured/measure_memory.py --throughput``): each run's tokens per second
measured, and the model's with every run in the calibration and with that run left out.
Needs no database.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricing.domain.measurements import THROUGHPUT, public_runs, timed_runs  # noqa: E402
from pricing.domain.throughput import (  # noqa: E402
    CALIBRATION,
    UNCERTAINTY,
    calibrate,
    fit_generations,
    fit_scaling,
    model_errors,
    public_run_errors,
    scaling_error,
)

TENTH = Decimal("0.1")


def main(path: Path) -> None:
    runs = timed_runs(path)
    fitted = calibrate(runs)
    print(
        f"Calibrated on {len(runs)} runs: BF16 efficiency {fitted.bf16_efficiency}, "
        f"fp32 slowdown {fitted.fp32_slowdown}, saturation {fitted.saturation_tokens} tokens "
        "per micro-batch"
    )
    print()
    print("| run | measured tokens/s | model | error | model, run left out | error |")
    print("|---|---:|---:|---:|---:|---:|")
    for e in model_errors(runs):
        print(
            f"| {e.run.name} | {e.run.tokens_per_s:,} | "
            f"{e.fitted_tokens_per_s.quantize(TENTH):,} | "
            f"{(e.fitted_error * 100).quantize(TENTH):+} % | "
            f"{e.left_out_tokens_per_s.quantize(TENTH):,} | "
            f"{(e.left_out_error * 100).quantize(TENTH):+} % |"
        )
    print()
    runs = public_runs()
    generations, stacks = fit_generations(runs, CALIBRATION)
    factors = ", ".join(f"{g} {f}" for g, f in generations.generation_factors)
    print(f"Generations (x Hopper's efficiency): {factors}")
    print("Stacks (x the model): " + ", ".join(f"{s} {f:.2f}" for s, f in stacks.items()))
    print(
        f"Scaling: each doubling of the GPUs keeps {fit_scaling(runs, CALIBRATION)} of the "
        f"per-GPU speed; largest error of a measured ratio {scaling_error(runs, CALIBRATION):.3f}"
    )
    print()
    print("| public run | stack | measured tokens/s | model x stack | error | left out | error |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for e in public_run_errors(runs, CALIBRATION):
        left_out = "—" if e.left_out_tokens_per_s is None else f"{e.left_out_tokens_per_s:,.0f}"
        left_error = (
            "— (teaches its generation alone)"
            if e.left_out_error is None
            else f"{(e.left_out_error * 100).quantize(TENTH):+} %"
        )
        print(
            f"| {e.run.name} | {e.run.stack} | {e.run.tokens_per_s:,} | "
            f"{e.fitted_tokens_per_s:,.0f} | {(e.fitted_error * 100).quantize(TENTH):+} % | "
            f"{left_out} | {left_error} |"
        )
    print()
    bands = ", ".join(
        f"{family} {band.low:+} … {band.high:+}" for family, band in UNCERTAINTY.families.items()
    )
    cards = ", ".join(f"{generation} ±{width}" for generation, width in UNCERTAINTY.cards.items())
    print(f"Ranges: method families {bands}; cards {cards}; scaling ±{UNCERTAINTY.scaling}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else THROUGHPUT)
