from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from pricing import selectors
from pricing.models import Price, PriceCheck, Provider
from pricing.services import price_check_record

from ..conftest import SEED_DAY


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


def test_price_history_is_oldest_first(house):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 1),
                       prices={"a100-80gb": D("0.95")})  # fmt: skip
    history = selectors.price_history(provider=house)
    assert history["a100-80gb"] == [(SEED_DAY, D("0.92")), (date(2026, 11, 1), D("0.95"))]
