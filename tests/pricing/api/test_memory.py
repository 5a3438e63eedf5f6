"""GET /api/v1/memory/: the estimate by model or by architecture, and every refusal."""

from decimal import Decimal as D

import pytest

from guides.models import Guide
from pricing.domain import training_memory
from pricing.models import LanguageModel
from pricing.schemas import (
    METHOD_CHOICES,
    NOT_A_SLUG,
    NOT_A_WHOLE_NUMBER,
    NOT_TRUE_OR_FALSE,
    NOT_WITH_MODEL,
    REPEATED_PARAMETER,
    REQUIRED,
    REQUIRED_WITHOUT_MODEL,
    UNKNOWN_PARAMETER,
)
from tests.conftest import GUIDE_SLUG

URL = "/api/v1/memory/"
LLAMA_70B = {
    "hidden_size": "8192",
    "num_hidden_layers": "80",
    "num_attention_heads": "64",
    "num_key_value_heads": "8",
    "intermediate_size": "28672",
    "vocab_size": "128256",
}
QLORA_2048 = {"method": "qlora", "seq_len": "2048"}
ARCHITECTURE_PARAMETERS = [
    *LLAMA_70B,
    "tie_word_embeddings",
    "head_dim",
    "num_local_experts",
    "num_experts_per_tok",
]
RUN_PARAMETERS = ["method", "seq_len", "batch_size", "gradient_checkpointing", "lora_rank"]
ALL_PARAMETERS = [
    "model",
    *ARCHITECTURE_PARAMETERS,
    *RUN_PARAMETERS,
    "num_gpus",
    "recipe",
    "cpu_offload",
]


def _gb(value: D) -> float:
    return float(value.quantize(D("0.001")))


def _errors(response, status: int = 400) -> dict[str, str]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json; charset=utf-8"
    return response.json()["errors"]


@pytest.mark.django_db
def test_the_70b_qlora_answer_by_model_equals_by_architecture_and_the_estimate(client):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    setup = guide.training_setup("qlora")
    assumptions = {
        "method": "qlora",
        "seq_len": str(guide.seq_len),
        "batch_size": str(guide.micro_batch_size),
        "gradient_checkpointing": str(guide.gradient_checkpointing).lower(),
        "lora_rank": str(guide.lora_rank),
    }
    by_model = client.get(URL, {"model": "llama-3.1-70b", **assumptions})
    by_architecture = client.get(URL, {**LLAMA_70B, **assumptions})
    assert by_model.status_code == by_architecture.status_code == 200
    expected = training_memory.estimate_peak_memory(guide.language_model.architecture, setup)

    answer = by_model.json()
    # the trl recipe by default: derived, not measured, and said so
    assert answer["peak_gb"] == 45.094 == _gb(expected.peak_gb)
    assert answer["reserved_gb"] == 46.775 == _gb(expected.reserved_gb)
    assert answer["breakdown"] == {k: _gb(v) for k, v in expected.breakdown().items()}
    assert answer["moment"] == expected.moment == "backward pass through a layer"
    assert (answer["recipe"], answer["basis"]) == ("trl", "derived, not measured")
    assert (answer["parameters"], answer["trainable_parameters"]) == (70_553_706_496, 207_093_760)
    assert answer["assumptions"] == list(expected.assumptions)
    assert answer["inputs"] == {
        "model": "llama-3.1-70b",
        **{name: int(value) for name, value in LLAMA_70B.items()},
        "tie_word_embeddings": False,
        "head_dim": 128,
        "num_local_experts": None,
        "num_experts_per_tok": None,
        "method": "qlora",
        "seq_len": 2048,
        "batch_size": 1,
        "gradient_checkpointing": True,
        "lora_rank": 16,
        "num_gpus": 1,
        "recipe": "trl",
        "cpu_offload": False,
    }
    assert by_architecture.json() == {**answer, "inputs": {**answer["inputs"], "model": None}}


@pytest.mark.parametrize("method", list(training_memory.Method))
def test_every_method_and_setting_reaches_the_estimate(client, method):
    query = {
        **LLAMA_70B,
        "tie_word_embeddings": "true",
        "method": method.value,
        "seq_len": "4096",
        "batch_size": "2",
        "gradient_checkpointing": "false",
        "lora_rank": "64",
        "num_gpus": "8",
    }
    architecture = training_memory.Architecture(
        **{name: int(value) for name, value in LLAMA_70B.items()}, tie_word_embeddings=True
    )
    setup = training_memory.TrainingSetup(method, 4096, 2, False, 64, 8)
    expected = training_memory.estimate_peak_memory(architecture, setup)

    answer = client.get(URL, query).json()

    assert answer["peak_gb"] == _gb(expected.peak_gb)
    assert answer["breakdown"] == {k: _gb(v) for k, v in expected.breakdown().items()}
    assert answer["assumptions"] == list(expected.assumptions)
    assert answer["inputs"]["tie_word_embeddings"] is True
    assert answer["inputs"]["gradient_checkpointing"] is False


