"""Recording prices safely in the admin: the pre-filled rows follow the provider,
"Record a check" per provider, a lost race answered with the form, and corrections that
supersede the mistaken check and keep it in the history."""

import re
from datetime import date
from decimal import Decimal as D
from unittest import mock

import pytest
from django.utils.html import escape

from pricing import admin as pricing_admin
from pricing import selectors, services
from pricing.models import Price, PriceCheck, Provider
from tests.admin_pages import initial_form_data

ADD_URL = "/en/admin/pricing/pricecheck/add/"
TODAY = date(2026, 11, 29)  # the seed's checks are on 2026-10-29
SEEDED_DAY = date(2026, 10, 29)


@pytest.fixture(autouse=True)
def _pinned_today():
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        yield


def provider(slug: str) -> Provider:
    return Provider.objects.get(slug=slug)


def saved() -> tuple[int, int]:
    return PriceCheck.objects.count(), Price.objects.count()


def rows(data: dict) -> dict[str, str]:
    """The price rows of posted form data: GPU pk -> price as typed."""
    return {
        str(data[key]): str(data[key.replace("-gpu", "-quoted_usd_per_hour")])
        for key in data
        if key.startswith("prices-") and key.endswith("-gpu") and data[key]
    }


def typed_rows(response) -> dict[str, str]:
    formset = response.context["inline_admin_formsets"][0].formset
    return {
        f["gpu"].value(): f["quoted_usd_per_hour"].value()
        for f in formset.forms
        if f["gpu"].value()
    }


def price_field(data: dict, value: str) -> str:
    return next(k for k, v in data.items() if k.endswith("quoted_usd_per_hour") and str(v) == value)


# --- the rows follow the provider --------------------------------------------------------


def test_the_form_says_whose_prices_fill_the_rows(client, recorder):
    client.force_login(recorder)
    house, massed = provider("gpuwithcrypto"), provider("massed-compute")
    data = initial_form_data(client, ADD_URL)
    assert data["prefilled_for"] == house.pk
    assert rows(data) == {"1": "0.82", "2": "0.92", "3": "2.32", "4": "3.07", "5": "4.61"}
    body = client.get(ADD_URL, {"provider": massed.pk}).content.decode()
    assert "The price rows below hold the last known prices of Massed Compute." in body
    assert f'name="prefilled_for" value="{massed.pk}"' in body
    assert "js/price-check-provider.js" in body  # reloads the rows when the provider changes


def test_the_query_string_cannot_claim_whose_rows_they_are(client, recorder):
    client.force_login(recorder)
    massed = provider("massed-compute")
    response = client.get(ADD_URL, {"prefilled_for": massed.pk})
    form = response.context["adminform"].form
    assert form.initial["prefilled_for"] == provider("gpuwithcrypto").pk


def test_rows_filled_for_another_provider_are_refused_with_what_was_typed(client, recorder):
    # A bug once seen: GPUwithCrypto's rows saved under Massed Compute.
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["provider"] = provider("massed-compute").pk
    data[price_field(data, "0.92")] = "0.95"
    before = saved()
    response = client.post(ADD_URL, data)
    assert response.status_code == 200 and saved() == before
    message = (
        "The price rows were filled in for GPUwithCrypto, not Massed Compute: choose "
        "GPUwithCrypto again, or reload the form for Massed Compute (its “Record a check” "
        "link in the provider list)."
    )
    assert response.context["adminform"].form.errors["provider"] == [message]
    assert escape(message) in response.content.decode()
    assert typed_rows(response)["2"] == "0.95"  # nothing typed is lost


def test_rows_reloaded_for_a_provider_record_under_that_provider(client, recorder):
    client.force_login(recorder)
    massed = provider("massed-compute")
    url = f"{ADD_URL}?provider={massed.pk}"
    data = initial_form_data(client, url)
    assert data["prefilled_for"] == massed.pk and rows(data) == {"5": "43.46"}
    data[price_field(data, "43.46")] = "42.00"
    assert client.post(url, data).status_code == 302
    check = PriceCheck.objects.get(provider=massed, checked_on=TODAY)
    assert [(p.gpu.slug, p.quoted_usd_per_hour, p.gpus_in_quote) for p in check.prices.all()] == [
        ("b200", D("42.0000"), 8)
    ]


def test_the_refusal_is_translated(client, recorder):
    client.force_login(recorder)
    url = ADD_URL.replace("/en/", "/de/")
    data = initial_form_data(client, url)
    data["provider"] = provider("thunder-compute").pk
    response = client.post(url, data)
    assert response.context["adminform"].form.errors["provider"] == [
        "Die Preiszeilen wurden für GPUwithCrypto ausgefüllt, nicht für Thunder Compute: Wählen "
        "Sie wieder GPUwithCrypto, oder laden Sie das Formular für Thunder Compute neu (über "
        "„Preisprüfung erfassen“ in der Anbieterliste)."
    ]


# --- "Record a check" per provider -------------------------------------------------------


