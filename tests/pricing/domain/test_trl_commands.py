"""The `trl sft` commands built from a training setup, flag by flag (TRL itself parses them in
tests/test_trl_commands.py), and what the short timing run should show."""

import re
from dataclasses import replace
from decimal import Decimal as D
from pathlib import Path

import pytest

from pricing.domain import trl_commands as trl
from pricing.domain.training_memory import MEASURED, Attention, Method, Recipe, TrainingSetup

ROOT = Path(__file__).resolve().parents[3]
REPO = "meta-llama/Llama-3.1-70B"
RUN = TrainingSetup(Method.QLORA, seq_len=2048, batch_size=1, lora_rank=16)
HEAD = [
    "trl", "sft", "--model_name_or_path", REPO, "--dataset_name", "./data",
    "--dtype", "bfloat16", "--bf16", "true", "--attn_implementation", "sdpa",
]  # fmt: skip
ADAPTER_RATE = ["--learning_rate", "2e-4", "--packing"]
FULL_RATE = ["--learning_rate", "2e-5", "--packing"]
RUN_FLAGS = [
    "--max_length", "2048", "--per_device_train_batch_size", "1",
    "--activation_checkpointing", "true", "--num_train_epochs", "1",
]  # fmt: skip
SAVING = ["--save_strategy", "steps", "--save_steps", "0.1", "--save_total_limit", "2"]
TAIL = [*RUN_FLAGS, *SAVING, "--output_dir", "./output"]
ADAPTERS = [
    "--use_peft", "--lora_r", "16", "--lora_dropout", "0.05", "--lora_target_modules", "all-linear",
]  # fmt: skip
SHARDED = ["--accelerate_config", "fsdp2", "--num_processes", "8"]
# NF4 with nested (double) quantisation: what the estimate counts and the H200 points ran.
NF4_NESTED = ["--load_in_4bit", "--bnb_4bit_quant_type", "nf4", "--use_bnb_nested_quant"]
SHARDED_STATE = [*SHARDED, "--fsdp_state_dict_type", "SHARDED_STATE_DICT"]
# Full fine-tuning on one GPU loads fp32 master weights (bf16 autocast computes with them):
# in bf16 most updates at 2e-5 would round away.
FP32_HEAD = [word if word != "bfloat16" else "float32" for word in HEAD]


def command(method: Method, num_gpus: int = 1, **changes) -> trl.SftCommand:
    setup = replace(RUN, method=method, num_gpus=num_gpus, **changes)
    return trl.sft_command(repository=REPO, setup=setup, epochs=1, output_dir="./output")


@pytest.mark.parametrize(
    ("method", "num_gpus", "argv"),
    [
        (Method.QLORA, 1, [*HEAD, *NF4_NESTED, *ADAPTERS, *ADAPTER_RATE, *TAIL]),
        (
            Method.QLORA,
            8,
            [
                *HEAD,
                *NF4_NESTED,
                "--bnb_4bit_quant_storage",
                "bfloat16",
                *ADAPTERS,
                *ADAPTER_RATE,
                *TAIL,
                *SHARDED,
            ],
        ),  # fmt: skip
        (Method.LORA, 1, [*HEAD, *ADAPTERS, *ADAPTER_RATE, *TAIL]),
        (Method.LORA, 8, [*HEAD, *ADAPTERS, *ADAPTER_RATE, *TAIL, *SHARDED]),
        (
            Method.FULL_8BIT_ADAM,
            8,
            [*HEAD, "--optim", "adamw_bnb_8bit", *FULL_RATE, *TAIL, *SHARDED_STATE],
        ),
        (Method.FULL_ADAMW, 1, [*FP32_HEAD, "--optim", "adamw_torch", *FULL_RATE, *TAIL]),
        (Method.FULL_8BIT_ADAM, 1, [*FP32_HEAD, "--optim", "adamw_bnb_8bit", *FULL_RATE, *TAIL]),
    ],
    ids=["qlora-1", "qlora-8", "lora-1", "lora-8", "full-8bit-8", "full-adamw-1", "full-8bit-1"],
)
def test_each_method_on_one_and_on_eight_gpus(method, num_gpus, argv):
    built = command(method, num_gpus)
    assert (built.argv, built.method, built.num_gpus) == (argv, method, num_gpus)


