"""The ``trl sft`` command that runs a training setup: built from the setup, never typed.

Its flags are what the memory estimate and the throughput model assume of trl's recipe
(``training_memory.TRL``), so the tutorial's command and the guide's price describe one run.
``tests/test_trl_commands.py`` has TRL (``CHECKED_WITH``) parse every published command.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from pricing.domain.calculations import TENTH, WHOLE, run_cost
from pricing.domain.throughput import SECONDS_PER_HOUR
from pricing.domain.training_memory import Attention, Method, TrainingSetup

# The versions CI checks the commands with, as requirements-trl.txt pins them.
CHECKED_WITH = (
    ("trl", "1.16.0"),
    ("transformers", "5.24.0"),
    ("peft", "0.21.2"),
    ("accelerate", "1.16.0"),
)
SHARDED_PROFILE = "fsdp2"  # trl/accelerate_configs/, as the estimate's sharded terms follow
LORA_DROPOUT = "0.05"  # peft's adapter dropout in trl's recipe (``Recipe.lora_dropout``)
LORA_TARGETS = "all-linear"  # all seven projections, as the estimate counts them
OPTIMIZERS = {Method.FULL_8BIT_ADAM: "adamw_bnb_8bit", Method.FULL_ADAMW: "adamw_torch"}
ATTENTION_FLAGS = {
    Attention.EAGER: "eager",
    Attention.SDPA: "sdpa",
    Attention.FLASH: "flash_attention_2",
}
# Adapters: TRL's PEFT integration page and trl/scripts/sft.py; full: SFTConfig's default
# (``Source`` keys in content/reference.json).
ADAPTER_LEARNING_RATE = "2e-4"
FULL_LEARNING_RATE = "2e-5"
LEARNING_RATE_SOURCES = ("trl-peft-learning-rate", "trl-sft-learning-rate")
# A checkpoint every tenth of the run (a save_steps below 1 is a share), the two newest kept.
SAVE_EVERY = "0.1"
SAVE_TOTAL_LIMIT = "2"
# Full fine-tuning on several GPUs saves each GPU's shard: the profile's FULL_STATE_DICT would
# gather it all on one host (0.85 TB for 70B). Adapters keep the full state, which is small.
SHARDED_STATE = "SHARDED_STATE_DICT"
FSDP_MODEL_FOLDER = "pytorch_model_fsdp_0"  # where accelerate saves the model's shards
# Needs a CUDA GPU, so the check does not install it: the version the measured peaks ran with.
BITSANDBYTES = ("bitsandbytes", "0.50.2")
DATASET_FOLDER = "./data"  # a folder with train.jsonl: the tutorial writes its example there
TIMING_STEPS = 30  # the short run that measures steps per hour
TIMING_LOG_EVERY = 10
# A Hugging Face repository id: owner/name, letters, digits, ".", "_" and "-".
REPOSITORY = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}\Z")


class CommandError(ValueError):
    """A setup no ``trl sft`` flag expresses."""


@dataclass(frozen=True)
class Option:
    flag: str
    value: str | None = None  # None: a switch (``--use_peft``)

    def words(self) -> list[str]:
        return [self.flag] if self.value is None else [self.flag, self.value]


@dataclass(frozen=True)
class SftCommand:
    method: Method
    num_gpus: int
    options: tuple[Option, ...]

    @property
    def argv(self) -> list[str]:
        return ["trl", "sft", *(word for option in self.options for word in option.words())]

    def shell(self) -> str:
        """One option per line, continued with backslashes, quoted for a POSIX shell."""
        lines = ["trl sft"] + [shlex.join(option.words()) for option in self.options]
        return " \\\n  ".join(lines)

    @property
    def needs_bitsandbytes(self) -> bool:
        """4-bit weights or 8-bit Adam."""
        return self.method in (Method.QLORA, Method.FULL_8BIT_ADAM)

    def value(self, flag: str) -> str | None:
        return next((o.value for o in self.options if o.flag == flag), None)


def sft_command(
    *, repository: str, setup: TrainingSetup, epochs: int, output_dir: str
) -> SftCommand:
    if not REPOSITORY.match(repository):
        raise CommandError(f"not a Hugging Face repository id: {repository!r}")
    if setup.cpu_offload:
        raise CommandError("offloading to the CPU has no trl sft flag here")
    recipe = setup.recipe
    try:
        attention = ATTENTION_FLAGS[recipe.attention]
    except KeyError:
        raise CommandError(f"no attn_implementation selects {recipe.attention}") from None
    method = setup.method
    options = [
        Option("--model_name_or_path", repository),
        Option("--dataset_name", DATASET_FOLDER),
        Option("--dtype", load_dtype(setup)),
        Option("--bf16", _bool(recipe.autocast)),
        Option("--attn_implementation", attention),
    ]
    if method is Method.QLORA:
        # Nested quantisation, as the estimate counts NF4; TRL's default does not nest.
        options += [
            Option("--load_in_4bit"),
            Option("--bnb_4bit_quant_type", "nf4"),
            Option("--use_bnb_nested_quant"),
        ]
        if setup.num_gpus > 1:
            # FSDP shards only tensors of one dtype: the 4-bit weights are stored as bf16.
            options.append(Option("--bnb_4bit_quant_storage", "bfloat16"))
    if method.uses_adapters:
        options += [
            Option("--use_peft"),
            Option("--lora_r", str(setup.lora_rank)),
            Option("--lora_dropout", LORA_DROPOUT if recipe.lora_dropout else "0"),
            Option("--lora_target_modules", LORA_TARGETS),
        ]
    else:
        options.append(Option("--optim", OPTIMIZERS[method]))
    options += [
        Option("--learning_rate", learning_rate(method)),
        # Packed into full sequences: a step is the batch x max_length tokens the models count.
        Option("--packing"),
        Option("--max_length", str(setup.seq_len)),
        Option("--per_device_train_batch_size", str(setup.batch_size)),
        Option("--activation_checkpointing", _bool(setup.gradient_checkpointing)),
        Option("--num_train_epochs", str(epochs)),
        Option("--save_strategy", "steps"),
        Option("--save_steps", SAVE_EVERY),
        Option("--save_total_limit", SAVE_TOTAL_LIMIT),
        Option("--output_dir", output_dir),
    ]
    if setup.num_gpus > 1:
        options += [
            Option("--accelerate_config", SHARDED_PROFILE),
            Option("--num_processes", str(setup.num_gpus)),
        ]
        if not method.uses_adapters:
            options.append(Option("--fsdp_state_dict_type", SHARDED_STATE))
    return SftCommand(method, setup.num_gpus, tuple(options))


def load_dtype(setup: TrainingSetup) -> str:
    """bf16, but fp32 for full fine-tuning on one GPU: there the loaded weights are trained, and
    in bf16 an update below 1/256 of a weight rounds away (FSDP2 upcasts its shards itself)."""
    if setup.method.uses_adapters or setup.sharded:
        return "bfloat16"
    return "float32"


def learning_rate(method: Method) -> str:
    return ADAPTER_LEARNING_RATE if method.uses_adapters else FULL_LEARNING_RATE


def merge_command(command: SftCommand) -> str | None:
    """Where ``command`` saves sharded state, the command that merges the newest checkpoint."""
    if command.value("--fsdp_state_dict_type") != SHARDED_STATE:
        return None
    output = command.value("--output_dir")
    newest = f"$(ls -d {shlex.quote(output)}/checkpoint-* | sort -V | tail -n 1)"
    merged = shlex.quote(f"{output}/merged")
    return f'accelerate merge-weights "{newest}/{FSDP_MODEL_FOLDER}" {merged}'


def install_command(*, bitsandbytes: bool) -> str:
    pinned = [*CHECKED_WITH, *([BITSANDBYTES] if bitsandbytes else [])]
    return shlex.join(["pip", "install", *(f"{name}=={version}" for name, version in pinned)])


def timing_command(command: SftCommand, *, output_dir: str) -> SftCommand:
    """The same run stopped after ``TIMING_STEPS``, saving nothing; trl prints its speed."""
    replaced = ("--num_train_epochs", "--save_strategy", "--save_steps", "--save_total_limit")
    kept = tuple(o for o in command.options if o.flag not in (*replaced, "--output_dir"))
    added = (
        Option("--max_steps", str(TIMING_STEPS)),
        Option("--logging_steps", str(TIMING_LOG_EVERY)),
        Option("--save_strategy", "no"),
        Option("--output_dir", output_dir),
    )
    # The accelerate options stay last, as in the full command.
    split = next((i for i, o in enumerate(kept) if o.flag == "--accelerate_config"), len(kept))
    return SftCommand(command.method, command.num_gpus, kept[:split] + added + kept[split:])


@dataclass(frozen=True)
class ShortRun:
    """What the timing command should show by our figures."""

    tokens_per_step: int
    tokens_per_s: Decimal
    num_gpus: int
    usd_per_gpu_hour: Decimal | None
    steps: int = TIMING_STEPS

    @property
    def seconds(self) -> Decimal:
        return self.steps * self.tokens_per_step / self.tokens_per_s

    @property
    def steps_per_hour(self) -> Decimal:
        return (SECONDS_PER_HOUR * self.tokens_per_s / self.tokens_per_step).quantize(
            WHOLE, ROUND_HALF_UP
        )

    @property
    def minutes(self) -> Decimal:
        return max((self.seconds / 60).quantize(TENTH, ROUND_HALF_UP), TENTH)

    @property
    def cost_usd(self) -> Decimal | None:
        return run_cost(self.num_gpus, self.seconds / SECONDS_PER_HOUR, self.usd_per_gpu_hour)


def short_run(
    setup: TrainingSetup, tokens_per_s: Decimal, usd_per_gpu_hour: Decimal | None
) -> ShortRun:
    # Each GPU takes its own micro-batch of packed sequences (data parallel).
    tokens = setup.seq_len * setup.batch_size * setup.num_gpus
    return ShortRun(tokens, tokens_per_s, setup.num_gpus, usd_per_gpu_hour)


def _bool(value: bool) -> str:
    return "true" if value else "false"
