"""An editor's round with shared data, in the shared headless Chromium: the German editor's
slip that issue 53 found ("989,5" TFLOPS sent as 9895) is held, the figures it would move are
listed guide by guide, the box confirms it, and the History keeps the value before and after.

The live server commits on PostgreSQL, so the H100's figure and the log entry are put back
through a connection of their own at the end (on SQLite the test's rollback undoes them).
"""

from decimal import Decimal as D

import pytest
from django.db import connection, connections
from playwright.sync_api import expect

from pricing.models import Gpu
from tests.conftest import signed_in_tab, staff_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

SEEDED_TFLOPS = D("989.5")


@pytest.fixture(scope="module")
def editor_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="browser-shared", role="Editors")


@pytest.fixture
def h100_put_back():
    h100 = Gpu.objects.get(slug="h100")
    yield h100
    own = connections.create_connection("default") if connection.vendor != "sqlite" else None
    try:
        with (own or connection).cursor() as cursor:
            cursor.execute(
                "UPDATE pricing_gpu SET bf16_dense_tflops = %s WHERE id = %s",
                [SEEDED_TFLOPS, h100.pk],
            )
            cursor.execute(
                "DELETE FROM django_admin_log WHERE object_id = %s AND change_message LIKE %s",
                [str(h100.pk), "%TFLOPS%"],
            )
    finally:
        if own is not None:
            own.close()


def test_a_tenfold_slip_is_held_listed_confirmed_and_kept_in_the_history(
    browser, editor_cookie, site, h100_put_back
):
    url = f"{site}/de/admin/pricing/gpu/{h100_put_back.pk}/change/"
    with signed_in_tab(browser, editor_cookie) as page:
        page.goto(url)
        page.locator("#id_bf16_dense_tflops").fill("9895")
        page.locator("input[name=_save]").click()
        expect(page.locator(".errorlist.nonfield")).to_contain_text(
            "Diese Änderung bewegt 80 veröffentlichte Zahlen um mehr als das 1,5-Fache"
        )
        table = page.locator(".shared-confirmation tbody tr")
        expect(table).to_have_count(80)
        expect(table.first).to_contain_text("QLoRA: Empfehlung")
        assert Gpu.objects.get(pk=h100_put_back.pk).bf16_dense_tflops == SEEDED_TFLOPS

        page.get_by_label("Speichern: Diese veröffentlichten Zahlen ändern sich").check()
        page.locator("input[name=_save]").click()
        expect(page.locator(".messagelist")).to_contain_text("H100")
        page.goto(f"{url.removesuffix('change/')}history/")
        expect(page.locator("#change-history")).to_contain_text(
            "BF16 dense TFLOPS: 989.5 → 9895 geändert."
        )
