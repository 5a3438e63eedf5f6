from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from pricing import selectors
from pricing.domain import throughput
from pricing.models import Gpu, Price, PriceCheck, Provider, ThroughputMeasurement
from pricing.services import price_check_record
from tests.conftest import SEED_DAY


@pytest.fixture
def house(seeded) -> Provider:
    return selectors.house_provider()


def _prices(listings) -> dict[str, D]:
    return {g.slug: g.usd_per_gpu_hour for g in listings if g.usd_per_gpu_hour is not None}


def test_latest_prices_as_of_the_seed_day(house):
    listings = selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY)
    assert _prices(listings) == {
        "l40s": D("0.82"), "a100-80gb": D("0.92"), "h100": D("2.32"),
        "h200": D("3.07"), "b200": D("4.61"),
    }  # fmt: skip
    assert {g.checked_on for g in listings if g.usd_per_gpu_hour} == {SEED_DAY}


def test_a_newer_partial_check_moves_only_the_gpus_it_prices(house):
    later = SEED_DAY + timedelta(days=5)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=later, prices={"h100": D("2.10")})
    listings = {g.slug: g for g in selectors.gpu_listings_for_provider(provider=house, at=later)}
    assert listings["h100"].usd_per_gpu_hour == D("2.10")
    assert listings["h100"].checked_on == later
    assert listings["a100-80gb"].usd_per_gpu_hour == D("0.92")
    assert listings["a100-80gb"].checked_on == SEED_DAY
    # As of the seed day the newer check is invisible.
    before = _prices(selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY))
    assert before["h100"] == D("2.32")
    assert selectors.latest_check_dates(at=later) == {
        "gpuwithcrypto": later,
        "massed-compute": SEED_DAY,
        "thunder-compute": SEED_DAY,
    }
    assert selectors.latest_check_dates(at=later - timedelta(days=1))["gpuwithcrypto"] == SEED_DAY


def test_first_check_date_is_the_earliest_check_of_that_provider(house):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY + timedelta(days=1),
                       prices={"h100": D("2.10")})  # fmt: skip
    assert selectors.first_check_date(provider=house) == SEED_DAY
    price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY - timedelta(days=1),
                       prices={"h100": D("2.40")})  # fmt: skip
    assert selectors.first_check_date(provider=house) == SEED_DAY - timedelta(days=1)
    unchecked = Provider.objects.create(slug="unchecked", name="Unchecked")
    assert selectors.first_check_date(provider=unchecked) is None


def test_competitor_instance_prices_become_per_gpu_prices(seeded):
    massed = Provider.objects.get(slug="massed-compute")
    listings = _prices(selectors.gpu_listings_for_provider(provider=massed, at=SEED_DAY))
    assert listings == {"b200": D("5.4325")}


def test_price_lookup_takes_one_query_however_long_the_history(house, django_assert_num_queries):
    for days in range(1, 60):
        check = PriceCheck.objects.create(
            provider=house, checked_on=SEED_DAY - timedelta(days=days)
        )
        Price.objects.create(price_check=check, gpu_id=house.checks.first().prices.first().gpu_id,
                             quoted_usd_per_hour=D("1.00"))  # fmt: skip
    with django_assert_num_queries(1):
        selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY)
    with django_assert_num_queries(1):
        selectors.latest_check_dates(at=SEED_DAY)


def test_method_listings_load_in_three_queries(seeded, django_assert_num_queries):
    with django_assert_num_queries(3):
        methods = selectors.method_listings()
    assert [m.slug for m in methods] == ["qlora", "lora", "full-8bit-adam", "full-adamw"]
    assert methods[3].sources[0].publisher == "EleutherAI"


def a100_runs(house, **window) -> list[selectors.PriceRun]:
    a100 = Gpu.objects.get(slug="a100-80gb")
    return selectors.price_runs(providers=[house], **window)[house.slug][a100.pk]


def test_price_runs_are_oldest_first(house):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 1),
                       prices={"a100-80gb": D("0.95")})  # fmt: skip
    assert a100_runs(house) == [
        selectors.PriceRun(SEED_DAY, SEED_DAY, D("0.92")),
        selectors.PriceRun(date(2026, 11, 1), date(2026, 11, 1), D("0.95")),
    ]


