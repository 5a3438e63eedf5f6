"""Every figure of the seed page, reproduced from the seed data through the pure calculations."""

import json
from decimal import Decimal as D
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing.domain import calculations as calc
from pricing.domain import throughput as tp

SEVENTY = D(70)
# The reference data as seed_content loads it, read without a database.
REFERENCE = json.loads(
    (Path(__file__).parents[3] / "content" / "reference.json").read_text(encoding="utf-8")
)


def _rows(model: str) -> list[dict]:
    return [r["fields"] for r in REFERENCE if r["model"] == f"pricing.{model}"]


def _method_rule(slug: str) -> calc.MethodRule:
    method = next(m for m in _rows("method") if m["slug"] == slug)
    rules = []
    for rule in sorted(
        (r for r in _rows("memoryrule") if r["method"] == [slug]), key=lambda r: r["position"]
    ):
        source = rule["source"][0]
        if rule["reference_memory_gb"] is not None:
            measured = ("reference_memory_gb", "reference_params_billion", "round_up_to")
            memory, params, step = (D(rule[f]) for f in measured)
            rules.append(calc.MemoryRule(source, (), memory, params, step))
        else:
            parts = tuple(
                calc.MemoryComponent(c["part"], D(c["bytes_per_param"]))
                for c in sorted(_rows("memorycomponent"), key=lambda c: c["position"])
                if c["rule"] == [slug, rule["position"]]
            )
            rules.append(calc.MemoryRule(source, parts))
    margin = D(method["planning_margin_percent"]) / 100
    return calc.MethodRule(slug, tuple(rules), margin, D(method["weight_bytes_per_param"]))


HOUSE_PRICES = {
    p["gpu"][0]: calc.per_gpu_price(D(p["quoted_usd_per_hour"]), p["gpus_in_quote"])
    for p in _rows("price")
    if p["price_check"][0] == "gpuwithcrypto"
}
OFFERS = {
    g["slug"]: calc.GpuOffer(g["slug"], g["name"], D(g["memory_gb"]), HOUSE_PRICES.get(g["slug"]))
    for g in _rows("gpu")
}
SEED_CONFIGS = [
    ("l40s", 1), ("a100-80gb", 1), ("h100", 1), ("h200", 1), ("b200", 1),
    ("h200", 2), ("a100-80gb", 4), ("h100", 8), ("h200", 8), ("b200", 8),
]  # fmt: skip
METHOD_ORDER = ["qlora", "lora", "full-8bit-adam", "full-adamw"]


def config(gpu: str, count: int = 1) -> calc.Configuration:
    return calc.Configuration(OFFERS[gpu], count)


def estimate(slug: str) -> calc.MemoryEstimate:
    return calc.estimate_memory(_method_rule(slug), SEVENTY)


@pytest.mark.parametrize(
    ("method", "lower", "upper", "planning"),
    [
        ("qlora", D("52.5"), D("52.5"), D("52.5")),
        ("lora", D("140"), D("140"), D("168")),
        ("full-8bit-adam", D("840"), D("840"), D("840")),
        ("full-adamw", D("1120"), D("1260"), D("1260")),
    ],
)
def test_memory_estimates_for_70b_match_the_seed(method, lower, upper, planning):
    e = estimate(method)
    assert (e.lower_gb, e.upper_gb, e.planning_gb) == (lower, upper, planning)


def test_qlora_rate_is_48_over_65_rounded_up_to_0_75():
    rule = _method_rule("qlora").rules[0]
    assert rule.measured_ratio.quantize(calc.CENT) == D("0.74")
    assert rule.gb_per_billion == D("0.75")


@pytest.mark.parametrize(
    ("method", "index", "parts", "total"),
    [
        ("full-adamw", 0, [D(2), D(12), D(2)], D(16)),
        ("full-adamw", 1, [D(6), D(8), D(4)], D(18)),
        ("full-8bit-adam", 0, [D(6), D(2), D(4)], D(12)),
        ("lora", 0, [D(2)], D(2)),
    ],
)
def test_bytes_per_parameter_breakdowns(method, index, parts, total):
    rule = _method_rule(method).rules[index]
    assert [c.bytes_per_param for c in rule.components] == parts
    assert rule.bytes_per_param == total


# The seed's fit table, row by row: QLoRA, LoRA, full 8-bit Adam, full AdamW.
SEED_FIT = {
    ("l40s", 1): "✗✗✗✗", ("a100-80gb", 1): "✓✗✗✗", ("h100", 1): "✓✗✗✗",
    ("h200", 1): "✓✗✗✗", ("b200", 1): "✓✓✗✗", ("h200", 2): "✓✓✗✗",
    ("a100-80gb", 4): "✓✓✗✗", ("h100", 8): "✓✓✗✗", ("h200", 8): "✓✓✓✗",
    ("b200", 8): "✓✓✓✓",
}  # fmt: skip
SEED_TOTALS = {
    ("l40s", 1): D(48), ("a100-80gb", 1): D(80), ("h100", 1): D(80), ("h200", 1): D(141),
    ("b200", 1): D(180), ("h200", 2): D(282), ("a100-80gb", 4): D(320), ("h100", 8): D(640),
    ("h200", 8): D(1128), ("b200", 8): D(1440),
}  # fmt: skip
SEED_HOURLY = {
    ("l40s", 1): D("0.82"), ("a100-80gb", 1): D("0.92"), ("h100", 1): D("2.32"),
    ("h200", 1): D("3.07"), ("b200", 1): D("4.61"), ("h200", 2): D("6.14"),
    ("a100-80gb", 4): D("3.68"), ("h100", 8): D("18.56"), ("h200", 8): D("24.56"),
    ("b200", 8): D("36.88"),
}  # fmt: skip


