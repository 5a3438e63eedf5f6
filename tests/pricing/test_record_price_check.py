"""record_price_check and the service behind it: one rule set, one-line refusals, nothing half
saved. "Today" is pinned, so the tests do not depend on the machine's clock."""

import re
from datetime import date, timedelta
from decimal import Decimal as D
from io import StringIO
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command

from pricing import services
from pricing.models import Gpu, Price, PriceCheck, Provider, Source

TODAY = date(2026, 11, 29)  # the seed's checks are on 2026-10-29
DAY = "2026-11-20"
BASE = ["--provider", "gpuwithcrypto", "--date", DAY]


@pytest.fixture(autouse=True)
def _pinned_today():
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        yield


def record(*args: str) -> str:
    out = StringIO()
    call_command("record_price_check", *args, stdout=out)
    return out.getvalue()


def refusal(*args: str) -> str:
    """The one-line message a refused command exits with; asserts that nothing was saved."""
    before = (PriceCheck.objects.count(), Price.objects.count())
    with pytest.raises(CommandError) as refused:
        record(*args)
    assert refused.value.returncode != 0
    assert (PriceCheck.objects.count(), Price.objects.count()) == before
    message = str(refused.value)
    assert "\n" not in message
    return message


def bad_price(value: str, gpu: str = "h100") -> str:
    return services.ERROR_BAD_PRICE % {
        "gpu": gpu,
        "min": services.MIN_USD_PER_HOUR,
        "max": services.MAX_USD_PER_HOUR,
        "places": services.PRICE_DECIMAL_PLACES,
        "value": repr(value),
    }


def bad_gpus_in_quote(value: str) -> str:
    return services.ERROR_BAD_GPUS_IN_QUOTE % {
        "min": services.MIN_GPUS_IN_QUOTE,
        "max": services.MAX_GPUS_IN_QUOTE,
        "value": repr(value),
    }


def test_the_ranges_are_the_stated_ones():
    assert services.MIN_USD_PER_HOUR == D("0.0001")
    assert services.MAX_USD_PER_HOUR == D("100000")
    assert (services.MIN_GPUS_IN_QUOTE, services.MAX_GPUS_IN_QUOTE) == (1, 64)
    assert services.EARLIEST_CHECK_DAY == date(2000, 1, 1)
    assert services.SOURCE_URL_MAX_LENGTH == PriceCheck._meta.get_field("source_url").max_length


def test_records_a_whole_check(seeded):
    output = record(*BASE, "a100-80gb=0.92", "h100=2.30")
    assert "Recorded 2 price(s)" in output
    check = PriceCheck.objects.get(provider__slug="gpuwithcrypto", checked_on=DAY)
    assert {p.gpu.slug: p.quoted_usd_per_hour for p in check.prices.all()} == {
        "a100-80gb": D("0.92"), "h100": D("2.30"),
    }  # fmt: skip
    assert check.recorded_by is None


def test_instance_quotes_record_their_gpu_count(seeded):
    record("--provider", "massed-compute", "--date", DAY, "--gpus-in-quote", "8", "b200=44.00")
    price = Price.objects.get(price_check__checked_on=DAY)
    assert price.usd_per_gpu_hour == D("5.5")


@pytest.mark.parametrize(
    "value",
    ["1_000", "١٢", "３", "1e3", "-1", "0", "0.00001", "100000.0001", "1000000", "abc", "NaN",
     "Infinity", "1.", ".5", " 1", "1,23456", "1,", ",5", "1,000.5", "0x10", "2.30000"],
)  # fmt: skip
def test_a_price_is_plain_digits_in_range(seeded, value):
    assert refusal(*BASE, f"h100={value}") == bad_price(value)


@pytest.mark.parametrize(
    "value",
    ["20261107", "2026-02-30", "29.11.2026", "2026-1-07", "２０２６-11-07", "2026-11-20T00:00",
     " 2026-11-20"],
)  # fmt: skip
def test_a_date_is_a_real_day_written_yyyy_mm_dd(seeded, value):
    message = refusal("--provider", "gpuwithcrypto", "--date", value, "h100=1")
    assert message == services.ERROR_BAD_DATE % {"value": repr(value)}


@pytest.mark.parametrize("value", ["0001-01-01", "1999-12-31"])
def test_a_date_is_not_before_2000(seeded, value):
    message = refusal("--provider", "gpuwithcrypto", "--date", value, "h100=1")
    assert message == services.ERROR_EARLY_DATE % {"earliest": "2000-01-01", "value": repr(value)}