def test_the_run_settings_are_the_setups():
    argv = command(
        Method.LORA, 2, seq_len=4096, batch_size=4, lora_rank=64, gradient_checkpointing=False
    ).argv
    pairs = dict(zip(argv[2::1], argv[3::1], strict=False))
    assert pairs["--max_length"] == "4096"
    assert pairs["--per_device_train_batch_size"] == "4"
    assert pairs["--lora_r"] == "64"
    assert pairs["--activation_checkpointing"] == "false"
    assert pairs["--num_processes"] == "2"
    assert "--bnb_4bit_quant_storage" not in argv  # only QLoRA's 4-bit weights need it
    assert command(Method.QLORA, 2).value("--bnb_4bit_quant_storage") == "bfloat16"
    assert command(Method.QLORA, 1).value("--bnb_4bit_quant_storage") is None


def test_the_recipe_decides_precision_attention_and_dropout():
    plain = Recipe("x", autocast=False, attention=Attention.FLASH, lora_dropout=False,
                   measured=False, versions="")  # fmt: skip
    argv = command(Method.LORA, recipe=plain).argv
    assert argv[argv.index("--bf16") + 1] == "false"
    assert argv[argv.index("--attn_implementation") + 1] == "flash_attention_2"
    assert argv[argv.index("--lora_dropout") + 1] == "0"
    assert (
        command(Method.LORA, recipe=replace(plain, attention=Attention.EAGER)).value(
            "--attn_implementation"
        )
        == "eager"
    )


def test_what_no_flag_expresses_is_refused():
    with pytest.raises(trl.CommandError, match="no attn_implementation selects sdpa-math"):
        command(Method.QLORA, recipe=replace(MEASURED, attention=Attention.SDPA_MATH))
    with pytest.raises(trl.CommandError, match="^offloading to the CPU has no trl sft flag here$"):
        command(Method.FULL_ADAMW, cpu_offload=True)
    for bad in ("llama", "meta-llama/", "/Llama", "a/b/c", "meta llama/x", "-x/y", "a/b; rm -rf"):
        with pytest.raises(trl.CommandError, match="not a Hugging Face repository id"):
            trl.sft_command(repository=bad, setup=RUN, epochs=1, output_dir="o")
    assert trl.REPOSITORY.match("Qwen/Qwen2.5-32B") and trl.REPOSITORY.match("a_b/c.d-e")


def test_the_shell_form_is_one_option_a_line_and_quotes_what_needs_it():
    shown = trl.SftCommand(
        Method.LORA, 1, (trl.Option("--use_peft"), trl.Option("--output_dir", "my run"))
    ).shell()
    assert shown == "trl sft \\\n  --use_peft \\\n  --output_dir 'my run'"
    assert command(Method.QLORA).shell().splitlines()[:3] == [
        "trl sft \\",
        f"  --model_name_or_path {REPO} \\",
        "  --dataset_name ./data \\",
    ]


def test_the_timing_command_stops_early_and_keeps_the_accelerate_options_last():
    timed = trl.timing_command(command(Method.LORA, 8), output_dir="./timing")
    assert timed.argv == [
        *HEAD, *ADAPTERS, *ADAPTER_RATE, *RUN_FLAGS[:6],
        "--max_steps", "30", "--logging_steps", "10", "--save_strategy", "no",
        "--output_dir", "./timing", *SHARDED,
    ]  # fmt: skip
    assert (timed.method, timed.num_gpus) == (Method.LORA, 8)
    single = trl.timing_command(command(Method.FULL_ADAMW), output_dir="t")
    assert single.argv == [
        *FP32_HEAD, "--optim", "adamw_torch", *FULL_RATE, *RUN_FLAGS[:6],
        "--max_steps", "30", "--logging_steps", "10", "--save_strategy", "no",
        "--output_dir", "t",
    ]  # fmt: skip
    assert (single.method, single.num_gpus) == (Method.FULL_ADAMW, 1)


def test_bitsandbytes_is_installed_only_for_what_needs_it():
    assert command(Method.QLORA).needs_bitsandbytes
    assert command(Method.FULL_8BIT_ADAM).needs_bitsandbytes
    assert not command(Method.LORA).needs_bitsandbytes
    assert not command(Method.FULL_ADAMW).needs_bitsandbytes
    assert trl.install_command(bitsandbytes=True) == (
        "pip install trl==1.16.0 transformers==5.24.0 peft==0.21.2 accelerate==1.16.0 "
        "bitsandbytes==0.50.2"
    )
    assert trl.install_command(bitsandbytes=False).endswith("accelerate==1.16.0")