def by_rule(configurations, planning_gb):
    """Configurations against a rule's planning figure alone (no estimate: peaks of 0)."""
    configurations = list(configurations)
    peaks = {c.count: (D(0), D(0)) for c in configurations}
    return calc.planned_fits(configurations, planning_gb, peaks)


def test_the_rules_of_thumb_reproduce_the_seed_table():
    """The seed's marks, which the page keeps as the rule of thumb beside the estimate."""
    configs = [config(g, n) for g, n in SEED_CONFIGS]
    columns = [by_rule(configs, estimate(m).planning_gb) for m in METHOD_ORDER]
    for row in zip(*columns, strict=True):
        configuration = row[0].configuration
        key = (configuration.gpu.slug, configuration.count)
        assert "".join("✓" if p.fits_by_rule else "✗" for p in row) == SEED_FIT[key], key
        assert configuration.total_memory_gb == SEED_TOTALS[key]
        assert configuration.usd_per_hour == SEED_HOURLY[key]


def test_by_the_rule_the_l40s_misses_qlora_by_4_5_gb():
    (plan,) = by_rule([config("l40s")], estimate("qlora").planning_gb)
    assert not plan.fits_by_rule
    assert plan.rule_headroom_gb == D("-4.5")


def config_of(memory: str) -> calc.Configuration:
    return calc.Configuration(calc.GpuOffer("x", "X", D(memory), D(1)))


@pytest.mark.parametrize(("available", "fits"), [("52.4", False), ("52.5", True), ("52.6", True)])
def test_an_estimate_fits_exactly_the_memory_on_hand(available, fits):
    (plan,) = by_rule([config_of(available)], D("52.5"))
    assert plan.fits_by_rule is fits


def test_8x_h200_leaves_8_gb_after_the_16_byte_estimate():
    assert calc.headroom_gb(config("h200", 8), estimate("full-adamw").lower_gb) == D(8)


def test_8x_b200_leaves_180_gb_after_the_18_byte_estimate():
    assert calc.headroom_gb(config("b200", 8), estimate("full-adamw").upper_gb) == D(180)


@pytest.mark.parametrize(
    ("gpu", "count", "hours", "gpu_hours", "cost", "block"),
    [
        ("a100-80gb", 1, D(10), D(10), D("9.20"), 10),
        ("h100", 1, D(10), D(10), D("23.20"), 10),
        ("b200", 1, D(24), D(24), D("110.64"), 24),
        ("h200", 2, D(12), D(24), D("73.68"), 24),
        ("h200", 8, D(21), D(168), D("515.76"), 168),
        ("b200", 8, D(21), D(168), D("774.48"), 168),
    ],
)
def test_cost_table_reproduces_the_seed(gpu, count, hours, gpu_hours, cost, block):
    row = calc.cost_table([calc.CostScenario("m", config(gpu, count), hours)], [10, 24, 168, 720])[
        0
    ]
    assert (row.gpu_hours, row.cost_usd, row.block_hours) == (gpu_hours, cost, block)


def test_smallest_rentable_gpu_for_qlora_is_the_a100():
    rentable = [o for o in OFFERS.values() if o.usd_per_gpu_hour is not None]
    assert calc.smallest_fitting_gpu(rentable, estimate("qlora").planning_gb).slug == "a100-80gb"
    assert calc.smallest_fitting_gpu(rentable, estimate("lora").planning_gb).slug == "b200"


def test_4bit_70b_weights_do_not_fit_an_rtx_4090():
    weights = SEVENTY * _method_rule("qlora").weight_bytes_per_param
    assert weights == D(35)
    assert weights > OFFERS["rtx-4090"].memory_gb


def test_full_versus_qlora_costs_about_40_times_as_much_per_hour():
    assert (
        calc.ratio(config("b200", 8).usd_per_hour, config("a100-80gb").usd_per_hour, calc.WHOLE)
        == 40
    )
    massed_per_gpu = calc.per_gpu_price(D("43.46"), 8)
    assert massed_per_gpu == D("5.4325")
    assert calc.ratio(massed_per_gpu * 8, D("1.09"), calc.WHOLE) == 40


def test_h100_has_3_2_times_the_a100_bf16_throughput():
    assert calc.ratio(D("989.5"), D("312")) == D("3.2")


def test_a_rule_needs_components_or_a_measurement():
    with pytest.raises(calc.RuleError):
        calc.MemoryRule("nothing")
    with pytest.raises(calc.RuleError):
        calc.estimate_memory(_method_rule("lora"), D(0))
    with pytest.raises(calc.RuleError):
        calc.Configuration(OFFERS["h100"], 0)


# --- properties ------------------------------------------------------------------------

sizes = st.decimals(min_value=D("0.1"), max_value=D("2000"), places=1)
memories = st.decimals(min_value=D("1"), max_value=D("500"), places=1)
counts = st.integers(min_value=1, max_value=64)
prices = st.decimals(min_value=D("0.01"), max_value=D("100"), places=2)


@given(params=sizes, memory=memories, count=counts, extra=st.integers(min_value=1, max_value=8))
def test_more_vram_never_unfits_a_method(params, memory, count, extra):
    estimates = [calc.estimate_memory(_method_rule(m), params) for m in METHOD_ORDER]
    gpu = calc.GpuOffer("x", "X", memory, D(1))
    for e in estimates:
        small, large = by_rule(
            [calc.Configuration(gpu, count), calc.Configuration(gpu, count + extra)], e.planning_gb
        )
        assert large.fits_by_rule or not small.fits_by_rule