def test_each_provider_has_a_record_a_check_link(client, recorder):
    client.force_login(recorder)
    body = client.get("/en/admin/pricing/provider/").content.decode()
    for slug in ("gpuwithcrypto", "massed-compute", "thunder-compute"):
        pk = provider(slug).pk
        assert f'<a href="{ADD_URL}?provider={pk}" class="record-check">Record a check</a>' in body
    thunder = provider("thunder-compute")
    page = client.get(f"/en/admin/pricing/provider/{thunder.pk}/change/").content.decode()
    assert f'href="{ADD_URL}?provider={thunder.pk}" class="record-check">Record a check<' in page


def test_who_cannot_record_sees_no_record_link(client, editor):
    client.force_login(editor)
    assert not editor.has_perm("pricing.add_pricecheck")
    assert "record-check" not in client.get("/en/admin/pricing/provider/").content.decode()


def test_the_provider_list_counts_each_providers_checks_over_the_past_year(client, recorder):
    for day in (date(2026, 11, 2), date(2025, 12, 1), date(2025, 11, 29)):  # the last: a year ago
        services.price_check_record(provider_slug="thunder-compute", checked_on=day,
                                    prices={"a100-80gb": D("1.09")})  # fmt: skip
    client.force_login(recorder)
    body = client.get("/en/admin/pricing/provider/").content.decode()
    assert "Price checks in the past year" in body
    listed = {
        re.search(r'<th class="field-name">.*?>([^<]+)</a>', row).group(1): (
            re.search(r'<td class="field-last_check[^"]*">([^<]*)</td>', row).group(1),
            re.search(r'<td class="field-check_count">(\d+)</td>', row).group(1),
        )
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
        if 'class="field-name"' in row
    }
    assert listed == {
        "GPUwithCrypto": ("Oct. 29, 2026", "1"),
        "Massed Compute": ("Oct. 29, 2026", "1"),
        "Thunder Compute": ("Nov. 2, 2026", "3"),
    }


# --- a concurrent duplicate ----------------------------------------------------------------


def test_a_concurrent_duplicate_answers_the_form_with_the_message(client, recorder):
    # Another recorder saves the same provider and day after this form was checked and before
    # its insert: the database refuses the insert (IntegrityError), the service says so in one
    # line, and the form comes back with everything typed, never a server error.
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data[price_field(data, "0.92")] = "0.95"
    looks = []
    real_look = services.validate_new_check

    def the_other_recorder_wins(**kwargs):
        real_look(**kwargs)
        looks.append(kwargs)
        if len(looks) == 2:  # the service's own look, just before its insert
            services.price_check_record(
                provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"h100": D("2.50")}
            )

    with (
        mock.patch("pricing.services.validate_new_check", the_other_recorder_wins),
        mock.patch(
            "pricing.services.PriceCheck.objects.create", wraps=PriceCheck.objects.create
        ) as insert,
    ):
        response = client.post(ADD_URL, data)
    assert response.status_code == 200
    assert insert.call_count == 2  # the other recorder's, then ours, refused by the database
    message = services.ERROR_DUPLICATE_CHECK % {"provider": "gpuwithcrypto", "day": "2026-11-29"}
    assert message == (
        "gpuwithcrypto already has a price check on 2026-11-29; correct that check instead"
    )
    # In this test the other recorder's save was inside our request's transaction, so it was
    # rolled back with ours: the form shows the service's refusal as it stood. Where the other
    # save has committed, the form finds it again and shows the same message beside the day
    # (test_price_checks.py: test_a_second_check_on_the_same_day_is_refused).
    assert response.context["adminform"].form.non_field_errors() == [message]
    assert escape(message) in response.content.decode()
    assert typed_rows(response)["2"] == "0.95"
    assert not PriceCheck.objects.filter(checked_on=TODAY).exists()