def test_price_runs_keep_only_the_changes(house):
    """Daily checks at an unchanged price are one run (one step of the chart), not a point a
    day."""
    for day, price in ((3, "0.92"), (5, "0.92"), (7, "0.99"), (9, "0.99"), (11, "0.92")):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, day),
                           prices={"a100-80gb": D(price)})  # fmt: skip
    assert a100_runs(house) == [
        selectors.PriceRun(SEED_DAY, date(2026, 11, 5), D("0.92")),
        selectors.PriceRun(date(2026, 11, 7), date(2026, 11, 9), D("0.99")),
        selectors.PriceRun(date(2026, 11, 11), date(2026, 11, 11), D("0.92")),
    ]


def test_price_runs_of_one_gpu_in_one_query(house, django_assert_num_queries):
    long_ago = SEED_DAY - timedelta(days=400)  # before the charts' year
    for day in (long_ago, date(2026, 11, 2)):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=day,
                           prices={"a100-80gb": D("1.20"), "h100": D("3.00")})  # fmt: skip
    a100 = Gpu.objects.get(slug="a100-80gb").pk
    with django_assert_num_queries(1):
        runs = selectors.price_runs(providers=[house], gpu=a100)
    assert runs == {"gpuwithcrypto": {a100: [
        selectors.PriceRun(SEED_DAY, SEED_DAY, D("0.92")),
        selectors.PriceRun(date(2026, 11, 2), date(2026, 11, 2), D("1.20")),
    ]}}  # fmt: skip


def test_a_price_summary_keeps_first_latest_lowest_highest_and_the_latest_three(house):
    """Ours at the A100 80GB: $0.92 (Oct 29 to Nov 2), $0.99, $0.89, $0.95 (Nov 9 and 10)."""
    for day, price in ((2, "0.92"), (4, "0.99"), (7, "0.89"), (9, "0.95"), (10, "0.95")):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, day),
                           prices={"a100-80gb": D(price)})  # fmt: skip
    a100, Run = Gpu.objects.get(slug="a100-80gb").pk, selectors.PriceRun
    summary = selectors.price_summaries(providers=[house])["gpuwithcrypto"][a100]
    assert summary == selectors.PriceSummary(
        first=Run(SEED_DAY, date(2026, 11, 2), D("0.92")),
        latest=Run(date(2026, 11, 9), date(2026, 11, 10), D("0.95")),
        low=D("0.89"),
        high=D("0.99"),
        prices=4,
        recent=(Run(date(2026, 11, 4), date(2026, 11, 4), D("0.99")),
                Run(date(2026, 11, 7), date(2026, 11, 7), D("0.89")), summary.latest),
    )  # fmt: skip
    assert (summary.changes, summary.checked_once) == (3, False)
    h100 = selectors.price_summaries(providers=[house])["gpuwithcrypto"][
        Gpu.objects.get(slug="h100").pk
    ]
    assert (h100.prices, h100.changes, h100.checked_once) == (1, 0, True)
    as_of = selectors.price_summaries(providers=[house], at=date(2026, 11, 3))
    assert as_of["gpuwithcrypto"][a100].checked_once is False  # one price, checked twice


