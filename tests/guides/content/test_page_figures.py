"""What a guide's figures answer: plans and runs of each configuration asked for."""

from dataclasses import replace
from decimal import Decimal as D

from guides.pages import assembly, selectors
from pricing.domain import calculations as calc
from tests.conftest import GUIDE_SLUG


def test_page_figures_tell_the_same_gpu_at_two_prices_apart(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    figures = assembly.guide_figures(guide)
    house = figures.configuration("h100", 8)
    elsewhere = calc.Configuration(replace(house.gpu, usd_per_gpu_hour=D("123.45")), 8)
    assert figures.plan("qlora", house).configuration == house
    assert figures.plan("qlora", elsewhere).configuration == elsewhere
    house_run, other_run = figures.runs("qlora", [house, elsewhere])
    assert house_run.configuration == house and other_run.configuration == elsewhere
    assert other_run.usd_per_run != house_run.usd_per_run
    assert figures.runs("qlora", [house]) == [house_run]  # asked again: the same answer


def test_what_a_method_needs_is_the_fewest_gpus_then_the_smallest_card_that_fit(seeded):
    """70B: QLoRA needs one L40S (46.8 GB of the 47.2 it can use), LoRA one H200 (149.3 GB of
    149.6), 8-bit Adam eight H200s (114.5 GB of 148 each), AdamW eight B200s; the
    recommendation (the cheapest run) may be larger."""
    figures = assembly.guide_figures(selectors.guide_for_page(slug=GUIDE_SLUG))
    needed = {m: figures.smallest_fit(m) for m in ("qlora", "lora", "full-8bit-adam", "full-adamw")}
    assert {m: (p.configuration.gpu.slug, p.configuration.count) for m, p in needed.items()} == {
        "qlora": ("l40s", 1),
        "lora": ("h200", 1),
        "full-8bit-adam": ("h200", 8),
        "full-adamw": ("b200", 8),
    }
    assert needed["full-8bit-adam"].reserved_gb_per_gpu.quantize(D("0.1")) == D("114.5")
    for method, plan in needed.items():  # a row of the fit table, marked ✓ there
        assert plan.configuration in figures.table_configurations()
        assert figures.fits(method, plan.configuration)


def test_the_fit_table_lists_what_a_method_needs_where_the_guide_did_not(seeded):
    """32B with 8-bit Adam: four H200s are the fewest, smallest cards that hold it; the guide's
    table lists four A100s and the recommended four B200s, so the row is added."""
    guide = selectors.guide_for_page(slug="best-gpu-for-qwen-2-5-32b-fine-tuning")
    figures = assembly.guide_figures(guide)
    four_h200 = figures.configuration("h200", 4)
    assert figures.smallest_fit("full-8bit-adam").configuration == four_h200
    assert four_h200 not in figures.configurations
    assert four_h200 in figures.table_configurations()
