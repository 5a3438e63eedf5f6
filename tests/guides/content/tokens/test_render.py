from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from guides.content.tokens.registry import (
    METHOD,
    RULE_NUMBER,
    KnownSlugs,
    Registry,
    TokenKind,
    registry,
    token_errors,
    unknown_slug_errors,
)
from guides.content.tokens.render import render_plain
from guides.models import Guide, Section
from guides.pages import selectors
from guides.pages.assembly import page_figures
from pricing.domain.training_memory import Method, TrainingSetup
from pricing.models import LanguageModel
from tests.conftest import GUIDE_SLUG, SEED_DAY, prose_html

KNOWN = KnownSlugs(
    methods=frozenset({"qlora", "lora"}),
    gpus=frozenset({"h100", "a100-80gb", "b200"}),
    providers=frozenset({"gpuwithcrypto", "massed-compute"}),
    facts=frozenset({"minimum-top-up"}),
)


@pytest.mark.parametrize(
    "text",
    [
        "QLoRA needs [[memory qlora]].",
        "[[memory lora lower]] to [[memory lora range]]",
        "[[price 8xb200@massed-compute]] and [[price_ratio 8xb200 a100-80gb]]",
        "[[spec_ratio h100 a100-80gb bf16]] [[checked_on massed-compute]] [[blocks or]]",
        "No tokens at all.",
    ],
)
def test_valid_tokens_pass(text):
    assert token_errors(text, KNOWN) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[price_of h100]]", "[[price_of h100]]: unknown token kind “price_of”"),
        (
            "[[memory]]",
            "[[memory]]: wrong number of arguments; write it like [[memory lora lower]]",
        ),
        (
            "[[memory qlora sideways]]",
            "[[memory qlora sideways]]: “sideways” is not one of planning, lower, upper, range",
        ),
        ("[[memory dpo]]", "[[memory dpo]]: there is no method “dpo”"),
        ("[[vram 8xh999]]", "[[vram 8xh999]]: there is no gpu “h999”"),
        ("[[price h100@nobody]]", "[[price h100@nobody]]: there is no provider “nobody”"),
        (
            "[[vram 8xH100]]",
            "[[vram 8xH100]]: “8xH100” is not a configuration like 8xh200 or b200@massed-compute",
        ),
        ("[[memory QLoRA]]", "[[memory QLoRA]]: “QLoRA” is not a slug"),
        ("[[bytes qlora ２]]", "[[bytes qlora ２]]: “２” is not a rule number (1, 2, …)"),
        ("[[bytes qlora zero]]", "[[bytes qlora zero]]: “zero” is not a rule number (1, 2, …)"),
        ("[[fact nothing]]", "[[fact nothing]]: there is no fact “nothing”"),
        ("costs [[price h100]", "unclosed token: every “[[” needs a matching “]]”"),
        ("costs ]] here", "unclosed token: every “[[” needs a matching “]]”"),
        ("[[]]", "[[]]: empty token"),
    ],
)
def test_bad_tokens_are_named_in_the_error(text, message):
    assert token_errors(text, KNOWN) == [message]


def test_every_bad_token_is_reported_not_only_the_first():
    errors = token_errors("[[memroy qlora]] [[memory dpo]] [[price 8xh999@nobody]]", KNOWN)
    assert errors == [
        "[[memroy qlora]]: unknown token kind “memroy”",
        "[[memory dpo]]: there is no method “dpo”",
        "[[price 8xh999@nobody]]: there is no gpu “h999”",
        "[[price 8xh999@nobody]]: there is no provider “nobody”",
    ]


def test_saving_a_guide_with_a_bad_token_names_field_and_token(seeded):
    section = Section.objects.filter(guide__slug="best-gpu-for-llama-70b-fine-tuning").first()
    section.body_de = "QLoRA braucht [[memroy qlora]]."
    with pytest.raises(ValidationError) as caught:
        section.full_clean()
    assert "body_de" in caught.value.message_dict
    assert "[[memroy qlora]]" in caught.value.message_dict["body_de"][0]


def test_checking_token_syntax_needs_no_database(seeded):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.short_answer_ja = "[[memory nothing-like-this]] [[price 8xb200@nobody]]"
    with CaptureQueriesContext(connection) as queries:
        guide.clean_fields(exclude=["language_model"])  # its foreign key check is a query
    assert len(queries) == 0


def test_unknown_slugs_are_checked_against_what_is_on_file(seeded):
    known = selectors.token_slugs()
    errors = unknown_slug_errors("[[memory dpo]] [[price 8xb200@massed-compute]]", known)
    assert errors == ["[[memory dpo]]: there is no method “dpo”"]


@pytest.fixture
def figures(seeded):
    return page_figures(
        params_billion=D(70),
        at=SEED_DAY,
        architecture=LanguageModel.objects.get(slug="llama-3.1-70b").architecture,
        training=TrainingSetup(Method.QLORA, seq_len=2048),  # the 70B guide's run
    )