@given(count=counts, hours=st.integers(min_value=1, max_value=1000), price=prices,
       factor=st.integers(min_value=2, max_value=10))  # fmt: skip
def test_cost_is_linear_in_hours_and_gpus(count, hours, price, factor):
    base = calc.run_cost(count, D(hours), price)
    assert calc.run_cost(count, D(hours * factor), price) == base * factor
    assert calc.run_cost(count * factor, D(hours), price) == base * factor


@given(params=sizes)
def test_planning_figure_is_never_below_the_rules(params):
    for method in METHOD_ORDER:
        e = calc.estimate_memory(_method_rule(method), params)
        assert e.lower_gb <= e.upper_gb <= e.planning_gb


# --- boundaries: every comparison at equality, every refusal with its message -----------

GB80 = calc.GpuOffer("card-80", "Card 80", D(80), D("1.00"))


def offer(slug: str, memory: str, price: str | None) -> calc.GpuOffer:
    return calc.GpuOffer(slug, slug.upper(), D(memory), None if price is None else D(price))


def test_an_80_gb_card_fits_an_80_gb_plan():
    plan = calc.estimate_memory(
        calc.MethodRule("m", (calc.MemoryRule("s", (calc.MemoryComponent("w", D(1)),)),)), D(80)
    )
    assert plan.planning_gb == D(80)
    (row,) = by_rule([calc.Configuration(GB80)], plan.planning_gb)
    assert row.fits_by_rule
    assert row.rule_headroom_gb == 0


def planned(configuration: calc.Configuration, reserved: str) -> calc.PlannedFit:
    """A configuration whose run reserves ``reserved`` GB per GPU (peak and margin alike)."""
    return calc.PlannedFit(configuration, D(0), D(reserved), D(reserved))


def run(plan: calc.PlannedFit, tokens_per_s: str, budget: int = 3_600_000) -> calc.RunPlan:
    """``plan`` training ``budget`` tokens (one hour at 1,000 tokens per second)."""
    return calc.RunPlan(plan, D(tokens_per_s), False, budget)


@pytest.mark.parametrize(
    ("usable", "reserved", "expected"),
    [
        (["80", "79.9"], "80", "80"),  # a reserve equal to the usable memory fits
        (["80.1", "79.9"], "80", "80.1"),
        (["79.9"], "80", None),
        ([], "1", None),
    ],
)
def test_ranked_runs_take_configurations_with_exactly_the_memory(usable, reserved, expected):
    def card(usable: str) -> calc.GpuOffer:  # reporting its usable memory and the CUDA context
        return calc.GpuOffer(usable, usable, D(1), D("1.00"), D(usable) + calc.CUDA_CONTEXT_GB)

    runs = [run(planned(calc.Configuration(card(u)), reserved), "1") for u in usable]
    ranked = calc.ranked_runs(runs)
    assert (ranked[0].configuration.gpu.slug if ranked else None) == expected


def test_a_run_costs_gpus_times_hours_times_the_price():
    two = run(planned(calc.Configuration(offer("a", "80", "0.92"), 2), "1"), "2000", 18_000_000)
    assert two.hours == D("2.5")  # 18 million tokens at 2,000 a second
    assert two.gpu_hours == D(5)
    assert two.usd_per_run == D("4.60")  # 2 x 2.5 x $0.92
    assert two.time_basis == "derived"
    short = run(planned(calc.Configuration(offer("b", "80", "36.88")), "1"), "1000", 864_000)
    assert short.hours == D("0.24")
    assert short.shown_hours == D("0.2")
    assert short.usd_per_run == D("8.85")  # from 0.24 h, not the 0.2 h shown
    tiny = run(planned(calc.Configuration(offer("c", "80", "1")), "1"), "1000", 36_000)
    assert tiny.shown_hours == D("0.1")  # at least a tenth
    assert run(planned(calc.Configuration(offer("d", "80", None)), "1"), "1").usd_per_run is None


def test_ranked_runs_skip_unpriced_and_prefer_fewer_gpus_at_the_same_cost():
    unpriced = run(planned(calc.Configuration(offer("free", "200", None)), "1"), "1000")
    assert calc.ranked_runs([unpriced]) == []
    # two at $0.50 twice as fast as one at $1.00: the same $1.00 a run
    two_halves = run(planned(calc.Configuration(offer("half", "40", "0.50"), 2), "40"), "1000")
    one_whole = run(planned(calc.Configuration(offer("whole", "80", "1.00"), 1), "80"), "1000")
    assert two_halves.usd_per_run == one_whole.usd_per_run == D("1.00")
    for order in ([two_halves, one_whole], [one_whole, two_halves]):
        assert calc.ranked_runs([unpriced, *order])[0] == one_whole
    dearer = run(planned(calc.Configuration(offer("dear", "80", "1.01")), "80"), "1000")
    assert calc.ranked_runs([dearer, two_halves])[0] == two_halves