@pytest.mark.parametrize("days_ahead", [1, 365 * 80])
def test_a_date_is_not_in_the_future(seeded, days_ahead):
    day = (TODAY + timedelta(days=days_ahead)).isoformat()
    message = refusal("--provider", "gpuwithcrypto", "--date", day, "h100=1")
    assert message == services.ERROR_FUTURE_DATE % {"day": day, "today": TODAY.isoformat()}


@pytest.mark.parametrize("value", ["0", "65", "99999", "-1", "1.5", "٣", "1_0", "8 ", ""])
def test_gpus_in_quote_is_a_whole_number_in_range(seeded, value):
    assert refusal(*BASE, "--gpus-in-quote", value, "h100=1") == bad_gpus_in_quote(value)


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/prices", "javascript:alert(1)", "example.com/prices", "https://",
     "file:///etc/passwd", "http://exa mple.com/"],
)  # fmt: skip
def test_a_source_url_is_http_or_https(seeded, url):
    message = refusal(*BASE, "--source-url", url, "h100=1")
    assert message == services.ERROR_BAD_SOURCE_URL % {"value": repr(url)}


def test_a_source_url_fits_the_field(seeded):
    url = "https://example.com/" + "a" * (services.SOURCE_URL_MAX_LENGTH - 19)
    assert len(url) == 501
    message = refusal(*BASE, "--source-url", url, "h100=1")
    assert message == services.ERROR_LONG_SOURCE_URL % {"max": 500, "length": 501}


def _user(name: str, *, staff: bool = True, active: bool = True, recorder: bool = True) -> User:
    user = User.objects.create_user(name, is_staff=staff, is_active=active)
    if recorder:
        user.groups.add(Group.objects.get(name="Price recorders"))
    return user


@pytest.mark.parametrize(
    "kind",
    [
        {"active": False},
        {"staff": False},
        {"recorder": False},
    ],
    ids=["inactive", "not-staff", "not-a-recorder"],
)
def test_recorded_by_is_an_active_staff_recorder(seeded, kind):
    _user("rita", **kind)
    message = refusal(*BASE, "--recorded-by", "rita", "h100=1")
    assert message == services.ERROR_NOT_A_RECORDER % {"username": repr("rita")}


def test_recorded_by_names_a_user(seeded):
    message = refusal(*BASE, "--recorded-by", "ghost", "h100=1")
    assert message == services.ERROR_UNKNOWN_RECORDER % {"username": repr("ghost")}


def test_unknown_provider_and_gpu_list_the_known_ones(seeded):
    providers = ", ".join(Provider.objects.values_list("slug", flat=True))
    gpus = ", ".join(Gpu.objects.values_list("slug", flat=True))
    assert refusal("--provider", "nobody", "--date", DAY, "h100=1") == (
        services.ERROR_UNKNOWN_PROVIDER % {"slug": repr("nobody"), "known": providers}
    )
    assert refusal(*BASE, "h100=1", "h999=2") == (
        services.ERROR_UNKNOWN_GPU % {"slug": repr("h999"), "known": gpus}
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["h100"], services.ERROR_BAD_PAIR % {"value": repr("h100")}),
        (["=1"], services.ERROR_BAD_PAIR % {"value": repr("=1")}),
        (["h100=1", "h100=2"], services.ERROR_DUPLICATE_GPU % {"gpu": "h100"}),
        ([], services.ERROR_NO_PRICES),
    ],
    ids=["no-price", "no-gpu", "gpu-twice", "no-prices"],
)
def test_the_list_of_prices_is_checked(seeded, args, message):
    assert refusal(*BASE, *args) == str(message)


def test_a_second_check_on_the_same_day_is_refused(seeded):
    message = refusal("--provider", "gpuwithcrypto", "--date", "2026-10-29", "h100=1")
    assert message == services.ERROR_DUPLICATE_CHECK % {
        "provider": "gpuwithcrypto",
        "day": "2026-10-29",
    }


def test_a_bad_gpu_among_good_ones_saves_nothing(seeded):
    refusal(*BASE, "h100=1", "nope=2")
    assert not PriceCheck.objects.filter(checked_on=DAY).exists()


