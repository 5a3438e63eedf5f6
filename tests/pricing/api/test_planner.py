"""GET /api/v1/gpus/, /fit/, /cost/ and /prices/<gpu>/: figures, as_of, refusals, caching,
CORS and the OpenAPI description, each answer validated against that description."""

from datetime import date
from decimal import Decimal as D

import pytest

from gpuguide.lib import api_caching
from pricing.domain import training_memory
from pricing.models import LanguageModel, Provider
from pricing.planning import NO_HOUSE_PROVIDER
from pricing.schemas import (
    COUNT_CHOICES,
    IN_THE_FUTURE,
    METHOD_CHOICES,
    NOT_A_WHOLE_NUMBER,
    NOT_HOURS,
    NOT_TRUE_OR_FALSE,
    REPEATED_PARAMETER,
    REQUIRED,
    UNKNOWN_PARAMETER,
    slug_message,
)
from pricing.services import price_check_record
from tests.conftest import SEED_DAY
from tests.pricing.api.openapi import assert_described, description

GPUS, FIT, COST = "/api/v1/gpus/", "/api/v1/fit/", "/api/v1/cost/"
MEMORY = "/api/v1/memory/"
PRICES = "/api/v1/prices/{gpu}/"
QLORA_70B = {"model": "llama-3.1-70b", "method": "qlora"}
SEED = SEED_DAY.isoformat()
TODAY = "2026-11-29"
LATER = date(2026, 11, 5)  # a check recorded after the seed's
BAD_DAY = "date must be a real calendar day written YYYY-MM-DD, got '{}'"
SLUG_LIMIT = ", at most 50 characters"

A100 = {
    "slug": "a100-80gb", "name": "A100 80GB", "vendor": "NVIDIA",
    "memory_gb": 80.0, "reported_memory_gb": 84.98, "usable_memory_gb": 84.47,
    "host_memory_gb_per_gpu": 250.0, "bandwidth_gb_s": 2039.0,
    "bf16_dense_tflops": 312.0, "form_factor": "sxm", "rentable": True,
    "usd_per_gpu_hour": 0.92, "checked_on": SEED,
}  # fmt: skip
# 70B QLoRA at 2,048 tokens by the trl recipe: the rule plans 52.5 GB; the estimate's peak is
# 45.094 GB, 46.775 GB with the allocator's margin, against what one process can use: the
# total PyTorch reports less the CUDA context (0.51 GB), 84.98 - 0.51 = 84.47 GB on an A100
# 80GB and 47.69 - 0.51 = 47.18 GB on an L40S, which holds it by 0.405 GB where the rule's
# 52.5 GB says it does not.
FIT_1X_A100 = {
    "gpu": "a100-80gb", "gpu_name": "A100 80GB", "count": 1, "total_memory_gb": 80.0,
    "by_rule": {"fits": True, "headroom_gb": 27.5},
    "by_estimate": {"peak_gb_per_gpu": 45.094, "reserved_gb_per_gpu": 46.775,
                    "usable_gb_per_gpu": 84.47, "fits": True, "headroom_gb_per_gpu": 37.695,
                    "host_memory_gb": 250.0, "fits_on_host": True},
    "usd_per_gpu_hour": 0.92, "usd_per_hour": 0.92, "checked_on": SEED,
}  # fmt: skip
FIT_1X_L40S = {
    "gpu": "l40s", "gpu_name": "L40S", "count": 1, "total_memory_gb": 48.0,
    "by_rule": {"fits": False, "headroom_gb": -4.5},
    "by_estimate": {"peak_gb_per_gpu": 45.094, "reserved_gb_per_gpu": 46.775,
                    "usable_gb_per_gpu": 47.18, "fits": True, "headroom_gb_per_gpu": 0.405,
                    "host_memory_gb": 206.1, "fits_on_host": True},
    "usd_per_gpu_hour": 0.82, "usd_per_hour": 0.82, "checked_on": SEED,
}  # fmt: skip
RENTED = ["l40s", "a100-80gb", "h100", "h200", "b200"]


def _ok(response, path: str) -> dict:
    assert response.status_code == 200, response.content
    assert_described(response, path)
    return response.json()


def _errors(response, path: str, status: int = 400) -> dict[str, str]:
    assert response.status_code == status, response.content
    assert_described(response, path)
    assert "ETag" not in response and "Cache-Control" not in response
    return response.json()["errors"]