def test_the_cheapest_run_is_recommended_not_the_cheapest_hour():
    """Priced, at most eight GPUs (one host), holding the run by the estimate (an equal
    reserve fits); the cheapest run first, then fewest GPUs."""
    l40s, a100 = offer("l40s", "48", "0.82"), offer("a100", "80", "0.92")
    h200, rtx = offer("h200", "141", "3.07"), offer("rtx", "24", None)
    candidates = [
        run(planned(calc.Configuration(h200, 1), "140"), "5000"),  # $3.07 x 0.2 h = $0.61
        run(planned(calc.Configuration(a100, 4), "40"), "3000"),  # $3.68 x 0.33 h = $1.23
        run(planned(calc.Configuration(l40s, 16), "10"), "99999"),  # two hosts
        run(planned(calc.Configuration(rtx, 8), "10"), "99999"),  # not rented
        # $2.46 an hour, a run; 48 GiB less the CUDA context and NCCL: 49.409607552 GB
        run(planned(calc.Configuration(l40s, 3), "49.409607552"), "1000"),
        run(planned(calc.Configuration(a100, 1), "86"), "99999"),  # 80 GiB are 85.9 GB
    ]
    ranked = calc.ranked_runs(candidates)
    assert [(r.configuration.gpu.slug, r.configuration.count) for r in ranked] == [
        ("h200", 1),
        ("a100", 4),
        ("l40s", 3),
    ]
    one_host = calc.ranked_runs([run(planned(calc.Configuration(a100, 8), "1"), "1")])
    assert one_host[0].configuration.count == 8


def recommended_runs(runs, blocks) -> list[calc.RunPlan]:
    found = calc.recommendation(runs, blocks)
    return [] if found is None else found.runs


def test_the_alternative_is_the_fastest_other_run():
    a100, b200 = offer("a100", "80", "0.92"), offer("b200", "180", "4.61")
    cheap = run(planned(calc.Configuration(a100), "1"), "1000")  # $0.92
    fast = run(planned(calc.Configuration(b200, 8), "1"), "40000")  # $36.88 x 0.025 h = $0.92
    middle = run(planned(calc.Configuration(b200), "1"), "4000")  # $1.15
    assert recommended_runs([middle, fast, cheap], BLOCKS) == [cheap, fast]
    # the cheapest is also the fastest: the alternative is the fastest of the others
    assert recommended_runs([cheap, middle], BLOCKS) == [cheap, middle]
    assert recommended_runs([middle], BLOCKS) == [middle]
    assert recommended_runs([], BLOCKS) == []
    # equally fast: the cheaper run is the alternative ($37.00 x 0.025 h = $0.93)
    quick = run(planned(calc.Configuration(offer("q", "80", "37.00")), "1"), "40000")
    assert recommended_runs([quick, cheap, fast], BLOCKS) == [cheap, fast]


BLOCKS = (10, 24, 168, 720)
HOPPER = tp.GpuSpeed(D("989.5"), D(4800), D(450), tp.HOPPER)
AMPERE = tp.GpuSpeed(D(312), D(2039), D(300), tp.AMPERE)
# Runs whose hours may be 10 % shorter or 30 % longer; card factors off by up to 20 %, the
# scaling between GPU counts by up to 10 %.
TEN_THIRTY = tp.Band(D("-0.1"), D("0.3"))
KNOWN = tp.Uncertainty(
    families={}, cards={tp.HOPPER: D("0.2"), tp.AMPERE: D("0.2")}, scaling=D("0.1")
)


def timed(gpu: calc.GpuOffer, count: int, tokens_per_s: str, band=TEN_THIRTY) -> calc.RunPlan:
    plan = planned(calc.Configuration(gpu, count), "1")
    return calc.RunPlan(plan, D(tokens_per_s), False, 3_600_000, band)


def test_a_run_carries_its_range_in_hours_and_dollars():
    one = timed(calc.GpuOffer("h", "H", D(141), D("2.00"), speed=HOPPER), 1, "500")  # 2 h
    assert (one.hours, one.hours_low, one.hours_high) == (D(2), D("1.8"), D("2.6"))
    assert (one.usd_per_run, one.usd_per_run_low, one.usd_per_run_high) == (
        D("4.00"),
        D("3.60"),
        D("5.20"),
    )
    assert one.has_range and not timed(one.configuration.gpu, 1, "500", tp.EXACT).has_range


def test_the_ratio_of_two_runs_is_known_better_than_either():
    """One card at two counts: only the scaling's error; two cards of one count: both cards'
    factors; the calibration card has none of its own."""
    h200 = tp.GpuSpeed(D("989.5"), D(4800), D(450), tp.HOPPER, calibration_card=True)
    assert KNOWN.ratio_width((HOPPER, 1), (HOPPER, 2), same_card=True) == D("0.1")
    assert KNOWN.ratio_width((HOPPER, 1), (AMPERE, 1), same_card=False) == D("0.44")  # 1.2²
    assert KNOWN.ratio_width((h200, 1), (AMPERE, 1), same_card=False) == D("0.2")
    assert KNOWN.ratio_width((h200, 1), (AMPERE, 2), same_card=False) == D("0.32")  # 1.2 x 1.1
    assert KNOWN.ratio_width((HOPPER, 4), (HOPPER, 4), same_card=True) == 0
    # two Hopper cards that are not the calibration card: both factors may be off
    assert KNOWN.ratio_width((HOPPER, 1), (HOPPER, 1), same_card=False) == D("0.44")


