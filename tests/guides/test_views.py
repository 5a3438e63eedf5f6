"""The public pages in each language: figures, tables, metadata, bad input."""

import html
import json
import re
from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from guides.models import Guide
from pricing.models import Price, PriceCheck, Provider
from pricing.services import price_check_record

from ..conftest import GUIDE_SLUG, SEED_DAY


def page_text(response) -> str:
    """The visible text: tags dropped, entities decoded, no-break spaces made plain."""
    body = response.content.decode()
    body = re.sub(r"<script.*?</script>", " ", body, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", body)).replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text)


def guide_url(lang: str) -> str:
    return f"/{lang}/guides/{GUIDE_SLUG}/"


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_language_homes_answer(client, seeded, lang):
    response = client.get(f"/{lang}/")
    assert response.status_code == 200
    assert f'<html lang="{lang}">' in response.content.decode()


@pytest.mark.parametrize(("accept", "lang"), [("de-DE,de;q=0.9", "de"), ("ja", "ja"), ("fr", "en")])
def test_root_redirects_by_accept_language(client, db, accept, lang):
    response = client.get("/", headers={"accept-language": accept})
    assert response.status_code == 302
    assert response["Location"] == f"/{lang}/"


# Figures of the seed page in each locale's format (the seed's own slips corrected: "1.128 GB",
# currency in German as Babel writes it).
SEED_FIGURES = {
    "de": [
        "52,5 GB", "140 GB", "168 GB", "840 GB", "1.120–1.260 GB", "1.260 GB", "1.128 GB",
        "1.440 GB", "48 ÷ 65 = 0,74", "70 × 0,75 = 52,5 GB", "140 GB × 1,2 = 168 GB",
        "2 + 12 + 2 = 16", "6 + 8 + 4 = 18", "6 + 2 + 4 = 12", "70 × 12 = 840 GB", "20 %",
        "0,82 $", "0,92 $", "2,32 $", "3,07 $", "4,61 $", "6,14 $", "3,68 $", "18,56 $",
        "24,56 $", "36,88 $", "9,20 $", "23,20 $", "110,64 $", "73,68 $", "515,76 $", "774,48 $",
        "43,46 $", "5,4325 $", "1,09 $", "Etwa 40-mal", "3,2-fachen", "989,5", "3.350 GB/s",
        "2.039 GB/s", "35 GB", "24 GB", "8 GB für Aktivierungen", "180 GB übrig", "10.000-mal",
        "10, 24 und 168", "10, 24, 168 oder 720", "29. Oktober 2026", "Preise geprüft am",
    ],
    "ja": [
        "52.5 GB", "140 GB", "168 GB", "840 GB", "1,120〜1,260 GB", "1,260 GB", "1,128 GB",
        "1,440 GB", "48 ÷ 65 = 0.74", "70 × 0.75 = 52.5 GB", "2 + 12 + 2 = 16", "6 + 8 + 4 = 18",
        "$0.82", "$0.92", "$2.32", "$3.07", "$4.61", "$6.14", "$3.68", "$18.56", "$24.56",
        "$36.88", "$9.20", "$23.20", "$110.64", "$73.68", "$515.76", "$774.48", "$43.46",
        "$5.4325", "$1.09", "約40倍", "3.2倍", "989.5", "3,350 GB/s", "2,039 GB/s", "35 GB",
        "24 GB", "8 GB", "180 GB", "2026年10月29日", "価格確認日", "A100 80GBを1台",
    ],
    "en": [
        "52.5 GB", "140 GB", "168 GB", "840 GB", "1,120–1,260 GB", "1,128 GB", "1,440 GB",
        "48 ÷ 65 = 0.74", "$0.92", "$36.88", "$774.48", "$43.46", "$5.4325", "$1.09",
        "About 40 times", "3.2×", "October 29, 2026", "Prices checked on", "1× A100 80GB",
    ],
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_every_seed_figure_appears_in_the_locale_format(client, seeded, lang, caplog):
    text = page_text(client.get(guide_url(lang)))
    missing = [figure for figure in SEED_FIGURES[lang] if figure not in text]
    assert missing == []
    assert "cannot fill" not in caplog.text  # every token found its data


SEED_FIT_PATTERN = [
    "✗✗✗✗", "✓✗✗✗", "✓✗✗✗", "✓✗✗✗", "✓✓✗✗", "✓✓✗✗", "✓✓✗✗", "✓✓✗✗", "✓✓✓✗", "✓✓✓✓",
]  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_fit_table_pattern_matches_the_seed(client, seeded, lang):
    body = client.get(guide_url(lang)).content.decode()
    table = re.search(r'<table class="fit">.*?</table>', body, re.S).group(0)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    marks = [
        "".join(re.findall(r'<span role="img" aria-label="[^"]+">([✓✗])</span>', r)) for r in rows
    ]
    assert marks == SEED_FIT_PATTERN


def test_fit_marks_have_accessible_labels(client, seeded):
    body = client.get(guide_url("de")).content.decode()
    assert '<span role="img" aria-label="passt">✓</span>' in body
    assert '<span role="img" aria-label="passt nicht">✗</span>' in body
    assert '<th scope="col"' in body and '<th scope="row"' in body and "<caption" in body


def test_a_new_price_check_changes_prose_and_tables_in_every_language(client, seeded):
    later = SEED_DAY + timedelta(days=10)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=later,
                       prices={"a100-80gb": D("0.99"), "b200": D("4.00")})  # fmt: skip
    german = page_text(client.get(guide_url("de")))
    assert "A100 80GB für 0,99 $/Stunde" in german  # short answer
    assert "8. November 2026" in german
    assert "32,00 $" in german  # 8 x 4.00 in the fit table and the ratio sentence
    assert "9,90 $" in german  # the 10-hour QLoRA run on one A100
    assert "0,92 $" not in german.split("Thunder Compute")[0].split("Kurze Antwort")[1][:400]
    japanese = page_text(client.get(guide_url("ja")))
    assert "$0.99/時間" in japanese
    assert "2026年11月8日" in japanese


def test_guide_page_queries_do_not_grow_with_price_history(client, seeded):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(guide_url("en")).status_code == 200
        return len(queries)

    before = count()
    assert 10 < before < 40  # measured, not vacuous: the page does query, a fixed number of times
    house = Provider.objects.get(is_house=True)
    for days in range(1, 40):
        check = PriceCheck.objects.create(
            provider=house, checked_on=SEED_DAY - timedelta(days=days)
        )
        Price.objects.create(price_check=check, gpu_id=house.checks.first().prices.first().gpu_id,
                             quoted_usd_per_hour=D("1.5"))  # fmt: skip
    assert count() == before


def test_hreflang_canonical_and_meta_description(client, seeded):
    body = client.get(guide_url("de")).content.decode()
    for lang in ("en", "de", "ja"):
        assert (
            f'<link rel="alternate" hreflang="{lang}" href="http://testserver{guide_url(lang)}">'
            in body
        )
    assert f'hreflang="x-default" href="http://testserver{guide_url("en")}"' in body
    assert f'<link rel="canonical" href="http://testserver{guide_url("de")}">' in body
    assert '<meta name="description" content="QLoRA, LoRA oder Full Fine-Tuning' in body


def test_language_switcher_keeps_the_page(client, seeded):
    body = client.get(guide_url("ja")).content.decode()
    assert f'href="http://testserver{guide_url("de")}" hreflang="de" lang="de"' in body


def test_faq_json_ld_lists_the_questions_with_filled_figures(client, seeded):
    body = client.get(guide_url("de")).content.decode()
    raw = re.search(r'<script type="application/ld\+json">(.*?)</script>', body, re.S).group(1)
    data = json.loads(raw)
    assert data["@type"] == "FAQPage"
    assert len(data["mainEntity"]) == 5
    first = data["mainEntity"][0]
    assert first["name"] == "Kann ich Llama 70B auf einer GPU fine-tunen?"
    assert "52,5\u00a0GB" in first["acceptedAnswer"]["text"]
    assert "[[" not in raw


def test_sitemap_lists_every_language_with_alternates(client, seeded):
    body = client.get("/sitemap.xml").content.decode()
    for lang in ("en", "de", "ja"):
        assert f"<loc>http://testserver{guide_url(lang)}</loc>" in body
        assert f"http://testserver/{lang}/gpus/" in body
    assert 'hreflang="x-default"' in body


def test_robots_points_at_the_sitemap(client, db):
    response = client.get("/robots.txt")
    assert response["Content-Type"].startswith("text/plain")
    assert "Sitemap: http://testserver/sitemap.xml" in response.content.decode()


def test_drafts_are_invisible_to_visitors_but_previewable_by_staff(client, seeded, admin_user):
    Guide.objects.update(status=Guide.Status.DRAFT)
    assert client.get(guide_url("en")).status_code == 404
    assert GUIDE_SLUG not in client.get("/sitemap.xml").content.decode()
    assert GUIDE_SLUG not in client.get("/en/").content.decode()
    client.force_login(admin_user)
    response = client.get(guide_url("en"))
    assert response.status_code == 200
    assert "Draft preview" in response.content.decode()


@pytest.mark.parametrize("url", ["/de/guides/nope/", "/de/nope/", "/de/compare/h100-vs-h999/"])
def test_unknown_pages_get_the_localized_404(client, seeded, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "Seite nicht gefunden" in response.content.decode()


def test_gpu_page_lists_specs_prices_blocks_and_history(client, seeded):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY + timedelta(days=3),
                       prices={"h100": D("2.20")})  # fmt: skip
    response = client.get("/de/gpus/")
    text = page_text(response)
    for figure in ("0,92 $", "2,20 $", "9,20 $", "1.584,00 $", "22,00 $", "3.350", "141 GB"):
        assert figure in text
    assert "1. November 2026" in text
    assert "RTX 4090" not in text  # not rented
    assert response.content.decode().count("<polyline") == 5


def test_vram_page_applies_the_rules_to_any_size(client, seeded):
    text = page_text(client.get("/en/vram/", {"params": "405"}))
    assert "Your model (405B)" in text
    assert "303.75 GB" in text  # 405 x 0.75
    assert "6,480–7,290 GB" in text  # 405 x 16 to 405 x 18
    assert "Llama 3.1 8B" in text and "Llama 3.1 70B" in text


@pytest.mark.parametrize("bad", ["abc", "-5", "0", "1e309", "99999999", "<script>"])
def test_vram_page_answers_bad_sizes_with_the_form_and_a_400(client, seeded, bad):
    response = client.get("/en/vram/", {"params": bad})
    assert response.status_code == 400
    body = response.content.decode()
    assert 'role="alert"' in body
    assert "<script>" not in body.split("<main")[1]


def test_compare_page_computes_ratios(client, seeded):
    text = page_text(client.get("/de/compare/h100-vs-a100-80gb/"))
    assert "H100 vs A100 80GB" in text
    assert "3,2×" in text
    assert "2,5×" in text  # 2.32 / 0.92


@pytest.mark.parametrize(
    "url", ["/en/", "/en/gpus/", "/en/vram/", "/en/compare/h100-vs-a100-80gb/"]
)
def test_an_empty_database_answers_without_server_errors(client, empty_database, url):
    assert client.get(url).status_code in {200, 404}


def test_chart_coordinates_are_not_localized(client, seeded):
    price_check_record(provider_slug="gpuwithcrypto", checked_on=SEED_DAY + timedelta(days=3),
                       prices={"h100": D("2.20")})  # fmt: skip
    body = client.get("/de/gpus/").content.decode()
    assert 'viewBox="0 0 320 120"' in body
    assert re.search(r'points="12\.0,\d+\.\d [0-9.]+,\d+\.\d"', body)
    assert not re.search(r'c[xy]="\d+,\d', body)


def test_sitemap_lists_the_comparisons_guides_link_to(client, seeded):
    body = client.get("/sitemap.xml").content.decode()
    assert "http://testserver/de/compare/h100-vs-a100-80gb/" in body
    Guide.objects.update(status=Guide.Status.DRAFT)
    assert "/compare/" not in client.get("/sitemap.xml").content.decode()
