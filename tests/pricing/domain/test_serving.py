"""pricing.domain.serving: serving memory as vLLM 0.34.0 budgets it, its refusals and fixes, and
the `vllm serve` commands, checked against the pinned vLLM's own options (the dump
scripts/vllm_serve_options.py writes where vLLM installs)."""

import json
import shlex
from decimal import Decimal as D
from pathlib import Path

import pytest

from pricing.domain import serving
from pricing.domain.calculations import GIB_BYTES
from pricing.domain.training_memory import Architecture

ROOT = Path(__file__).resolve().parents[3]
LLAMA_8B = Architecture(4096, 32, 32, 8, 14336, 128256)
LLAMA_70B = Architecture(8192, 80, 64, 8, 28672, 128256)
QWEN_7B = Architecture(3584, 28, 28, 4, 18944, 152064)
QWEN_72B = Architecture(8192, 80, 64, 8, 29568, 152064)
H100, A100, L40S, B200 = D("84.94"), D("84.98"), D("47.69"), D("191.50")  # PyTorch's totals


def test_kv_bytes_per_token_count_kv_heads_not_attention_heads():
    # 2 x 80 layers x 8 KV heads x 128 x 2 bytes: the figure pages with 64 heads overstate 8x.
    assert serving.kv_bytes_per_token(LLAMA_70B) == 327_680
    assert serving.kv_bytes_per_token(LLAMA_70B, "fp8") == 163_840
    assert serving.kv_bytes_per_token(LLAMA_70B, tensor_parallel_size=4) == 81_920
    # Sixteen GPUs, eight KV heads: each GPU keeps one (replicated), not half of one.
    assert serving.kv_bytes_per_token(LLAMA_70B, tensor_parallel_size=16) == 40_960


def test_weights_per_gpu_split_the_linear_layers_and_the_vocabulary():
    # 70,553,706,496 parameters in bf16, all on one GPU.
    bf16 = serving.ServingSetup()
    assert serving.weights_bytes_per_gpu(LLAMA_70B, bf16) == 141_107_412_992
    # fp8: the 68,451,041,280 linear weights in 1 byte, embeddings and norms in 2.
    fp8 = serving.ServingSetup(weights=serving.FP8)
    assert serving.weights_bytes_per_gpu(LLAMA_70B, fp8) == 68_451_041_280 + 2_102_665_216 * 2
    # Four GPUs: every linear layer and the vocabulary split four ways, norms on each.
    four = serving.ServingSetup(tensor_parallel_size=4)
    linear, tables, norms = 68_451_041_280 // 4, 2 * 32_064 * 8192, 161 * 8192
    assert serving.weights_bytes_per_gpu(LLAMA_70B, four) == (linear + tables + norms) * 2
    # AWQ: half a byte and a 16-bit scale with a 4-bit zero per group of 128.
    assert serving.AWQ.bytes_per_param == D("0.51953125")


def test_scheduler_defaults_follow_the_card_as_vllm_serve_sets_them():
    assert serving.scheduler_defaults(B200 * 10**9, ampere=False) == serving.SchedulerDefaults(
        16384, 1024
    )
    assert serving.scheduler_defaults(H100 * 10**9, ampere=False).max_num_batched_tokens == 8192
    assert serving.scheduler_defaults(A100 * 10**9, ampere=True) == serving.SchedulerDefaults(
        2048, 256
    )
    assert serving.scheduler_defaults(L40S * 10**9, ampere=False).max_num_seqs == 256


def test_llama_8b_on_one_h100_term_by_term():
    memory = serving.serving_memory(LLAMA_8B, serving.ServingSetup(), card_gb=H100)
    assert memory.weights_gb == D("16.060522496")
    # The sampler's 1,024 rows x 128,256 logits x 10 bytes outweigh the forward pass's
    # 8,192 tokens x (4 x 4,096 + 3 x 14,336) x 2 bytes = 0.973 GB.
    assert memory.activation_peak_gb == D("1.31334144")
    assert memory.margin_gb == D("1.073741824")  # the 1 GiB floor beats 0.75 x the peak
    expected = D("84.94") - D("0.51") - D("16.060522496") - D("0.79") - D("1.31334144")
    assert memory.kv_cache_gb == expected - D("1.073741824") == D("65.19239424")
    # 31,086 blocks of 16 tokens x 131,072 bytes, less the null block.
    assert memory.kv_tokens == 497_360
    assert memory.max_concurrent_requests == 60  # 31,085 blocks // 512 per 8,192-token request
    assert memory.starts and memory.vllm_error == ""