def test_a_close_call_is_decided_by_the_up_front_block_then_gpus_then_time():
    """Two GPUs of one card at nearly the price of one: within the scaling's 10 %, the model
    cannot tell them apart; one GPU's 2.2 GPU-hours fit the 10-hour block ($20), two GPUs'
    2.2 GPU-hours too, at $21: the cheaper block decides."""
    one_gpu = calc.GpuOffer("h", "H", D(141), D("2.00"), speed=HOPPER)
    dear = calc.GpuOffer("d", "D", D(141), D("2.10"), speed=HOPPER)
    single = timed(one_gpu, 1, "909.09")  # 1.1 h: $2.20, at most $2.86
    pair = timed(one_gpu, 2, "1500")  # 0.67 h on two: $2.67, 21 % dearer: beyond the scaling
    assert calc.recommendation([single, pair], BLOCKS, KNOWN).close_call is False
    close = timed(dear, 1, "870")  # 1.15 h: $2.41, within $2.20 x 1.44 and $2.86
    found = calc.recommendation([single, close], BLOCKS, KNOWN)
    assert found.close_call and found.chosen == single and found.decided_by == calc.BY_UPFRONT
    assert calc.upfront_usd(single, BLOCKS) == D("20.00")
    assert calc.upfront_usd(close, BLOCKS) == D("21.00")
    # the same block price: fewer GPUs decide; then the time
    twin = calc.GpuOffer("t", "T", D(141), D("1.00"), speed=HOPPER)
    halves = timed(twin, 2, "1000")  # 1 h on two GPUs: $2.00, block $10.00
    wholes = timed(calc.GpuOffer("w", "W", D(141), D("1.00"), speed=HOPPER), 1, "480")
    found = calc.recommendation([halves, wholes], BLOCKS, KNOWN)  # $2.08 for 2.08 h on one
    assert found.close_call and found.chosen == wholes and found.decided_by == calc.BY_GPUS
    assert found.contenders == (halves, wholes)
    assert found.alternative == halves  # the fastest other run


def test_a_run_is_a_contender_up_to_both_the_cheapest_runs_high_end_and_the_ratios_error():
    """$2.00 for one hour, 30 % longer at worst: at most $2.60. Against another card the ratio
    may be off by 44 % (two cards' 20 %), against the calibration card by 20 % ($2.40)."""
    cheapest = timed(calc.GpuOffer("h", "H", D(141), D("2.00"), speed=HOPPER), 1, "1000")
    assert cheapest.usd_per_run_high == D("2.60")

    def on_ampere(price: str) -> calc.RunPlan:
        return timed(calc.GpuOffer("a", "A", D(80), D(price), speed=AMPERE), 1, "1000")

    assert calc.cannot_tell_apart(cheapest, on_ampere("2.60"), KNOWN)  # the high end, exactly
    assert not calc.cannot_tell_apart(cheapest, on_ampere("2.61"), KNOWN)
    h200 = tp.GpuSpeed(D("989.5"), D(4800), D(450), tp.HOPPER, calibration_card=True)
    calibrated = timed(calc.GpuOffer("h200", "H200", D(141), D("2.00"), speed=h200), 1, "1000")
    assert calc.cannot_tell_apart(calibrated, on_ampere("2.40"), KNOWN)  # $2.00 x 1.2, exactly
    assert not calc.cannot_tell_apart(calibrated, on_ampere("2.41"), KNOWN)


def test_a_card_without_a_speed_model_is_never_a_contender():
    """Its time has no error to weigh, whichever of the two runs it is."""
    modelled = timed(calc.GpuOffer("h", "H", D(141), D("2.00"), speed=HOPPER), 1, "1000")
    unmodelled = timed(calc.GpuOffer("x", "X", D(141), D("2.00")), 1, "1000")  # also $2.00
    assert not calc.cannot_tell_apart(modelled, unmodelled, KNOWN)
    assert not calc.cannot_tell_apart(unmodelled, modelled, KNOWN)


def test_a_close_call_names_the_rule_that_put_the_choice_before_the_cheapest_run():
    """Three contenders: the cheapest ($2.00, a $20 block), one at $2.50 on one GPU and one at
    $2.50 on two, both in a $10 block. The one GPU is chosen; the block put it before the
    cheapest run, though the GPUs put it before the runner-up."""
    cheapest = timed(calc.GpuOffer("c", "C", D(141), D("2.00"), speed=HOPPER), 1, "1000")
    one_gpu = timed(calc.GpuOffer("o", "O", D(141), D("1.00"), speed=HOPPER), 1, "400")
    two_gpus = timed(calc.GpuOffer("t", "T", D(141), D("1.00"), speed=HOPPER), 2, "800")
    assert [(r.usd_per_run, calc.upfront_usd(r, BLOCKS)) for r in (one_gpu, two_gpus)] == [
        (D("2.50"), D("10.00")),
        (D("2.50"), D("10.00")),
    ]
    found = calc.recommendation([two_gpus, cheapest, one_gpu], BLOCKS, KNOWN)
    assert found.contenders == (cheapest, one_gpu, two_gpus)
    assert found.chosen == one_gpu and found.decided_by == calc.BY_UPFRONT


def test_contenders_alike_in_every_respect_are_decided_by_cost():
    first = timed(calc.GpuOffer("a", "A", D(141), D("2.00"), speed=HOPPER), 1, "1000")
    second = timed(calc.GpuOffer("b", "B", D(141), D("2.00"), speed=HOPPER), 1, "1000")
    found = calc.recommendation([first, second], BLOCKS, KNOWN)
    assert found.close_call and found.chosen == first and found.decided_by == calc.BY_COST


def test_runs_beyond_the_largest_block_pay_whole_largest_blocks_up_front():
    big = timed(calc.GpuOffer("h", "H", D(141), D("1.00"), speed=HOPPER), 8, "11.1")
    assert big.gpu_hours > 720
    assert calc.upfront_usd(big, BLOCKS) == D("1440.00")


