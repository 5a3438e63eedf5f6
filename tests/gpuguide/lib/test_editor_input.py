"""Editors' input: no invisible or direction-changing characters in text, no line breaks in
one-line fields, ASCII digits only."""

from decimal import Decimal

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import models
from django.test import RequestFactory
from django.utils import translation

from gpuguide.lib.editor_input import EditorInputMixin, SingleLineValidator
from guides.models import Guide
from pricing.models import Gpu, PriceCheck, Source
from tests.admin_pages import initial_form_data
from tests.conftest import GUIDE_SLUG

INVISIBLE = ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u200b", "\u200d",
             "\u2060", "\ufeff"]  # fmt: skip


def _admin_classes():
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label in {"guides", "pricing"}:
            yield model_admin
            yield from (inline(model, admin.site) for inline in model_admin.inlines)


def test_every_guides_and_pricing_admin_checks_editor_input():
    missing = [type(a).__name__ for a in _admin_classes() if not isinstance(a, EditorInputMixin)]
    assert missing == []


def _field(model, name: str):
    request = RequestFactory().get("/")
    request.user = User(is_superuser=True, is_staff=True)
    model_admin = admin.site._registry[model]
    return model_admin.formfield_for_dbfield(model._meta.get_field(name), request)


@pytest.mark.parametrize("char", INVISIBLE)
@pytest.mark.parametrize(
    ("model", "name"),
    [(Guide, "title_ja"), (Guide, "short_answer_de"), (Source, "url"), (Gpu, "name")],
)
def test_text_fields_refuse_invisible_characters_in_every_language(db, model, name, char):
    field = _field(model, name)
    value = f"https://example.com/a{char}b" if name == "url" else f"Llama{char} 70B"
    with pytest.raises(Exception) as refused:
        field.clean(value)
    message = refused.value.messages[0]
    assert f"U+{ord(char):04X}" in message and f"“{field.label}”" in message


def test_visible_text_in_any_script_is_welcome(db):
    field = _field(Guide, "title_ja")
    assert field.clean("Llama 70B を微調整する GPU — Größe, naïve") == (
        "Llama 70B を微調整する GPU — Größe, naïve"
    )


def test_the_message_is_in_the_editors_language(db):
    with translation.override("de"):
        field = _field(Guide, "title_de")
        with pytest.raises(Exception) as refused:
            field.clean("a\u202eb")
        assert "„Titel [de]“ enthält ein unsichtbares" in refused.value.messages[0]


@pytest.mark.parametrize("name", ["seq_len", "micro_batch_size", "lora_rank"])
@pytest.mark.parametrize("typed", ["١٢", "１２", "1_000", "۴", "12.0", "1e3"])
def test_guide_numbers_take_ascii_digits_only(db, name, typed):
    with pytest.raises(Exception) as refused:
        _field(Guide, name).clean(typed)
    assert "digits 0–9" in refused.value.messages[0]


def test_ascii_numbers_still_work(db):
    assert _field(Guide, "seq_len").clean(" 4096 ") == 4096
    assert str(_field(Gpu, "memory_gb").clean("80.5")) == "80.5"
    for typed in ("٨٠", "8_0", "８０"):
        with pytest.raises(Exception, match="digits 0–9"):
            _field(Gpu, "memory_gb").clean(typed)


def test_a_price_checks_source_url_refuses_invisible_characters(db):
    from pricing.admin import PriceCheckForm

    form = PriceCheckForm(data={"source_url": "https://example.com/\u202epdf.exe"})
    assert not form.is_valid()
    assert "U+202E" in form.errors["source_url"][0]
    assert PriceCheck._meta.get_field("source_url")  # the field the form checks