def _record_later_check() -> None:
    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=LATER, prices={"a100-80gb": D("0.95")}
    )


# --- /gpus/ -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_gpu_with_its_specs_and_our_seeded_price(client):
    response = client.get(GPUS)
    answer = _ok(response, GPUS)
    assert (answer["provider"], answer["as_of"]) == ("gpuwithcrypto", TODAY)
    gpus = {gpu["slug"]: gpu for gpu in answer["gpus"]}
    assert list(gpus) == [*RENTED, "rtx-4090"]
    assert gpus["a100-80gb"] == A100
    # Not rented: no price and no check date, whatever the specs.
    assert (gpus["rtx-4090"]["rentable"], gpus["rtx-4090"]["usd_per_gpu_hour"]) == (False, None)
    assert (gpus["rtx-4090"]["checked_on"], gpus["rtx-4090"]["form_factor"]) == (None, "consumer")
    # as PyTorch reports it on the measured card, less the CUDA context
    assert (gpus["h200"]["reported_memory_gb"], gpus["h200"]["usable_memory_gb"]) == (150.11, 149.6)
    # the RTX 4090 as a cited report gives it; we do not rent it, so no host is recorded
    assert gpus["rtx-4090"]["reported_memory_gb"] == 25.38
    assert gpus["rtx-4090"]["host_memory_gb_per_gpu"] is None
    body = response.content.decode()
    assert '"usd_per_gpu_hour": 0.92, "checked_on": "2026-10-29"' in body  # numbers, not text
    assert response["Cache-Control"] == api_caching.CURRENT_ANSWER == "public, max-age=300"


@pytest.mark.django_db
def test_as_of_gives_prices_as_they_stood_after_that_days_checks(client):
    _record_later_check()
    now = {g["slug"]: g for g in _ok(client.get(GPUS), GPUS)["gpus"]}
    assert (now["a100-80gb"]["usd_per_gpu_hour"], now["a100-80gb"]["checked_on"]) == (
        0.95,
        LATER.isoformat(),
    )
    assert now["h100"]["checked_on"] == SEED  # the later check did not price it

    response = client.get(GPUS, {"as_of": SEED})
    then = _ok(response, GPUS)
    assert then["as_of"] == SEED
    assert next(g for g in then["gpus"] if g["slug"] == "a100-80gb") == A100
    assert response["Cache-Control"] == api_caching.PAST_ANSWER == "public, max-age=86400"
    today = client.get(GPUS, {"as_of": TODAY})
    assert today["Cache-Control"] == api_caching.CURRENT_ANSWER
    assert today.json()["gpus"] == _ok(client.get(GPUS), GPUS)["gpus"]

    history = _ok(client.get("/api/v1/prices/a100-80gb/"), PRICES)
    assert history == {
        "gpu": "a100-80gb", "provider": "gpuwithcrypto", "as_of": TODAY,
        "prices": [{"checked_on": SEED, "usd_per_gpu_hour": 0.92},
                   {"checked_on": LATER.isoformat(), "usd_per_gpu_hour": 0.95}],
    }  # fmt: skip
    before = _ok(client.get("/api/v1/prices/a100-80gb/", {"as_of": "2026-11-04"}), PRICES)
    assert before["prices"] == [{"checked_on": SEED, "usd_per_gpu_hour": 0.92}]

    cost = {"model": "llama-3.1-70b", "method": "qlora", "hours": "10", "gpu": "a100-80gb"}
    rows = _ok(client.get(COST, {**cost, "count": "1", "as_of": SEED}), COST)["rows"]
    assert [(r["usd_per_gpu_hour"], r["cost_usd"]) for r in rows] == [(0.92, 9.2)]
    rows = _ok(client.get(COST, {**cost, "count": "1"}), COST)["rows"]
    assert [(r["usd_per_gpu_hour"], r["cost_usd"]) for r in rows] == [(0.95, 9.5)]


