"""Staff record price checks in the admin: pre-filled, whole or nothing, append-only, and by
the same rules, with the same messages, as ``manage.py record_price_check`` (one service)."""

from datetime import date, timedelta
from decimal import Decimal as D
from unittest import mock

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.utils.html import escape

from pricing import services
from pricing.models import Gpu, Price, PriceCheck, Provider
from tests.admin_pages import initial_form_data

ADD_URL = "/en/admin/pricing/pricecheck/add/"
TODAY = date(2026, 11, 29)  # the seed's checks are on 2026-10-29


@pytest.fixture(autouse=True)
def _pinned_today():
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        yield


def saved() -> tuple[int, int]:
    return PriceCheck.objects.count(), Price.objects.count()


def refused(client, data: dict, url: str = ADD_URL):
    """POST the add form; assert it came back with errors and saved nothing."""
    before = saved()
    response = client.post(url, data)
    assert response.status_code == 200
    assert saved() == before
    return response


def main_form(response):
    return response.context["adminform"].form


def price_forms(response):
    return response.context["inline_admin_formsets"][0].formset.forms


def assert_shown(response, message: str) -> None:
    assert escape(str(message)) in response.content.decode()


def test_a_new_check_is_prefilled_with_the_last_known_prices(client, recorder):
    client.force_login(recorder)
    response = client.get(ADD_URL)
    assert response.status_code == 200
    formset = response.context["inline_admin_formsets"][0].formset
    prefilled = {f.initial.get("gpu"): f.initial.get("quoted_usd_per_hour") for f in formset.forms}
    assert D("0.82") in prefilled.values() and D("4.61") in prefilled.values()
    assert main_form(response).initial["checked_on"] == TODAY
    assert 'type="date"' in response.content.decode()  # sends YYYY-MM-DD in every language


