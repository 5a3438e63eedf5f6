"""The pinned vLLM's `vllm serve` options, dumped for the tests; and every command the serving
planner writes, parsed by vLLM's own argument parser.

Runs wherever the pinned vLLM installs (``pricing.domain.serving.VLLM_VERSION``; it needs no
GPU for its parser: ``VLLM_TARGET_DEVICE=cpu`` is set here). vLLM pins its own torch and GPU
kernels, so it is not part of the project's environment; one way that worked on a CPU machine
(docs/serving.md): a venv with ``pip install torch==2.13.0`` (CPU), ``pip install --no-deps
vllm==0.34.0`` and vLLM's pure-Python requirements, then

    VENV/bin/python scripts/vllm_serve_options.py          # writes content/vllm-serve-options.json
    VENV/bin/python scripts/vllm_serve_options.py --check  # parses every planner command

``tests/pricing/domain/test_serving.py`` checks the commands against the dump within
``make test``; ``--check`` is the stronger check, with vLLM itself, outside its time budget.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "content" / "vllm-serve-options.json"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")  # the parser only; no GPU is touched

from pricing.domain import serving  # noqa: E402  (framework-free: no Django needed)


def serve_parser():
    from vllm.config.cache import KV_CACHE_DTYPES
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser()), KV_CACHE_DTYPES, QUANTIZATION_METHODS


def planner_commands() -> list[list[str]]:
    """Every command the planner can write for the models content/reference.json seeds: each
    weight and KV precision on 1, 2, 4 and 8 GPUs, at two contexts."""
    fixture = json.loads((ROOT / "content" / "reference.json").read_text())
    commands = []
    for item in fixture:
        if item["model"] != "pricing.languagemodel":
            continue
        for weights, kv, count, context in itertools.product(
            serving.WEIGHT_PRECISIONS.values(), serving.KV_BYTES, (1, 2, 4, 8), (8192, 131072)
        ):
            setup = serving.ServingSetup(
                weights=weights, kv_cache_dtype=kv, context=context, tensor_parallel_size=count
            )
            commands.append(serving.vllm_serve_command(item["fields"]["repository"], setup))
    return commands


def dump() -> None:
    import vllm

    if vllm.__version__ != serving.VLLM_VERSION:
        sys.exit(f"vLLM {vllm.__version__} installed; the planner models {serving.VLLM_VERSION}")
    parser, kv_dtypes, quantizations = serve_parser()
    options = sorted(flag for action in parser._actions for flag in action.option_strings)
    data = {
        "vllm": vllm.__version__,
        "options": options,
        "kv_cache_dtypes": list(kv_dtypes),
        "quantization_methods": list(quantizations),
    }
    DUMP.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{len(options)} options of vllm serve {vllm.__version__} -> {DUMP.relative_to(ROOT)}")


def check() -> None:
    parser, kv_dtypes, quantizations = serve_parser()
    commands = planner_commands()
    for command in commands:
        # `vllm serve MODEL ...`: the parser is serve's own, so it takes MODEL onwards; the
        # checkpoint variable stands for a repository name, as the shell would expand it.
        arguments = [
            "owner/checkpoint" if arg == f"${serving.CHECKPOINT_VARIABLE}" else arg
            for arg in command[2:]
        ]
        parsed = parser.parse_args(arguments)
        if parsed.kv_cache_dtype not in kv_dtypes:
            sys.exit(f"{shlex.join(command)}: kv_cache_dtype {parsed.kv_cache_dtype!r} refused")
        if parsed.quantization is not None and parsed.quantization not in quantizations:
            sys.exit(f"{shlex.join(command)}: quantization {parsed.quantization!r} refused")
        expected_tp = 1
        if "--tensor-parallel-size" in command:
            expected_tp = int(command[command.index("--tensor-parallel-size") + 1])
        if parsed.tensor_parallel_size != expected_tp:
            sys.exit(f"{shlex.join(command)}: parsed tensor_parallel_size differs")
    print(f"{len(commands)} planner commands parsed by vllm serve's own parser: all accepted")


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--check", action="store_true", help="parse every planner command")
    if arguments.parse_args().check:
        check()
    else:
        dump()


if __name__ == "__main__":
    main()