@pytest.mark.django_db
def test_a_day_before_any_check_is_answered_with_no_prices(client):
    day = "2026-10-28"
    gpus = _ok(client.get(GPUS, {"as_of": day}), GPUS)["gpus"]
    assert {(g["usd_per_gpu_hour"], g["checked_on"]) for g in gpus} == {(None, None)}
    assert gpus[1]["memory_gb"] == 80.0  # the specs are still there
    history = _ok(client.get("/api/v1/prices/h100/", {"as_of": day}), PRICES)
    assert (history["as_of"], history["prices"]) == (day, [])
    fits = _ok(client.get(FIT, {**QLORA_70B, "as_of": day}), FIT)["configurations"]
    assert {(c["usd_per_hour"], c["checked_on"]) for c in fits} == {(None, None)}
    rows = _ok(client.get(COST, {**QLORA_70B, "hours": "10", "as_of": day}), COST)["rows"]
    assert {(r["cost_usd"], r["block_cost_usd"]) for r in rows} == {(None, None)}
    assert rows[0]["block_hours"] == 10  # 1x L40S for 10 hours: the block is still known


# --- /fit/ --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_70b_qlora_fits_by_rule_and_by_estimate_on_each_configuration_we_rent(client):
    response = client.get(FIT, QLORA_70B)
    answer = _ok(response, FIT)
    assert {k: v for k, v in answer.items() if k != "configurations"} == {
        "model": "llama-3.1-70b", "method": "qlora", "provider": "gpuwithcrypto",
        "as_of": TODAY,
        "run": {"seq_len": 2048, "batch_size": 1, "gradient_checkpointing": True, "lora_rank": 16,
                "recipe": "trl", "cpu_offload": False, "basis": "derived, not measured"},
        "rule": {"planning_gb": 52.5, "sources": ["qlora-paper"]},
    }  # fmt: skip
    rows = {(c["gpu"], c["count"]): c for c in answer["configurations"]}
    assert list(rows) == [(gpu, count) for gpu in RENTED for count in (1, 2, 4, 8)]
    assert rows["a100-80gb", 1] == FIT_1X_A100
    assert rows["l40s", 1] == FIT_1X_L40S
    # Sharded over two L40S the run fits each card; the rule agrees for the pair's 96 GB.
    assert rows["l40s", 2]["by_estimate"]["fits"] and rows["l40s", 2]["by_rule"]["fits"]
    assert rows["b200", 8]["usd_per_hour"] == 36.88
    assert response["Cache-Control"] == api_caching.CURRENT_ANSWER


@pytest.mark.django_db
def test_cpu_offload_is_refused_where_the_host_cannot_hold_it(client):
    """405B full fine-tuning with offload keeps 16 bytes a parameter on the host, 6.49 TB: the
    GPUs hold their step, no host we rent (2 TB at most, 250 GB a GPU) holds the rest."""
    query = {
        "model": "llama-3.1-405b", "method": "full-adamw", "cpu_offload": "true", "seq_len": "2048"
    }  # fmt: skip
    memory = _ok(client.get(MEMORY, query), MEMORY)
    assert memory["host_memory_gb"] == 6493.654 == round(16 * memory["parameters"] / 1e9, 3)
    rows = {(c["gpu"], c["count"]): c for c in _ok(client.get(FIT, query), FIT)["configurations"]}
    eight_b200 = rows["b200", 8]["by_estimate"]
    assert eight_b200["headroom_gb_per_gpu"] > 0  # the cards would hold their share
    assert (eight_b200["host_memory_gb"], eight_b200["fits_on_host"]) == (2000.0, False)
    assert not any(row["by_estimate"]["fits"] for row in rows.values())
    # 70B LoRA with offload keeps its bf16 base (141 GB) and the adapters' state: one H100's
    # 250 GB share of its host holds it
    lora = {"model": "llama-3.1-70b", "method": "lora", "cpu_offload": "true", "seq_len": "2048"}
    assert _ok(client.get(MEMORY, lora), MEMORY)["host_memory_gb"] == 144.421
    rows = {(c["gpu"], c["count"]): c for c in _ok(client.get(FIT, lora), FIT)["configurations"]}
    assert rows["h100", 1]["by_estimate"]["fits_on_host"]


@pytest.mark.django_db
def test_the_runs_shape_reaches_the_estimate_for_each_gpu_count(client):
    query = {**QLORA_70B, "method": "lora", "seq_len": "4096", "batch_size": "2",
             "gradient_checkpointing": "false", "lora_rank": "64"}  # fmt: skip
    answer = _ok(client.get(FIT, query), FIT)
    architecture = LanguageModel.objects.get(slug="llama-3.1-70b").architecture
    for row in answer["configurations"][:4]:
        setup = training_memory.TrainingSetup(
            training_memory.Method.LORA, 4096, 2, False, 64, num_gpus=row["count"]
        )
        peak = training_memory.estimate_peak_memory(architecture, setup).peak_gb
        assert row["by_estimate"]["peak_gb_per_gpu"] == float(peak.quantize(D("0.001")))
    assert answer["run"] == {
        "seq_len": 4096, "batch_size": 2, "gradient_checkpointing": False, "lora_rank": 64,
        "recipe": "trl", "cpu_offload": False, "basis": "derived, not measured",
    }  # fmt: skip
    assert answer["rule"] == {"planning_gb": 168.0, "sources": ["hf-memory-anatomy"]}


