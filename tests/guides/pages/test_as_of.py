"""?as_of=YYYY-MM-DD: the home, guide, tutorial, GPU and comparison pages with the prices of an
earlier day."""

from datetime import timedelta
from decimal import Decimal as D

import pytest

from pricing.services import price_check_record
from tests.conftest import SEED_DAY, page_entries
from tests.guides.test_views import as_figure, guide_url, page_text, table_cells, table_rows
from tests.test_one_truth import run_row

AS_OF = f"?as_of={SEED_DAY.isoformat()}"  # 2026-10-29, the seed's price checks
NOINDEX = '<meta name="robots" content="noindex">'
COMPARE = "/{lang}/compare/h100-vs-a100-80gb/"


@pytest.fixture
def next_day_check(seeded):
    """The A100 80GB goes from $0.92 to $0.99 the day after the seed's check."""
    price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY + timedelta(days=1),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip


def test_gpu_page_as_of_the_seed_day_shows_that_days_prices(client, next_day_check):
    then, now = client.get("/en/gpus/" + AS_OF), client.get("/en/gpus/")
    assert table_cells(then, "gpus")[("A100 80GB", "Per GPU-hour")] == "$0.92"
    assert table_cells(now, "gpus")[("A100 80GB", "Per GPU-hour")] == "$0.99"
    assert table_cells(then, "blocks")[("A100 80GB", "10 h block")] == "$9.20"
    then_html, now_html = then.content.decode(), now.content.decode()
    assert "as they stood on" in page_text(then) and "as they stood" not in page_text(now)
    assert NOINDEX in then_html and 'name="robots"' not in now_html
    # Search engines are sent to the current pages: canonical and hreflang drop as_of.
    assert '<link rel="canonical" href="http://testserver/en/gpus/">' in then_html
    assert '<link rel="alternate" hreflang="de" href="http://testserver/de/gpus/">' in then_html
    # The visitor's language switcher keeps the day.
    assert f'href="/de/gpus/{AS_OF}" hreflang="de"' in then_html


def run_cells(response, method: str, config: str) -> str:
    return run_row(response.content.decode(), method, config).replace("\xa0", " ")


def test_guide_as_of_the_seed_day_quotes_that_days_prices_everywhere(client, next_day_check):
    then, now = client.get(guide_url("de") + AS_OF), client.get(guide_url("de"))
    assert table_rows(then, "cost assumed")[1] == ["QLoRA", "1× A100 80GB", "10", "10", "9,20 $"]
    assert table_rows(now, "cost assumed")[1] == ["QLoRA", "1× A100 80GB", "10", "10", "9,90 $"]
    then_text, now_text = page_text(then), page_text(now)
    # the cost of the run on one A100 (104.43 h) at each day's price, in the run-cost table
    assert "96,07 $" in run_cells(then, "qlora", "a100-80gb:1")  # at 0,92 $
    assert "103,38 $" in run_cells(now, "qlora", "a100-80gb:1")  # at 0,99 $
    assert "Preise geprüft am 29. Oktober 2026." in then_text
    # Now only the A100 80GB has the later price: each "checked" line spans both days.
    assert "Preise geprüft am" not in now_text
    # Under the fit, cost and comparison tables and at the end of the page.
    assert now_text.count("Preise geprüft zwischen 29. Oktober 2026 und 30. Oktober 2026.") == 4
    # Nothing on the as-of page, prose or table, comes from the later check.
    for later in ("0,99 $", "9,90 $", "30. Oktober 2026"):
        assert not as_figure(later).search(then_text), later
    assert NOINDEX in then.content.decode() and NOINDEX not in now.content.decode()
    assert "wie sie am" not in now_text


def test_comparison_as_of_the_seed_day(client, next_day_check):
    then = table_cells(client.get(COMPARE.format(lang="en") + AS_OF), "comparison")
    now = table_cells(client.get(COMPARE.format(lang="en")), "comparison")
    assert then[("Our price per GPU-hour", "A100 80GB")] == "$0.92"
    assert now[("Our price per GPU-hour", "A100 80GB")] == "$0.99"


