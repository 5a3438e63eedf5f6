from datetime import date
from decimal import Decimal as D

import pytest

from pricing.domain import formatting

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("locale", "gb_small", "gb_large", "money", "long_date"),
    [
        ("en", "52.5 GB", "1,120 GB", "$0.92", "October 29, 2026"),
        ("de", "52,5 GB", "1.120 GB", "0,92 $", "29. Oktober 2026"),
        ("ja", "52.5 GB", "1,120 GB", "$0.92", "2026年10月29日"),
    ],
)
def test_figures_follow_the_locale(locale, gb_small, gb_large, money, long_date):
    assert formatting.gigabytes(D("52.50"), locale) == gb_small.replace(" ", NBSP)
    assert formatting.gigabytes(D("1120.0"), locale) == gb_large.replace(" ", NBSP)
    assert formatting.usd(D("0.9200"), locale).replace(NBSP, " ") == money
    assert formatting.long_date(date(2026, 10, 29), locale) == long_date.replace(" ", NBSP)


def test_money_keeps_cents_and_sub_cent_precision():
    assert formatting.usd(D("9.2"), "en") == "$9.20"
    assert formatting.usd(D("5.4325"), "en") == "$5.4325"


def test_lists_use_the_locale_conjunction():
    assert formatting.word_list(["10", "24", "168"], "de") == "10, 24 und 168"
    assert formatting.word_list(["10", "24", "168", "720"], "en", "or") == "10, 24, 168, or 720"


def test_equal_figures_format_alike_whatever_their_trailing_zeros():
    assert formatting.usd(D("9.2000"), "de") == formatting.usd(D("9.2"), "de") == "9,20\xa0$"
    assert formatting.number(D("52.50"), "en") == formatting.number(52.5, "en") == "52.5"
