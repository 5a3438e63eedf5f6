"""Staff record price checks in the admin: pre-filled, whole or nothing, append-only."""

from decimal import Decimal as D

import pytest
from django.utils import timezone

from pricing.models import Price, PriceCheck

from .conftest import form_data

ADD_URL = "/en/admin/pricing/pricecheck/add/"


def test_a_new_check_is_prefilled_with_the_last_known_prices(client, recorder):
    client.force_login(recorder)
    response = client.get(ADD_URL)
    assert response.status_code == 200
    formset = response.context["inline_admin_formsets"][0].formset
    prefilled = {f.initial.get("gpu"): f.initial.get("quoted_usd_per_hour") for f in formset.forms}
    assert D("0.82") in prefilled.values() and D("4.61") in prefilled.values()
    assert response.context["adminform"].form.initial["checked_on"] == timezone.localdate()


def test_changing_one_price_records_the_whole_check(client, recorder):
    client.force_login(recorder)
    data = form_data(client.get(ADD_URL))
    price_field = next(
        k for k, v in data.items() if k.endswith("quoted_usd_per_hour") and str(v) == "0.92"
    )
    data[price_field] = "0.95"
    response = client.post(ADD_URL, data)
    assert response.status_code == 302, response.context["errors"] if response.context else ""
    check = PriceCheck.objects.get(checked_on=timezone.localdate())
    prices = {p.gpu.slug: p.quoted_usd_per_hour for p in check.prices.all()}
    assert prices == {
        "l40s": D("0.82"), "a100-80gb": D("0.95"), "h100": D("2.32"),
        "h200": D("3.07"), "b200": D("4.61"),
    }  # fmt: skip
    assert check.recorded_by == recorder


def test_a_bad_row_saves_nothing(client, recorder):
    client.force_login(recorder)
    data = form_data(client.get(ADD_URL))
    price_field = next(k for k in data if k.endswith("quoted_usd_per_hour") and data[k])
    data[price_field] = "-1"
    before = (PriceCheck.objects.count(), Price.objects.count())
    response = client.post(ADD_URL, data)
    assert response.status_code == 200
    assert "Ensure this value is greater than or equal to 0.0001" in response.content.decode()
    assert (PriceCheck.objects.count(), Price.objects.count()) == before


def test_a_second_check_on_the_same_day_is_refused(client, recorder):
    client.force_login(recorder)
    data = form_data(client.get(ADD_URL))
    data["checked_on"] = "2026-10-29"
    response = client.post(ADD_URL, data)
    assert response.status_code == 200
    assert "already exists" in response.content.decode()


def test_a_check_in_the_future_is_refused(client, recorder):
    client.force_login(recorder)
    data = form_data(client.get(ADD_URL))
    data["checked_on"] = "2099-01-01"
    assert "not in the future" in client.post(ADD_URL, data).content.decode()


@pytest.mark.parametrize("who", ["recorder", "editor", "administrator"])
def test_recorded_checks_are_append_only_except_for_superusers(client, request, who):
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


def test_a_superuser_can_correct_a_check(client, admin_user, seeded):
    client.force_login(admin_user)
    check = PriceCheck.objects.get(provider__slug="thunder-compute")
    response = client.post(f"/en/admin/pricing/pricecheck/{check.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not PriceCheck.objects.filter(pk=check.pk).exists()


def test_competitor_checks_prefill_from_that_provider(client, recorder):
    client.force_login(recorder)
    provider = PriceCheck.objects.get(provider__slug="massed-compute").provider
    response = client.get(ADD_URL, {"provider": provider.pk})
    formset = response.context["inline_admin_formsets"][0].formset
    rows = [f.initial for f in formset.forms if f.initial]
    assert rows == [{"gpu": rows[0]["gpu"], "quoted_usd_per_hour": D("43.46"), "gpus_in_quote": 8}]