@pytest.mark.parametrize(
    ("day", "args", "price", "gpus"),
    [
        ("2026-11-01", [], "0.0001", 1),
        ("2026-11-02", [], "100000", 1),
        ("2026-11-03", [], "100000.0000", 1),
        ("2026-11-04", ["--gpus-in-quote", "1"], "1", 1),
        ("2026-11-05", ["--gpus-in-quote", "64"], "1", 64),
        ("2000-01-01", [], "1", 1),
        (TODAY.isoformat(), [], "1", 1),
    ],
)
def test_the_bounds_themselves_are_accepted(seeded, day, args, price, gpus):
    # Far from the last H100 price (2.32) and, for 2000, long ago: confirmed.
    confirmed = ["--confirm-jump", "--confirm-old-date"]
    record("--provider", "gpuwithcrypto", "--date", day, *args, *confirmed, f"h100={price}")
    saved = Price.objects.get(
        price_check__checked_on=day, price_check__provider__slug="gpuwithcrypto"
    )
    assert (saved.quoted_usd_per_hour, saved.gpus_in_quote) == (D(price), gpus)


def test_an_http_source_url_of_the_full_length_is_accepted(seeded):
    url = "http://example.com/" + "a" * (services.SOURCE_URL_MAX_LENGTH - 19)
    record(*BASE, "--source-url", url, "h100=1")
    assert PriceCheck.objects.get(checked_on=DAY).source_url == url


@pytest.mark.parametrize("who", ["recorder", "superuser"])
def test_a_scripted_check_can_credit_a_staff_recorder(seeded, who):
    if who == "superuser":
        user = User.objects.create_superuser("rita")
    else:
        user = _user("rita")
    record(*BASE, "--recorded-by", "rita", "h100=2.30")
    assert PriceCheck.objects.get(checked_on=DAY).recorded_by == user


# The service itself: what the CLI and the admin both save through.


def test_the_future_check_applies_without_a_pinned_today(seeded):
    tomorrow = TODAY + timedelta(days=1)
    with pytest.raises(services.PriceCheckError) as refused:
        services.price_check_record(
            provider_slug="gpuwithcrypto", checked_on=tomorrow, prices={"h100": D("1")}
        )
    assert str(refused.value) == services.ERROR_FUTURE_DATE % {
        "day": tomorrow.isoformat(),
        "today": TODAY.isoformat(),
    }


