"""Price entry in the admin that cannot go wrong silently: text boxes that keep what was typed,
a decimal comma refused with the price written with a point, each row beside the provider's last
price, a jump or a day long past saved only once confirmed, the checks' prices in the list, the
messages by name with links, and the History."""

import re
from datetime import date
from decimal import Decimal as D
from unittest import mock

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from pricing import services
from pricing.models import Gpu, PriceCheck, Provider
from tests.admin_pages import initial_form_data
from tests.pricing.admin.test_price_checks import TODAY, _pinned_today, refused, saved  # noqa: F401 (autouse)

ADD_URL = "/en/admin/pricing/pricecheck/add/"
LIST_URL = "/en/admin/pricing/pricecheck/"
JUMP_RULE = "A price more than 3× or less than 1/3 of the last one is saved only when confirmed"
TICK_JUMP = "tick “Yes, these prices are right” below and save again"


def gpu_pk(slug: str) -> int:
    return Gpu.objects.get(slug=slug).pk


def row_of(data: dict, slug: str) -> int:
    """The index of the price row holding ``slug``'s GPU."""
    pk = gpu_pk(slug)
    return next(
        int(key.split("-")[1])
        for key, value in data.items()
        if key.startswith("prices-") and key.endswith("-gpu") and str(value) == str(pk)
    )


def cells(body: str, name: str) -> list[str]:
    """The texts of one comparison column (last_price or price_change), row by row."""
    found = re.findall(rf'<td class="field-{name}">\s*<p>(.*?)</p>', body, re.S)
    return [text.strip() for text in found]


def rows_shown(response) -> list[tuple[str, str]]:
    body = response.content.decode()
    return list(zip(cells(body, "last_price"), cells(body, "price_change"), strict=True))


def boxes(response) -> dict[str, tuple[str, str]]:
    return {b["name"]: (b["value"], b["label"]) for b in response.context["price_confirmations"]}


def non_form_errors(response) -> list[str]:
    return response.context["inline_admin_formsets"][0].formset.non_form_errors()


def price_errors(response, index: int) -> list[str]:
    return (
        response.context["inline_admin_formsets"][0]
        .formset.forms[index]
        .errors.get("quoted_usd_per_hour", [])
    )


# --- the boxes -----------------------------------------------------------------------------


def test_price_boxes_are_text_boxes_with_a_decimal_keypad(client, recorder):
    client.force_login(recorder)
    body = client.get(ADD_URL).content.decode()
    assert 'type="number"' not in body
    assert (
        '<input type="text" name="prices-0-quoted_usd_per_hour" value="0.82" '
        'inputmode="decimal" autocomplete="off" size="10" id="id_prices-0-quoted_usd_per_hour">'
    ) in body
    assert (
        '<input type="text" name="prices-0-gpus_in_quote" value="1" inputmode="numeric" '
        'autocomplete="off" size="3" aria-describedby="id_prices-0-gpus_in_quote_helptext" '
        'id="id_prices-0-gpus_in_quote">'
    ) in body
    assert "js/price-check-rows.js" in body