def test_a_listing_carries_the_gpus_specs_and_its_quote_as_recorded(seeded):
    massed = Provider.objects.get(slug="massed-compute")
    listings = selectors.gpu_listings_for_provider(provider=massed, at=SEED_DAY)
    b200 = next(g for g in listings if g.slug == "b200")
    assert b200 == selectors.GpuListing(
        pk=b200.pk, slug="b200", name="B200", vendor="NVIDIA", memory_gb=D("180.0"),
        bandwidth_gb_s=D("8000.0"), bf16_dense_tflops=D("2250.0"), form_factor="SXM",
        rentable=True, usd_per_gpu_hour=D("5.4325"), checked_on=SEED_DAY,
        quoted_usd_per_hour=D("43.4600"), gpus_in_quote=8, form_factor_code="sxm",
        link_gb_s=D("900.0"), generation="blackwell",
        measured_memory_gb=D("191.50"), host_memory_gb_per_gpu=D("250.0"),
    )  # fmt: skip
    # what a process can use: 191.50 reported less the CUDA context; DGX B200's 2 TB over 8
    assert (b200.usable_gb, b200.configuration(8).host_gb) == (D("190.99"), D("2000.0"))
    assert b200.speed == throughput.GpuSpeed(D("2250.0"), D("8000.0"), D("900.0"), "blackwell")
    h200 = next(g for g in listings if g.slug == "h200")
    assert h200.speed.calibration_card and not b200.speed.calibration_card
    assert b200.pk == Gpu.objects.get(slug="b200").pk
    assert str(b200.quoted_usd_per_hour) == "43.4600"  # quantized like the field on every database
    unpriced = next(g for g in listings if g.slug == "h100")
    assert (unpriced.usd_per_gpu_hour, unpriced.quoted_usd_per_hour) == (None, None)
    assert (unpriced.checked_on, unpriced.gpus_in_quote) == (None, None)
    assert b200.configuration(8).usd_per_hour == D("43.46")


def test_listings_by_default_include_gpus_we_do_not_rent(house):
    every = [g.slug for g in selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY)]
    assert "rtx-4090" in every
    rented = selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY, rentable_only=True)
    assert [g.slug for g in rented] == [s for s in every if s != "rtx-4090"]
    chosen = selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY, slugs=["h100"])
    assert [g.slug for g in chosen] == ["h100"]


def test_a_listing_as_of_a_day_ignores_later_checks_in_every_field(house):
    later = SEED_DAY + timedelta(days=5)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=later, prices={"h100": D("2.10")},
                       gpus_in_quote={"h100": 2})  # fmt: skip
    [before] = selectors.gpu_listings_for_provider(provider=house, at=SEED_DAY, slugs=["h100"])
    assert (before.quoted_usd_per_hour, before.gpus_in_quote) == (D("2.3200"), 1)
    assert before.checked_on == SEED_DAY
    [after] = selectors.gpu_listings_for_provider(provider=house, at=later, slugs=["h100"])
    assert (after.quoted_usd_per_hour, after.gpus_in_quote, after.checked_on) == (
        D("2.1000"),
        2,
        later,
    )
    assert after.usd_per_gpu_hour == D("1.05")


def test_method_listings_carry_names_rules_and_their_sources(seeded):
    lora, adamw = (
        m for m in selectors.method_listings() if m.slug in {"lora", "full-adamw"}
    )  # fmt: skip
    assert (adamw.name, adamw.short_name, adamw.rule.slug) == (
        "Full fine-tuning, AdamW",
        "Full, AdamW",
        "full-adamw",
    )
    eleuther, hugging_face = adamw.sources
    assert (eleuther.key, eleuther.publisher, eleuther.read_on) == (
        "eleuther-transformer-math",
        "EleutherAI",
        SEED_DAY,
    )
    assert eleuther.title == "Transformer Math 101"
    assert eleuther.url.startswith("https://")
    assert hugging_face.publisher == "Hugging Face"
    first_rule = adamw.rule.rules[0]
    assert first_rule.source == "eleuther-transformer-math"
    assert [(c.part, c.bytes_per_param) for c in first_rule.components] == [
        ("weights", D("2.000")), ("optimizer", D("12.000")), ("gradients", D("2.000")),
    ]  # fmt: skip
    assert lora.rule.planning_margin == D("0.2")


def test_facts_keep_their_values_and_kinds(seeded):
    facts = selectors.facts()
    assert facts["minimum-top-up"] == selectors.FactValue(D("25.0000"), "usd")
    assert facts["lora-adapter-overhead"] == selectors.FactValue(D("1.0000"), "percent")


def test_price_check_exists_for_that_provider_and_day_only(seeded):
    house = selectors.house_provider()
    massed = Provider.objects.get(slug="massed-compute")
    Price.objects.filter(price_check__provider=massed).delete()
    PriceCheck.objects.filter(provider=massed).delete()
    assert selectors.price_check_exists(provider=house, checked_on=SEED_DAY)
    assert not selectors.price_check_exists(provider=massed, checked_on=SEED_DAY)
    assert not selectors.price_check_exists(provider=house, checked_on=SEED_DAY - timedelta(1))