def test_a_caller_can_pin_today(seeded):
    pinned = date(2026, 11, 10)
    with pytest.raises(services.PriceCheckError):
        services.price_check_record(
            provider_slug="gpuwithcrypto",
            checked_on=date(2026, 11, 11),
            prices={"h100": D("1")},
            today=pinned,
        )
    check = services.price_check_record(
        provider_slug="gpuwithcrypto", checked_on=pinned, prices={"h100": D("1")}, today=pinned
    )
    assert check.checked_on == pinned


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prices": {"h100": D("0.00001")}}, bad_price("0.00001")),
        ({"prices": {"h100": D("100000.0001")}}, bad_price("100000.0001")),
        ({"prices": {"h100": D("NaN")}}, bad_price("NaN")),
        ({"prices": {}}, services.ERROR_NO_PRICES),
        ({"gpus_in_quote": {"h100": 65}}, bad_gpus_in_quote("65")),
        ({"gpus_in_quote": {"h100": 0}}, bad_gpus_in_quote("0")),
        ({"checked_on": date(1999, 12, 31)}, services.ERROR_EARLY_DATE
         % {"earliest": "2000-01-01", "value": repr("1999-12-31")}),
        ({"checked_on": "20261107"}, services.ERROR_BAD_DATE % {"value": repr("20261107")}),
        ({"source_url": "ftp://example.com/"},
         services.ERROR_BAD_SOURCE_URL % {"value": repr("ftp://example.com/")}),
        ({"prices": {"h100": D("1.00001")}}, bad_price("1.00001")),
        ({"prices": {"h100": D("0")}}, bad_price("0")),
        ({"prices": {"h100": D("-1")}}, bad_price("-1")),
        ({"prices": {"h100": D("Infinity")}}, bad_price("Infinity")),
        ({"prices": {"h100": "1"}}, bad_price("1")),  # not a Decimal at all
        ({"gpus_in_quote": {"h100": True}}, bad_gpus_in_quote("True")),
        ({"checked_on": date(2026, 11, 30)}, services.ERROR_FUTURE_DATE
         % {"day": "2026-11-30", "today": "2026-11-29"}),
        ({"checked_on": "2026-11-30"}, services.ERROR_BAD_DATE % {"value": repr("2026-11-30")}),
        ({"source_url": "https://example.com/" + "a" * 481},
         services.ERROR_LONG_SOURCE_URL % {"max": 500, "length": 501}),
        ({"provider_slug": "nobody"}, services.ERROR_UNKNOWN_PROVIDER
         % {"slug": repr("nobody"), "known": "gpuwithcrypto, massed-compute, thunder-compute"}),
        ({"prices": {"h100": D(1), "h999": D(2)}}, services.ERROR_UNKNOWN_GPU
         % {"slug": repr("h999"), "known": "l40s, a100-80gb, h100, h200, b200, rtx-4090"}),
        ({"checked_on": date(2026, 10, 29)}, services.ERROR_DUPLICATE_CHECK
         % {"provider": "gpuwithcrypto", "day": "2026-10-29"}),
        ({"recorded_by": User(username="rita", is_staff=False)},
         services.ERROR_NOT_A_RECORDER % {"username": repr("rita")}),
    ],
    ids=["tiny", "huge", "nan", "none", "65-gpus", "0-gpus", "1999", "compact-date", "ftp",
         "5-decimals", "zero", "negative", "infinity", "text", "bool-gpus", "tomorrow",
         "text-date", "long-url", "unknown-provider", "unknown-gpu", "same-day",
         "not-staff"],
)  # fmt: skip
def test_the_service_applies_the_rules_to_values_too(seeded, kwargs, message):
    """Every refusal of the service itself, with the message constant code and tests share."""
    arguments = {"provider_slug": "gpuwithcrypto", "checked_on": date(2026, 11, 20),
                 "prices": {"h100": D("1")}} | kwargs  # fmt: skip
    before = (PriceCheck.objects.count(), Price.objects.count())
    with pytest.raises(services.PriceCheckError) as refused:
        services.price_check_record(**arguments)
    assert str(refused.value) == str(message)
    assert "\n" not in str(refused.value)
    assert (PriceCheck.objects.count(), Price.objects.count()) == before


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: services.parse_price(gpu="h100", value="1.23456"), bad_price("1.23456")),
        (lambda: services.validate_price(gpu="h100", price=D("0.00009")), bad_price("0.00009")),
        (lambda: services.validate_price(gpu="h100", price=D("0.00001"), shown="0,00001"),
         bad_price("0,00001")),
        (lambda: services.parse_gpus_in_quote(value="65"), bad_gpus_in_quote("65")),
        (lambda: services.validate_gpus_in_quote(count=0, shown="none"),
         bad_gpus_in_quote("none")),
        (lambda: services.parse_check_date(value="2026-13-01"),
         services.ERROR_BAD_DATE % {"value": repr("2026-13-01")}),
        (lambda: services.parse_check_date(value=None),
         services.ERROR_BAD_DATE % {"value": repr(None)}),
        (lambda: services.validate_check_date(day=date(2026, 11, 11), today=date(2026, 11, 10)),
         services.ERROR_FUTURE_DATE % {"day": "2026-11-11", "today": "2026-11-10"}),
        (lambda: services.parse_price_pairs(pairs=["h100="]),
         services.ERROR_BAD_PAIR % {"value": repr("h100=")}),
        (lambda: services.parse_price_pairs(pairs=["h100=1", "a100-80gb=2", "h100=3"]),
         services.ERROR_DUPLICATE_GPU % {"gpu": "h100"}),
        (lambda: services.validate_gpu_slugs(gpu_slugs=[]), services.ERROR_NO_PRICES),
    ],
    ids=["5-decimals", "below-min", "shown-as-typed", "65-typed", "shown-count", "month-13",
         "none", "pinned-today", "no-price", "repeat", "no-gpus"],
)  # fmt: skip
def test_the_validators_refuse_with_the_shared_messages(call, message):
    with pytest.raises(services.PriceCheckError) as refused:
        call()
    assert str(refused.value) == str(message)


def test_the_validators_return_what_they_accept():
    assert services.parse_price(gpu="h100", value="0.0001") == D("0.0001")
    assert services.parse_price(gpu="h100", value="100000") == D("100000")
    assert services.parse_price_pairs(pairs=["h100=2.30", "b200=4"]) == {
        "h100": D("2.30"), "b200": D("4"),
    }  # fmt: skip
    assert services.parse_gpus_in_quote(value="64") == 64
    assert services.parse_gpus_in_quote(value="1") == 1
    assert services.parse_check_date(value="2000-01-01") == date(2000, 1, 1)
    assert services.validate_check_date(day=TODAY) == TODAY
    assert services.validate_source_url(value="") == ""
    assert services.validate_source_url(value="https://example.com/") == "https://example.com/"