def test_the_admin_shows_the_refusal_on_the_field_in_german(client, seeded):
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests-only"))
    data = {"key": "k", "title_en": "A title", "title_de": "Ein\u2067 Titel", "title_ja": "",
            "publisher": "P", "url": "https://example.com/", "read_on": "2026-11-01"}  # fmt: skip
    response = client.post("/de/admin/pricing/source/add/", data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["title_de"]
    assert "U+2067" in errors["title_de"][0] and "unsichtbares" in errors["title_de"][0]


# --- one-line fields: no line breaks, at the model level ---------------------------------------

# Text the site writes itself (cache tags, a translation's field key), or a choice, a slug, a
# URL: their own validators refuse line breaks, or editors never type them.
NOT_EDITORS_TEXT = {
    "guides.ContentVersion.tag",
    "guides.ContentVersion.version",
    "guides.TranslationBasis.field_key",
    "guides.TranslationBasis.language",
}


def _one_line_fields():
    for model in apps.get_models():
        if model._meta.app_label not in {"guides", "pricing"}:
            continue
        for field in model._meta.get_fields():
            if (
                isinstance(field, models.CharField)
                and not isinstance(field, (models.SlugField, models.URLField))
                and not field.choices
                and f"{model._meta.label}.{field.name}" not in NOT_EDITORS_TEXT
            ):
                yield model, field


def test_every_one_line_field_of_guides_and_pricing_refuses_line_breaks():
    fields = list(_one_line_fields())
    assert len(fields) > 30  # with every language's copy of the translated ones
    missing = [
        f"{model._meta.label}.{field.name}"
        for model, field in fields
        if not any(isinstance(v, SingleLineValidator) for v in field.validators)
    ]
    assert missing == []


def test_the_model_refuses_a_title_with_a_line_break_whatever_the_way_in(db):
    source = Source(key="k", title="Two\nlines", publisher="P", url="https://example.com/",
                    read_on="2026-11-01")  # fmt: skip
    with pytest.raises(ValidationError) as refused:
        source.full_clean()
    message = ["This field must be one line: remove the line break (U+000A)."]
    # title is title_en while English is active (django-modeltranslation)
    assert refused.value.message_dict == {"title": message, "title_en": message}


def test_the_admin_refuses_a_guide_title_with_a_line_break_naming_the_field(client, seeded):
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests-only"))
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    url = f"/en/admin/guides/guide/{guide.pk}/change/"
    data = initial_form_data(client, url) | {"title_en": "Which GPU\nfor Llama 70B?"}
    response = client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors == {
        "title_en": ["“Title [en]” must be one line: remove the line break (U+000A)."]
    }
    assert Guide.objects.get(pk=guide.pk).title_en == guide.title_en


# --- numbers as the admin's language writes them (issue 53) ------------------------------------


@pytest.mark.parametrize(
    ("language", "typed", "read"),
    [("de", "989,5", "989.5"), ("de", "989.5", "989.5"), ("de", "989", "989"),
     ("en", "989.5", "989.5"), ("ja", "989.5", "989.5")],
)  # fmt: skip
def test_a_decimal_is_read_in_the_admins_language(db, language, typed, read):
    with translation.override(language):
        assert str(_field(Gpu, "bf16_dense_tflops").clean(typed)) == read


@pytest.mark.parametrize(
    ("language", "typed", "message"),
    [("de", "1.120", "„1.120“ kann 1120 oder 1,120 bedeuten: Schreiben Sie"),
     ("en", "989,5", "Write decimals with a point: 989.5."),
     ("ja", "989,5", "小数は小数点（.）で書いてください：989.5。"),
     ("de", "27,2,1", "Geben Sie eine Zahl mit den Ziffern 0–9 ein, etwa 1,5.")],
)  # fmt: skip
def test_a_decimal_the_language_does_not_write_is_refused_never_misread(
    db, language, typed, message
):
    with translation.override(language):
        with pytest.raises(ValidationError) as refused:
            _field(Gpu, "bf16_dense_tflops").clean(typed)
        assert message in refused.value.messages[0]  # rendered in the editor's language


def test_a_german_editor_saves_989_comma_5_and_sees_it_again(client, seeded):
    """The finding: "989,5" typed as the H100's BF16 TFLOPS was sent by the number box as 9895,
    saved, and every guide said the H100 had 31.7× the A100's throughput."""
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests-only"))
    h100 = Gpu.objects.get(slug="h100")
    url = f"/de/admin/pricing/gpu/{h100.pk}/change/"
    data = initial_form_data(client, url)
    response = client.post(url, {**data, "bf16_dense_tflops": "989,5"})
    assert response.status_code == 302, response.context["adminform"].form.errors
    h100.refresh_from_db()
    assert h100.bf16_dense_tflops == Decimal("989.5")
    page = client.get(url).content.decode()
    assert 'name="bf16_dense_tflops" value="989,5" inputmode="decimal"' in page

    kept = client.post(url, {**data, "bf16_dense_tflops": "1.120"})  # refused, the text kept
    assert kept.status_code == 200
    assert 'value="1.120"' in kept.content.decode()
    h100.refresh_from_db()
    assert h100.bf16_dense_tflops == Decimal("989.5")


def test_no_admin_form_of_guides_or_pricing_has_a_number_box(client, seeded):
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests-only"))
    pages = [
        f"/de/admin/{model._meta.app_label}/{model._meta.model_name}/add/"
        for model in admin.site._registry
        if model._meta.app_label in {"guides", "pricing"}
    ]
    boxes = {url: client.get(url).content.decode().count('type="number"') for url in pages}
    assert len(pages) >= 10
    assert {url: count for url, count in boxes.items() if count} == {}