def test_closest_miss_is_the_configuration_that_misses_by_the_least_per_gpu():
    a100, l40s = offer("a100", "80", "0.92"), offer("l40s", "48", "0.82")
    one_l40s = planned(calc.Configuration(l40s), "53.6")  # 51.5 usable: 2.1 short
    one_a100 = planned(calc.Configuration(a100), "87")  # 85.9 usable: 1.1 short
    two_l40s = planned(calc.Configuration(l40s, 2), "38.7")  # fits
    assert calc.closest_miss([one_l40s, one_a100, two_l40s]) == one_a100
    assert calc.closest_miss([one_l40s, two_l40s]) == one_l40s
    assert calc.closest_miss([two_l40s]) is None
    four_short = planned(calc.Configuration(a100, 4), "87")  # as short as one A100
    assert calc.closest_miss([four_short, one_a100]).configuration.count == 1  # fewer GPUs
    # as short on as many cards: the cheaper is named, a priced one before one we do not rent
    h100, rtx = offer("h100", "80", "2.32"), offer("rtx", "80", None)
    one_h100, one_rtx = (
        planned(calc.Configuration(h100), "87"),
        planned(calc.Configuration(rtx), "87"),
    )
    for order in ([one_h100, one_a100, one_rtx], [one_rtx, one_a100, one_h100]):
        assert calc.closest_miss(order) == one_a100
    assert calc.closest_miss([one_rtx, one_h100]) == one_h100


@pytest.mark.parametrize(
    ("offers", "required", "expected"),
    [
        ([("a", "80", "2"), ("b", "141", "1")], "80", "a"),  # equal memory fits
        ([("a", "79.9", "1"), ("b", "141", "3")], "80", "b"),
        ([("a", "80", "2"), ("b", "80", "1")], "80", "b"),  # same memory: the cheaper
        ([("a", "80", None), ("b", "141", "3")], "80", "b"),  # never the unpriced
        ([("a", "80", None)], "80", None),
        ([("a", "79.9", "1")], "80", None),
    ],
)
def test_smallest_fitting_gpu_at_the_boundary(offers, required, expected):
    found = calc.smallest_fitting_gpu([offer(*o) for o in offers], D(required))
    assert (found and found.slug) == expected


@pytest.mark.parametrize(
    ("gpu_hours", "blocks", "expected"),
    [
        ("10", [10, 24, 168, 720], 10),  # a run of exactly a block fits that block
        ("10.01", [10, 24, 168, 720], 24),
        ("9.99", [720, 168, 24, 10], 10),  # the smallest, in any order
        ("720", [10, 24, 168, 720], 720),
        ("720.5", [10, 24, 168, 720], None),
        ("1", [], None),
    ],
)
def test_covering_block_at_the_boundary(gpu_hours, blocks, expected):
    assert calc.covering_block(D(gpu_hours), blocks) == expected


def test_cost_rows_without_a_price_or_a_block():
    scenario = calc.CostScenario("m", calc.Configuration(offer("x", "80", None), 2), D(400))
    (row,) = calc.cost_table([scenario], [10, 24])
    assert (row.gpu_hours, row.block_hours, row.cost_usd) == (D(800), None, None)


@pytest.mark.parametrize(
    ("numerator", "denominator", "step", "expected"),
    [
        ("0.25", "1", calc.TENTH, "0.3"),  # half-up, where half-even would give 0.2
        ("0.35", "1", calc.TENTH, "0.4"),
        ("0.249", "1", calc.TENTH, "0.2"),
        ("2.5", "1", calc.WHOLE, "3"),
        ("0.5", "1", calc.WHOLE, "1"),
        ("1.49", "1", calc.WHOLE, "1"),
        ("3", "4", calc.TENTH, "0.8"),  # 0.75
        ("989.5", "312", calc.TENTH, "3.2"),
    ],
)
def test_ratios_round_half_up(numerator, denominator, step, expected):
    result = calc.ratio(D(numerator), D(denominator), step)
    assert result == D(expected)
    assert result.as_tuple().exponent == D(expected).as_tuple().exponent


def test_ratio_rounds_to_a_tenth_by_default():
    assert str(calc.ratio(D(7), D(2))) == "3.5"
    assert str(calc.ratio(D(1), D(3))) == "0.3"


@pytest.mark.parametrize(
    ("cost", "expected"), [("0.005", "0.01"), ("0.015", "0.02"), ("0.0049", "0.00")]
)
def test_run_cost_rounds_half_up_to_the_cent(cost, expected):
    assert str(calc.run_cost(1, D(1), D(cost))) == expected


def test_block_prices_at_a_rate_and_without_one():
    assert calc.block_prices(D("0.92"), [10, 24]) == [D("9.20"), D("22.08")]
    assert calc.block_prices(None, [10, 24]) == [None, None]
    assert calc.block_prices(None, []) == []


@pytest.mark.parametrize(("gpus", "expected"), [(1, "43.46"), (2, "21.73"), (8, "5.4325")])
def test_per_gpu_price_divides_by_the_gpus_quoted(gpus, expected):
    assert calc.per_gpu_price(D("43.46"), gpus) == D(expected)


def refused(build) -> str:
    with pytest.raises(calc.RuleError) as caught:
        build()
    return str(caught.value)