def test_a_lost_race_for_the_same_day_is_the_duplicate_message(seeded):
    # Both recorders passed the "no check that day yet" test; the database refuses the second.
    before = (PriceCheck.objects.count(), Price.objects.count())
    with (
        mock.patch("pricing.selectors.price_check_exists", return_value=False),
        pytest.raises(services.PriceCheckError) as refused,
    ):
        services.price_check_record(
            provider_slug="gpuwithcrypto", checked_on=date(2026, 10, 29), prices={"h100": D(1)}
        )
    assert str(refused.value) == services.ERROR_DUPLICATE_CHECK % {
        "provider": "gpuwithcrypto",
        "day": "2026-10-29",
    }
    assert (PriceCheck.objects.count(), Price.objects.count()) == before


def test_parsing_a_date_checks_it_against_the_pinned_today():
    with pytest.raises(services.PriceCheckError) as refused:
        services.parse_check_date(value="2026-11-20", today=date(2026, 11, 19))
    assert str(refused.value) == services.ERROR_FUTURE_DATE % {
        "day": "2026-11-20", "today": "2026-11-19"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        (lambda v: services.parse_price(gpu="h100", value=v), "00100000.5", "'00100000.5'"),
        (lambda v: services.parse_gpus_in_quote(value=v), "065", "'065'"),
    ],
)
def test_a_refusal_quotes_the_value_as_typed(parse, value, message):
    with pytest.raises(services.PriceCheckError) as refused:
        parse(value)
    assert str(refused.value).endswith(f"got {message}")


def test_a_price_pair_splits_at_its_first_equals_sign():
    with pytest.raises(services.PriceCheckError) as refused:
        services.parse_price_pairs(pairs=["h100=1=2"])
    assert "price for h100 must be" in str(refused.value)


def test_a_second_check_on_a_day_is_refused_before_saving(seeded):
    house = Provider.objects.get(slug="gpuwithcrypto")
    with pytest.raises(services.PriceCheckError) as refused:
        services.validate_new_check(provider=house, checked_on=date(2026, 10, 29))
    assert str(refused.value) == services.ERROR_DUPLICATE_CHECK % {
        "provider": "gpuwithcrypto", "day": "2026-10-29"
    }  # fmt: skip
    massed = Provider.objects.get(slug="massed-compute")
    PriceCheck.objects.filter(provider=massed).delete()
    services.validate_new_check(provider=massed, checked_on=date(2026, 10, 29))  # free


# --- entry that cannot go wrong silently: commas, jumps, old days, the admin's text rules


def test_a_decimal_comma_is_refused_with_the_price_written_with_a_point(seeded):
    assert refusal(*BASE, "a100-80gb=1,90") == (
        "price for a100-80gb is 1,90: use a point for decimals: 1.90"
    )
    assert refusal(*BASE, "h100=2,3") == "price for h100 is 2,3: use a point for decimals: 2.3"


JUMP_HOW = "if the prices are right, run the command again with --confirm-jump"
OLD_HOW = "if the day is right, run the command again with --confirm-old-date"


def test_the_thunder_compute_slip_is_refused_naming_the_jump(seeded):
    # "1,90" through a number box became 190: 174× Thunder Compute's last A100 price.
    args = ["--provider", "thunder-compute", "--date", DAY, "a100-80gb=190"]
    assert refusal(*args) == (
        "A100 80GB: $1.09 → $190.00, 174× the last price. A price more than 3× or less than "
        f"1/3 of the last one is saved only when confirmed: {JUMP_HOW}"
    )
    record(*args, "--confirm-jump")
    assert Price.objects.get(price_check__checked_on=DAY).quoted_usd_per_hour == D("190")


def test_every_jump_is_named_rises_and_falls(seeded):
    message = refusal(*BASE, "a100-80gb=89", "h100=0.23", "b200=4.70")
    assert message == (
        "A100 80GB: $0.92 → $89.00, 96.7× the last price; H100: $2.32 → $0.23, 1/10.1 of the "
        "last price. A price more than 3× or less than 1/3 of the last one is saved only when "
        f"confirmed: {JUMP_HOW}"
    )


