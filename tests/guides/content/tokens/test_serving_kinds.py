"""Every serving token kind and option (guides.content.tokens.serving_kinds), with its exact
output in en, de and ja, for Llama 3.1 70B at the serving guide's load (8,192 tokens, prompts of
1,000 and answers of 500, 40 ms a token) as of the seed day.

The figures are the ones ``tests/pricing/api/test_serving.py`` holds against the API (four
B200s for FP8: 411 users, $0.50 a million), formatted for each language."""

import dataclasses
from datetime import date
from decimal import Decimal as D

import pytest
from django.utils import translation

from guides.content.tokens.render import MISSING, render_inline
from guides.pages.assembly import page_figures
from pricing import planning, selectors, serving_plans
from pricing.models import LanguageModel
from tests.conftest import SEED_DAY

pytestmark = pytest.mark.django_db  # the session's seed: its prices and models

SAME = object()  # the English text, in every language
# Ranges are presentation's: Japanese writes "～" with a break allowed after it (U+200B).

SERVING_KINDS = [
    ("[[serving fp8]]", "4× B200", SAME, "B200 4基"),
    ("[[serving fp8 config]]", "4× B200", SAME, "B200 4基"),
    ("[[serving bf16 config]]", "4× B200", SAME, "B200 4基"),
    ("[[serving awq config]]", "1× B200", SAME, "B200 1基"),
    ("[[serving fp8 cost]]", "$0.50 ($0.31–$0.69)", "0,50 $ (0,31 $–0,69 $)", "$0.50（$0.31～\u200b$0.69）"),  # noqa: E501
    ("[[serving fp8 users]]", "411", SAME, SAME),
    ("[[serving fp8 month]]", "$13,276.80", "13.276,80 $", "$13,276.80"),
    ("[[serving fp8 price]]", "$18.44", "18,44 $", "$18.44"),
    ("[[serving fp8 speed]]", "110 (80–173)", SAME, "110（80～\u200b173）"),
    ("[[serving fp8 ttft]]", "28 ms (18–38)", SAME, "28 ms（18～\u200b38）"),
    ("[[serving fp8 alternative]]", "8× B200", SAME, "B200 8基"),
    (
        "[[serving_close_call fp8]]",
        "8× B200 writes the cheapest million tokens by the model ($0.47), but 2 configurations "
        "cost the same within its error; we name the one whose GPU-hour block for a month costs "
        "least up front.",
        "8× B200 schreibt nach dem Modell die günstigste Million Tokens (0,47 $), aber 2 "
        "Konfigurationen kosten innerhalb seines Fehlers gleich viel; wir nennen die, deren "
        "GPU-Stunden-Block für einen Monat im Voraus am wenigsten kostet.",
        "モデル上はB200 8基が出力100万トークンを最も安く書き出します（$0.47）が、2構成の費用は"
        "その誤差の範囲で同じです。1か月分のGPU時間ブロックの前払い額が最も少ない構成を挙げます。",
    ),
    (
        "[[serving_close_call awq]]",
        "8× B200 writes the cheapest million tokens by the model ($0.78), but 8 configurations "
        "cost the same within its error; we name the one whose GPU-hour block for a month costs "
        "least up front.",
        "8× B200 schreibt nach dem Modell die günstigste Million Tokens (0,78 $), aber 8 "
        "Konfigurationen kosten innerhalb seines Fehlers gleich viel; wir nennen die, deren "
        "GPU-Stunden-Block für einen Monat im Voraus am wenigsten kostet.",
        "モデル上はB200 8基が出力100万トークンを最も安く書き出します（$0.78）が、8構成の費用は"
        "その誤差の範囲で同じです。1か月分のGPU時間ブロックの前払い額が最も少ない構成を挙げます。",
    ),
    (
        "[[serving_close_call bf16]]",
        "8× B200 writes the cheapest million tokens by the model ($0.85), but 2 configurations "
        "cost the same within its error; we name the one whose GPU-hour block for a month costs "
        "least up front.",
        "8× B200 schreibt nach dem Modell die günstigste Million Tokens (0,85 $), aber 2 "
        "Konfigurationen kosten innerhalb seines Fehlers gleich viel; wir nennen die, deren "
        "GPU-Stunden-Block für einen Monat im Voraus am wenigsten kostet.",
        "モデル上はB200 8基が出力100万トークンを最も安く書き出します（$0.85）が、2構成の費用は"
        "その誤差の範囲で同じです。1か月分のGPU時間ブロックの前払い額が最も少ない構成を挙げます。",
    ),
    ("[[serving_weights bf16]]", "141.1 GB", "141,1 GB", "141.1 GB"),
    ("[[serving_weights fp8]]", "72.7 GB", "72,7 GB", "72.7 GB"),
    ("[[serving_weights awq]]", "39.8 GB", "39,8 GB", "39.8 GB"),
    ("[[kv_per_token]]", "327,680", "327.680", "327,680"),
    ("[[serving_fewest fp8 h100]]", "1× H100", SAME, "H100 1基"),
    ("[[serving_fewest bf16 l40s]]", "4× L40S", SAME, "L40S 4基"),
    ("[[serving_fewest awq h100]]", "1× H100", SAME, "H100 1基"),
    ("[[serving_assumption context]]", "8,192", "8.192", "8,192"),
    ("[[serving_assumption prompt]]", "1,000", "1.000", "1,000"),
    ("[[serving_assumption output]]", "500", SAME, SAME),
    ("[[serving_assumption target]]", "40", SAME, SAME),
    ("[[vllm_version]]", "0.34.0", SAME, SAME),
    (
        "[[planner_link]]",
        '<a href="/en/serving/?model=llama-3.1-70b">The vLLM planner</a>',
        '<a href="/de/serving/?model=llama-3.1-70b">Der vLLM-Planer</a>',
        '<a href="/ja/serving/?model=llama-3.1-70b">vLLMプランナー</a>',
    ),
]  # fmt: skip


