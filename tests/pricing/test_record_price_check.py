"""record_price_check and the service behind it: one rule set, one-line refusals, nothing half
saved. "Today" is pinned, so the tests do not depend on the machine's clock."""

from datetime import date, timedelta
from decimal import Decimal as D
from io import StringIO
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command

from pricing import services
from pricing.models import Gpu, Price, PriceCheck, Provider

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
     "Infinity", "1.", ".5", " 1", "1,5", "0x10", "2.30000"],
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
    record("--provider", "gpuwithcrypto", "--date", day, *args, f"h100={price}")
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