@pytest.mark.parametrize(
    ("price", "asked"),
    [("6.96", False), ("6.9601", True), ("0.7734", False), ("0.7733", True)],
    ids=["3x", "above-3x", "a-third", "below-a-third"],
)
def test_three_times_and_a_third_are_the_bounds(seeded, price, asked):
    # The last H100 price is $2.32: 3× is $6.96, a third $0.7733….
    if asked:
        assert refusal(*BASE, f"h100={price}").endswith(JUMP_HOW)
    else:
        record(*BASE, f"h100={price}")
        assert PriceCheck.objects.filter(checked_on=DAY).exists()


def test_an_instance_quote_is_compared_per_gpu_hour(seeded):
    # Massed Compute's last B200: $43.46 for 8 GPUs. Per GPU, quoted as 1: no jump.
    record("--provider", "massed-compute", "--date", DAY, "b200=5.43")
    # The instance price with the count left at 1: 8× per GPU-hour.
    message = refusal("--provider", "massed-compute", "--date", "2026-11-21", "b200=43.46")
    assert message.startswith("B200: $5.43 → $43.46, 8× the last price. A price more than 3×")


def test_a_new_gpu_has_no_last_price_to_jump_from(seeded):
    record("--provider", "thunder-compute", "--date", DAY, "h100=2000")
    assert PriceCheck.objects.get(checked_on=DAY).prices.get().quoted_usd_per_hour == D(2000)


@pytest.mark.parametrize(
    ("day", "days"), [("2026-10-28", "32"), ("2026-10-29", "31"), ("2000-01-01", "9,829")]
)
def test_a_day_more_than_30_days_back_is_refused_unless_confirmed(seeded, day, days):
    args = ["--provider", "thunder-compute", "--date", day, "a100-80gb=1.09"]
    message = refusal(*args)
    if day == "2026-10-29":  # Thunder Compute's own seeded day: a second check that day
        assert message == services.ERROR_DUPLICATE_CHECK % {
            "provider": "thunder-compute", "day": day
        }  # fmt: skip
        return
    assert message == (
        f"{day} is {days} days ago. A check dated more than 30 days back is saved only when "
        f"confirmed: {OLD_HOW}"
    )
    record(*args, "--confirm-old-date")
    assert PriceCheck.objects.filter(checked_on=day, provider__slug="thunder-compute").exists()


def test_thirty_days_back_needs_no_confirmation(seeded):
    record("--provider", "gpuwithcrypto", "--date", "2026-10-30", "h100=2.32")
    assert PriceCheck.objects.filter(checked_on="2026-10-30").exists()


def test_both_confirmations_are_asked_at_once_and_each_only_for_itself(seeded):
    args = ["--provider", "gpuwithcrypto", "--date", "2026-10-01", "h100=23.2"]
    old = (
        "2026-10-01 is 59 days ago. A check dated more than 30 days back is saved only when "
        f"confirmed: {OLD_HOW}"
    )
    jump = (
        "H100: $2.32 → $23.20, 10× the last price. A price more than 3× or less than 1/3 of "
        f"the last one is saved only when confirmed: {JUMP_HOW}"
    )
    assert refusal(*args) == f"{old} {jump}"
    assert refusal(*args, "--confirm-old-date") == jump
    assert refusal(*args, "--confirm-jump") == old
    record(*args, "--confirm-jump", "--confirm-old-date")


def test_a_correction_is_compared_with_the_price_before_the_mistake(seeded):
    thunder = ["--provider", "thunder-compute", "--date", TODAY.isoformat()]
    record(*thunder, "--confirm-jump", "a100-80gb=190")  # the slip, confirmed by mistake
    correct = [*thunder, "--supersede", "--reason", "typed 1,90", "--recorded-by", "rita"]
    _user("rita")
    # $1.90 against the $1.09 before the slip, not against the slip's $190: no question.
    record(*correct, "a100-80gb=1.90")
    correction = PriceCheck.objects.current().get(
        provider__slug="thunder-compute", checked_on=TODAY
    )
    assert correction.prices.get().quoted_usd_per_hour == D("1.90")
    # A correction far from the price before the mistake is asked about like any check.
    message = refusal(*correct, "a100-80gb=19")
    assert message.startswith("A100 80GB: $1.09 → $19.00, 17.4× the last price.")


def test_the_old_day_of_a_correction_is_not_asked_about(seeded):
    _user("rita")
    record("--provider", "gpuwithcrypto", "--date", "2026-10-29", "--supersede", "--reason",
           "H100 read from the wrong row", "--recorded-by", "rita", "h100=2.23")  # fmt: skip
    assert PriceCheck.objects.current().get(
        provider__slug="gpuwithcrypto", checked_on="2026-10-29"
    ).prices.get().quoted_usd_per_hour == D("2.23")  # fmt: skip