@pytest.mark.parametrize(
    ("token", "en", "de", "ja"),
    [
        ("[[memory qlora]]", "52.5 GB", "52,5 GB", "52.5 GB"),
        ("[[memory full-adamw range]]", "1,120–1,260 GB", "1.120–1.260 GB", "1,120〜1,260 GB"),
        ("[[price a100-80gb]]", "$0.92", "0,92 $", "$0.92"),
        ("[[price 8xb200@massed-compute]]", "$43.46", "43,46 $", "$43.46"),
        ("[[price b200@massed-compute]]", "$5.4325", "5,4325 $", "$5.4325"),
        ("[[vram 8xh200]]", "1,128 GB", "1.128 GB", "1,128 GB"),
        ("[[headroom 8xh200 full-adamw lower]]", "8 GB", "8 GB", "8 GB"),
        ("[[checked_on]]", "October 29, 2026", "29. Oktober 2026", "2026年10月29日"),
        ("[[spec_ratio h100 a100-80gb bf16]]", "3.2", "3,2", "3.2"),
        ("[[breakdown qlora]]", "48 ÷ 65 = 0.74", "48 ÷ 65 = 0,74", "48 ÷ 65 = 0.74"),
        ("[[cheapest full-adamw]]", "8× B200", "8× B200", "B200を8基"),
        ("[[weights qlora]]", "35 GB", "35 GB", "35 GB"),
        ("[[margin lora]]", "20%", "20 %", "20%"),
        ("[[blocks or]]", "10, 24, 168, or 720", "10, 24, 168 oder 720", "10、24、168、または720"),
        ("[[blocks]]", "10, 24, 168, and 720", "10, 24, 168 und 720", "10、24、168、720"),
        ("[[headroom 8xh200 lora]]", "960 GB", "960 GB", "960 GB"),
    ],
)
def test_tokens_render_in_each_locale(figures, token, en, de, ja):
    # "cheapest" chooses among the guide's configurations: offer one that fits and one that doesn't.
    figures.configurations = [figures.configuration("b200", 1), figures.configuration("b200", 8)]
    for locale, expected in (("en", en), ("de", de), ("ja", ja)):
        with translation.override(locale):
            rendered = render_plain(token, figures).replace("\u00a0", " ")
        assert rendered == expected, locale


def test_editor_text_is_escaped_and_never_evaluated(figures):
    html = prose_html("<script>alert(1)</script> {{ secret }} [[memory qlora]]", figures)
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "{{ secret }}" in html
    assert "52.5" in html


def test_prose_lists_and_code(figures):
    html = prose_html("- one `--use_peft`\n- two\n\nA paragraph.", figures)
    assert html == "<ul><li>one <code>--use_peft</code></li><li>two</li></ul><p>A paragraph.</p>"


def test_a_figure_without_data_renders_a_dash_not_an_error(figures):
    assert render_plain("[[price rtx-4090]]", figures) == "—"


def test_every_token_kind_documents_an_example_that_validates(seeded):
    known = selectors.token_slugs()
    for kind in registry:
        assert token_errors(kind.example, known) == [], kind.name


def test_published_seed_guide_has_only_valid_tokens(seeded):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.full_clean()
    for section in guide.sections.all():
        section.full_clean()


def test_prose_markup_around_tokens(figures, caplog):
    assert prose_html(None, figures) == ""
    assert prose_html("one\ntwo", figures) == "<p>one two</p>"
    html = prose_html("`--use_peft` needs [[memory qlora]]\n\n- [[memory lora]]", figures)
    assert html == (
        "<p><code>--use_peft</code> needs 52.5\u00a0GB</p><ul><li>168\u00a0GB</li></ul>"
    )
    assert render_plain("[[memory dpo]]", figures) == "—"
    assert "cannot fill [[memory dpo]]: method dpo" in caplog.text


def test_a_registry_declares_a_kind_beside_its_render_function():
    fresh = Registry()
    assert list(fresh) == []

    def render(figures, method, rule=1):
        return f"{method}/{rule}"

    returned = fresh.kind("[[demo qlora 2]]", "a demo", METHOD, optional=(RULE_NUMBER,), html=True)(
        render
    )
    assert returned is render  # the function stays callable as written
    assert list(fresh) == [
        TokenKind("demo", (METHOD,), (RULE_NUMBER,), "[[demo qlora 2]]", "a demo", render, True)
    ]
    assert fresh.parse("demo qlora 2") == (list(fresh)[0], ["qlora", 2])
    plain = fresh.kind("[[plain]]", "no arguments")(render)
    assert list(fresh)[1] == TokenKind("plain", (), (), "[[plain]]", "no arguments", plain, False)
    with pytest.raises(ValueError, match="token kind 'demo' is registered twice"):
        fresh.kind("[[demo]]", "again")(render)