def test_a_refusal_the_form_cannot_see_still_comes_back_as_a_message(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    message = services.ERROR_DUPLICATE_CHECK % {"provider": "gpuwithcrypto", "day": "2026-11-29"}
    refusals = iter([services.PriceCheckError(message)])

    def refuse_once(**kwargs):
        raise next(refusals)

    before = saved()
    with mock.patch("pricing.services.price_check_record", side_effect=refuse_once):
        response = client.post(ADD_URL, data)
    assert response.status_code == 200 and saved() == before
    assert response.context["adminform"].form.non_field_errors() == [message]


# --- corrections -----------------------------------------------------------------------------


def house_check() -> PriceCheck:
    return PriceCheck.objects.get(provider__slug="gpuwithcrypto", checked_on=SEEDED_DAY)


def correct_url(check: PriceCheck) -> str:
    return f"{ADD_URL}?corrects={check.pk}"


def test_a_check_page_offers_recorders_a_correction(client, recorder):
    client.force_login(recorder)
    check = house_check()
    body = client.get(f"/en/admin/pricing/pricecheck/{check.pk}/change/").content.decode()
    assert (
        f'<a href="{escape(correct_url(check))}" class="correct-check">Correct this check</a>'
        in body
    )


def test_a_correction_supersedes_the_mistaken_check_and_keeps_it(client, recorder):
    client.force_login(recorder)
    mistaken = house_check()
    url = correct_url(mistaken)
    response = client.get(url)
    form = response.context["adminform"].form
    assert form.fields["provider"].disabled and form.fields["checked_on"].disabled
    title = "Correct the price check of GPUwithCrypto on Oct\xa029,\xa02026"
    assert title in response.content.decode()
    data = initial_form_data(client, url)
    assert rows(data) == {"1": "0.82", "2": "0.92", "3": "2.32", "4": "3.07", "5": "4.61"}
    data[price_field(data, "2.32")] = "2.23"
    data["reason"] = "H100 read from the wrong row"
    data["provider"] = provider("massed-compute").pk  # ignored: the corrected check's provider
    assert client.post(url, data).status_code == 302
    mistaken.refresh_from_db()
    correction = mistaken.correction
    assert (correction.provider.slug, correction.checked_on) == ("gpuwithcrypto", SEEDED_DAY)
    assert (mistaken.superseded_by, mistaken.superseded_reason) == (
        recorder,
        "H100 read from the wrong row",
    )
    assert mistaken.prices.count() == 5  # kept in the history
    house = provider("gpuwithcrypto")
    latest = {
        g.slug: g.quoted_usd_per_hour for g in selectors.gpu_listings_for_provider(provider=house)
    }
    assert latest["h100"] == D("2.2300") and latest["l40s"] == D("0.8200")
    listing = client.get("/en/admin/pricing/pricecheck/").content.decode()
    assert '<td class="field-superseded">Superseded by ramon</td>' in listing
    page = client.get(f"/en/admin/pricing/pricecheck/{mistaken.pk}/change/").content.decode()
    assert "This check was superseded on" in page and "correct-check" not in page
    assert '<div class="readonly">H100 read from the wrong row</div>' in page


def test_a_correction_needs_a_reason(client, recorder):
    client.force_login(recorder)
    url = correct_url(house_check())
    data = initial_form_data(client, url)
    data["reason"] = ""
    before = saved()
    response = client.post(url, data)
    assert response.status_code == 200 and saved() == before
    assert response.context["adminform"].form.errors["reason"] == ["This field is required."]
    assert house_check().superseded_at is None


def test_a_check_corrected_already_is_not_corrected_twice(client, recorder):
    client.force_login(recorder)
    mistaken = house_check()
    services.price_check_supersede(
        check=mistaken, prices={"h100": D("2.23")}, recorded_by=recorder, reason="typo"
    )
    response = client.get(correct_url(mistaken))
    assert response.status_code == 302
    assert response["Location"] == f"/en/admin/pricing/pricecheck/{mistaken.pk}/change/"
    page = client.get(response["Location"]).content.decode()
    house = provider("gpuwithcrypto")
    assert (
        f'<li class="error">The price check of <a href="/en/admin/pricing/provider/{house.pk}/'
        f'change/">GPUwithCrypto</a> on <a href="/en/admin/pricing/pricecheck/{mistaken.pk}/'
        'change/">Oct\xa029,\xa02026</a> was already corrected; correct the current one</li>'
    ) in page  # named and linked; the admin's messages start with a capital


def test_a_correction_raced_by_another_comes_back_with_the_message(client, recorder):
    client.force_login(recorder)
    mistaken = house_check()
    url = correct_url(mistaken)
    data = initial_form_data(client, url)
    data["reason"] = "typo"
    real_supersede = services.price_check_supersede

    def the_other_corrector_wins(**kwargs):
        real_supersede(check=mistaken, prices={"h100": D("2.24")}, recorded_by=recorder, reason="x")
        return real_supersede(**kwargs)

    with mock.patch.object(
        pricing_admin.services, "price_check_supersede", the_other_corrector_wins
    ):
        response = client.post(url, data)
    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        str(services.ERROR_ALREADY_SUPERSEDED % {"provider": "gpuwithcrypto", "day": "2026-10-29"})
    ]
    assert PriceCheck.objects.filter(provider__slug="gpuwithcrypto").count() == 1  # rolled back


def test_the_manual_for_price_recorders_is_linked_and_served(client, recorder):
    client.force_login(recorder)
    index = client.get("/en/admin/").content.decode()
    assert '<a href="/en/admin/pricing/pricecheck/manual/">Price recording manual</a>' in index
    manual = client.get("/en/admin/pricing/pricecheck/manual/").content.decode()
    assert "<h1>Recording prices</h1>" in manual
    shot = client.get("/en/admin/pricing/pricecheck/manual/prices/provider-switch.png")
    assert shot.status_code == 200 and shot["Content-Type"] == "image/png"
    assert client.get("/en/admin/pricing/pricecheck/manual/prices/nope.png").status_code == 404
