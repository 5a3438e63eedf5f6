"""Editors in the admin: language models, whose seeded slugs have dots (``llama-3.1-8b``)."""

import pytest

from pricing.models import LanguageModel, Source
from tests.admin_pages import form_data

LIST = "/en/admin/pricing/languagemodel/"
ADD = "/en/admin/pricing/languagemodel/add/"


def change_url(model: LanguageModel) -> str:
    return f"/en/admin/pricing/languagemodel/{model.pk}/change/"


def _fields(model: LanguageModel) -> dict:
    return {
        field.name: getattr(model, field.attname)
        for field in LanguageModel._meta.concrete_fields
        if field.name != "id"
    }


def test_an_editor_saves_a_seeded_model_unchanged(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    before = _fields(model)
    client.force_login(editor)
    response = client.get(change_url(model))
    data = form_data(response)
    assert data["slug"] == "llama-3.1-8b"
    saved = client.post(change_url(model), data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    model.refresh_from_db()
    assert _fields(model) == before


def test_an_editor_changes_a_seeded_model(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    client.force_login(editor)
    data = form_data(client.get(change_url(model)))
    data |= {
        "slug": "llama-3.1-8b-base",
        "kv_heads": "4",
        "licence_note_de": "Auf Hugging Face gated: erst die Lizenz akzeptieren.",
    }
    # Half the KV heads halves the cache a token takes: the 8B serving guide's figures move
    # (its FP8 million tokens cost less), so the save asks first, naming them.
    held = client.post(change_url(model), data)
    confirmation = held.context["shared_confirmation"]
    moved = {(m.guide, m.figure) for m in confirmation["moved"]}
    assert (
        "Which GPU is best for serving Llama 3.1 8B?",
        "FP8: cost per million output tokens",
    ) in moved
    saved = client.post(change_url(model), data | {confirmation["name"]: confirmation["value"]})
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    model.refresh_from_db()
    assert (model.slug, model.kv_heads, model.licence_note_de) == (
        "llama-3.1-8b-base",
        4,
        "Auf Hugging Face gated: erst die Lizenz akzeptieren.",
    )
    assert model.architecture.num_key_value_heads == 4


def test_an_editor_adds_a_model_with_a_dotted_slug(client, editor):
    template = LanguageModel.objects.get(slug="qwen-2.5-7b")
    client.force_login(editor)
    data = form_data(client.get(change_url(template)))
    data |= {"name": "Qwen 2.5 14B", "slug": "qwen-2.5-14b", "params_billion": "14"}
    saved = client.post(ADD, data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    added = LanguageModel.objects.get(slug="qwen-2.5-14b")
    assert (added.name, added.source, added.layers) == ("Qwen 2.5 14B", template.source, 28)


@pytest.mark.parametrize(
    "slug",
    [".llama-3.1-8b", "llama-3.1-8b.", "llama-3..1-8b", "Llama-3.1-8b", "llama 3.1", "llama_3"],
)
def test_the_admin_refuses_a_malformed_slug(client, editor, slug):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    client.force_login(editor)
    data = form_data(client.get(change_url(model))) | {"slug": slug}
    response = client.post(change_url(model), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["slug"]
    assert "lowercase letters, digits, hyphens and dots" in errors["slug"][0]
    model.refresh_from_db()
    assert model.slug == "llama-3.1-8b"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"hidden_size": "4100"}, "hidden_size", "multiple of the attention heads"),
        ({"kv_heads": "5"}, "kv_heads", "multiple of the KV heads"),
        ({"layers": "0"}, "layers", "greater than or equal to 1"),
    ],
)
def test_the_admin_refuses_an_architecture_the_estimate_cannot_use(
    client, editor, change, field, message
):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    client.force_login(editor)
    data = form_data(client.get(change_url(model))) | change
    response = client.post(change_url(model), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field]
    assert message in errors[field][0]


def test_the_list_shows_the_architecture_and_finds_models_by_name_and_slug(client, editor):
    client.force_login(editor)
    response = client.get(LIST)
    body = response.content.decode()
    for column in ("column-slug", "column-attention_heads", "column-kv_heads", "column-source"):
        assert column in body
    assert response.context["cl"].result_count == LanguageModel.objects.count()
    found = client.get(LIST, {"q": "qwen"}).context["cl"].result_list
    assert [m.slug for m in found] == ["qwen-2.5-7b", "qwen-2.5-32b", "qwen-2.5-72b"]
    by_slug = client.get(LIST, {"q": "llama-3.2"}).context["cl"].result_list
    assert [m.slug for m in by_slug] == ["llama-3.2-1b", "llama-3.2-3b"]


def test_the_form_explains_the_slug_and_each_architecture_field(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    client.force_login(editor)
    response = client.get(change_url(model))
    form = response.context["adminform"].form
    assert "dots kept, e.g. llama-3.1-8b" in form.fields["slug"].help_text
    keys = {
        "hidden_size": "hidden_size",
        "intermediate_size": "intermediate_size",
        "attention_heads": "num_attention_heads",
        "layers": "num_hidden_layers",
        "kv_heads": "num_key_value_heads",
        "tie_word_embeddings": "tie_word_embeddings",
        "vocab_size": "vocab_size",
    }
    for field, key in keys.items():
        assert str(form.fields[field].help_text).startswith(f"{key} in the model's config.json")
    assert response.context["adminform"].form.fields["slug"].disabled is False
    german = client.get(f"/de/admin/pricing/languagemodel/{model.pk}/change/")
    assert "Punkte bleiben" in german.content.decode()
    japanese = client.get(f"/ja/admin/pricing/languagemodel/{model.pk}/change/")
    assert "ドットはそのまま" in japanese.content.decode()


def test_an_editor_saves_a_seeded_source_whose_key_has_dots(client, editor):
    """The 70B model card's key, ``llama-3.1-70b-card``, is valid as it stands."""
    source = Source.objects.get(key="llama-3.1-70b-card")
    client.force_login(editor)
    url = f"/en/admin/pricing/source/{source.pk}/change/"
    data = form_data(client.get(url))
    saved = client.post(url, data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    data["key"] = "llama..card"
    refused = client.post(url, data)
    assert "Enter a valid slug" in str(refused.context["adminform"].form.errors["key"])