PART = (calc.MemoryComponent("w", D(2)),)
REFUSALS = [
    (lambda: calc.estimate_memory(_method_rule("lora"), D(0)),
     "a model needs a positive number of parameters"),
    (lambda: calc.estimate_memory(_method_rule("lora"), D("-0.1")),
     "a model needs a positive number of parameters"),
    (lambda: calc.per_gpu_price(D("43.46"), 0), "an instance has at least one GPU"),
    (lambda: calc.ratio(D(1), D(0)), "cannot compare against zero"),
    (lambda: calc.ratio(D(1), D(-1)), "cannot compare against zero"),
    (lambda: calc.Configuration(GB80, 0), "a configuration needs at least one GPU"),
    (lambda: calc.CostScenario("m", calc.Configuration(GB80), D(0)),
     "a run needs a positive number of hours"),
    (lambda: calc.MemoryRule("src"), "src: give either components or a measured reference"),
    (lambda: calc.MemoryRule("src", PART, D(48), D(65)),
     "src: give either components or a measured reference"),
    (lambda: calc.MemoryRule("src", (), D(48), None),
     "src: the reference model size must be positive"),
    (lambda: calc.MemoryRule("src", (), D(48), D(0)),
     "src: the reference model size must be positive"),
    (lambda: calc.MemoryRule("src", (), D(48), D(-65)),
     "src: the reference model size must be positive"),
    (lambda: calc.MemoryRule("src", (*PART, calc.MemoryComponent("g", D("-0.1")))),
     "src: bytes per parameter cannot be negative"),
    (lambda: calc.MethodRule("m", ()), "m: a method needs at least one memory rule"),
    (lambda: calc.MethodRule("m", (calc.MemoryRule("s", PART),), D("-0.01")),
     "m: the planning margin cannot be negative"),
    (lambda: calc.usable_memory_gb(D(0)), "a card of 0 GB has no memory to use"),
    (lambda: calc.usable_memory_gb(D("-0.5")), "a card of -0.5 GB has no memory to use"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "message"), REFUSALS, ids=[m for _, m in REFUSALS])
def test_each_guard_refuses_with_its_message(build, message):
    assert refused(build) == message


def test_the_guards_accept_their_boundaries():
    """Zero bytes, a zero margin, one GPU, one instance GPU: all allowed."""
    rule = calc.MemoryRule("s", (calc.MemoryComponent("free", D(0)), *PART))
    assert rule.bytes_per_param == D(2)
    method = calc.MethodRule("m", (rule,), D(0))
    assert calc.estimate_memory(method, D("0.1")).planning_gb == D("0.2")
    assert calc.Configuration(GB80, 1).total_memory_gb == D(80)
    assert calc.CostScenario("m", calc.Configuration(GB80), D("0.1")).gpu_hours == D("0.1")
    measured = calc.MemoryRule("s", (), D(48), D("0.1"))
    assert measured.gb_per_billion == D(480)


def test_a_measured_rule_without_a_step_keeps_its_ratio():
    rule = calc.MemoryRule("s", (), D(48), D(64))
    assert rule.is_measured
    assert rule.gb_per_billion == rule.bytes_per_param == D("0.75")
    assert calc.MemoryRule("s", (), D(48), D(64), D("0.25")).gb_per_billion == D("0.75")
    assert calc.MemoryRule("s", (), D(49), D(64), D("0.25")).gb_per_billion == D("1.00")


def test_a_margin_scales_the_highest_rule():
    rules = (calc.MemoryRule("a", PART), calc.MemoryRule("b", (calc.MemoryComponent("w", D(3)),)))
    e = calc.estimate_memory(calc.MethodRule("m", rules, D("0.5")), D(10))
    assert (e.lower_gb, e.upper_gb, e.planning_gb, e.has_range) == (D(20), D(30), D(45), True)
    assert [f.memory_gb for f in e.figures] == [D(20), D(30)]
    assert (e.method, e.params_billion, e.planning_margin) == ("m", D(10), D("0.5"))
    single = calc.estimate_memory(calc.MethodRule("m", rules[:1]), D(10))
    assert not single.has_range


def test_an_unpriced_configuration_has_no_hourly_price():
    assert calc.Configuration(offer("x", "80", None), 4).usd_per_hour is None
    assert calc.Configuration(offer("x", "80", "1.25"), 4).usd_per_hour == D(5)


def test_each_estimate_figure_names_its_rule_and_a_missing_method_its_key():
    adamw = estimate("full-adamw")
    assert [f.rule.source for f in adamw.figures] == [
        "eleuther-transformer-math", "hf-memory-anatomy"
    ]  # fmt: skip


# --- the planner: usable memory, the configurations we rent, rule and estimate side by side


@pytest.mark.parametrize(
    ("advertised", "measured", "total"),
    [
        ("80", None, "85.899345920"),  # 80 GiB in 10**9 bytes
        ("80.0", None, "85.899345920"),
        ("48", None, "51.539607552"),
        ("180", None, "193.273528320"),
        ("24", None, "25.769803776"),
        ("0.1", None, "0.1073741824"),
        ("141", "150.11", "150.11"),  # the H200 as measured: 1.2 GiB less than advertised
        ("141", None, "151.397597184"),
    ],
)
def test_usable_memory_is_the_reported_total_less_what_the_runtime_holds(
    advertised, measured, total
):
    """The total PyTorch reports (else the advertised GiB in decimal GB), less the CUDA
    context (0.51 GB) on one GPU and NCCL's buffers too (1.62 GB more) on several."""
    measured = None if measured is None else D(measured)
    alone, together = D(total) - D("0.51"), D(total) - D("2.13")
    assert calc.usable_memory_gb(D(advertised), measured) == alone
    assert calc.GpuOffer("x", "X", D(advertised), None, measured).usable_gb == alone
    for count in (2, 4, 8):
        assert calc.usable_memory_gb(D(advertised), measured, count) == together
        gpu = calc.GpuOffer("x", "X", D(advertised), None, measured)
        assert calc.Configuration(gpu, count).usable_gb_per_gpu == together


def test_the_runtime_takes_the_cuda_context_and_on_several_gpus_ncclS_buffers():
    assert calc.runtime_gb(1) == calc.CUDA_CONTEXT_GB == D("0.51")
    assert calc.runtime_gb(2) == calc.runtime_gb(8) == D("0.51") + calc.NCCL_GB == D("2.13")


