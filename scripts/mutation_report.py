"""Mutation score per module from the last `mutmut run` (its mutants/*.py.meta files).

    .venv/bin/python scripts/mutation_report.py              # the score table
    .venv/bin/python scripts/mutation_report.py --survivors  # and every mutant not killed

A mutant counts as killed when a test failed on it, it ran past mutmut's timeout, or the type
checker refused it; everything else (survived, no tests, not checked, suspicious) counts
against the score, which is killed / all mutants of the module.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# mutmut 3's exit codes (mutmut.stats.status_by_exit_code); anything else is "suspicious".
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    35: "suspicious",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    37: "caught by type check",
    None: "not checked",
}
KILLED = {"killed", "timeout", "caught by type check"}


def modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["mutmut"]["only_mutate"]


def results(path: str) -> dict[str, str]:
    meta = ROOT / "mutants" / f"{path}.meta"
    if not meta.exists():
        return {}
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return {name: STATUS.get(code, "suspicious") for name, code in codes.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--survivors", action="store_true", help="list every mutant not killed")
    args = parser.parse_args()

    rows = [(path, results(path)) for path in modules()]
    if not any(found for _, found in rows):
        print("No mutation results: run `make mutation` (or `mutmut run`) first.", file=sys.stderr)
        return 1
    width = max(len(path) for path, _ in rows)
    print(f"{'module':<{width}}  killed / total      %  not killed")
    all_killed = all_total = 0
    for path, found in rows:
        killed = sum(status in KILLED for status in found.values())
        total = len(found)
        all_killed, all_total = all_killed + killed, all_total + total
        missed = Counter(status for status in found.values() if status not in KILLED)
        notes = ", ".join(f"{n} {status}" for status, n in sorted(missed.items()))
        print(f"{path:<{width}}  {killed:>6} / {total:<5} {_percent(killed, total):>6}  {notes}")
    print(
        f"{'all':<{width}}  {all_killed:>6} / {all_total:<5} {_percent(all_killed, all_total):>6}"
    )

    if args.survivors:
        for _path, found in rows:
            for name, status in sorted(found.items()):
                if status not in KILLED:
                    print(f"{status:>12}  {name}")
    return 0


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
