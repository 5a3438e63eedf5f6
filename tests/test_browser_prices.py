"""A price recorder's round in the admin, in the shared headless Chromium (see test_browser.py):
the rows follow the provider chosen, and a mistaken check is corrected (superseded, kept).

The checks are recorded on days in 2020, which no page reads (the pages show the latest price
and a year of history), and deleted at the end: on SQLite the live server writes inside the
test's transaction (rolled back anyway); on PostgreSQL it commits, so they are deleted through a
connection of their own (the test's transaction is rolled back, deletions included).
``make screenshots`` (SCREENSHOTS=1) saves the views docs/prices.md shows, to docs/prices/.
"""

from datetime import date
from decimal import Decimal as D
from pathlib import Path

import pytest
from django.db import connection, connections
from playwright.sync_api import expect

from pricing.models import PriceCheck

from .conftest import signed_in_tab, staff_cookie
from .test_browser import WANT_SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist

DOCS = Path(__file__).resolve().parent.parent / "docs" / "prices"
ADD = "/en/admin/pricing/pricecheck/add/"
SWITCH_DAY = date(2020, 1, 15)
CORRECTED_DAY = date(2020, 1, 16)


def _shot(page, name: str) -> None:
    if WANT_SCREENSHOTS:
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=DOCS / f"{name}.png", full_page=True)


@pytest.fixture(scope="module")
def recorder_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(
        site, django_db_blocker, username="browser-recorder", role="Price recorders"
    )


@pytest.fixture
def recorder(browser, recorder_cookie):
    """A signed-in recorder's tab (the provider switch must pass the CSP)."""
    with signed_in_tab(browser, recorder_cookie) as page:
        yield page


@pytest.fixture
def put_back():
    """Deletes the checks the live server recorded on the days the test lists."""
    days: list[date] = []
    yield days
    # On PostgreSQL a connection of its own, which commits; on SQLite the test's (shared with
    # the live server, whose writes the test's rollback undoes as well).
    own = connections.create_connection("default") if connection.vendor != "sqlite" else None
    try:
        with (own or connection).cursor() as cursor:
            for day in days:
                for sql in (
                    "DELETE FROM pricing_price WHERE checked_on = %s",
                    "UPDATE pricing_pricecheck SET correction_id = NULL WHERE checked_on = %s",
                    "DELETE FROM pricing_pricecheck WHERE checked_on = %s",
                ):
                    cursor.execute(sql, [day])
    finally:
        if own is not None:
            own.close()


def _row(page, index: int) -> tuple[str, str, str]:
    """A price row as shown: the GPU chosen, the price and the GPUs in the quote."""
    gpu = page.locator(f"#id_prices-{index}-gpu option:checked").inner_text()
    price = page.locator(f"#id_prices-{index}-quoted_usd_per_hour").input_value()
    count = page.locator(f"#id_prices-{index}-gpus_in_quote").input_value()
    return gpu, price, count


def test_the_rows_follow_the_provider_and_record_under_it(
    recorder, site, put_back, django_db_blocker
):
    put_back.append(SWITCH_DAY)
    recorder.goto(f"{site}{ADD}")
    note = recorder.locator(".field-provider .help")
    expect(note).to_contain_text("last known prices of GPUwithCrypto")
    assert [_row(recorder, i) for i in range(2)] == [
        ("L40S", "0.82", "1"),
        ("A100 80GB", "0.92", "1"),
    ]
    recorder.locator("#id_checked_on").fill(SWITCH_DAY.isoformat())
    recorder.locator("#id_note").fill("switched")
    recorder.locator("#id_provider").select_option(label="Massed Compute")
    # The script reloads the form for Massed Compute, keeping the day and note typed.
    expect(note).to_contain_text("last known prices of Massed Compute")
    assert _row(recorder, 0) == ("B200", "43.46", "8")
    assert _row(recorder, 1) == ("---------", "", "")
    expect(recorder.locator("#id_checked_on")).to_have_value(SWITCH_DAY.isoformat())
    expect(recorder.locator("#id_note")).to_have_value("switched")
    _shot(recorder, "provider-switch")
    recorder.locator("#id_prices-0-quoted_usd_per_hour").fill("42.5")
    recorder.get_by_role("button", name="Save", exact=True).click()
    expect(recorder.locator("ul.messagelist")).to_contain_text("was added successfully")
    with django_db_blocker.unblock():
        check = PriceCheck.objects.get(checked_on=SWITCH_DAY)
        assert (check.provider.slug, check.note) == ("massed-compute", "switched")
        prices = [(p.gpu.slug, p.quoted_usd_per_hour, p.gpus_in_quote) for p in check.prices.all()]
    assert prices == [("b200", D("42.5000"), 8)]


def test_a_mistaken_check_is_corrected_and_kept(recorder, site, put_back, django_db_blocker):
    put_back.append(CORRECTED_DAY)
    # "Record a check" of Thunder Compute, from the provider list.
    recorder.goto(f"{site}/en/admin/pricing/provider/")
    _shot(recorder, "record-link")
    recorder.locator("tr", has_text="Thunder Compute").get_by_role(
        "link", name="Record a check"
    ).click()
    assert _row(recorder, 0) == ("A100 80GB", "1.09", "1")
    recorder.locator("#id_checked_on").fill(CORRECTED_DAY.isoformat())
    recorder.locator("#id_prices-0-quoted_usd_per_hour").fill("10.9")  # the slip
    recorder.get_by_role("button", name="Save and continue editing").click()
    # The check's page (recorders only view checks): "Correct this check".
    recorder.get_by_role("link", name="Correct this check").click()
    expect(recorder.locator("h1")).to_have_text(
        "Correct the price check of Thunder Compute on 2020-01-16"
    )
    assert _row(recorder, 0) == ("A100 80GB", "10.9", "1")
    price = recorder.locator("#id_prices-0-quoted_usd_per_hour")
    price.fill("1.09")
    recorder.locator("#id_reason").fill("Typed 10.9 for 1.09")
    expect(price).to_have_value("1.09")  # nothing on the page put the old price back
    _shot(recorder, "correction")
    recorder.get_by_role("button", name="Save", exact=True).click()
    expect(recorder.locator("ul.messagelist")).to_contain_text("was added successfully")
    recorder.goto(f"{site}/en/admin/pricing/pricecheck/?checked_on__year=2020")
    row = recorder.locator("#result_list tbody tr", has_text="Superseded by")
    expect(row).to_contain_text("Superseded by browser-recorder")
    _shot(recorder, "superseded")
    with django_db_blocker.unblock():
        mistaken, correction = PriceCheck.objects.filter(checked_on=CORRECTED_DAY).order_by("pk")
        assert mistaken.correction == correction
        assert mistaken.superseded_by.username == "browser-recorder"
        assert [p.quoted_usd_per_hour for p in mistaken.prices.all()] == [D("10.9000")]
        assert [p.quoted_usd_per_hour for p in correction.prices.all()] == [D("1.0900")]
