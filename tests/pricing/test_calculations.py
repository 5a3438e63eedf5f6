"""Every figure of the seed page, reproduced from the seed data through the pure calculations."""

import json
from decimal import Decimal as D
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing import calculations as calc

SEVENTY = D(70)
# The reference data as seed_content loads it, read without a database.
REFERENCE = json.loads(
    (Path(__file__).parents[2] / "content" / "reference.json").read_text(encoding="utf-8")
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


def test_fit_matrix_reproduces_the_seed_table():
    rows = calc.fit_matrix(
        [config(g, n) for g, n in SEED_CONFIGS], [estimate(m) for m in METHOD_ORDER]
    )
    for row in rows:
        key = (row.configuration.gpu.slug, row.configuration.count)
        marks = "".join("✓" if cell.fits else "✗" for cell in row.cells)
        assert marks == SEED_FIT[key], key
        assert row.configuration.total_memory_gb == SEED_TOTALS[key]
        assert row.configuration.usd_per_hour == SEED_HOURLY[key]


def test_fit_table_marks_l40s_too_small_for_qlora():
    cell = calc.fit_matrix([config("l40s")], [estimate("qlora")])[0].cell("qlora")
    assert not cell.fits
    assert calc.headroom_gb(config("l40s"), cell.required_gb) == D("-4.5")


@pytest.mark.parametrize(("available", "fits"), [("52.4", False), ("52.5", True), ("52.6", True)])
def test_an_estimate_fits_exactly_the_memory_on_hand(available, fits):
    cell = calc.FitCell("qlora", required_gb=D("52.5"), available_gb=D(available))
    assert cell.fits is fits


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


@pytest.mark.parametrize(
    ("method", "cheapest"),
    [
        ("qlora", ("a100-80gb", 1)),
        ("lora", ("a100-80gb", 4)),
        ("full-8bit-adam", ("h200", 8)),
        ("full-adamw", ("b200", 8)),
    ],
)
def test_cheapest_configuration_that_fits_each_method(method, cheapest):
    found = calc.cheapest_fit([config(g, n) for g, n in SEED_CONFIGS], estimate(method).planning_gb)
    assert (found.gpu.slug, found.count) == cheapest


def test_smallest_rentable_gpu_for_qlora_is_the_a100():
    rentable = [o for o in OFFERS.values() if o.usd_per_gpu_hour is not None]
    assert calc.smallest_fitting_gpu(rentable, estimate("qlora").planning_gb).slug == "a100-80gb"
    assert calc.smallest_fitting_gpu(rentable, estimate("lora").planning_gb).slug == "b200"


def test_4bit_70b_weights_do_not_fit_an_rtx_4090():
    weights = calc.weights_only_gb(SEVENTY, _method_rule("qlora").weight_bytes_per_param)
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
    small, large = calc.fit_matrix(
        [calc.Configuration(gpu, count), calc.Configuration(gpu, count + extra)], estimates
    )
    for before, after in zip(small.cells, large.cells, strict=True):
        assert after.fits or not before.fits


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