# --- /cost/ -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_cost_of_a_run_on_each_configuration_that_fits_it(client):
    response = client.get(COST, {**QLORA_70B, "hours": "10"})
    answer = _ok(response, COST)
    assert (answer["hours"], answer["blocks"], answer["as_of"]) == (10.0, [10, 24, 168, 720], TODAY)
    rows = {(r["gpu"], r["count"]): r for r in answer["rows"]}
    # 46.8 GB fits its 47.2 usable GB, though not the rule's 52.5 in its 48
    assert rows["l40s", 1]["fits_by_rule"] is False
    assert (answer["training_tokens"], answer["epochs"]) == (None, None)
    assert rows["a100-80gb", 1] == {
        "gpu": "a100-80gb", "gpu_name": "A100 80GB", "count": 1, "tokens_per_s": None,
        "hours": 10.0, "time_basis": "assumed", "gpu_hours": 10.0,
        "usd_per_gpu_hour": 0.92, "usd_per_hour": 0.92, "cost_usd": 9.2, "usd_per_run": 9.2,
        "block_hours": 10, "block_cost_usd": 9.2, "fits_by_rule": True, "checked_on": SEED,
        "hours_low": None, "hours_high": None,  # assumed hours have no range
        "usd_per_run_low": None, "usd_per_run_high": None,
    }  # fmt: skip
    assert len(rows) == 20

    one = _ok(client.get(COST, {**QLORA_70B, "hours": "12.5", "gpu": "h200", "count": "2"}), COST)
    assert [(r["gpu_hours"], r["cost_usd"], r["block_hours"], r["block_cost_usd"])
            for r in one["rows"]] == [(25.0, 76.75, 168, 515.76)]  # fmt: skip
    lora_70b = {**QLORA_70B, "method": "lora"}  # 149.3 GB reserved against 47.2 usable
    too_small = client.get(COST, {**lora_70b, "hours": "1", "gpu": "l40s", "count": "1"})
    assert _ok(too_small, COST)["rows"] == []


@pytest.mark.django_db
def test_the_cost_of_a_training_budget_at_each_configurations_speed(client):
    budget = {**QLORA_70B, "training_tokens": "50000000", "epochs": "2"}
    answer = _ok(client.get(COST, budget), COST)
    assert (answer["hours"], answer["training_tokens"], answer["epochs"]) == (None, 50_000_000, 2)
    rows = {(r["gpu"], r["count"]): r for r in answer["rows"]}
    # 100 million tokens at 266 a second: 104.4 hours, $96.07 at $0.92 (from the 104.43 h); its
    # range 0.644 to 1.494 times (QLoRA's band widened by Ampere's card error): 67.2 to 156 h
    assert rows["a100-80gb", 1] == {
        "gpu": "a100-80gb", "gpu_name": "A100 80GB", "count": 1, "tokens_per_s": 266.0,
        "hours": 104.4, "time_basis": "derived", "gpu_hours": 104.4,
        "usd_per_gpu_hour": 0.92, "usd_per_hour": 0.92, "cost_usd": 96.07,
        "usd_per_run": 96.07, "block_hours": 168, "block_cost_usd": 154.56,
        "fits_by_rule": True, "checked_on": SEED,
        "hours_low": 67.2, "hours_high": 156.0,
        "usd_per_run_low": 61.82, "usd_per_run_high": 143.51,
    }  # fmt: skip
    default = _ok(client.get(COST, QLORA_70B), COST)  # neither: 100 million tokens, one epoch
    assert (default["training_tokens"], default["epochs"]) == (100_000_000, 1)
    assert default["rows"] == answer["rows"]