def test_changing_one_price_records_the_whole_check_through_the_service(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    price_field = next(
        k for k, v in data.items() if k.endswith("quoted_usd_per_hour") and str(v) == "0.92"
    )
    data[price_field] = "0.95"
    with mock.patch(
        "pricing.services.price_check_record", wraps=services.price_check_record
    ) as record:
        response = client.post(ADD_URL, data)
    assert response.status_code == 302, response.context["errors"] if response.context else ""
    check = PriceCheck.objects.get(checked_on=TODAY)
    record.assert_called_once()
    assert record.call_args.kwargs["recorded_by"] == recorder
    prices = {p.gpu.slug: p.quoted_usd_per_hour for p in check.prices.all()}
    assert prices == {
        "l40s": D("0.82"), "a100-80gb": D("0.95"), "h100": D("2.32"),
        "h200": D("3.07"), "b200": D("4.61"),
    }  # fmt: skip
    assert check.recorded_by == recorder
    assert response["Location"].endswith("/pricing/pricecheck/")
    log = LogEntry.objects.get(object_id=str(check.pk), action_flag=ADDITION)
    assert log.user == recorder


def test_the_bounds_themselves_are_accepted(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2000-01-01"
    data["source_url"] = "https://example.com/" + "a" * (services.SOURCE_URL_MAX_LENGTH - 20)
    data["prices-0-quoted_usd_per_hour"] = "0.0001"
    data["prices-1-quoted_usd_per_hour"] = "100000"
    data["prices-2-gpus_in_quote"] = "64"
    data["prices-3-gpus_in_quote"] = "1"
    response = refused(client, data)  # far from the last prices, and long ago: asked first
    boxes = {box["name"]: box["value"] for box in response.context["price_confirmations"]}
    assert boxes == {
        "confirm_old_date": "2000-01-01",
        "confirm_jump": "l40s=0.0001/1;a100-80gb=100000/1;h100=2.32/64",
    }
    assert client.post(ADD_URL, data | boxes).status_code == 302
    check = PriceCheck.objects.get(checked_on="2000-01-01")
    assert len(check.source_url) == services.SOURCE_URL_MAX_LENGTH
    rows = {(p.quoted_usd_per_hour, p.gpus_in_quote) for p in check.prices.all()}
    assert {(D("0.0001"), 1), (D("100000"), 1)} <= rows
    assert 64 in {gpus for _price, gpus in rows}


@pytest.mark.parametrize(
    "value",
    ["1_000", "١٢", "３", "1e3", "-1", "0", "0.00001", "100000.0001", "abc", "NaN", "1,23456",
     "1,000.5", " 1"],
)  # fmt: skip
def test_a_bad_price_is_refused_beside_its_row(client, recorder, value):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["prices-0-quoted_usd_per_hour"] = value
    response = refused(client, data)
    gpu = Gpu.objects.get(pk=data["prices-0-gpu"]).slug
    message = services.ERROR_BAD_PRICE % {
        "gpu": gpu,
        "min": services.MIN_USD_PER_HOUR,
        "max": services.MAX_USD_PER_HOUR,
        "places": services.PRICE_DECIMAL_PLACES,
        "value": repr(value),
    }
    assert price_forms(response)[0].errors["quoted_usd_per_hour"] == [message]
    assert_shown(response, message)


@pytest.mark.parametrize("value", ["0", "65", "99999", "-1", "1.5", "٣"])
def test_a_bad_gpu_count_is_refused_beside_its_row(client, recorder, value):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["prices-0-gpus_in_quote"] = value
    response = refused(client, data)
    message = services.ERROR_BAD_GPUS_IN_QUOTE % {
        "min": services.MIN_GPUS_IN_QUOTE,
        "max": services.MAX_GPUS_IN_QUOTE,
        "value": repr(value),
    }
    assert price_forms(response)[0].errors["gpus_in_quote"] == [message]
    assert_shown(response, message)


TOMORROW = (TODAY + timedelta(days=1)).isoformat()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("20261107", services.ERROR_BAD_DATE % {"value": repr("20261107")}),
        ("2026-02-30", services.ERROR_BAD_DATE % {"value": repr("2026-02-30")}),
        ("29.11.2026", services.ERROR_BAD_DATE % {"value": repr("29.11.2026")}),
        ("0001-01-01", services.ERROR_EARLY_DATE
         % {"earliest": "2000-01-01", "value": repr("0001-01-01")}),
        ("1999-12-31", services.ERROR_EARLY_DATE
         % {"earliest": "2000-01-01", "value": repr("1999-12-31")}),
        (TOMORROW, services.ERROR_FUTURE_DATE % {"day": TOMORROW, "today": TODAY.isoformat()}),
        ("2099-01-01", services.ERROR_FUTURE_DATE
         % {"day": "2099-01-01", "today": TODAY.isoformat()}),
    ],
)  # fmt: skip
def test_a_bad_date_is_refused_beside_the_field(client, recorder, value, message):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = value
    response = refused(client, data)
    assert main_form(response).errors["checked_on"] == [str(message)]
    assert_shown(response, message)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/prices",
         services.ERROR_BAD_SOURCE_URL % {"value": repr("ftp://example.com/prices")}),
        ("javascript:alert(1)",
         services.ERROR_BAD_SOURCE_URL % {"value": repr("javascript:alert(1)")}),
        ("https://example.com/" + "a" * 481,
         services.ERROR_LONG_SOURCE_URL % {"max": 500, "length": 501}),
    ],
    ids=["ftp", "javascript", "501-chars"],
)  # fmt: skip
def test_a_bad_source_url_is_refused_beside_the_field(client, recorder, url, message):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["source_url"] = url
    response = refused(client, data)
    assert main_form(response).errors["source_url"] == [str(message)]
    assert_shown(response, message)