def test_a_lower_gpu_memory_utilization_caps_the_cache():
    setup = serving.ServingSetup(gpu_memory_utilization=D("0.9"))
    memory = serving.serving_memory(LLAMA_8B, setup, card_gb=H100)
    # 0.9 x 84.94 GB less weights and graphs, less the peak kept free.
    assert memory.kv_cache_gb == D("76.446") - D("16.060522496") - D("0.79") - D("1.31334144")
    assert memory.kv_tokens == 444_640


def test_weights_that_leave_nothing_for_the_cache_refuse_to_start_with_fixes():
    setup = serving.ServingSetup()
    memory = serving.serving_memory(LLAMA_70B, setup, card_gb=H100)
    assert memory.refusal == serving.NO_MEMORY_FOR_CACHE
    assert memory.kv_cache_gb == 0 and memory.kv_tokens == 0
    assert memory.vllm_error.startswith("No available memory for the cache blocks.")
    assert serving.fixes(LLAMA_70B, setup, card_gb=H100) == [
        serving.Fix("--tensor-parallel-size", "2"),
        serving.Fix("weights", "fp8"),
    ]


def test_a_context_longer_than_the_cache_refuses_with_vllms_own_message():
    setup = serving.ServingSetup(weights=serving.FP8, context=131072)
    memory = serving.serving_memory(LLAMA_70B, setup, card_gb=H100)
    assert memory.refusal == serving.CONTEXT_DOES_NOT_FIT
    assert memory.vllm_error == (
        "To serve at least one request with the model's max seq len (131072), (40.0 GiB KV "
        "cache is needed, which is larger than the available KV cache memory (7.06 GiB). Based "
        "on the available memory, the estimated maximum model length is 23104. Decreasing "
        "`max_model_len` also reduces what is needed."
    )
    assert serving.fixes(LLAMA_70B, setup, card_gb=H100) == [
        serving.Fix("--max-model-len", "23104"),
        serving.Fix("--tensor-parallel-size", "2"),
    ]
    # The fix is exact: at that length it starts, one block more it does not.
    fits = serving.ServingSetup(weights=serving.FP8, context=23104)
    assert serving.serving_memory(LLAMA_70B, fits, card_gb=H100).starts
    over = serving.ServingSetup(weights=serving.FP8, context=23105)
    assert not serving.serving_memory(LLAMA_70B, over, card_gb=H100).starts


