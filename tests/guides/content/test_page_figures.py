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
