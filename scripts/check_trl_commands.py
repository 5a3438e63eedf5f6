"""Check the tutorials' commands with TRL itself (run in the TRL environment, not Django's).

    .venv-trl/bin/python scripts/check_trl_commands.py COMMANDS.json

COMMANDS.json is what ``tests/test_trl_commands.py`` writes from every published guide: a list
of ``{"label": ..., "argv": ["trl", "sft", ...], "run": bool}``. Each command is parsed as
``trl sft`` parses it, stopping before anything is launched (an unknown flag, a bad value, a
missing accelerate profile or a deprecated flag fails); the first with ``run`` is trained for
two steps on the CPU on a tiny random Llama-shaped model, through the real ``trl sft``. Nothing
is fetched from a hub. Exits 1 on the first command that fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from argparse import Namespace
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

PACKAGES = ("trl", "transformers", "peft", "accelerate", "datasets", "torch")
# What a CPU run needs on top of the published command (no GPU, so no bf16 autocast either).
CPU_RUN = ["--max_steps", "2", "--use_cpu", "--bf16", "false", "--report_to", "none"]


class CommandFailed(Exception):
    pass


def parse(argv: list[str]) -> Namespace:
    """``argv`` as ``trl sft`` reads it, up to the ``accelerate launch`` arguments it would
    launch with (returned); raises CommandFailed with TRL's or accelerate's own message."""
    import transformers.training_args
    import trl.cli.accelerate_launcher as launcher
    from trl.cli.commands.base import CommandContext
    from trl.cli.commands.training import TrainingCommand

    if argv[:2] != ["trl", "sft"]:
        raise CommandFailed(f"not a `trl sft` command: {argv[:2]}")
    launched: list[Namespace] = []
    real_launch = launcher.launch_training_script

    def record(script_name, launch_args, training_script_args, **kwargs):
        real_launch(
            script_name, launch_args, training_script_args, launch_command_fn=launched.append
        )

    launcher.launch_training_script = record
    # The commands are for GPUs with bf16; on this CPU TrainingArguments would refuse bf16.
    on_gpu = transformers.training_args.is_torch_bf16_gpu_available
    transformers.training_args.is_torch_bf16_gpu_available = lambda: True
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            TrainingCommand("sft").run(Namespace(command="sft"), CommandContext(argv=argv[1:]))
    except SystemExit as exc:  # argparse: "unrecognized arguments", "invalid choice", ...
        raise CommandFailed(f"refused by the parser (exit {exc.code})") from None
    except (ValueError, TypeError) as exc:
        raise CommandFailed(str(exc)) from None
    finally:
        launcher.launch_training_script = real_launch
        transformers.training_args.is_torch_bf16_gpu_available = on_gpu
    flags = {arg for arg in argv if arg.startswith("--")}
    for warning in caught:
        named = [flag for flag in flags if f"`{flag[2:]}`" in str(warning.message)]
        if named and issubclass(warning.category, (DeprecationWarning, FutureWarning)):
            raise CommandFailed(f"{named[0]} is deprecated: {warning.message}")
    if len(launched) != 1:
        raise CommandFailed("TRL did not reach the launch")
    return launched[0]


def write_tiny_model_and_data(folder: Path) -> tuple[Path, Path]:
    """A Llama-shaped model with random weights, a word-level tokenizer and a dataset in the
    tutorial's prompt/completion format: nothing from a hub."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = "what is the best gpu for fine tuning a model on rented hardware it depends".split()
    vocab = {token: i for i, token in enumerate(["<pad>", "<unk>", "<s>", "</s>", *words])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
    )
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=len(vocab),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            pad_token_id=0,
            bos_token_id=2,
            eos_token_id=3,
        )
    )
    model_dir, data_dir = folder / "tiny-llama", folder / "data"
    model.save_pretrained(model_dir)
    wrapped.save_pretrained(model_dir)
    data_dir.mkdir()
    rows = [
        {"prompt": "what is the best gpu", "completion": " it depends on the model"},
        {"prompt": "fine tuning a model", "completion": " on rented hardware"},
    ] * 4
    (data_dir / "train.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return model_dir, data_dir


def run_two_steps(argv: list[str], folder: Path) -> float:
    """The command through the real ``trl sft`` for two steps on the CPU; its seconds."""
    model_dir, data_dir = write_tiny_model_and_data(folder)
    replacements = {
        "--model_name_or_path": str(model_dir),
        "--dataset_name": str(data_dir),
        "--output_dir": str(folder / "out"),
    }
    args = list(argv)
    for flag, value in replacements.items():
        args[args.index(flag) + 1] = value
    trl = Path(sys.executable).with_name("trl")
    started = time.monotonic()
    done = subprocess.run([str(trl), *args[1:], *CPU_RUN], capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandFailed(f"`trl sft` failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    if not (folder / "out" / "adapter_model.safetensors").exists():
        raise CommandFailed("`trl sft` ran but saved no adapter")
    return time.monotonic() - started


def state_dict_type(launch: Namespace) -> str:
    """The FSDP state dict type accelerate would hand the processes (``FSDP_STATE_DICT_TYPE``):
    the profile's, unless the command overrides it."""
    from accelerate.commands.launch import _validate_launch_command
    from accelerate.utils.launch import prepare_multi_gpu_env

    args, _defaults, _precision = _validate_launch_command(launch)
    return prepare_multi_gpu_env(args).get("FSDP_STATE_DICT_TYPE", "none")


def check(command: dict) -> str:
    """What TRL would launch for one command: "1 process" or "8 processes, fsdp2,
    SHARDED_STATE_DICT" (the FSDP state its checkpoints save)."""
    launch = parse(command["argv"])
    processes = int(launch.num_processes or 1)
    where = f"{processes} process" + ("es" if processes > 1 else "")
    if not launch.config_file:
        return where
    return f"{where}, {Path(launch.config_file).stem}, {state_dict_type(launch)}"


def main(path: str) -> int:
    commands = json.loads(Path(path).read_text())
    print("checked against " + ", ".join(f"{name} {version(name)}" for name in PACKAGES))
    to_run = [c for c in commands if c.get("run")]
    if not commands or not to_run:
        print("FAILED: no commands, or no single-GPU LoRA command to run", file=sys.stderr)
        return 1
    started = time.monotonic()
    for command in commands:
        try:
            print(f"parsed  {command['label']}: {check(command)}")
        except CommandFailed as failed:
            print(f"FAILED  {command['label']}: {failed}", file=sys.stderr)
            return 1
    print(f"{len(commands)} commands parsed in {time.monotonic() - started:.1f} s")
    with tempfile.TemporaryDirectory(prefix="trl-check-") as folder:
        try:
            seconds = run_two_steps(to_run[0]["argv"], Path(folder))
        except CommandFailed as failed:
            print(f"FAILED  {to_run[0]['label']}: {failed}", file=sys.stderr)
            return 1
    print(f"trained {to_run[0]['label']}: 2 steps on the CPU in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