def guide_load_plans(model: str) -> dict:
    """The serving guide's plans for ``model`` at its load, as of the seed day."""
    return serving_plans.guide_plans(
        language_model=LanguageModel.objects.get(slug=model),
        context=8192,
        prompt_tokens=1000,
        output_tokens=500,
        tpot_target_ms=40,
        catalogue=planning.gpu_catalogue(at=SEED_DAY),
        blocks=tuple(selectors.hour_blocks()),
    )


@pytest.fixture(scope="module")
def figures(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        gathered = page_figures(params_billion=70, at=SEED_DAY)
        gathered.serving = guide_load_plans("llama-3.1-70b")
    return gathered


def rendered(token: str, figures, lang: str) -> str:
    with translation.override(lang):
        return str(render_inline(token, figures)).replace("\u00a0", " ")


@pytest.mark.parametrize(
    ("token", "en", "de", "ja"), SERVING_KINDS, ids=[row[0] for row in SERVING_KINDS]
)
def test_each_serving_kind_and_option_in_each_language(figures, token, en, de, ja):
    expected = {"en": en, "de": en if de is SAME else de, "ja": en if ja is SAME else ja}
    assert {lang: rendered(token, figures, lang) for lang in expected} == expected


def test_405b_no_close_call_and_no_card_that_holds_it(figures, django_db_blocker):
    """Llama 3.1 405B in FP8: eight B200s win outright (the sentence says nothing), and even
    eight L40S do not start it in BF16."""
    with django_db_blocker.unblock():
        plans = guide_load_plans("llama-3.1-405b")
    big = dataclasses.replace(figures, serving=plans, quoted_on=set())
    assert rendered("[[serving fp8 config]]", big, "en") == "8× B200"
    assert rendered("[[serving_close_call fp8]]", big, "en") == ""
    assert rendered("[[serving_fewest bf16 l40s]]", big, "de") == "nicht einmal 8× L40S"
    assert rendered("[[serving_fewest bf16 l40s]]", big, "ja") == "L40S 8基でも不可"


def test_a_quoted_price_dates_the_page(figures):
    """A recommendation's price joins the page's 'prices checked on' like any quoted price."""
    figures.quoted_on.clear()
    rendered("[[serving fp8 cost]]", figures, "en")
    assert figures.quoted_on == {date(2026, 10, 29)}


def test_without_serving_plans_a_serving_figure_is_a_dash(figures, caplog):
    """A fine-tuning guide has none (its checks report the token); a page shows a dash."""
    bare = page_figures(params_billion=70, at=SEED_DAY)
    assert rendered("[[serving fp8 cost]]", bare, "en") == MISSING
    assert rendered("[[kv_per_token]]", bare, "en") == MISSING


def test_speeds_are_shown_whole_rounded_half_up():
    from guides.content.tokens import serving_kinds

    with translation.override("en"):
        assert serving_kinds._whole(D("27.5")) == "28"
        assert serving_kinds._whole(D("1234.49")) == "1,234"
