"""The published `trl sft` command and the memory estimate describe one recipe: each choice the
command makes is the one the estimate counts (pricing.domain.trl_commands, training_memory)."""

from decimal import Decimal

import pytest

from pricing.domain import measurements
from pricing.domain import training_memory as tm
from pricing.domain import trl_commands as trl
from pricing.domain.training_memory import TRL, Method, TrainingSetup

EIGHT_B = measurements.ARCHITECTURES["llama-3.1-8b"]


def command_and_setup(method: Method, gpus: int, **options):
    setup = TrainingSetup(method, 2048, num_gpus=gpus, recipe=TRL, **options)
    command = trl.sft_command(
        repository="meta-llama/Llama-3.1-8B", setup=setup, epochs=1, output_dir="./output"
    )
    return command, setup


@pytest.mark.parametrize("gpus", [1, 8])
@pytest.mark.parametrize("method", list(Method))
def test_the_dtype_loaded_is_the_precision_the_estimate_trains_in(method, gpus):
    """Adapters train on a bf16 base; full fine-tuning keeps fp32 masters: loaded in fp32 on one
    GPU, upcast by FSDP2 from the bf16 load on several. Either way the trained weights are 4
    bytes a parameter, as the estimate (and a checkpoint) counts them."""
    command, setup = command_and_setup(method, gpus)
    trained = tm.trained_state(EIGHT_B, setup)
    if method.uses_adapters:
        assert command.value("--dtype") == "bfloat16"
    else:
        assert command.value("--dtype") == ("float32" if gpus == 1 else "bfloat16")
        assert trained.weights_bytes == Decimal(4 * EIGHT_B.params)
    assert command.value("--bf16") == "true"  # autocast, as TRL.autocast says
    assert TRL.autocast


def test_qlora_is_quantised_as_the_estimate_stores_it():
    """NF4 with nested (double) quantisation of the block scales: 0.5 + 1/64 + 4/(64 x 256)
    bytes a weight, as tm.NF4_BYTES_PER_PARAM counts; without --use_bnb_nested_quant each
    scale would stay fp32 (+3.2 GB on 70B)."""
    command, _setup = command_and_setup(Method.QLORA, 1)
    assert command.value("--bnb_4bit_quant_type") == "nf4"
    assert "--use_bnb_nested_quant" in command.argv
    assert tm.NF4_BYTES_PER_PARAM == Decimal("0.5") + Decimal(1) / 64 + Decimal(4) / (64 * 256)


@pytest.mark.parametrize("checkpointing", [True, False])
def test_dropout_attention_packing_and_checkpointing_are_the_estimates(checkpointing):
    command, setup = command_and_setup(Method.LORA, 1, gradient_checkpointing=checkpointing)
    assert command.value("--lora_dropout") == trl.LORA_DROPOUT and TRL.lora_dropout
    assert command.value("--attn_implementation") == "sdpa" and TRL.attention is tm.Attention.SDPA
    assert command.value("--activation_checkpointing") == str(checkpointing).lower()
    # packed: every step is batch x max_length tokens, the tokens the estimate counts
    assert "--packing" in command.argv
    batch = int(command.value("--per_device_train_batch_size"))
    assert setup.tokens == int(command.value("--max_length")) * batch == 2048
