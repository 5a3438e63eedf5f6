"""A new price against the last one (pricing/domain/price_changes.py): the ratio per GPU-hour,
the rule's bounds (3×, a third, 30 days), the factor and the change as shown."""

from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from pricing.domain import formatting, price_changes
from pricing.domain.price_changes import LastPrice

DAY = date(2026, 10, 29)
TODAY = date(2026, 11, 29)


def last(quoted: str, gpus: int = 1, slug: str = "a100-80gb") -> LastPrice:
    return LastPrice(
        gpu_id=2,
        gpu_slug=slug,
        gpu_name="A100 80GB",
        quoted_usd_per_hour=D(quoted),
        gpus_in_quote=gpus,
        checked_on=DAY,
    )


def change(old: str, new: str, *, old_gpus: int = 1, new_gpus: int = 1):
    return price_changes.PriceChange(
        last(old, old_gpus), quoted_usd_per_hour=D(new), gpus_in_quote=new_gpus
    )


def test_the_rule_is_three_times_and_thirty_days():
    assert price_changes.JUMP_FACTOR == D(3)
    assert price_changes.OLD_CHECK_DAYS == 30


@pytest.mark.parametrize(
    ("old", "new", "jump"),
    [
        ("2.32", "6.96", False),  # exactly 3×
        ("2.32", "6.9601", True),
        ("3", "1", False),  # exactly a third
        ("3", "0.9999", True),
        ("0.89", "89", True),
        ("1.09", "190", True),
        ("0.92", "0.95", False),
        ("0.92", "0.92", False),
    ],
)
def test_a_jump_is_more_than_three_times_or_less_than_a_third(old, new, jump):
    assert change(old, new).is_jump is jump


def test_a_third_is_compared_exactly():
    # As a ratio, a third is 0.333…3 (28 digits), which times 3 falls just below 1.
    assert D(1) / D(3) * 3 < 1
    assert price_changes.is_jump(D(1), D(3)) is False
    assert price_changes.is_jump(D("0.9999"), D(3)) is True
    assert price_changes.is_jump(D(9), D(3)) is False
    assert price_changes.is_jump(D("9.0001"), D(3)) is True


def test_instance_quotes_are_compared_per_gpu_hour():
    # $43.46 for 8 B200s against $5.4325 per GPU: the same price.
    same = change("43.46", "5.4325", old_gpus=8)
    assert (same.ratio, same.unchanged, same.is_jump, same.same_quote) == (D(1), True, False, False)
    # The count typed as 1 for an 8-GPU quote: 8× per GPU-hour.
    assert change("43.46", "43.46", old_gpus=8).ratio == D(8)


@pytest.mark.parametrize(
    ("old", "new", "factor", "rises"),
    [
        ("0.89", "89", D("100"), True),
        ("1.09", "190", D("174"), True),
        ("0.92", "89", D("96.7"), True),
        ("2.32", "7.01", D("3.02"), True),
        ("0.92", "0.092", D("10.0"), False),
        ("2.32", "0.23", D("10.1"), False),
        ("0.0001", "100000", D("1.00E+9"), True),
    ],
)
def test_the_factor_has_three_significant_digits(old, new, factor, rises):
    shown = change(old, new)
    assert (shown.factor, shown.rises) == (factor, rises)
    assert str(shown.factor) == str(factor)


@pytest.mark.parametrize(
    ("old", "new", "fraction"),
    [
        ("0.92", "0.95", D("0.033")),
        ("2.32", "2.23", D("-0.039")),
        ("0.89", "89", D("99.000")),
        ("1", "1.0004", D("0.000")),
        ("1", "1.0005", D("0.001")),  # half a tenth of a percent rounds up
    ],
)
def test_the_change_is_rounded_to_a_tenth_of_a_percent(old, new, fraction):
    assert change(old, new).fraction == fraction


@pytest.mark.parametrize(
    ("fraction", "locale", "shown"),
    [
        (D("0.033"), "en", "+3.3%"),
        (D("0.033"), "de", "+3,3\xa0%"),
        (D("0.033"), "ja", "+3.3%"),
        (D("-0.039"), "en", "-3.9%"),
        (D("-0.039"), "de", "-3,9\xa0%"),
        (D("99"), "en", "+9,900%"),
        (D("99"), "de", "+9.900\xa0%"),
        (D("0"), "en", "0%"),
    ],
)
def test_a_change_is_shown_with_its_sign(fraction, locale, shown):
    assert formatting.signed_percent(fraction, locale) == shown


@pytest.mark.parametrize(("days", "old"), [(0, False), (30, False), (31, True), (9000, True)])
def test_a_day_is_old_after_thirty_days(days, old):
    day = TODAY - timedelta(days=days)
    assert price_changes.is_old(day, today=TODAY) is old
    assert price_changes.days_back(day, today=TODAY) == days


def test_the_fingerprint_names_each_jump_and_nothing_else():
    changes = (
        change("0.92", "89"),
        change("0.92", "0.95"),
        price_changes.PriceChange(
            last("2.32", slug="h100"), quoted_usd_per_hour=D("0.2300"), gpus_in_quote=1
        ),
    )
    assert price_changes.jumps(changes) == (changes[0], changes[2])
    assert price_changes.fingerprint(changes) == "a100-80gb=89/1;h100=0.23/1"
    # The same prices typed differently confirm the same; another count does not.
    assert price_changes.fingerprint((change("0.92", "89.000"),)) == "a100-80gb=89/1"
    assert price_changes.fingerprint((change("0.92", "89", new_gpus=2),)) == "a100-80gb=89/2"
    assert price_changes.fingerprint((change("0.92", "0.95"),)) == ""