def test_sources_read_before_a_day_and_language_models(seeded):
    stale = {s.key for s in selectors.sources_read_before(day=SEED_DAY + timedelta(days=1))}
    assert "qlora-paper" in stale and "rtx-4090-specs" not in stale
    assert selectors.sources_read_before(day=SEED_DAY) == []
    assert "llama-3.1-70b" in [m.slug for m in selectors.language_models()]


def test_price_runs_cover_only_their_window_up_to_the_day(house):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 1),
                       prices={"a100-80gb": D("0.95")})  # fmt: skip
    on_the_day = a100_runs(house, at=date(2026, 11, 1), days=3)
    assert on_the_day == [selectors.PriceRun(date(2026, 11, 1), date(2026, 11, 1), D("0.95"))]
    assert a100_runs(house, at=date(2026, 10, 31)) == [
        selectors.PriceRun(SEED_DAY, SEED_DAY, D("0.92"))
    ]


def test_a_language_model_by_its_slug_in_one_query(seeded, django_assert_num_queries):
    with django_assert_num_queries(1):
        found = selectors.language_model_by_slug(slug="llama-3.1-70b")
    assert (found.slug, found.hidden_size) == ("llama-3.1-70b", 8192)
    assert selectors.language_model_by_slug(slug="llama-9") is None


def test_gpu_slugs_in_the_gpus_order(seeded, django_assert_num_queries):
    with django_assert_num_queries(1):
        slugs = selectors.gpu_slugs()
    assert slugs == ["l40s", "a100-80gb", "h100", "h200", "b200", "rtx-4090"]


def test_a_gpus_whole_price_history_at_one_provider_up_to_the_day(house, django_assert_num_queries):
    for day, price in ((date(2025, 1, 2), "0.99"), (date(2026, 11, 1), "0.95")):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=day,
                           prices={"a100-80gb": D(price), "h100": D("2.50")})  # fmt: skip
    price_check_record(provider_slug="massed-compute", checked_on=date(2026, 11, 2),
                       prices={"a100-80gb": D("3.00")}, gpus_in_quote={"a100-80gb": 2})  # fmt: skip
    with django_assert_num_queries(1):
        history = selectors.gpu_price_history(gpu_slug="a100-80gb", provider=house)
    # More than a year back: the whole history, not the charts' window.
    assert history == [
        (date(2025, 1, 2), D("0.99")), (SEED_DAY, D("0.92")), (date(2026, 11, 1), D("0.95")),
    ]  # fmt: skip
    assert selectors.gpu_price_history(
        gpu_slug="a100-80gb", provider=house, at=date(2026, 10, 31)
    ) == [(date(2025, 1, 2), D("0.99")), (SEED_DAY, D("0.92"))]
    massed = Provider.objects.get(slug="massed-compute")
    assert selectors.gpu_price_history(gpu_slug="a100-80gb", provider=massed) == [
        (date(2026, 11, 2), D("1.5"))
    ]
    assert selectors.gpu_price_history(gpu_slug="rtx-4090", provider=house) == []


# The seed's throughput measurements, copied from content/reference.json: all on the H200
# (989.5 BF16 dense TFLOPS, 4800 GB/s), measured on 2026-11-29 with one recipe.
RECIPE = (
    "transformers 5.17.0, peft 0.21.0, bitsandbytes 0.50.2, torch 2.11.0, attention sdpa; "
    "measure_memory.py --throughput 4"
)


def _on_h200(tokens_per_s: str) -> selectors.ThroughputListing:
    return selectors.ThroughputListing(
        gpu_slug="h200", gpu_name="H200", tokens_per_s=D(tokens_per_s),
        measured_on=date(2026, 11, 29), recipe=RECIPE,
    )  # fmt: skip


def test_the_throughput_of_exactly_one_recipe_in_one_query(seeded, django_assert_num_queries):
    with django_assert_num_queries(1):
        found = selectors.throughput_for(
            language_model="llama-3.1-70b",
            method="qlora",
            seq_len=2048,
            batch_size=1,
            gradient_checkpointing=True,
        )
    assert found == _on_h200("508.2")