@pytest.mark.parametrize("extreme", ["smallest", "largest"])
@pytest.mark.parametrize("method", list(training_memory.Method))
def test_the_bounds_themselves_are_answered(client, method, extreme):
    largest = {
        **dict.fromkeys(LLAMA_70B, "1000000"),
        "vocab_size": "10000000",
        "seq_len": "1048576",
        "batch_size": "1024",
        "lora_rank": "4096",
        "num_gpus": "4096",
    }
    numbers = largest if extreme == "largest" else dict.fromkeys(largest, "1")
    for checkpointing in ("true", "false"):
        query = {**numbers, "method": method.value, "gradient_checkpointing": checkpointing}
        response = client.get(URL, query)
        assert response.status_code == 200, response.content
        assert response.json()["peak_gb"] > 0


def test_numbers_are_json_numbers_rounded_half_up_to_three_decimals(client):
    body = client.get(URL, {**LLAMA_70B, **QLORA_2048}).content.decode()
    assert '"peak_gb": 45.094,' in body
    assert '"workspace": 0.067}' in body  # 0.067108864 GB of cuBLAS workspace


def test_an_answer_from_the_architecture_is_cacheable_for_an_hour(client):
    response = client.get(URL, {**LLAMA_70B, **QLORA_2048})
    assert response["Cache-Control"] == "public, max-age=3600"


@pytest.mark.django_db
def test_an_answer_for_a_model_on_file_is_revalidated_every_time(client):
    response = client.get(URL, {"model": "llama-3.1-70b", **QLORA_2048})
    assert response["Cache-Control"] == "no-cache"


@pytest.mark.parametrize(
    ("changes", "parameter", "why"),
    [
        ({"seq_len": "0"}, "seq_len", "must be at least 1"),
        ({"seq_len": "1048577"}, "seq_len", "must be at most 1,048,576"),
        ({"batch_size": "1025"}, "batch_size", "must be at most 1,024"),
        ({"lora_rank": "4097"}, "lora_rank", "must be at most 4,096"),
        ({"num_gpus": "0"}, "num_gpus", "must be at least 1"),
        ({"num_gpus": "4097"}, "num_gpus", "must be at most 4,096"),
        ({"hidden_size": "1000001"}, "hidden_size", "must be at most 1,000,000"),
        ({"num_hidden_layers": "0"}, "num_hidden_layers", "must be at least 1"),
        ({"intermediate_size": "1000001"}, "intermediate_size", "must be at most 1,000,000"),
        ({"vocab_size": "10000001"}, "vocab_size", "must be at most 10,000,000"),
        ({"method": "QLoRA"}, "method", METHOD_CHOICES),
        ({"method": ""}, "method", METHOD_CHOICES),
        ({"method": None}, "method", REQUIRED),
        ({"seq_len": None}, "seq_len", REQUIRED),
        ({"vocab_size": None}, "vocab_size", REQUIRED_WITHOUT_MODEL),
        ({"seq_len": "1_000"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "２０４８"}, "seq_len", NOT_A_WHOLE_NUMBER),  # fullwidth digits
        ({"seq_len": "٢٠٤٨"}, "seq_len", NOT_A_WHOLE_NUMBER),  # Arabic-Indic digits
        ({"seq_len": "+2048"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": " 2048"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "2048\n"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "2048.0"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "-1"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "2e3"}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": ""}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"seq_len": "9" * 5000}, "seq_len", NOT_A_WHOLE_NUMBER),
        ({"gradient_checkpointing": "yes"}, "gradient_checkpointing", NOT_TRUE_OR_FALSE),
        ({"gradient_checkpointing": "1"}, "gradient_checkpointing", NOT_TRUE_OR_FALSE),
        ({"gradient_checkpointing": "True"}, "gradient_checkpointing", NOT_TRUE_OR_FALSE),
        ({"tie_word_embeddings": "0"}, "tie_word_embeddings", NOT_TRUE_OR_FALSE),
        (
            {"num_attention_heads": "3"},
            "hidden_size",
            "must be a multiple of num_attention_heads (or give head_dim)",
        ),
        (
            {"num_key_value_heads": "7"},
            "num_attention_heads",
            "must be a multiple of num_key_value_heads",
        ),
    ],
)
def test_a_bad_parameter_is_refused_by_name(client, changes, parameter, why):
    query = {**LLAMA_70B, **QLORA_2048, **changes}
    response = client.get(URL, {k: v for k, v in query.items() if v is not None})
    assert _errors(response) == {parameter: why}