@pytest.mark.django_db
def test_a_run_timed_on_its_gpu_is_measured_there_and_derived_elsewhere(client):
    timed = {**QLORA_70B, "recipe": "measured", "gpu": "h200"}
    rows = {r["count"]: r for r in _ok(client.get(COST, timed), COST)["rows"]}
    assert (rows[1]["tokens_per_s"], rows[1]["time_basis"]) == (508.2, "measured")
    assert rows[1]["hours"] == 54.7  # 100 million / 508.2 / 3,600 = 54.66
    assert rows[1]["hours_low"] == rows[1]["hours_high"] == 54.7  # measured: no range
    assert rows[2]["time_basis"] == "derived"
    trl = {r["count"]: r for r in _ok(client.get(COST, {**timed, "recipe": "trl"}), COST)["rows"]}
    assert trl[1]["time_basis"] == "derived"  # the guides' recipe was never timed


# --- refusals -----------------------------------------------------------------------------

DAY_REFUSALS = [
    ("2026-02-30", BAD_DAY.format("2026-02-30")),
    ("2026-1-29", BAD_DAY.format("2026-1-29")),
    ("２０２６-11-29", BAD_DAY.format("２０２６-11-29")),
    ("20261129", BAD_DAY.format("20261129")),
    ("", BAD_DAY.format("")),
    ("1999-12-31", "date must be 2000-01-01 or later, got '1999-12-31'"),
    ("2026-11-30", f"{IN_THE_FUTURE} (today is 2026-11-29)"),
]
WHOLE, FLAG = NOT_A_WHOLE_NUMBER, NOT_TRUE_OR_FALSE
FUTURE = f"{IN_THE_FUTURE} (today is 2026-11-29)"
UNKNOWN = UNKNOWN_PARAMETER
FIT_NAMES = (
    "model, method, seq_len, batch_size, gradient_checkpointing, lora_rank, recipe, cpu_offload, "
    "as_of"
)
REFUSALS = [
    *[(GPUS, {"as_of": value}, {"as_of": why}) for value, why in DAY_REFUSALS],
    (GPUS, {"as_of": [SEED, SEED]}, {"as_of": REPEATED_PARAMETER}),
    (GPUS, {"asof": SEED}, {"asof": f"{UNKNOWN_PARAMETER} (known: as_of)"}),
    (FIT, {"method": "qlora"}, {"model": REQUIRED}),
    (FIT, {"model": "llama-3.1-70b"}, {"method": REQUIRED}),
    (FIT, {**QLORA_70B, "method": "QLoRA"}, {"method": METHOD_CHOICES}),
    (FIT, {**QLORA_70B, "model": "llama 70b"}, {"model": slug_message("model") + SLUG_LIMIT}),
    (FIT, {**QLORA_70B, "seq_len": "0"}, {"seq_len": "must be at least 1"}),
    (FIT, {**QLORA_70B, "seq_len": "2_048"}, {"seq_len": WHOLE}),
    (FIT, {**QLORA_70B, "batch_size": "1025"}, {"batch_size": "must be at most 1,024"}),
    (FIT, {**QLORA_70B, "gradient_checkpointing": "1"}, {"gradient_checkpointing": FLAG}),
    (FIT, {**QLORA_70B, "lora_rank": "+16"}, {"lora_rank": WHOLE}),
    (FIT, {**QLORA_70B, "as_of": "2026-11-30"}, {"as_of": FUTURE}),
    (FIT, {**QLORA_70B, "num_gpus": "2"}, {"num_gpus": f"{UNKNOWN} (known: {FIT_NAMES})"}),
    (COST, {**QLORA_70B, "hours": "1", "training_tokens": "1000000"},
     {"hours": "give hours or training_tokens (and epochs), not both"}),
    (COST, {**QLORA_70B, "hours": "1", "epochs": "2"},
     {"hours": "give hours or training_tokens (and epochs), not both"}),
    (COST, {**QLORA_70B, "training_tokens": "999"}, {"training_tokens": "must be at least 1000"}),
    (COST, {**QLORA_70B, "training_tokens": "1e9"}, {"training_tokens": WHOLE}),
    (COST, {**QLORA_70B, "epochs": "101"}, {"epochs": "must be at most 100"}),
    (COST, {**QLORA_70B, "hours": "0"}, {"hours": "must be at least 0.01"}),
    (COST, {**QLORA_70B, "hours": "0.00"}, {"hours": "must be at least 0.01"}),
    (COST, {**QLORA_70B, "hours": "8760.01"}, {"hours": "must be at most 8,760"}),
    (COST, {**QLORA_70B, "hours": "1.005"}, {"hours": NOT_HOURS}),
    (COST, {**QLORA_70B, "hours": "1e3"}, {"hours": NOT_HOURS}),
    (COST, {**QLORA_70B, "hours": "-1"}, {"hours": NOT_HOURS}),
    (COST, {**QLORA_70B, "hours": "10,5"}, {"hours": NOT_HOURS}),
    (COST, {**QLORA_70B, "hours": "NaN"}, {"hours": NOT_HOURS}),
    (COST, {**QLORA_70B, "hours": "1", "count": "3"}, {"count": COUNT_CHOICES}),
    (COST, {**QLORA_70B, "hours": "1", "count": "16"}, {"count": COUNT_CHOICES}),
    (COST, {**QLORA_70B, "hours": "1", "count": "two"}, {"count": WHOLE}),
    (COST, {**QLORA_70B, "hours": "1", "gpu": "H 100"}, {"gpu": slug_message("gpu") + SLUG_LIMIT}),
    (PRICES, {"provider": "a/b"}, {"provider": slug_message("provider") + SLUG_LIMIT}),
    (PRICES, {"as_of": "yesterday"}, {"as_of": BAD_DAY.format("yesterday")}),
    (PRICES, {"gpu": "h100"}, {"gpu": f"{UNKNOWN_PARAMETER} (known: provider, as_of)"}),
]  # fmt: skip


