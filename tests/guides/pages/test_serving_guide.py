"""Serving guides (issue 57): one computation (``serving_plans.recommend`` over
``serving_plans.guide_plans``) behind the guide's prose, its tables, its tutorial, the home
page's card, the guide API and /api/v1/serving/, for every published serving guide in every
language; the 70B guide's figures pinned where they are shown; the content file's "serving"."""

import html
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import translation

from guides.content import presentation as show
from guides.editorial import content_files
from guides.editorial.checks import guide_problems
from guides.models import Guide, Section
from guides.pages.selectors import guide_for_page
from pricing.models import LanguageModel
from tests.conftest import GUIDE_SLUG
from tests.guides.test_views import sentences

pytestmark = pytest.mark.django_db
LANGUAGES = ["en", "de", "ja"]
SERVING_70B = "best-gpu-for-serving-llama-3-1-70b"
PRECISIONS = ["bf16", "fp8", "awq"]


@pytest.fixture
def serving_guides(seeded) -> list[Guide]:
    guides = list(Guide.objects.published().filter(kind=Guide.Kind.SERVING).order_by("slug"))
    assert len(guides) == 4, "the 70B serving guide and its clones for 8B, 32B and 405B"
    return guides


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).replace("\u00a0", " ").strip()


def precision_rows(body: str) -> dict[str, dict[str, str]]:
    """The precision table: precision -> its configuration (data-config) and its cells."""
    table = re.search(r'<table class="methods serving-precisions">.*?</table>', body, re.S)[0]
    rows = {}
    for precision, row in re.findall(r'<tr data-precision="([^"]+)"[^>]*>(.*?)</tr>', table, re.S):
        cells = [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        config = re.search(r'data-config="([^"]+)"', row)
        rows[precision] = {"config": config[1] if config else "", "cells": cells}
    return rows


def money(lang: str, value: float) -> str:
    """As the page shows it, its no-break spaces read as plain ones (``text``)."""
    with translation.override(lang):
        return show.usd(Decimal(str(value))).replace("\u00a0", " ")


def test_every_serving_guide_says_what_the_api_and_the_planner_compute(client, serving_guides):
    """One truth: per precision, the guide's table names the configuration and the cost per
    million tokens that /api/v1/guides/<slug>/ gives, and /api/v1/serving/ recommends the same
    for the guide's model and load; its tutorial serves with the API's command."""
    for guide in serving_guides:
        advice = client.get(f"/api/v1/guides/{guide.slug}/").json()
        assert (advice["kind"], advice["load"]["context"]) == ("serving", 8192)
        for entry in advice["precisions"]:
            choice = entry["recommendation"]
            query = {
                "model": guide.language_model.slug,
                "weight_precision": entry["precision"],
                "context": "8192",
                "prompt_tokens": "1000",
                "output_tokens": "500",
            }
            planner = client.get("/api/v1/serving/", query).json()
            assert planner["recommendation"] == choice, (guide.slug, entry["precision"])
            row = next(
                r
                for r in planner["configurations"]
                if (r["gpu"], r["count"]) == (choice["gpu"], choice["count"])
            )
            assert row["command"] == entry["command"]
            at_target = row["at_latency_target"]
            assert at_target["usd_per_million_tokens"] == entry["usd_per_million_tokens"]
            assert at_target["users"] == entry["users"]
        for lang in LANGUAGES:
            body = client.get(f"/{lang}/guides/{guide.slug}/").content.decode()
            shown = precision_rows(body)
            assert list(shown) == PRECISIONS, (guide.slug, lang)
            tutorial = client.get(f"/{lang}/guides/{guide.slug}/tutorial/").content.decode()
            for entry in advice["precisions"]:
                choice, row = entry["recommendation"], shown[entry["precision"]]
                assert row["config"] == f"{choice['count']}x{choice['gpu']}", (guide.slug, lang)
                cost = row["cells"][2]
                assert cost.startswith(money(lang, entry["usd_per_million_tokens"])), cost
                assert row["cells"][3] == f"{entry['users']:,}".replace(
                    ",", "." if lang == "de" else ","
                )
                assert html.escape(entry["command"], quote=True) in tutorial, (guide.slug, lang)


def test_every_serving_guide_passes_its_checks_and_fills_every_token(
    client, serving_guides, caplog
):
    for guide in serving_guides:
        assert guide_problems(guide_for_page(slug=guide.slug)) == [], guide.slug
        for lang in LANGUAGES:
            assert client.get(f"/{lang}/guides/{guide.slug}/").status_code == 200
    assert "cannot fill" not in caplog.text


SHORT_ANSWER_70B = {
    "en": "To serve Llama 3.1 70B with vLLM at up to 8,192 tokens a request, we recommend 4× B200 "
    "with FP8 weights: 411 users at once each get their answer at 40 ms a token or faster, and a "
    "million output tokens cost $0.50 ($0.31–$0.69) at our prices ($18.44 an hour).",
    "de": "Um Llama 3.1 70B mit vLLM für Anfragen von bis zu 8.192 Tokens bereitzustellen, "
    "empfehlen wir 4× B200 mit FP8-Gewichten: 411 Nutzer gleichzeitig erhalten ihre Antwort mit "
    "40 ms pro Token oder schneller, und eine Million Ausgabe-Tokens kostet zu unseren Preisen "
    "0,50 $ (0,31 $–0,69 $) (18,44 $ pro Stunde).",
    "ja": "Llama 3.1 70BをvLLMで1リクエスト最大8,192トークンまで提供するなら、FP8の重みでB200 4基を"
    "おすすめします。",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_70b_short_answer_says_the_fp8_recommendation(client, seeded, lang):
    said = sentences(client.get(f"/{lang}/guides/{SERVING_70B}/"))
    assert SHORT_ANSWER_70B[lang] in said


def test_the_70b_precision_table_pins_each_cell(client, seeded):
    """Four B200s in BF16 and FP8 (close calls against eight, decided by the month's block),
    one B200 with AWQ; costs with the model's range, users within 40 ms, one user's first token."""
    rows = precision_rows(client.get(f"/en/guides/{SERVING_70B}/").content.decode())
    assert {p: (r["config"], r["cells"][0], *r["cells"][2:]) for p, r in rows.items()} == {
        "bf16": ("4xb200", "141.1 GB", "$0.97 ($0.61–$1.33)", "212", "47 ms (31–65)"),
        "fp8": ("4xb200", "72.7 GB", "$0.50 ($0.31–$0.69)", "411", "28 ms (18–38)"),
        "awq": ("1xb200", "39.8 GB", "$0.84 ($0.53–$1.15)", "61", "149 ms (98–205)"),
    }


def test_the_home_page_offers_both_kinds_and_each_card_says_the_guides_fp8_choice(client, seeded):
    listing = client.get("/api/v1/guides/").json()["guides"]
    kinds = {g["slug"]: g["kind"] for g in listing}
    assert sorted(set(kinds.values())) == ["fine-tuning", "serving"]
    for lang in LANGUAGES:
        home = client.get(f"/{lang}/").content.decode()
        serving = home.split('id="serving-guides-h"', 1)[1]
        for slug, kind in kinds.items():
            assert (f"/{lang}/guides/{slug}/" in serving) == (kind == "serving"), (slug, lang)
        for slug in (s for s, k in kinds.items() if k == "serving"):
            fp8 = next(
                p
                for p in client.get(f"/api/v1/guides/{slug}/").json()["precisions"]
                if p["precision"] == "fp8"
            )
            card = serving.split(f'href="/{lang}/guides/{slug}/"', 1)[1].split("</li>", 1)[0]
            config = f"{fp8['recommendation']['gpu']}:{fp8['recommendation']['count']}"
            assert f'data-config="{config}"' in card, (slug, lang)
            assert money(lang, fp8["usd_per_million_tokens"]) in text(card), (slug, lang)


def test_a_guide_json_with_serving_makes_a_serving_guide_and_bad_values_are_refused(tmp_path):
    source = Path(content_files.__file__).resolve().parents[2] / "content/guides" / SERVING_70B
    content = content_files.read_guide(source)
    assert content.serving == content_files.ServingAssumptions(8192, 1000, 500, 40)
    folder = tmp_path / "guide"
    folder.mkdir()
    for name in ("en.md", "de.md", "ja.md"):
        (folder / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
    structure = json.loads((source / "guide.json").read_text(encoding="utf-8"))
    structure["serving"]["tpot_target_ms"] = 0
    (folder / "guide.json").write_text(json.dumps(structure, indent=1), encoding="utf-8")
    with pytest.raises(content_files.ContentFileError) as refused:
        content_files.read_guide(folder)
    assert "serving.tpot_target_ms is a whole number from 1 to 10000, not 0" in str(refused.value)


def test_a_table_of_the_other_kind_and_an_unplannable_model_are_problems(seeded):
    """A fine-tuning fit table on a serving guide, a serving table on a fine-tuning guide, and
    a serving guide of a sliding-window model (the planner refuses Mistral 7B) may not go out."""
    serving = Guide.objects.get(slug=SERVING_70B)
    section = serving.sections.get(table=Section.Table.SERVING_FIT)
    section.table = Section.Table.FIT
    section.save()
    problems = [
        str(p) for p in guide_problems(guide_for_page(slug=SERVING_70B, include_drafts=True))
    ]
    assert (
        "section 3: this table belongs to a fine-tuning guide — “fit table of the configurations”"
        in problems
    )
    fine_tuning = Guide.objects.get(slug=GUIDE_SLUG)
    fine_tuning.sections.filter(table=Section.Table.FIT).update(table=Section.Table.SERVING_COST)
    problems = [
        str(p) for p in guide_problems(guide_for_page(slug=GUIDE_SLUG, include_drafts=True))
    ]
    assert any("this table belongs to a serving guide" in p for p in problems)
    Guide.objects.filter(slug=SERVING_70B).update(
        language_model=LanguageModel.objects.get(slug="mistral-7b")
    )
    problems = [
        str(p) for p in guide_problems(guide_for_page(slug=SERVING_70B, include_drafts=True))
    ]
    assert (
        "model: the vLLM planner cannot plan for this model, so no serving figure can be shown"
        " — “Mistral 7B”"
    ) in problems


def test_a_serving_guides_share_image_names_its_precisions_not_the_methods(seeded):
    from guides.editorial.share_images import card_for

    card = card_for(Guide.objects.get(slug=SERVING_70B), "de")
    assert (card.model, card.methods) == ("Llama 3.1 70B", ["BF16", "FP8", "AWQ (4 Bit)"])
    assert card_for(Guide.objects.get(slug=GUIDE_SLUG), "en").methods[0] == "QLoRA"
