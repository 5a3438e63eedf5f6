"""Japanese phrases joined by <wbr> (guides/content/phrases.py): where breaks go, where never."""

import re

import pytest
from django.template import Context, Template
from django.utils import translation

from guides.content.phrases import phrased, phrased_html
from guides.content.tokens.render import render_plain
from tests.conftest import GUIDE_SLUG, prose_html

TITLE = "Llama 3.1 70Bのファインチューニングに最適なGPUはどれですか？"


def without_wbr(markup: str) -> str:
    return markup.replace("<wbr>", "")


def tags(markup: str) -> list[str]:
    """Every tag as the HTML tokenizer sees it: a <wbr> inside an attribute shows as "<…<wbr"."""
    return re.findall(r"<[^>]*>", markup)


def test_phrases_of_japanese_text_are_joined_by_wbr():
    assert phrased_html("当社の推定では、この構成が最適です。") == (
        "当社の<wbr>推定では、<wbr>この<wbr>構成が<wbr>最適です。"
    )
    assert phrased_html(TITLE).startswith("Llama 3.1 70Bの<wbr>ファ")
    assert phrased_html(TITLE).endswith("に<wbr>最適な<wbr>GPUは<wbr>どれですか？")


def test_tags_attributes_urls_and_entities_are_never_broken():
    markup = (
        '<a href="https://example.com/ja/ファインチューニングに最適な?a=1&amp;b=2" '
        'title="ファインチューニングに最適なGPUはどれですか">詳しくは当社のガイドをご覧ください</a>'
        "。https://example.com/ガイドの最適なGPUはどれですか を参照&amp;確認してください"
    )
    out = phrased_html(markup)
    assert "<wbr>" in out
    assert without_wbr(out) == markup
    assert all(tag == "<wbr>" or "<wbr" not in tag for tag in tags(out))
    assert "https://example.com/ガイドの最適なGPUはどれですか" in out  # the URL in one piece
    assert "&amp;確認" in without_wbr(out) and "&<wbr>" not in out


def test_numbers_keep_their_units_and_names_their_words():
    out = phrased_html(
        "QLoRAはB200を1基で毎秒約1,596トークンの速度で実行でき、所要時間は17.4時間です。"
    )
    for whole in ("QLoRA", "B200", "1基", "1,596", "17.4時間"):
        assert whole in out
    assert "<wbr>" in out


def test_no_line_starts_with_closing_punctuation_or_ends_with_an_opening_one():
    out = phrased_html(
        "暗号資産で支払えます: 推奨構成は（当社の推定では）B200を1基です。「引用」です"
    )
    assert not re.search(r"<wbr>[、。：:）」？！]", out)
    assert not re.search(r"[（「]<wbr>", out)


def test_code_is_left_as_written():
    markup = "コマンドで実行します：<code>trl sft ファインチューニングに最適な設定です</code>。"
    assert "<code>trl sft ファインチューニングに最適な設定です</code>" in phrased_html(markup)


def test_a_long_phrase_may_break_inside_leaving_three_characters_on_either_line():
    pieces = phrased_html("ファインチューニングしており、").split("<wbr>")
    assert len(pieces) > 1
    assert len(pieces[0]) >= 3 and len(pieces[-1]) >= 3
    assert not any(piece.startswith(("ー", "ッ", "ャ", "ュ", "ョ", "、")) for piece in pieces)
    assert phrased_html("最適なGPUは") == "最適な<wbr>GPUは"  # short phrases stay whole


@pytest.mark.parametrize(
    "text",
    [
        "Which GPU is best for fine-tuning Llama 3.1 70B? See https://example.com/a-b.",
        "Welche GPU eignet sich am besten für das Feintuning von Llama 3.1 70B? Größe: 1.120 GB",
    ],
)
def test_english_and_german_text_is_unchanged(text):
    assert phrased_html(text) == text
    with translation.override("ja"):
        assert phrased(text) == text.replace("&", "&amp;")


def test_only_a_japanese_page_gets_phrases():
    with translation.override("en"):
        assert phrased(TITLE) == TITLE
    with translation.override("ja"):
        assert phrased("<b>" + TITLE) == "&lt;b&gt;" + phrased_html(TITLE)  # text is escaped


def test_the_filter_phrases_a_title_in_japanese_only():
    template = Template("{% load figures %}<h1>{{ title|phrases }}</h1>")
    with translation.override("ja"):
        assert template.render(Context({"title": TITLE})) == f"<h1>{phrased_html(TITLE)}</h1>"
    with translation.override("de"):
        assert "<wbr>" not in template.render(Context({"title": TITLE}))


def test_prose_is_phrased_but_plain_renderings_are_not(seeded):
    from guides.pages import selectors
    from guides.pages.assembly import guide_figures

    figures = guide_figures(selectors.guide_for_page(slug=GUIDE_SLUG))
    text = "当社の推定では、[[model]]の学習条件は[[memory qlora]]に達します。"
    with translation.override("ja"):
        assert "<wbr>" in prose_html(text, figures)
        assert "<wbr>" not in render_plain(text, figures)
    with translation.override("en"):
        assert "<wbr>" not in prose_html("We estimate [[memory qlora]] for [[model]].", figures)


def test_japanese_guide_has_phrases_in_its_text_but_not_in_its_head(client, seeded):
    body = client.get(f"/ja/guides/{GUIDE_SLUG}/").content.decode()
    head, _, visible = body.partition("</head>")
    assert "<wbr>" not in head  # <title>, meta description, JSON-LD
    assert re.search(r"<h2 id=\"section-1-h\">[^<]+<wbr>", visible)  # a section's heading
    assert re.search(r"<h3>[^<]+<wbr>", visible)  # an FAQ question
    assert visible.count("<wbr>") > 500
    assert all(tag == "<wbr>" or "<wbr" not in tag for tag in tags(visible))


@pytest.mark.parametrize("lang", ["en", "de"])
def test_english_and_german_guides_have_no_wbr(client, seeded, lang):
    assert "<wbr>" not in client.get(f"/{lang}/guides/{GUIDE_SLUG}/").content.decode()


def test_phrasing_phrased_markup_again_changes_nothing():
    """base.html phrases each page's content, which holds headings and prose phrased already."""
    once = phrased_html(f"<p>{TITLE}<a href='#'>当社の推定では、この構成が最適です。</a></p>")
    assert phrased_html(once) == once
    assert phrased_html(without_wbr(once)) == once


def test_svg_text_is_left_as_written():
    markup = "<svg><text>当社の推定では、この構成が最適です。</text></svg>"
    assert phrased_html(markup) == markup


@pytest.mark.parametrize(
    "path",
    [
        f"/ja/guides/{GUIDE_SLUG}/tutorial/",
        "/ja/gpus/",
        "/ja/compare/h100-vs-a100-80gb/",
        "/ja/vram/?model=llama-3.1-70b&method=qlora&tokens_millions=50",
        "/ja/",
    ],
)
def test_every_japanese_page_kind_has_phrases_in_its_text_but_not_in_its_head(client, seeded, path):
    body = client.get(path).content.decode()
    head, _, visible = body.partition("</head>")
    assert "<wbr>" not in head
    main = visible.split('<main id="main">')[1].split("</main>")[0]
    assert main.count("<wbr>") > 20
    assert all(tag == "<wbr>" or "<wbr" not in tag for tag in tags(visible))
    assert "<wbr>" not in client.get(path.replace("/ja/", "/de/")).content.decode()