TEXT_OPTIONS = {
    "--source-url": "https://example.com/{}prices",
    "--reason": "typo{}",
    "--note": "read {}again",
    "--provider": "gpuwithcrypto{}",
    "--date": DAY + "{}",
    "--gpus-in-quote": "1{}",
    "--recorded-by": "rita{}",
}


@pytest.mark.parametrize("option", TEXT_OPTIONS)
@pytest.mark.parametrize("character", ["\u202e", "\u200b", "\u2066"])
def test_every_option_is_held_to_the_admins_text_rules(seeded, option, character):
    options = {"--provider": "gpuwithcrypto", "--date": DAY}
    options[option] = TEXT_OPTIONS[option].format(character)
    message = refusal(*(x for pair in options.items() for x in pair), "h100=2.32")
    assert message == (
        f"“{option}” contains an invisible or text-direction character "
        f"(U+{ord(character):04X}), which can hide or reorder what readers see. Remove it."
    )


def test_a_price_pair_is_held_to_the_admins_text_rules(seeded):
    assert refusal(*BASE, "h100=2.32\u200b") == (
        "“GPU=PRICE” contains an invisible or text-direction character (U+200B), which can "
        "hide or reorder what readers see. Remove it."
    )


def test_a_null_character_is_refused_as_the_admin_refuses_it(seeded):
    # An operating system's argv cannot carry one; a script calling the command can.
    assert refusal(*BASE, "--note", "read\x00again", "h100=2.32") == (
        "--note contains a null character (U+0000). Remove it."
    )


def test_the_admin_refuses_the_same_characters(seeded):
    """The rules the command applies are the admin's: the same two validators."""
    from django import forms

    from gpuguide.lib.editor_input import VisibleTextValidator

    field = forms.CharField(validators=[VisibleTextValidator("note")])
    for text in ("a\u202eb", "a\x00b"):
        with pytest.raises(forms.ValidationError):
            field.clean(text)
        with pytest.raises(services.PriceCheckError):
            services.validate_typed_text(label="note", value=text)
    assert services.validate_typed_text(label="note", value="ok\nfine") == "ok\nfine"


# --- History


def _history() -> list[tuple[str, str, str, int, str]]:
    from django.contrib.admin.models import LogEntry

    return [
        (e.user.username, e.content_type.model, e.object_repr, e.action_flag,
         e.get_change_message())
        for e in LogEntry.objects.order_by("pk")
    ]  # fmt: skip


def test_a_check_credited_to_a_user_is_in_the_history(seeded):
    _user("rita")
    record(*BASE, "--recorded-by", "rita", "a100-80gb=0.92", "h100=2.30")
    assert _history() == [
        ("rita", "provider", "GPUwithCrypto", 2,
         "Added price check “GPUwithCrypto 2026-11-20”."),
        ("rita", "pricecheck", "GPUwithCrypto 2026-11-20", 1,
         "Added. Added price “A100 80GB $0.92”. Added price “H100 $2.30”."),
    ]  # fmt: skip


def test_a_correction_is_in_the_history_of_both_checks(seeded):
    _user("rita")
    record("--provider", "gpuwithcrypto", "--date", "2026-10-29", "--supersede", "--reason",
           "H100 read from the wrong row", "--recorded-by", "rita", "h100=2.23")  # fmt: skip
    assert _history() == [
        ("rita", "pricecheck", "GPUwithCrypto 2026-10-29", 2,
         "Changed superseded at, superseded by, why it was superseded and corrected by."),
        ("rita", "provider", "GPUwithCrypto", 2,
         "Added price check “GPUwithCrypto 2026-10-29”. Changed superseded at, superseded by, "
         "why it was superseded and corrected by for price check “GPUwithCrypto 2026-10-29”."),
        ("rita", "pricecheck", "GPUwithCrypto 2026-10-29", 1,
         "Added. Added price “H100 $2.23”."),
    ]  # fmt: skip


def test_without_a_user_no_history_is_written_and_the_help_says_so(seeded):
    record(*BASE, "h100=2.30")
    assert _history() == []
    from pricing.management.commands.record_price_check import Command

    parser = Command().create_parser("manage.py", "record_price_check")
    assert "without --recorded-by no History entry is written" in " ".join(
        parser.format_help().split()
    )


# The service: the questions are asked where the admin or the command pass confirmations.