@pytest.mark.parametrize(("path", "query", "errors"), REFUSALS)
def test_a_bad_parameter_is_refused_by_name(client, path, query, errors):
    response = client.get(path.format(gpu="h100"), query)
    assert _errors(response, path) == errors


def test_every_bad_parameter_is_named_at_once(client):
    query = {"method": "sgd", "hours": "0", "count": "3", "as_of": "2026-13-01", "x": "1"}
    assert set(_errors(client.get(COST, query), COST)) == {
        "x", "model", "method", "hours", "count", "as_of"
    }  # fmt: skip


@pytest.mark.django_db
def test_what_is_not_on_file_is_a_404_naming_the_parameter(client):
    assert _errors(client.get(FIT, {**QLORA_70B, "model": "llama-9"}), FIT, 404) == {
        "model": "no language model 'llama-9' on file "
        "(known: llama-3.2-1b, llama-3.2-3b, mistral-7b, qwen-2.5-7b, llama-3.1-8b, "
        "qwen-2.5-32b, llama-3.1-70b, qwen-2.5-72b, llama-3.1-405b)"
    }
    query = {**QLORA_70B, "hours": "1"}
    assert _errors(client.get(COST, {**query, "gpu": "rtx-4090"}), COST, 404) == {
        "gpu": f"no GPU 'rtx-4090' that we rent (we rent: {', '.join(RENTED)})"
    }
    assert _errors(client.get("/api/v1/prices/h800/"), PRICES, 404) == {
        "gpu": "no GPU 'h800' on file (known: l40s, a100-80gb, h100, h200, b200, rtx-4090)"
    }
    response = client.get("/api/v1/prices/h100/", {"provider": "lambda"})
    assert _errors(response, PRICES, 404) == {
        "provider": "no provider 'lambda' on file "
        "(known: gpuwithcrypto, massed-compute, thunder-compute)"
    }
    Provider.objects.filter(is_house=True).update(is_house=False)
    assert _errors(client.get(GPUS), GPUS, 404) == {"provider": NO_HOUSE_PROVIDER}
    assert _errors(client.get("/api/v1/prices/h100/"), PRICES, 404) == {
        "provider": NO_HOUSE_PROVIDER
    }


@pytest.mark.django_db
def test_an_inconsistent_model_on_file_is_refused_naming_the_model(client):
    LanguageModel.objects.filter(slug="llama-3.1-70b").update(kv_heads=7)
    assert _errors(client.get(FIT, QLORA_70B), FIT) == {
        "model": "the architecture on file is inconsistent: "
        "num_attention_heads must be a multiple of num_key_value_heads"
    }


@pytest.mark.django_db
def test_another_providers_history_in_per_gpu_prices_to_4_decimals(client):
    price_check_record(provider_slug="massed-compute", checked_on=LATER,
                       prices={"b200": D("10.0000")}, gpus_in_quote={"b200": 3})  # fmt: skip
    answer = _ok(client.get("/api/v1/prices/b200/", {"provider": "massed-compute"}), PRICES)
    assert answer["prices"] == [
        {"checked_on": SEED, "usd_per_gpu_hour": 5.4325},  # $43.46 for 8
        {"checked_on": LATER.isoformat(), "usd_per_gpu_hour": 3.3333},  # $10 for 3
    ]