def test_a_decimal_comma_is_refused_beside_its_row_and_what_was_typed_is_kept(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    a100 = row_of(data, "a100-80gb")
    data[f"prices-{a100}-quoted_usd_per_hour"] = "1,90"
    data["note"] = "read at noon"
    response = refused(client, data)
    message = "price for a100-80gb is 1,90: use a point for decimals: 1.90"
    assert price_errors(response, a100) == [message]
    body = response.content.decode()
    assert escape(message) in body
    assert f'name="prices-{a100}-quoted_usd_per_hour" value="1,90"' in body  # kept as typed
    assert response.context["adminform"].form["note"].value() == "read at noon"


# --- each row beside the last price --------------------------------------------------------


def test_each_row_shows_the_last_price_and_that_it_is_unchanged(client, recorder):
    client.force_login(recorder)
    response = client.get(ADD_URL)
    day = "Oct\xa029,\xa02026"
    assert rows_shown(response)[:5] == [
        (f"$0.82 on {day}", "unchanged"),
        (f"$0.92 on {day}", "unchanged"),
        (f"$2.32 on {day}", "unchanged"),
        (f"$3.07 on {day}", "unchanged"),
        (f"$4.61 on {day}", "unchanged"),
    ]
    # Two blank rows for new GPUs, and the template of "Add another".
    assert rows_shown(response)[5:] == [("", ""), ("", ""), ("", "")]


def test_the_rows_come_back_with_the_change_old_to_new_in_percent(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data[f"prices-{row_of(data, 'a100-80gb')}-quoted_usd_per_hour"] = "0.95"
    data[f"prices-{row_of(data, 'h100')}-quoted_usd_per_hour"] = "2.23"
    data[f"prices-{row_of(data, 'b200')}-quoted_usd_per_hour"] = "4,70"  # refused: comes back
    response = refused(client, data)
    day = "Oct\xa029,\xa02026"
    assert rows_shown(response)[:5] == [
        (f"$0.82 on {day}", "unchanged"),
        (f"$0.92 on {day}", "$0.92 → $0.95, +3.3%"),
        (f"$2.32 on {day}", "$2.32 → $2.23, -3.9%"),
        (f"$3.07 on {day}", "unchanged"),
        (f"$4.61 on {day}", ""),  # its price refused: nothing to compare
    ]


def test_an_instance_quote_shows_its_gpus_and_compares_per_gpu_hour(client, recorder):
    client.force_login(recorder)
    massed = Provider.objects.get(slug="massed-compute")
    url = f"{ADD_URL}?provider={massed.pk}"
    data = initial_form_data(client, url)
    data["prices-0-gpus_in_quote"] = "1"
    data["prices-0-quoted_usd_per_hour"] = "5.50"
    data["note"] = "\u202e"  # refused, so that the rows come back
    response = refused(client, data, url)
    assert rows_shown(response)[0] == (
        "$43.46 for 8 GPUs on Oct\xa029,\xa02026",
        "$5.4325 per GPU-hour → $5.50 per GPU-hour, +1.2%",
    )


def test_a_correction_is_compared_with_the_price_before_the_mistake(client, recorder):
    client.force_login(recorder)
    thunder = Provider.objects.get(slug="thunder-compute")
    slip = services.price_check_record(
        provider_slug="thunder-compute", checked_on=TODAY, prices={"a100-80gb": D("190")}
    )
    url = f"{ADD_URL}?corrects={slip.pk}"
    response = client.get(url)
    # The rows hold the slip's own price, beside the last price before it.
    assert rows_shown(response)[0] == (
        "$1.09 on Oct\xa029,\xa02026",
        '<strong class="price-jump">$1.09 → $190.00, +17,331.2%</strong>',
    )
    data = initial_form_data(client, url)
    data["prices-0-quoted_usd_per_hour"] = "1.90"
    data["reason"] = "Typed 1,90 into a number box"
    assert client.post(url, data).status_code == 302  # 1.74×: nothing to confirm
    assert PriceCheck.objects.current().get(provider=thunder, checked_on=TODAY).prices.get(
    ).quoted_usd_per_hour == D("1.90")  # fmt: skip


def test_the_figures_are_written_for_the_admin_users_language(client, recorder):
    client.force_login(recorder)
    german, japanese = ADD_URL.replace("/en/", "/de/"), ADD_URL.replace("/en/", "/ja/")
    data = initial_form_data(client, german)
    data[f"prices-{row_of(data, 'a100-80gb')}-quoted_usd_per_hour"] = "0.95"
    data[f"prices-{row_of(data, 'h100')}-quoted_usd_per_hour"] = "2,23"
    response = refused(client, data, german)
    assert rows_shown(response)[1:3] == [
        ("0,92\xa0$ am 29.10.2026", "0,92\xa0$ → 0,95\xa0$, +3,3\xa0%"),
        ("2,32\xa0$ am 29.10.2026", ""),
    ]
    assert price_errors(response, row_of(data, "h100")) == [
        "Preis für h100 ist 2,23: Schreiben Sie Dezimalstellen mit einem Punkt: 2.23"
    ]
    response = refused(client, data, japanese)
    assert rows_shown(response)[1] == ("$0.92（2026/10/29）", "$0.92 → $0.95、+3.3%")
    assert price_errors(response, row_of(data, "h100")) == [
        "h100 の価格が 2,23 になっています。小数点にはピリオドを使ってください：2.23"
    ]


def test_the_confirmations_are_translated(client, recorder):
    client.force_login(recorder)
    url = ADD_URL.replace("/en/", "/de/")
    data = initial_form_data(client, url)
    data["checked_on"] = "2026-10-28"
    data[f"prices-{row_of(data, 'a100-80gb')}-quoted_usd_per_hour"] = "89"
    response = refused(client, data, url)
    row = "A100 80GB: 0,92\xa0$ → 89,00\xa0$, das 96,7-Fache des letzten Preises"
    assert non_form_errors(response) == [
        f"{row}. Ein Preis über dem 3-Fachen oder unter 1/3 des letzten wird nur gespeichert, "
        "wenn er bestätigt ist: setzen Sie unten das Häkchen bei „Ja, diese Preise stimmen“ "
        "und speichern Sie erneut"
    ]
    assert response.context["adminform"].form.errors["checked_on"] == [
        "28.10.2026 liegt 32 Tage zurück. Eine Preisprüfung, die mehr als 30 Tage zurückliegt, "
        "wird nur gespeichert, wenn sie bestätigt ist: setzen Sie unten das Häkchen bei „Ja, "
        "die Preise wurden am 28.10.2026 abgelesen“ und speichern Sie erneut"
    ]
    assert boxes(response) == {
        "confirm_old_date": ("2026-10-28", "Ja, die Preise wurden am 28.10.2026 abgelesen"),
        "confirm_jump": ("a100-80gb=89/1", f"Ja, diese Preise stimmen: {row}"),
    }
    assert "Vor dem Speichern bestätigen" in response.content.decode()


# --- a jump is saved only once confirmed ---------------------------------------------------


def test_a_jump_is_asked_about_naming_the_row_and_saved_once_confirmed(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    a100 = row_of(data, "a100-80gb")
    data[f"prices-{a100}-quoted_usd_per_hour"] = "89"  # "0,89" through a number box
    response = refused(client, data)
    row = "A100 80GB: $0.92 → $89.00, 96.7× the last price"
    assert non_form_errors(response) == [f"{row}. {JUMP_RULE}: {TICK_JUMP}"]
    assert boxes(response) == {
        "confirm_jump": ("a100-80gb=89/1", f"Yes, these prices are right: {row}")
    }
    body = response.content.decode()
    assert (
        '<input type="checkbox" name="confirm_jump" value="a100-80gb=89/1" id="id_confirm_jump">'
        f'\n        <label class="vCheckboxLabel" for="id_confirm_jump">Yes, these prices are '
        f"right: {escape(row)}</label>"
    ) in body
    assert '<strong class="price-jump">$0.92 → $89.00, +9,573.9%</strong>' in body
    data["confirm_jump"] = "a100-80gb=89/1"
    assert client.post(ADD_URL, data).status_code == 302
    check = PriceCheck.objects.get(checked_on=TODAY)
    assert check.prices.get(gpu__slug="a100-80gb").quoted_usd_per_hour == D("89")


def test_a_fall_names_the_fraction_and_every_jump_is_in_one_box(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data[f"prices-{row_of(data, 'h100')}-quoted_usd_per_hour"] = "0.23"
    data[f"prices-{row_of(data, 'h200')}-quoted_usd_per_hour"] = "30.7"
    response = refused(client, data)
    rows = "H100: $2.32 → $0.23, 1/10.1 of the last price; H200: $3.07 → $30.70, 10× the last price"
    assert non_form_errors(response) == [f"{rows}. {JUMP_RULE}: {TICK_JUMP}"]
    assert boxes(response) == {
        "confirm_jump": ("h100=0.23/1;h200=30.7/1", f"Yes, these prices are right: {rows}")
    }


def test_a_box_ticked_for_other_prices_confirms_nothing(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    a100 = row_of(data, "a100-80gb")
    data[f"prices-{a100}-quoted_usd_per_hour"] = "890"  # typed again after ticking for 89
    data["confirm_jump"] = "a100-80gb=89/1"
    response = refused(client, data)
    assert boxes(response)["confirm_jump"] == (
        "a100-80gb=890/1",
        "Yes, these prices are right: A100 80GB: $0.92 → $890.00, 967× the last price",
    )
    assert 'id="id_confirm_jump" checked' not in response.content.decode()


def test_a_confirmed_box_stays_ticked_when_the_form_comes_back_for_something_else(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data[f"prices-{row_of(data, 'a100-80gb')}-quoted_usd_per_hour"] = "89"
    data["confirm_jump"] = "a100-80gb=89/1"
    data["source_url"] = "ftp://example.com/"
    response = refused(client, data)
    assert non_form_errors(response) == []
    assert (
        'name="confirm_jump" value="a100-80gb=89/1" id="id_confirm_jump" checked>'
        in response.content.decode()
    )


def test_a_jump_found_only_as_it_saves_is_asked_about_too(client, recorder):
    # Another recorder's check changed the last prices between the form's look and the save.
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    real_look, real_record = services.last_prices, services.price_check_record
    saving = []

    def look(**kwargs):
        found = real_look(**kwargs)
        if saving:  # the service's own look, as it saves
            found["a100-80gb"] = services.LastPrice(
                **{**found["a100-80gb"].__dict__, "quoted_usd_per_hour": D("0.09")}
            )
        return found

    def record(**kwargs):
        saving.append(True)
        try:
            return real_record(**kwargs)
        finally:
            saving.clear()

    with (
        mock.patch("pricing.services.last_prices", look),
        mock.patch("pricing.services.price_check_record", record),
    ):
        response = refused(client, data)
    assert response.context["adminform"].form.non_field_errors() == [
        f"A100 80GB: $0.09 → $0.92, 10.2× the last price. {JUMP_RULE}: {TICK_JUMP}"
    ]


# --- a day long past is saved only once confirmed ------------------------------------------


def test_a_day_more_than_30_days_back_is_asked_about_beside_the_day(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2026-10-28"
    response = refused(client, data)
    message = (
        "Oct\xa028,\xa02026 is 32 days ago. A check dated more than 30 days back is saved only "
        "when confirmed: tick “Yes, the prices were read on Oct\xa028,\xa02026” below and save "
        "again"
    )
    assert response.context["adminform"].form.errors["checked_on"] == [message]
    assert boxes(response) == {
        "confirm_old_date": ("2026-10-28", "Yes, the prices were read on Oct\xa028,\xa02026")
    }
    data["confirm_old_date"] = "2026-10-27"  # ticked, then the day typed again
    again = refused(client, data)
    assert again.context["adminform"].form.errors["checked_on"] == [message]
    assert [b["checked"] for b in again.context["price_confirmations"]] == [False]
    data["confirm_old_date"] = "2026-10-28"
    assert client.post(ADD_URL, data).status_code == 302
    assert PriceCheck.objects.filter(checked_on="2026-10-28").exists()


def test_thirty_days_back_is_not_asked_about(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2026-10-30"
    assert client.post(ADD_URL, data).status_code == 302


def test_a_day_long_past_and_a_jump_are_asked_about_together(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data["checked_on"] = "2026-01-15"
    data[f"prices-{row_of(data, 'h100')}-quoted_usd_per_hour"] = "23.2"
    response = refused(client, data)
    assert set(boxes(response)) == {"confirm_old_date", "confirm_jump"}
    data |= {"confirm_old_date": "2026-01-15", "confirm_jump": "h100=23.2/1"}
    assert client.post(ADD_URL, data).status_code == 302


# --- the list --------------------------------------------------------------------------------


def test_the_list_shows_each_checks_prices(client, recorder):
    client.force_login(recorder)
    body = client.get(LIST_URL).content.decode()
    shown = {
        text.replace("\xa0", " ")
        for text in re.findall(r'<td class="field-prices_shown">(.*?)</td>', body)
    }
    assert shown == {
        "L40S $0.82 · A100 80GB $0.92 · H100 $2.32 · H200 $3.07 · B200 $4.61",
        "B200 $43.46 for 8 GPUs",
        "A100 80GB $1.09",
    }
    # A narrow column wraps between the prices, never inside one.
    assert "A100\xa080GB\xa0$0.92\xa0· H100\xa0$2.32" in body
    german = client.get(LIST_URL.replace("/en/", "/de/")).content.decode()
    assert "B200\xa043,46\xa0$\xa0für\xa08\xa0GPUs" in german


def test_the_list_reads_the_prices_in_one_query_for_all_rows(client, recorder):
    client.force_login(recorder)

    def queries() -> int:
        client.get(LIST_URL)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(LIST_URL).status_code == 200
        return len(captured)

    few = queries()
    for day in range(1, 21):
        services.price_check_record(
            provider_slug="gpuwithcrypto",
            checked_on=date(2026, 11, day),
            prices={"h100": D("2.32"), "b200": D("4.61")},
        )
    assert queries() == few
    with CaptureQueriesContext(connection) as captured:
        client.get(LIST_URL)
    assert sum("pricing_price" in q["sql"] and "pricing_gpu" in q["sql"] for q in captured) == 1


# --- messages by name, with links, escaped -------------------------------------------------


def test_the_saved_message_names_the_provider_and_gpus_with_links(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    data[f"prices-{row_of(data, 'a100-80gb')}-quoted_usd_per_hour"] = "0.95"
    response = client.post(ADD_URL, data, follow=True)
    check = PriceCheck.objects.get(checked_on=TODAY)
    house = check.provider
    gpu = {g.slug: g.pk for g in Gpu.objects.all()}
    gpus = " · ".join(
        f'<a href="/en/admin/pricing/gpu/{gpu[slug]}/change/">{name}</a> {price}'
        for slug, name, price in [
            ("l40s", "L40S", "$0.82"), ("a100-80gb", "A100 80GB", "$0.95"),
            ("h100", "H100", "$2.32"), ("h200", "H200", "$3.07"), ("b200", "B200", "$4.61"),
        ]
    )  # fmt: skip
    assert (
        '<li class="success">Recorded the price check of '
        f'<a href="/en/admin/pricing/provider/{house.pk}/change/">GPUwithCrypto</a> on '
        f'<a href="/en/admin/pricing/pricecheck/{check.pk}/change/">Nov\xa029,\xa02026</a>: '
        f"{gpus}.</li>"
    ) in response.content.decode()
    assert "was added successfully" not in response.content.decode()


def test_the_saved_message_escapes_names(client, recorder):
    client.force_login(recorder)
    provider = Provider.objects.create(slug="evil", name="<b>Evil & Co</b>")
    gpu = Gpu.objects.get(slug="h100")
    Gpu.objects.filter(pk=gpu.pk).update(name="H100 <script>")
    url = f"{ADD_URL}?provider={provider.pk}"
    data = initial_form_data(client, url)
    data |= {"prices-0-gpu": gpu.pk, "prices-0-quoted_usd_per_hour": "2",
             "prices-0-gpus_in_quote": "1", "_continue": "1"}  # fmt: skip
    body = client.post(url, data, follow=True).content.decode()
    assert (
        f'<a href="/en/admin/pricing/provider/{provider.pk}/change/">&lt;b&gt;Evil &amp; '
        "Co&lt;/b&gt;</a>"
    ) in body
    assert f'<a href="/en/admin/pricing/gpu/{gpu.pk}/change/">H100 &lt;script&gt;</a> $2.00' in body
    assert "<script>" not in body.split('<ul class="messagelist">')[1].split("</ul>")[0]


def test_a_correction_says_so_by_name(client, recorder):
    client.force_login(recorder)
    mistaken = PriceCheck.objects.get(provider__slug="thunder-compute")
    url = f"{ADD_URL}?corrects={mistaken.pk}"
    data = initial_form_data(client, url) | {"reason": "re-read"}
    body = client.post(url, data, follow=True).content.decode()
    correction = PriceCheck.objects.current().get(provider__slug="thunder-compute")
    a100 = Gpu.objects.get(slug="a100-80gb").pk
    assert (
        '<li class="success">Corrected the price check of <a href="/en/admin/pricing/provider/'
        f'{correction.provider_id}/change/">Thunder Compute</a> on <a href="/en/admin/pricing/'
        f'pricecheck/{correction.pk}/change/">Oct\xa029,\xa02026</a>: <a href="/en/admin/pricing/'
        f'gpu/{a100}/change/">A100 80GB</a> $1.09. The check it corrects stays in the history, '
        "marked as superseded.</li>"
    ) in body


# --- History ---------------------------------------------------------------------------------


def test_a_recorded_check_is_in_its_and_its_providers_history(client, recorder):
    client.force_login(recorder)
    data = initial_form_data(client, ADD_URL)
    assert client.post(ADD_URL, data).status_code == 302
    check = PriceCheck.objects.get(checked_on=TODAY)
    entries = [
        (e.content_type.model, e.object_id, e.action_flag, e.user, e.get_change_message())
        for e in LogEntry.objects.order_by("pk")
    ]
    assert entries == [
        ("provider", str(check.provider_id), CHANGE, recorder,
         "Added price check “GPUwithCrypto 2026-11-29”."),
        ("pricecheck", str(check.pk), ADDITION, recorder,
         "Added. Added price “L40S $0.82”. Added price “A100 80GB $0.92”. Added price "
         "“H100 $2.32”. Added price “H200 $3.07”. Added price “B200 $4.61”."),
    ]  # fmt: skip
    history = client.get(f"/en/admin/pricing/provider/{check.provider_id}/history/")
    assert "Added price check “GPUwithCrypto 2026-11-29”." in history.content.decode()
    history = client.get(f"/en/admin/pricing/pricecheck/{check.pk}/history/")
    assert "Added price “A100 80GB $0.92”." in history.content.decode()


def test_a_correction_is_in_the_history_of_the_check_it_corrects(client, recorder):
    client.force_login(recorder)
    mistaken = PriceCheck.objects.get(provider__slug="thunder-compute")
    url = f"{ADD_URL}?corrects={mistaken.pk}"
    data = initial_form_data(client, url) | {"reason": "re-read"}
    assert client.post(url, data).status_code == 302
    history = client.get(f"/en/admin/pricing/pricecheck/{mistaken.pk}/history/").content.decode()
    assert (
        "Changed superseded at, superseded by, why it was superseded and corrected by." in history
    )
    german = client.get(f"/de/admin/pricing/pricecheck/{mistaken.pk}/history/").content.decode()
    assert "Ersetzt am, ersetzt von, Grund der Ersetzung und korrigiert durch geändert." in german


def test_the_manual_explains_the_confirmations_with_its_screenshots(client, recorder):
    client.force_login(recorder)
    manual = client.get("/en/admin/pricing/pricecheck/manual/").content.decode()
    assert "<h2>Confirmations</h2>" in manual
    assert "| --- |" not in manual  # lists, not Markdown tables (the manual renders CommonMark)
    assert "<code>--confirm-jump</code>" in manual and "<code>--confirm-old-date</code>" in manual
    for name in ("comma-refused", "confirm-jump", "typed-comma", "recorded"):
        assert f'src="prices/{name}.png"' in manual
        shot = client.get(f"/en/admin/pricing/pricecheck/manual/prices/{name}.png")
        assert shot.status_code == 200, name
