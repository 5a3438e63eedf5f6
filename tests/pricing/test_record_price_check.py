from decimal import Decimal as D

import pytest
from django.core.management import CommandError, call_command

from pricing.models import Price, PriceCheck


def record(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("record_price_check", *args, stdout=out)
    return out.getvalue()


def test_records_a_whole_check(seeded):
    output = record("--provider", "gpuwithcrypto", "--date", "2026-11-20",
                    "a100-80gb=0.92", "h100=2.30")  # fmt: skip
    assert "Recorded 2 price(s)" in output
    check = PriceCheck.objects.get(provider__slug="gpuwithcrypto", checked_on="2026-11-20")
    assert {p.gpu.slug: p.quoted_usd_per_hour for p in check.prices.all()} == {
        "a100-80gb": D("0.92"), "h100": D("2.30"),
    }  # fmt: skip


def test_instance_quotes_record_their_gpu_count(seeded):
    record("--provider", "massed-compute", "--date", "2026-11-20", "--gpus-in-quote", "8",
           "b200=44.00")  # fmt: skip
    price = Price.objects.get(price_check__checked_on="2026-11-20")
    assert price.usd_per_gpu_hour == D("5.5")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--provider", "nobody", "--date", "2026-11-20", "h100=1"], "unknown provider 'nobody'"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h999=1"], "unknown GPU 'h999'"),
        (["--provider", "gpuwithcrypto", "--date", "2026-02-30", "h100=1"], "real calendar day"),
        (["--provider", "gpuwithcrypto", "--date", "29.11.2026", "h100=1"], "real calendar day"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=-1"], "positive number"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=0"], "positive number"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=abc"], "positive number"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=NaN"], "positive number"),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100"], "expected GPU=PRICE"),
        (
            ["--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=1", "h100=2"],
            "priced twice",
        ),
        (["--provider", "gpuwithcrypto", "--date", "2026-11-20"], "at least one"),
        (["--provider", "gpuwithcrypto", "--date", "2026-10-29", "h100=1"], "already has"),
        (["--provider", "gpuwithcrypto", "--date", "2099-01-01", "h100=1"], "in the future"),
        (
            [
                "--provider",
                "gpuwithcrypto",
                "--date",
                "2026-11-20",
                "--recorded-by",
                "ghost",
                "h100=1",
            ],
            "no active user 'ghost'",
        ),
    ],
)
def test_bad_input_names_the_problem_and_saves_nothing(seeded, args, message):
    before = (PriceCheck.objects.count(), Price.objects.count())
    with pytest.raises(CommandError, match=message):
        record(*args)
    assert (PriceCheck.objects.count(), Price.objects.count()) == before


def test_a_bad_gpu_among_good_ones_saves_nothing(seeded):
    before = Price.objects.count()
    with pytest.raises(CommandError):
        record("--provider", "gpuwithcrypto", "--date", "2026-11-20", "h100=1", "nope=2")
    assert Price.objects.count() == before
    assert not PriceCheck.objects.filter(checked_on="2026-11-20").exists()


def test_a_scripted_check_can_credit_a_staff_member(seeded, django_user_model):
    staff = django_user_model.objects.create_user("rita", is_staff=True)
    record("--provider", "gpuwithcrypto", "--date", "2026-11-20", "--recorded-by", "rita",
           "h100=2.30")  # fmt: skip
    assert PriceCheck.objects.get(checked_on="2026-11-20").recorded_by == staff