def test_the_configurations_we_rent_are_each_gpu_in_1_2_4_and_8():
    a, b = offer("a", "80", "1"), offer("b", "48", None)
    assert [(c.gpu.slug, c.count) for c in calc.host_configurations([a, b])] == [
        ("a", 1), ("a", 2), ("a", 4), ("a", 8), ("b", 1), ("b", 2), ("b", 4), ("b", 8),
    ]  # fmt: skip
    assert calc.HOST_GPU_COUNTS == (1, 2, 4, 8)


@pytest.mark.parametrize(
    ("planning", "peak", "by_rule", "rule_headroom", "by_estimate", "estimate_headroom"),
    [
        # 80 GiB less the CUDA context and NCCL's buffers: 83.769345920 GB usable on each
        ("160", "83.769345920", True, "0", True, "0"),  # equal to the memory on hand fits
        ("160.1", "83.769345921", False, "-0.1", False, "-1E-9"),
        ("159.9", "83.769345919", True, "0.1", True, "1E-9"),
        ("52.5", "53.625", True, "107.5", True, "30.144345920"),
    ],
)
def test_a_planned_fit_compares_the_rule_with_all_memory_and_the_peak_with_each_card(
    planning, peak, by_rule, rule_headroom, by_estimate, estimate_headroom
):
    # the reserve (the peak with the allocator's margin) decides; the peak is only reported
    peaks = {2: (D(peak) - 1, D(peak))}
    [fit] = calc.planned_fits([calc.Configuration(GB80, 2)], D(planning), peaks)
    assert (fit.planning_gb, fit.peak_gb_per_gpu) == (D(planning), D(peak) - 1)
    assert fit.reserved_gb_per_gpu == D(peak)
    assert (fit.fits_by_rule, fit.rule_headroom_gb) == (by_rule, D(rule_headroom))
    assert fit.usable_gb_per_gpu == D("83.769345920")
    assert (fit.fits_by_estimate, fit.estimate_headroom_gb_per_gpu) == (
        by_estimate,
        D(estimate_headroom),
    )


def host_offer(host_gb_per_gpu: str | None) -> calc.GpuOffer:
    return calc.GpuOffer(
        "a100", "A100", D(80), D(1), None, None, host_gb_per_gpu and D(host_gb_per_gpu)
    )


@pytest.mark.parametrize(
    ("host_per_gpu", "count", "host_needed", "fits"),
    [
        ("250", 1, "250", True),  # exactly the host's memory fits
        ("250", 1, "250.1", False),
        ("250", 8, "2000", True),  # a host's share grows with its GPUs
        ("250", 4, "1000.1", False),
        (None, 1, "6500", True),  # a host of unknown memory is not refused
        ("250", 1, "0", True),  # no offload: nothing kept on the host
    ],
)
def test_cpu_offload_is_refused_where_the_host_cannot_hold_it(
    host_per_gpu, count, host_needed, fits
):
    configuration = calc.Configuration(host_offer(host_per_gpu), count)
    [fit] = calc.planned_fits([configuration], D(0), {count: (D(1), D(1), D(host_needed))})
    assert fit.host_gb == D(host_needed)
    assert fit.fits_on_host is fits
    assert fit.fits_by_estimate is fits  # the card holds the step; the host decides
    expected_host = None if host_per_gpu is None else D(host_per_gpu) * count
    assert configuration.host_gb == expected_host


def test_planned_fits_take_the_peak_for_each_configurations_gpu_count():
    configurations = calc.host_configurations([GB80])
    # (peak, reserve) per count: 1 GPU's peak of 80 GB fits an 80 GiB card, its reserve not
    peaks = {1: (D(80), D(90)), 2: (D(40), D(50)), 4: (D(25), D(30)), 8: (D(15), D(20))}
    fits = calc.planned_fits(configurations, D(100), peaks)
    assert [
        (f.configuration.count, (f.peak_gb_per_gpu, f.reserved_gb_per_gpu)) for f in fits
    ] == list(peaks.items())
    assert [f.fits_by_estimate for f in fits] == [False, True, True, True]
    assert [f.fits_by_rule for f in fits] == [False, True, True, True]


def test_a_cost_rows_covering_block_at_the_gpus_rate():
    scenario = calc.CostScenario("m", calc.Configuration(offer("x", "80", "0.92"), 2), D(6))
    (row,) = calc.cost_table([scenario], [10, 24])
    assert (row.gpu_hours, row.cost_usd, row.block_hours, row.block_cost_usd) == (
        D(12), D("11.04"), 24, D("22.08"),
    )  # fmt: skip
    (beyond,) = calc.cost_table([scenario], [10])
    assert (beyond.block_hours, beyond.block_cost_usd) == (None, None)
    unpriced = calc.CostScenario("m", calc.Configuration(offer("x", "80", None), 2), D(6))
    (row,) = calc.cost_table([unpriced], [24])
    assert (row.block_hours, row.block_cost_usd) == (24, None)


# --- Pinned by mutation testing: the run ranking (RunPlan, shown_hours) ------------------------


def test_shown_hours_round_half_up_to_a_tenth():
    # 900,000 tokens at 1,000 a second: 900 s = 0.25 h, shown 0.3 (half even would show 0.2);
    # on two GPUs 0.5 GPU-hours, already a tenth
    quarter = run(planned(calc.Configuration(offer("e", "80", "1.00"), 2), "1"), "1000", 900_000)
    assert quarter.hours == D("0.25")
    assert quarter.shown_hours == D("0.3")
    assert quarter.shown_gpu_hours == D("0.5")
    assert calc.shown_hours(D("2.45")) == D("2.5")  # half even: 2.4