def test_the_service_asks_only_where_confirmations_are_passed(seeded):
    jump = {"provider_slug": "gpuwithcrypto", "checked_on": date(2026, 11, 20),
            "prices": {"h100": D("23.2")}}  # fmt: skip
    with pytest.raises(services.ConfirmationNeeded) as refused:
        services.price_check_record(**jump, confirmations=services.Confirmations(jump_how="x"))
    assert [change.last.gpu_slug for change in refused.value.jumps] == ["h100"]
    assert refused.value.old_days is None
    assert str(refused.value).endswith("is saved only when confirmed: x")
    services.price_check_record(**jump)  # seeding, scripts, tests: nothing asked


def test_an_old_day_and_a_jump_are_asked_with_their_figures(seeded):
    # 2026-10-20 is 40 days before the tests' day (2026-11-29); h100 at $23.20 with no GPU
    # count given is one GPU's price, a jump from the last. Both questions come at once.
    with pytest.raises(services.ConfirmationNeeded) as refused:
        services.price_check_record(
            provider_slug="gpuwithcrypto", checked_on=date(2026, 10, 20),
            prices={"h100": D("23.2")},
            confirmations=services.Confirmations(jump_how="a", old_date_how="b", locale="de"),
        )  # fmt: skip
    assert refused.value.old_days == 40
    assert [change.gpus_in_quote for change in refused.value.jumps] == [1]
    assert "40 days ago. A check dated more than 30 days back" in str(refused.value)
    assert "more than 3× or less than 1/3 of the last one" in str(refused.value)


def test_a_confirmation_of_other_prices_confirms_nothing(seeded):
    # The admin's box carries the jumps it showed: ticked for $23.20, it does not pass $232.
    check = {"provider_slug": "gpuwithcrypto", "checked_on": date(2026, 11, 20)}
    shown = services.Confirmations(jump_fingerprint="h100=23.2/1")
    with pytest.raises(services.ConfirmationNeeded):
        services.price_check_record(**check, prices={"h100": D("232")}, confirmations=shown)
    saved = services.price_check_record(**check, prices={"h100": D("23.20")}, confirmations=shown)
    assert saved.prices.get().quoted_usd_per_hour == D("23.2")


def test_the_last_prices_are_the_latest_current_ones(seeded):
    house = Provider.objects.get(slug="gpuwithcrypto")
    services.price_check_record(
        provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 1), prices={"h100": D("2.5")}
    )
    last = services.last_prices(provider=house)
    assert {slug: (p.quoted_usd_per_hour, p.checked_on) for slug, p in last.items()} == {
        "l40s": (D("0.82"), date(2026, 10, 29)),
        "a100-80gb": (D("0.92"), date(2026, 10, 29)),
        "h100": (D("2.5"), date(2026, 11, 1)),
        "h200": (D("3.07"), date(2026, 10, 29)),
        "b200": (D("4.61"), date(2026, 10, 29)),
    }
    # Correcting the 2026-11-01 check: its H100 gives way to the one before it.
    mistaken = PriceCheck.objects.get(checked_on=date(2026, 11, 1))
    correcting = services.last_prices(provider=house, correcting=mistaken)
    assert correcting["h100"].quoted_usd_per_hour == D("2.32")
    assert correcting["l40s"] == last["l40s"]


def test_a_check_read_from_a_cited_page_dates_that_source_read_again(seeded, client):
    """Massed Compute's pricing page is a cited source (read 2026-10-29); a check read from it
    on 2026-11-20 makes it "read November 20, 2026" on the guide. An older correction never
    moves it back."""
    url = "https://vm.massedcompute.com/pricing"
    source = Source.objects.get(key="massed-compute-pricing")
    assert source.read_on == date(2026, 10, 29)
    record("--provider", "massed-compute", "--date", DAY, "--source-url", url, "b200=5.99")
    source.refresh_from_db()
    assert source.read_on == date(2026, 11, 20)
    page = client.get("/en/guides/best-gpu-for-llama-70b-fine-tuning/").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "Massed Compute pricing — Massed Compute (read November 20, 2026)" in text
    record("--provider", "massed-compute", "--date", "2026-11-10", "--source-url", url, "b200=5.5")
    source.refresh_from_db()
    assert source.read_on == date(2026, 11, 20)
    record("--provider", "thunder-compute", "--date", "2026-11-25", "a100-80gb=1.2")  # no URL
    assert Source.objects.get(key="thunder-compute-pricing").read_on == date(2026, 10, 29)