def test_a_gpu_priced_twice_is_refused_beside_the_repeat(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    blank = int(data["prices-TOTAL_FORMS"]) - 1  # the last of the blank rows for new GPUs
    data[f"prices-{blank}-gpu"] = data["prices-0-gpu"]
    data[f"prices-{blank}-quoted_usd_per_hour"] = "1"
    response = refused(client, data)
    message = services.ERROR_DUPLICATE_GPU % {"gpu": Gpu.objects.get(pk=data["prices-0-gpu"]).slug}
    assert price_forms(response)[blank].errors["gpu"] == [message]
    assert price_forms(response)[0].errors == {}
    assert_shown(response, message)


def test_a_check_needs_at_least_one_price(client, recorder):
    client.force_login(recorder)
    newcomer = Provider.objects.create(slug="newcomer", name="Newcomer")
    url = f"{ADD_URL}?provider={newcomer.pk}"
    data = initial_form_data(client, url)  # no last known prices: only blank rows
    response = refused(client, data, url)
    formset = response.context["inline_admin_formsets"][0].formset
    assert formset.non_form_errors() == [str(services.ERROR_NO_PRICES)]
    assert_shown(response, services.ERROR_NO_PRICES)


def test_a_second_check_on_the_same_day_is_refused(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2026-10-29"
    response = refused(client, data)
    message = services.ERROR_DUPLICATE_CHECK % {"provider": "gpuwithcrypto", "day": "2026-10-29"}
    assert main_form(response).errors["checked_on"] == [message]
    assert_shown(response, message)


def test_a_lost_race_for_the_day_is_reported_not_crashed(client, recorder):
    # The form found the day free; another recorder saved it before this save did.
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2026-10-29"
    data["confirm_old_date"] = "2026-10-29"  # 31 days back, confirmed
    before = saved()
    with (
        mock.patch("pricing.selectors.price_check_exists", return_value=False),
        mock.patch.object(PriceCheck, "validate_constraints"),  # the form's own look
    ):
        response = client.post(ADD_URL, data)
    assert response.status_code == 200  # the form again, with what was typed
    message = services.ERROR_DUPLICATE_CHECK % {"provider": "gpuwithcrypto", "day": "2026-10-29"}
    assert main_form(response).non_field_errors() == [message]
    assert saved() == before


def test_messages_are_translated(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL.replace("/en/", "/de/"))
    data["checked_on"] = "20261107"
    response = refused(client, data, ADD_URL.replace("/en/", "/de/"))
    [message] = main_form(response).errors["checked_on"]
    assert message.startswith("Das Datum muss")


@pytest.mark.parametrize("who", ["recorder", "editor", "administrator"])
def test_recorded_checks_are_append_only(client, db, request, who):
    user = request.getfixturevalue(who)
    client.force_login(user)
    check = PriceCheck.objects.get(provider__slug="gpuwithcrypto")
    url = f"/en/admin/pricing/pricecheck/{check.pk}/"
    response = client.get(url + "change/")
    assert response.status_code == 200
    assert 'name="_save"' not in response.content.decode()  # view only
    assert client.post(url + "delete/", {"post": "yes"}).status_code == 403
    assert client.post(url + "change/", {"provider": check.provider_id}).status_code == 403
    assert PriceCheck.objects.filter(pk=check.pk).exists()


def test_a_superuser_can_edit_a_checks_note_but_nobody_deletes_a_check(client, admin_user, seeded):
    client.force_login(admin_user)
    check = PriceCheck.objects.get(provider__slug="gpuwithcrypto")
    url = f"/en/admin/pricing/pricecheck/{check.pk}/change/"
    data = initial_form_data(client, url)
    data["note"] = "read again"
    assert client.post(url, data).status_code == 302
    check.refresh_from_db()
    assert check.note == "read again" and check.prices.count() == 5
    # Guides quote Thunder Compute's only check: deleting it would leave dashes in them.
    thunder = PriceCheck.objects.get(provider__slug="thunder-compute")
    response = client.post(f"/en/admin/pricing/pricecheck/{thunder.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    listing = client.get("/en/admin/pricing/pricecheck/").content.decode()
    assert 'value="delete_selected"' not in listing
    assert PriceCheck.objects.filter(pk=thunder.pk).exists()


def test_competitor_checks_prefill_from_that_provider(client, recorder):
    client.force_login(recorder)
    provider = PriceCheck.objects.get(provider__slug="massed-compute").provider
    response = client.get(ADD_URL, {"provider": provider.pk})
    formset = response.context["inline_admin_formsets"][0].formset
    rows = [f.initial for f in formset.forms if f.initial]
    assert rows == [{"gpu": rows[0]["gpu"], "quoted_usd_per_hour": D("43.46"), "gpus_in_quote": 8}]