def test_every_bad_parameter_is_named_at_once(client):
    query = {**LLAMA_70B, "method": "sgd", "seq_len": "0", "lora_rank": "1_0"}
    assert _errors(client.get(URL, query)) == {
        "method": METHOD_CHOICES,
        "seq_len": "must be at least 1",
        "lora_rank": NOT_A_WHOLE_NUMBER,
    }


def test_without_model_each_missing_architecture_field_is_named(client):
    errors = _errors(client.get(URL, QLORA_2048))
    assert errors == dict.fromkeys(LLAMA_70B, REQUIRED_WITHOUT_MODEL)


def test_an_unknown_parameter_is_refused_by_name(client):
    errors = _errors(client.get(URL, {**LLAMA_70B, **QLORA_2048, "seqlen": "4096"}))
    assert list(errors) == ["seqlen"]
    assert errors["seqlen"].startswith(UNKNOWN_PARAMETER + " (known: model, hidden_size,")


def test_a_repeated_parameter_is_refused(client):
    response = client.get(URL, {**LLAMA_70B, "method": "qlora", "seq_len": ["2048", "4096"]})
    assert _errors(response) == {"seq_len": REPEATED_PARAMETER}


def test_model_and_architecture_fields_together_name_each_architecture_field(client):
    query = {"model": "llama-3.1-70b", "hidden_size": "8192", "tie_word_embeddings": "false"}
    errors = _errors(client.get(URL, {**query, **QLORA_2048}))
    assert errors == {"hidden_size": NOT_WITH_MODEL, "tie_word_embeddings": NOT_WITH_MODEL}


def test_a_malformed_model_slug_is_refused_without_a_lookup(client):
    errors = _errors(client.get(URL, {"model": "llama 70b", **QLORA_2048}))
    assert errors == {"model": f"{NOT_A_SLUG}, at most 50 characters"}


@pytest.mark.django_db
def test_an_unknown_model_is_a_404_naming_the_models_on_file(client):
    errors = _errors(client.get(URL, {"model": "llama-9", **QLORA_2048}), status=404)
    assert errors == {
        "model": "no language model 'llama-9' on file "
        "(known: llama-3.2-1b, llama-3.2-3b, mistral-7b, qwen-2.5-7b, llama-3.1-8b, "
        "qwen-2.5-32b, llama-3.1-70b, qwen-2.5-72b, llama-3.1-405b)"
    }


@pytest.mark.django_db
def test_an_inconsistent_architecture_on_file_is_refused_naming_the_model(client):
    LanguageModel.objects.filter(slug="llama-3.1-70b").update(hidden_size=8191)
    errors = _errors(client.get(URL, {"model": "llama-3.1-70b", **QLORA_2048}))
    assert errors == {
        "model": "the architecture on file is inconsistent: "
        "hidden_size must be a multiple of num_attention_heads (or give head_dim)"
    }


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_only_get_and_head_are_allowed(client, method):
    response = getattr(client, method)(URL)
    assert response.status_code == 405
    assert set(response["Allow"].split(", ")) == {"GET", "HEAD"}


def test_head_answers_like_get_without_a_body(client):
    response = client.head(URL, {**LLAMA_70B, **QLORA_2048})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Cache-Control"] == "public, max-age=3600"
    assert response.content == b""


def test_the_openapi_description_lists_every_parameter_and_its_bounds(client):
    spec = client.get("/api/v1/openapi.json").json()
    operations = spec["paths"][URL]
    assert list(operations) == ["get"]  # HEAD works but is not described twice
    parameters = {p["name"]: p for p in operations["get"]["parameters"]}
    assert list(parameters) == ALL_PARAMETERS
    assert {name for name, p in parameters.items() if p["required"]} == {"method", "seq_len"}
    assert parameters["method"]["schema"]["enum"] == [m.value for m in training_memory.Method]
    assert parameters["seq_len"]["schema"]["maximum"] == 1_048_576
    assert set(operations["get"]["responses"]) == {"200", "400", "404"}


def test_the_docs_page_loads_swagger_ui_from_our_static_files(client):
    page = client.get("/api/v1/docs").content.decode()
    assert '<script src="/static/ninja/swagger-ui-bundle.js">' in page
    assert "https://" not in page and "http://" not in page
    assert '"validatorUrl": null' in page


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["llama-3.2-1b", "qwen-2.5-32b", "mistral-7b"])
def test_a_seeded_models_dotted_slug_answers_with_its_architecture(client, slug):
    model = LanguageModel.objects.get(slug=slug)
    response = client.get(URL, {"model": slug, **QLORA_2048})
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["inputs"]["model"] == slug
    assert answer["inputs"]["num_hidden_layers"] == model.layers
    assert answer["inputs"]["tie_word_embeddings"] is model.tie_word_embeddings
    setup = training_memory.TrainingSetup(method=training_memory.Method.QLORA, seq_len=2048)
    expected = training_memory.estimate_peak_memory(model.architecture, setup)
    assert answer["peak_gb"] == _gb(expected.peak_gb)