@pytest.mark.parametrize(
    ("model", "method", "seq_len", "batch", "checkpointing", "tokens_per_s"),
    [
        ("llama-3.1-70b", "qlora", 4096, 1, True, "376.0"),  # the same recipe but the length
        ("llama-3.1-8b", "lora", 2048, 4, True, "6519.7"),  # with checkpointing ...
        ("llama-3.1-8b", "lora", 2048, 4, False, "9178.7"),  # ... and without
        ("llama-3.1-8b", "qlora", 2048, 4, True, "2925.5"),  # another method, same run
        ("llama-3.1-8b", "full-8bit-adam", 2048, 1, True, "3706.8"),
        ("llama-3.1-70b", "qlora", 2048, 2, True, None),  # no measurement at batch 2
        ("llama-3.1-70b", "qlora", 2048, 4, True, None),  # only the 8B ran at batch 4
        ("llama-3.1-70b", "qlora", 2048, 1, False, None),  # nor without checkpointing
        ("llama-3.1-70b", "full-8bit-adam", 2048, 1, True, None),  # nor full fine-tuning
        ("llama-3.1-70b", "lora", 1024, 1, True, None),  # the LoRA run is at 512 only
    ],
)
def test_each_part_of_the_recipe_picks_the_measurement(
    seeded, model, method, seq_len, batch, checkpointing, tokens_per_s
):
    found = selectors.throughput_for(
        language_model=model,
        method=method,
        seq_len=seq_len,
        batch_size=batch,
        gradient_checkpointing=checkpointing,
    )
    assert found == (None if tokens_per_s is None else _on_h200(tokens_per_s))


def test_every_methods_throughput_for_one_run_in_one_query(seeded, django_assert_num_queries):
    with django_assert_num_queries(1):
        found = selectors.throughputs_for_run(
            language_model="llama-3.1-8b", seq_len=2048, batch_size=4, gradient_checkpointing=True
        )
    assert found == {"qlora": _on_h200("2925.5"), "lora": _on_h200("6519.7")}
    assert selectors.throughputs_for_run(
        language_model="llama-3.1-8b", seq_len=2048, batch_size=4, gradient_checkpointing=False
    ) == {"lora": _on_h200("9178.7")}
    assert selectors.throughputs_for_run(
        language_model="llama-3.1-70b", seq_len=2048, batch_size=1, gradient_checkpointing=True
    ) == {"qlora": _on_h200("508.2")}
    assert selectors.throughputs_for_run(
        language_model="llama-3.1-70b", seq_len=512, batch_size=1, gradient_checkpointing=True
    ) == {"lora": _on_h200("422.7")}
    assert selectors.throughputs_for_run(
        language_model="llama-3.1-8b", seq_len=2048, batch_size=1, gradient_checkpointing=True
    ) == {"full-8bit-adam": _on_h200("3706.8")}
    for other in ({"seq_len": 1024}, {"batch_size": 2}, {"language_model": "llama-3.1-70b"}):
        run = {"language_model": "llama-3.1-8b", "seq_len": 2048, "batch_size": 4,
               "gradient_checkpointing": True} | other  # fmt: skip
        assert selectors.throughputs_for_run(**run) == {}


def test_latest_check_dates_answer_days_as_of_the_day_asked(house):
    later = SEED_DAY + timedelta(days=3)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=later, prices={"h100": D("2.10")})

    assert selectors.latest_check_dates(at=later)["gpuwithcrypto"] == later  # a date, not text
    assert selectors.latest_check_dates(at=SEED_DAY)["gpuwithcrypto"] == SEED_DAY