def test_heads_and_4_bit_groups_must_split_evenly():
    memory = serving.serving_memory(
        QWEN_7B, serving.ServingSetup(tensor_parallel_size=8), card_gb=H100
    )
    assert memory.refusal == serving.HEADS_NOT_DIVISIBLE
    assert memory.vllm_error == (
        "Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    )
    # Qwen 2.5 72B's MLP width, 29,568, is 231 groups: it cannot be halved.
    awq_on_two = serving.ServingSetup(weights=serving.AWQ, tensor_parallel_size=2)
    assert serving.serving_memory(QWEN_72B, awq_on_two, card_gb=H100).refusal == (
        serving.GROUPS_NOT_WHOLE
    )
    assert serving.serving_memory(
        QWEN_72B, serving.ServingSetup(weights=serving.AWQ), card_gb=H100
    ).starts


def test_setups_that_describe_nothing_are_refused():
    with pytest.raises(serving.ServingError):
        serving.ServingSetup(kv_cache_dtype="int4")
    with pytest.raises(serving.ServingError):
        serving.ServingSetup(gpu_memory_utilization=D("1.1"))
    with pytest.raises(serving.ServingError):
        serving.ServingSetup(context=0)


def test_the_command_names_only_what_differs_from_vllms_defaults():
    setup = serving.ServingSetup(
        weights=serving.FP8, kv_cache_dtype="fp8", context=32768, tensor_parallel_size=4
    )
    assert serving.shell_line(serving.vllm_serve_command("meta-llama/Llama-3.1-70B", setup)) == (
        "vllm serve meta-llama/Llama-3.1-70B --max-model-len 32768 --tensor-parallel-size 4 "
        "--quantization fp8 --kv-cache-dtype fp8"
    )
    awq = serving.ServingSetup(weights=serving.AWQ, gpu_memory_utilization=D("0.9"))
    assert serving.shell_line(serving.vllm_serve_command("meta-llama/Llama-3.1-70B", awq)) == (
        'vllm serve "$CHECKPOINT" --max-model-len 8192 --gpu-memory-utilization 0.9'
    )


def test_the_bench_command_loads_the_server_as_the_guide_counts_users():
    """vLLM's random dataset at the guide's lengths, every answer full length, the users at
    once, four requests each."""
    command = serving.vllm_bench_command(
        "meta-llama/Llama-3.1-70B", prompt_tokens=1000, output_tokens=500, users=212
    )
    assert serving.shell_line(command) == (
        "vllm bench serve --model meta-llama/Llama-3.1-70B --dataset-name random "
        "--random-input-len 1000 --random-output-len 500 --ignore-eos "
        "--max-concurrency 212 --num-prompts 848"
    )


def _planner_commands():
    fixture = json.loads((ROOT / "content" / "reference.json").read_text())
    for item in fixture:
        if item["model"] != "pricing.languagemodel":
            continue
        for weights in serving.WEIGHT_PRECISIONS.values():
            for kv in serving.KV_BYTES:
                for count in (1, 8):
                    setup = serving.ServingSetup(
                        weights=weights, kv_cache_dtype=kv, tensor_parallel_size=count
                    )
                    yield serving.vllm_serve_command(item["fields"]["repository"], setup)


def test_every_planner_command_uses_options_the_pinned_vllm_has():
    """Against the dump of vllm serve's parser (``scripts/vllm_serve_options.py --check`` runs
    the parser itself, where vLLM installs)."""
    dump = json.loads((ROOT / "content" / "vllm-serve-options.json").read_text())
    assert dump["vllm"] == serving.VLLM_VERSION
    options = set(dump["options"])
    commands = list(_planner_commands())
    assert len(commands) == 9 * 4 * 2 * 2
    for command in commands:
        assert command[:2] == ["vllm", "serve"]
        words = shlex.split(serving.shell_line(command))
        flags = dict(zip(words[3::2], words[4::2], strict=True))
        assert set(flags) <= options, command
        assert flags.get("--kv-cache-dtype", "auto") in dump["kv_cache_dtypes"]
        assert flags.get("--quantization", "fp8") in dump["quantization_methods"]


def test_gib_as_vllm_writes_it():
    assert serving._gib(40 * GIB_BYTES) == "40.0"
    assert serving._gib(D("7.06") * GIB_BYTES) == "7.06"


def test_a_mixture_of_experts_keeps_every_expert_resident():
    """Mixtral 8x7B: all eight experts' weights on the GPUs (46.7 billion parameters), the
    router in bf16 beside fp8 experts; the KV cache as any model's with its 8 KV heads."""
    mixtral = Architecture(
        4096, 32, 32, 8, 14336, 32000, num_local_experts=8, num_experts_per_tok=2
    )
    bf16 = serving.weights_bytes_per_gpu(mixtral, serving.ServingSetup())
    assert bf16 == 46_702_792_704 * 2
    fp8 = serving.weights_bytes_per_gpu(mixtral, serving.ServingSetup(weights=serving.FP8))
    routers = 32 * 4096 * 8
    assert fp8 == (46_440_382_464 - routers) + (262_144_000 + 266_240 + routers) * 2
    assert serving.kv_bytes_per_token(mixtral) == 131_072


# Boundaries and the fields each answer carries (found by mutation testing) ------------------

# Llama 3.1 8B on a card of 18.762599680 GB (a 2,048-token scheduler): weights 16.060522496,
# context 0.51, graphs 0.79, the sampler's peak 0.32833536 and the 1 GiB margin leave nothing.
NOTHING_LEFT = D("18.76259968")


def test_one_byte_left_is_a_cache_too_small_not_no_cache():
    nothing = serving.serving_memory(LLAMA_8B, serving.ServingSetup(), card_gb=NOTHING_LEFT)
    assert (nothing.kv_cache_gb, nothing.refusal) == (0, serving.NO_MEMORY_FOR_CACHE)
    assert nothing.vllm_error == (
        "No available memory for the cache blocks. The extensible KV cache already takes all "
        "device memory left after the model and its activations; decrease `max_model_len` or "
        "`max_num_seqs`, or the model needs a device with more memory."
    )
    one_byte = serving.serving_memory(
        LLAMA_8B, serving.ServingSetup(), card_gb=NOTHING_LEFT + D("0.000000001")
    )
    assert (one_byte.kv_cache_gb, one_byte.refusal) == (D("1E-9"), serving.CONTEXT_DOES_NOT_FIT)
    # Less than a block: no estimate of a length, as vLLM leaves it out.
    assert one_byte.kv_tokens == 0
    assert one_byte.vllm_error == (
        "To serve at least one request with the model's max seq len (8192), (1.0 GiB KV cache "
        "is needed, which is larger than the available KV cache memory (0.0 GiB). Decreasing "
        "`max_model_len` also reduces what is needed."
    )
    assert serving.fixes(LLAMA_8B, serving.ServingSetup(), card_gb=NOTHING_LEFT) == [
        serving.Fix("--tensor-parallel-size", "2"),
        serving.Fix("weights", "fp8"),
    ]


def test_every_field_of_a_two_gpu_answer():
    setup = serving.ServingSetup(tensor_parallel_size=2)
    memory = serving.serving_memory(LLAMA_70B, setup, card_gb=H100)
    assert (memory.card_gb, memory.cuda_context_gb, memory.cuda_graphs_gb) == (
        H100,
        D("0.51"),
        D("0.79"),
    )
    assert memory.nccl_gb == D("1.62")  # NCCL's buffers on two GPUs, none on one
    assert serving.serving_memory(LLAMA_8B, serving.ServingSetup(), card_gb=H100).nccl_gb == 0
    assert memory.kv_bytes_per_token == 163_840  # four of the eight KV heads on each GPU
    assert memory.weights_gb == D("70.555025408")
    peak = 1024 * 128256 * 10  # the sampler's, on an H100-class card
    assert memory.activation_peak_gb == D(peak) / 10**9
    kv = H100 * 10**9 - D("0.51e9") - D("70.555025408e9") - D("1.62e9") - D("0.79e9")
    kv -= peak + 2**30
    assert memory.kv_cache_gb * 10**9 == kv
    assert memory.kv_tokens == (int(kv) // (163_840 * 16) - 1) * 16 == 55_376
    assert memory.runtime_gb == D("0.51") + D("1.62") + D("0.79") + D(peak + 2**30) / 10**9


def test_a_context_not_a_whole_number_of_blocks_takes_one_block_more():
    memory = serving.serving_memory(LLAMA_8B, serving.ServingSetup(context=8193), card_gb=H100)
    # 31,085 usable blocks, 513 per request of 8,193 tokens.
    assert memory.max_concurrent_requests == 31_085 // 513 == 60
    assert serving.blocks_for(8193) == 513 and serving.blocks_for(8192) == 512


def test_the_scheduler_defaults_change_at_exactly_160_and_70_gib():
    gib = 2**30
    assert serving.scheduler_defaults(D(160 * gib), ampere=False).max_num_batched_tokens == 16384
    assert serving.scheduler_defaults(D(160 * gib - 1), ampere=False).max_num_batched_tokens == 8192
    assert serving.scheduler_defaults(D(70 * gib), ampere=False).max_num_batched_tokens == 8192
    assert serving.scheduler_defaults(D(70 * gib - 1), ampere=False).max_num_batched_tokens == 2048
    # An A100 80GB gets the small defaults: 256 sequences, so the sampler's peak is smaller.
    a100 = serving.serving_memory(LLAMA_8B, serving.ServingSetup(), card_gb=A100, ampere=True)
    assert a100.max_num_seqs == 256
    assert a100.activation_peak_gb == D(256 * 128256 * 10) / 10**9


def test_fixes_offer_an_fp8_cache_and_fewer_gpus_where_heads_do_not_split():
    long_fp8 = serving.ServingSetup(weights=serving.FP8, context=40000)
    assert serving.fixes(LLAMA_70B, long_fp8, card_gb=H100) == [
        serving.Fix("--max-model-len", "23104"),
        serving.Fix("--kv-cache-dtype", "fp8"),
        serving.Fix("--tensor-parallel-size", "2"),
        serving.Fix("weights", "awq"),
    ]
    # Already fp8: the cache is not offered again.
    both = serving.ServingSetup(weights=serving.FP8, kv_cache_dtype="fp8", context=80000)
    assert serving.Fix("--kv-cache-dtype", "fp8") not in serving.fixes(
        LLAMA_70B, both, card_gb=H100
    )
    eight = serving.ServingSetup(tensor_parallel_size=8)
    assert serving.fixes(QWEN_7B, eight, card_gb=H100) == [
        serving.Fix("--tensor-parallel-size", "4")
    ]
    awq_on_four = serving.ServingSetup(weights=serving.AWQ, tensor_parallel_size=4)
    assert serving.fixes(QWEN_72B, awq_on_four, card_gb=H100) == [
        serving.Fix("--tensor-parallel-size", "1")
    ]


def test_tied_embeddings_are_one_table():
    llama_1b = Architecture(2048, 16, 32, 8, 8192, 128256, tie_word_embeddings=True)
    untied = Architecture(2048, 16, 32, 8, 8192, 128256)
    setup = serving.ServingSetup()
    difference = serving.weights_bytes_per_gpu(untied, setup) - serving.weights_bytes_per_gpu(
        llama_1b, setup
    )
    assert difference == 128256 * 2048 * 2


def test_two_gpus_are_named_in_the_command():
    setup = serving.ServingSetup(tensor_parallel_size=2)
    assert serving.vllm_serve_command("m/n", setup) == [
        "vllm", "serve", "m/n", "--max-model-len", "8192", "--tensor-parallel-size", "2",
    ]  # fmt: skip


def test_refused_setups_say_why():
    with pytest.raises(serving.ServingError, match="^kv_cache_dtype must be one of auto, fp8$"):
        serving.ServingSetup(kv_cache_dtype="int4")
    with pytest.raises(
        serving.ServingError, match="^gpu_memory_utilization must be above 0 and at most 1$"
    ):
        serving.ServingSetup(gpu_memory_utilization=D(0))
    with pytest.raises(
        serving.ServingError, match="^context and tensor_parallel_size must be at least 1$"
    ):
        serving.ServingSetup(tensor_parallel_size=0)
    assert serving.ServingSetup(context=1).context == 1


def test_fixes_budget_an_a100_as_an_a100():
    """Its smaller scheduler leaves more for the cache: the shorter context it offers is the
    A100's own."""
    setup = serving.ServingSetup(weights=serving.FP8, context=131072)
    a100 = serving.serving_memory(LLAMA_70B, setup, card_gb=A100, ampere=True)
    assert a100.kv_tokens == 28_848
    assert serving.fixes(LLAMA_70B, setup, card_gb=A100, ampere=True)[0] == serving.Fix(
        "--max-model-len", "28848"
    )
    hopper_like = serving.serving_memory(LLAMA_70B, setup, card_gb=A100)
    assert hopper_like.kv_tokens < 28_848