def test_the_measured_recipe_answers_the_measured_runs_figure_and_says_so(client):
    answer = client.get(URL, {**LLAMA_70B, **QLORA_2048, "recipe": "measured"}).json()
    # measured on the H200: 56.325 GB; the estimate of that recipe, 57.514
    assert (answer["peak_gb"], answer["recipe"], answer["basis"]) == (
        57.514,
        "measured",
        "measured",
    )
    assert answer["moment"] == "backward pass through a layer"


@pytest.mark.django_db
def test_fused_attention_keeps_no_term_that_grows_with_the_square_of_the_sequence(client):
    """trl's QLoRA at 32,768 tokens on Llama 3.1 8B: under LoRA's, as a bf16 run is; the measured
    recipe's fp32 attention materialises 32 x 32,768^2 scores a layer (541 GB)."""
    llama_8b = {"model": "llama-3.1-8b", "seq_len": "32768"}
    qlora = client.get(URL, {**llama_8b, "method": "qlora"}).json()
    lora = client.get(URL, {**llama_8b, "method": "lora"}).json()
    fp32 = client.get(URL, {**llama_8b, "method": "qlora", "recipe": "measured"}).json()
    assert (qlora["peak_gb"], lora["peak_gb"], fp32["peak_gb"]) == (23.664, 34.159, 541.088)


GEMMA_2_9B = {
    "hidden_size": "3584",
    "num_hidden_layers": "42",
    "num_attention_heads": "16",
    "num_key_value_heads": "8",
    "head_dim": "256",
    "intermediate_size": "14336",
    "vocab_size": "256000",
    "tie_word_embeddings": "true",
}
MIXTRAL_8X7B = {
    "hidden_size": "4096",
    "num_hidden_layers": "32",
    "num_attention_heads": "32",
    "num_key_value_heads": "8",
    "intermediate_size": "14336",
    "vocab_size": "32000",
    "num_local_experts": "8",
    "num_experts_per_tok": "2",
}


def test_a_stated_head_dim_counts_the_attention_projections_at_their_width(client):
    answer = client.get(URL, {**GEMMA_2_9B, **QLORA_2048}).json()
    # Gemma 2 9B's published 9,241,705,984 less its two extra norms a layer (42 x 2 x 3,584)
    assert answer["parameters"] == 9_241_404_928
    assert answer["inputs"]["head_dim"] == 256
    without = client.get(URL, {**GEMMA_2_9B, "head_dim": "224", **QLORA_2048}).json()
    # per layer, q and o 512 wider (16 x 32) and k and v 256 (8 x 32), each h = 3,584 deep
    assert answer["parameters"] - without["parameters"] == 42 * 3584 * (2 * 512 + 2 * 256)


def test_a_mixture_of_experts_is_counted_with_every_expert(client):
    answer = client.get(URL, {**MIXTRAL_8X7B, **QLORA_2048}).json()
    assert answer["parameters"] == 46_702_792_704  # Mixtral 8x7B as published
    assert answer["inputs"]["num_local_experts"] == 8
    assert "Mixture of experts: 8 experts per layer" in " ".join(answer["assumptions"])
    experts = ("num_local_experts", "num_experts_per_tok")
    dense = {k: v for k, v in MIXTRAL_8X7B.items() if k not in experts}  # Mistral 7B's shape
    dense_answer = client.get(URL, {**dense, **QLORA_2048}).json()
    assert answer["breakdown"]["weights"] > 4 * dense_answer["breakdown"]["weights"]


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"recipe": "deepspeed"}, {"recipe": "must be one of trl, measured"}),
        ({"cpu_offload": "yes"}, {"cpu_offload": "must be true or false"}),
        (
            {"num_local_experts": "8"},
            {"num_experts_per_tok": "must be given with num_local_experts (both or neither)"},
        ),
        (
            {"num_local_experts": "2", "num_experts_per_tok": "3"},
            {"num_experts_per_tok": "must be at most num_local_experts"},
        ),
        ({"head_dim": "0"}, {"head_dim": "must be at least 1"}),
    ],
)
def test_recipes_head_sizes_and_experts_are_checked(client, changes, errors):
    assert _errors(client.get(URL, {**LLAMA_70B, **QLORA_2048, **changes})) == errors


@pytest.mark.django_db
def test_architecture_fields_cannot_be_given_with_a_model(client):
    query = {"model": "llama-3.1-8b", **QLORA_2048, "head_dim": "128", "num_local_experts": "8"}
    assert _errors(client.get(URL, query)) == {
        "head_dim": "cannot be combined with model: give either model or the architecture fields",
        "num_local_experts": "cannot be combined with model: give either model or the "
        "architecture fields",
    }