def test_price_runs_give_each_price_its_first_and_last_check_in_one_query(
    house, django_assert_num_queries
):
    """Daily checks at one price are one run; a quote for 8 GPUs at the same price per GPU goes
    on with it; the window and the day asked for cut the runs."""
    days = [(1, "0.92", 1), (2, "7.36", 8), (3, "0.99", 1), (4, "0.99", 1), (6, "0.92", 1)]
    for day, quoted, gpus in days:
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, day),
                           prices={"a100-80gb": D(quoted)},
                           gpus_in_quote={"a100-80gb": gpus})  # fmt: skip
    providers = list(Provider.objects.all())
    with django_assert_num_queries(1):
        runs = selectors.price_runs(providers=providers, at=date(2026, 11, 5))
    Run, a100 = selectors.PriceRun, Gpu.objects.get(slug="a100-80gb").pk
    assert runs["gpuwithcrypto"][a100] == [
        Run(SEED_DAY, date(2026, 11, 2), D("0.92")),
        Run(date(2026, 11, 3), date(2026, 11, 4), D("0.99")),  # Nov 6 is after the day asked
    ]
    assert runs["thunder-compute"][a100] == [Run(SEED_DAY, SEED_DAY, D("1.09"))]
    assert runs["massed-compute"].get(a100) is None
    window = selectors.price_runs(providers=[house], at=date(2026, 11, 6), days=4)
    assert window["gpuwithcrypto"][a100] == [
        Run(date(2026, 11, 3), date(2026, 11, 4), D("0.99")),  # the window cuts a run's start
        Run(date(2026, 11, 6), date(2026, 11, 6), D("0.92")),
    ]


def test_listings_for_many_providers_are_those_of_each_asked_alone(seeded):
    providers = list(Provider.objects.all())
    assert len(providers) > 1
    listings = selectors.gpu_listings_for_providers(providers=providers)
    for provider in providers:
        alone = selectors.gpu_listings_for_providers(providers=[provider])
        assert listings[provider.slug] == alone[provider.slug]


def test_sources_by_key_keeps_the_order_asked_and_leaves_out_the_missing(seeded):
    keys = ("trl-sft-learning-rate", "no-such-source", "trl-peft-learning-rate")
    found = selectors.sources_by_key(keys=keys)
    assert [(s.key, s.url.rsplit("/", 1)[1], str(s.read_on)) for s in found] == [
        ("trl-sft-learning-rate", "sft_trainer", "2026-12-06"),
        ("trl-peft-learning-rate", "peft_integration", "2026-12-06"),
    ]


def test_with_two_gpus_timing_one_run_the_planner_and_the_guides_quote_the_same(seeded):
    """The first GPU in the catalogue's order (H100 before H200) is the one quoted, by the
    planner's single lookup and by the guides' lookup of the whole run alike."""
    on_h200 = ThroughputMeasurement.objects.get(
        gpu__slug="h200", language_model__slug="llama-3.1-70b", method__slug="qlora",
        seq_len=2048, batch_size=1, gradient_checkpointing=True,
    )  # fmt: skip
    h100 = Gpu.objects.get(slug="h100")
    assert h100.position < on_h200.gpu.position
    ThroughputMeasurement.objects.create(
        gpu=h100, language_model=on_h200.language_model, method=on_h200.method,
        seq_len=2048, batch_size=1, gradient_checkpointing=True,
        tokens_per_s=D("301.5"), measured_on=date(2026, 12, 1), recipe=RECIPE,
    )  # fmt: skip
    run = {"language_model": "llama-3.1-70b", "seq_len": 2048, "batch_size": 1,
           "gradient_checkpointing": True}  # fmt: skip
    on_h100 = selectors.ThroughputListing(
        gpu_slug="h100", gpu_name="H100", tokens_per_s=D("301.5"),
        measured_on=date(2026, 12, 1), recipe=RECIPE,
    )  # fmt: skip
    assert selectors.throughputs_for_run(**run) == {"qlora": on_h100}
    assert selectors.throughput_for(method="qlora", **run) == on_h100


def test_price_runs_follow_the_checks_dates_not_the_order_they_were_recorded_in(house):
    """Staff may record a forgotten check after later ones: its price still falls in between."""
    for day, quoted in ((3, "0.99"), (1, "0.92"), (2, "1.05")):
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, day),
                           prices={"a100-80gb": D(quoted)})  # fmt: skip
    a100 = Gpu.objects.get(slug="a100-80gb").pk
    runs = selectors.price_runs(providers=[house], at=date(2026, 11, 3))[house.slug][a100]
    assert runs == [
        selectors.PriceRun(SEED_DAY, date(2026, 11, 1), D("0.92")),
        selectors.PriceRun(date(2026, 11, 2), date(2026, 11, 2), D("1.05")),
        selectors.PriceRun(date(2026, 11, 3), date(2026, 11, 3), D("0.99")),
    ]