def test_the_versions_named_are_the_versions_ci_installs():
    pinned = dict(
        re.findall(r"^([a-z]+)==(\S+)", (ROOT / "requirements-trl.txt").read_text(), re.M)
    )
    assert {name: pinned[name] for name, _version in trl.CHECKED_WITH} == dict(trl.CHECKED_WITH)


def test_the_short_run_by_our_figures():
    """70B QLoRA on one B200 at 1,596 tokens a second and $4.61 an hour: 30 steps of 2,048
    tokens take 38.5 s (0.6 minutes), 2,805.5 steps an hour, and cost 30 x 2,048 / 1,596 / 3,600
    x $4.61 = $0.0493 -> $0.05."""
    setup = replace(RUN, num_gpus=1)
    short = trl.short_run(setup, D(1596), D("4.61"))
    assert (short.steps, short.tokens_per_step) == (30, 2048)
    assert short.seconds.quantize(D("0.001")) == D("38.496")
    assert short.minutes == D("0.6")
    assert short.steps_per_hour == D(2805)  # 2,805.47: half up to the whole step
    assert short.cost_usd == D("0.05")
    eight = trl.short_run(replace(RUN, num_gpus=8), D(11784), D("4.61"))
    assert eight.tokens_per_step == 16384
    assert eight.steps_per_hour == D(2589)  # 3,600 x 11,784 / 16,384 = 2,589.26
    assert eight.cost_usd == D("0.43")  # 8 GPUs x 41.71 s x $4.61 an hour
    assert trl.short_run(setup, D(10**9), None).minutes == D("0.1")  # never shown as 0
    assert trl.short_run(setup, D(1596), None).cost_usd is None


def test_each_method_learns_at_its_sources_rate():
    """Adapters at 2e-4 (TRL's PEFT integration, trl/scripts/sft.py's LoRA example), full
    fine-tuning at 2e-5 (SFTConfig's default), in the whole and the short run alike."""
    rates = {method: command(method).value("--learning_rate") for method in Method}
    assert rates == {
        Method.QLORA: "2e-4",
        Method.LORA: "2e-4",
        Method.FULL_8BIT_ADAM: "2e-5",
        Method.FULL_ADAMW: "2e-5",
    }
    timed = trl.timing_command(command(Method.QLORA), output_dir="t")
    assert timed.value("--learning_rate") == "2e-4" and "--packing" in timed.argv
    assert trl.LEARNING_RATE_SOURCES == ("trl-peft-learning-rate", "trl-sft-learning-rate")


def test_the_whole_run_keeps_two_checkpoints_and_full_sharded_runs_save_shards():
    whole = command(Method.LORA, 8)
    assert (whole.value("--save_steps"), whole.value("--save_total_limit")) == ("0.1", "2")
    assert whole.value("--fsdp_state_dict_type") is None  # adapters: small, saved whole
    assert trl.merge_command(whole) is None
    assert trl.merge_command(command(Method.FULL_ADAMW)) is None  # one GPU: nothing sharded
    sharded = command(Method.FULL_ADAMW, 8)
    assert sharded.value("--fsdp_state_dict_type") == "SHARDED_STATE_DICT"
    assert trl.merge_command(sharded) == (
        'accelerate merge-weights "$(ls -d ./output/checkpoint-* | sort -V | tail -n 1)'
        '/pytorch_model_fsdp_0" ./output/merged'
    )
    timed = trl.timing_command(sharded, output_dir="t")
    assert timed.value("--save_total_limit") is None and timed.value("--save_strategy") == "no"
    assert timed.argv[-2:] == ["--fsdp_state_dict_type", "SHARDED_STATE_DICT"]


def test_the_estimates_trl_recipe_names_the_versions_the_commands_are_checked_with():
    """The memory estimate reads the pinned code: its recipe says which (major.minor)."""
    from pricing.domain.training_memory import TRL

    for name, version in trl.CHECKED_WITH:
        assert f"{name} {version.rsplit('.', 1)[0]}" in TRL.versions