def test_home_page_as_of_the_seed_day_shows_that_days_prices(client, next_day_check):
    then, now = client.get("/en/" + AS_OF), client.get("/en/")
    assert table_cells(then, "home-prices")[("A100 80GB", "Per GPU-hour")] == "$0.92"
    assert table_cells(now, "home-prices")[("A100 80GB", "Per GPU-hour")] == "$0.99"
    then_text = page_text(then)
    assert NOTICES["en"] in then_text and "as they stood" not in page_text(now)
    assert "what a run cost at GPUwithCrypto's prices of that day." in then_text
    assert "what a run costs at GPUwithCrypto's current prices." in page_text(now)
    assert NOINDEX in then.content.decode() and NOINDEX not in now.content.decode()
    assert not as_figure("0,99 $").search(page_text(client.get("/de/" + AS_OF)))


NOTICES = {
    "en": "These are the prices as they stood on October 29, 2026, after that day's price "
    "checks. See the current prices",
    "de": "Dies sind die Preise, wie sie am 29. Oktober 2026 nach den Preisprüfungen dieses "
    "Tages galten. Aktuelle Preise ansehen",
    "ja": "2026年10月29日の価格確認を反映した、その日時点の価格です。 現在の価格を見る",
}


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_notice_names_the_day_in_the_visitors_format_and_links_the_current_page(
    client, seeded, lang
):
    response = client.get(COMPARE.format(lang=lang) + AS_OF)
    assert response.status_code == 200
    assert NOTICES[lang] in page_text(response)
    assert f'<a href="{COMPARE.format(lang=lang)}">' in response.content.decode()


MESSAGES = {
    "en": "The as_of parameter must be a day written YYYY-MM-DD in ASCII digits, from "
    "2026-10-29 (our first price check) to today (2026-11-29).",
    "de": "Der Parameter as_of muss ein Tag im Format JJJJ-MM-TT mit ASCII-Ziffern sein, vom "
    "2026-10-29 (dem Tag unserer ersten Preisprüfung) bis heute (2026-11-29).",
    "ja": "パラメータ as_of には、2026-10-29（当社の最初の価格確認日）から今日（2026-11-29）までの"
    "日付を、半角数字の YYYY-MM-DD 形式で指定してください。",
}


@pytest.mark.parametrize(
    "query",
    [
        "as_of=2026-13-01",  # no such month
        "as_of=%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96-10-29",  # full-width digits
        "as_of=yesterday",
        "as_of=2026-11-30",  # tomorrow
        "as_of=1999-12-31",  # before the date rule's first day
        "as_of=2026-10-28",  # a real day, but before our first price check
        "as_of=",
        "as_of=2026-10-29&as_of=2026-10-30",  # one day, not two
    ],
)
def test_bad_days_are_a_400_saying_what_as_of_takes(client, seeded, query):
    response = client.get(f"/en/gpus/?{query}")
    assert response.status_code == 400
    text = page_text(response)
    assert MESSAGES["en"] in text and "Invalid date" in text
    assert '<a href="/en/gpus/">See the current prices</a>' in response.content.decode()


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_the_400_speaks_the_visitors_language(client, seeded, lang):
    response = client.get(guide_url(lang) + "?as_of=2026-13-01")
    assert response.status_code == 400
    assert f'<html lang="{lang}">' in response.content.decode()
    assert MESSAGES[lang] in page_text(response)


def test_every_as_of_page_refuses_a_bad_day_and_never_caches_the_refusal(client, seeded):
    tutorial = guide_url("en") + "tutorial/"
    for url in ("/en/", guide_url("en"), tutorial, "/en/gpus/", COMPARE.format(lang="en")):
        for _attempt in range(2):
            response = client.get(url + "?as_of=yesterday")
            assert response.status_code == 400
            assert "X-Page-Cache" not in response  # rendered again, not served from the cache
    assert page_entries() == 0