# --- HTTP: methods, ETag, CORS ------------------------------------------------------------


@pytest.mark.parametrize("path", [GPUS, FIT, COST, "/api/v1/prices/h100/"])
def test_only_get_and_head_are_allowed(client, path):
    response = client.post(path)
    assert response.status_code == 405
    assert set(response["Allow"].split(", ")) == {"GET", "HEAD"}


@pytest.mark.django_db
def test_an_answer_carries_an_etag_and_a_client_that_has_it_gets_a_304(client):
    first = client.get(GPUS)
    etag = first["ETag"]
    assert etag.startswith('"') and len(etag) == 34
    again = client.get(GPUS, headers={"If-None-Match": etag})
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", etag)
    assert again["Cache-Control"] == api_caching.CURRENT_ANSWER
    head = client.head(GPUS)
    assert (head.status_code, head.content, head["ETag"]) == (200, b"", etag)
    assert client.get(GPUS, headers={"If-None-Match": '"stale"'}).status_code == 200
    _record_later_check()
    changed = client.get(GPUS, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag
    past_etag = client.get(GPUS, {"as_of": SEED})["ETag"]
    past = client.get(GPUS, {"as_of": SEED}, headers={"If-None-Match": past_etag})
    assert (past.status_code, past["Cache-Control"]) == (304, api_caching.PAST_ANSWER)


def test_the_memory_answers_carry_an_etag_too(client):
    query = {"hidden_size": "4096", "num_hidden_layers": "32", "num_attention_heads": "32",
             "num_key_value_heads": "8", "intermediate_size": "14336", "vocab_size": "128256",
             "method": "lora", "seq_len": "512"}  # fmt: skip
    etag = client.get("/api/v1/memory/", query)["ETag"]
    assert client.get("/api/v1/memory/", query, headers={"If-None-Match": etag}).status_code == 304


@pytest.mark.django_db
def test_cors_allows_any_site_to_read_the_api_and_nothing_else(client):
    origin = {"Origin": "https://example.org"}
    refused = client.get(GPUS, {"as_of": "x"}, headers=origin)  # no database needed
    assert refused["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in refused
    preflight = client.options(COST, headers={**origin, "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    page = client.get("/en/", headers=origin)
    assert page.status_code == 200
    assert "Access-Control-Allow-Origin" not in page


# --- the OpenAPI description --------------------------------------------------------------


def test_the_openapi_description_lists_each_endpoint_its_parameters_and_answers():
    spec = description()
    assert spec["openapi"].startswith("3.1")
    expected = {
        GPUS: (["as_of"], set()),
        FIT: (["model", "method", "seq_len", "batch_size", "gradient_checkpointing",
               "lora_rank", "recipe", "cpu_offload", "as_of"], {"model", "method"}),
        COST: (["model", "method", "seq_len", "batch_size", "gradient_checkpointing",
                "lora_rank", "recipe", "cpu_offload", "as_of", "hours", "training_tokens",
                "epochs", "gpu", "count"],
               {"model", "method"}),
        PRICES: (["gpu", "provider", "as_of"], {"gpu"}),
    }  # fmt: skip
    for path, (names, required) in expected.items():
        operations = spec["paths"][path]
        assert list(operations) == ["get"], path
        parameters = {p["name"]: p for p in operations["get"]["parameters"]}
        assert list(parameters) == names, path
        assert {n for n, p in parameters.items() if p["required"]} == required, path
        assert set(operations["get"]["responses"]) == {"200", "400", "404"}, path
    cost = {p["name"]: p["schema"] for p in spec["paths"][COST]["get"]["parameters"]}
    assert cost["hours"] == {
        "anyOf": [{"type": "number", "minimum": 0.01, "maximum": 8760.0}, {"type": "null"}],
        "title": "Hours", "description": "Wall-clock hours of the run, at most 2 decimals, "
        "assumed on every configuration; instead of training_tokens.",
    }  # fmt: skip
    assert cost["count"]["anyOf"][0] == {"enum": [1, 2, 4, 8], "type": "integer"}
    assert cost["as_of"]["anyOf"][0] == {"format": "date", "type": "string"}
    assert cost["seq_len"]["default"] == 2048
