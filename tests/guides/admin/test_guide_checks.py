"""The admin refuses typed figures, keeps a failing guide a draft, and duplicates guides."""

import pytest

from guides.editorial import revisions
from guides.models import Guide, Recommendation
from pricing.models import Gpu, LanguageModel, Method
from tests.admin_pages import form_data, initial_form_data
from tests.conftest import GUIDE_SLUG

CHANGE = "/en/admin/guides/guide/{}/change/"
CHANGELIST = "/en/admin/guides/guide/"


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def _field(data: dict, prefix: str, suffix: str) -> str:
    return next(k for k in data if k.startswith(prefix) and k.endswith(suffix))


def test_typed_figures_are_refused_on_their_field_with_the_token_to_use(client, editor, guide):
    client.force_login(editor)
    version = guide.version
    data = initial_form_data(client, CHANGE.format(guide.pk))
    data["short_answer_en"] = "QLoRA fits on one 48 GB card, so two H200s for $6.14/hour."
    data["short_answer_de"] = "Also zwei H200 für 10 Stunden."
    data[_field(data, "faq_entries-", "answer_ja")] = "H200を2基で収まります。"
    response = client.post(CHANGE.format(guide.pk), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["short_answer_en"] == [
        "“two H200” is a typed figure: write [[recommend METHOD]] or [[config CONFIG]] instead.",
        "“48 GB” is a typed figure: write [[memory METHOD]], [[spec GPU memory]] or "
        "[[vram CONFIG]] instead.",
        "“$6.14” is a typed figure: write [[price CONFIG]] or [[recommend METHOD]] instead.",
    ]
    assert errors["short_answer_de"] == [
        "“zwei H200” is a typed figure: write [[recommend METHOD]] or [[config CONFIG]] instead.",
        "“10 Stunden” is a typed figure: write [[blocks]], [[scenario_blocks]] or "
        "[[smallest_block]] instead.",
    ]
    faq = [
        f for f in response.context["inline_admin_formsets"] if f.formset.prefix == "faq_entries"
    ]
    assert any("“H200を2基” is a typed figure" in str(form.errors) for form in faq[0].formset.forms)
    guide.refresh_from_db()
    assert guide.version == version  # nothing saved


@pytest.mark.parametrize(
    "allowed",
    [
        "Llama 3.1 8B in 4-bit on an A100 80GB or an RTX 4090",
        "`--lora_r 16 --max_length 2048` and FP32, ZeRO-3, 1時間あたり",
    ],
)
def test_names_sizes_and_code_are_not_figures(client, editor, guide, allowed):
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    data["short_answer_en"] = allowed
    assert client.post(CHANGE.format(guide.pk), data).status_code == 302


def test_a_draft_that_fails_its_checks_is_saved_but_not_published(client, editor, guide):
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    client.force_login(editor)
    data = form_data(client.get(CHANGE.format(guide.pk)))  # not the seed's form: not shared
    data["status"] = "published"
    # only one configuration holds AdamW's 1,260 GB: there is no alternative to quote
    data["short_answer_de"] += " Alternativ: [[recommend full-adamw alternative]]."
    response = client.post(CHANGE.format(guide.pk), data, follow=True)
    guide.refresh_from_db()
    assert guide.status == Guide.Status.DRAFT
    assert guide.short_answer_de.endswith("Alternativ: [[recommend full-adamw alternative]].")
    body = response.content.decode()
    assert "Saved as a draft, not published: it fails its checks." in body
    assert (
        "the guide, short answer (German): [[recommend full-adamw alternative]] cannot be "
        "filled: a second configuration that holds full-adamw — “Alternativ: [[recommend "
        "full-adamw alternative]].”" in body
    )


def test_a_live_guide_stays_live_and_the_editor_is_told(client, editor, guide):
    """A failing edit of a live guide is kept as a draft revision; the live page is unchanged."""
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    live_text = guide.short_answer_ja
    data["short_answer_ja"] += "[[recommend full-adamw alternative]]"
    response = client.post(CHANGE.format(guide.pk), data, follow=True)
    guide.refresh_from_db()
    assert guide.status == Guide.Status.PUBLISHED
    assert guide.short_answer_ja == live_text
    draft = revisions.working_copy(guide)
    body = response.content.decode()
    assert (
        f"Saved as draft revision {draft.pk}; the live page is unchanged. It cannot be "
        "published until these are fixed:" in body
    )
    assert "the guide, short answer (Japanese): [[recommend full-adamw alternative]]" in body
    # Publishing it is refused with the same problem; the live page stays as it was.
    response = client.post(f"{CHANGE.format(guide.pk)[:-7]}revisions/{draft.pk}/publish/", {})
    guide.refresh_from_db()
    assert guide.short_answer_ja == live_text


def test_duplicate_for_another_model_in_the_admin(client, editor, guide):
    client.force_login(editor)
    action = {"action": "duplicate_for_another_model", "_selected_action": [guide.pk]}
    form = client.post(CHANGELIST, action)
    assert form.status_code == 200
    assert "Duplicate “Which GPU is best for fine-tuning Llama 3.1 70B?”" in form.content.decode()
    qwen = LanguageModel.objects.get(slug="qwen-2.5-7b")
    response = client.post(
        CHANGELIST, {**action, "duplicate": "1", "language_model": qwen.pk, "publish": "on"}
    )
    new = Guide.objects.get(slug="best-gpu-for-qwen-2-5-7b-fine-tuning")
    assert response.status_code == 302 and response["Location"].endswith(f"/{new.pk}/change/")
    assert new.status == Guide.Status.PUBLISHED
    assert new.title_de == "Welche GPU eignet sich am besten für das Fine-Tuning von Qwen 2.5 7B?"
    assert new.title_ja == "Qwen 2.5 7Bのファインチューニングに最適なGPUはどれですか？"
    assert new.sections.count() == guide.sections.count()
    assert new.faq_entries.count() == guide.faq_entries.count()
    # the same again: the slug is taken, said on the form
    again = client.post(CHANGELIST, {**action, "duplicate": "1", "language_model": qwen.pk})
    assert "the slug “best-gpu-for-qwen-2-5-7b-fine-tuning” is taken" in again.content.decode()


def test_an_editors_recommendation_overrides_the_computed_one(client, guide):
    Recommendation.objects.create(
        guide=guide,
        method=Method.objects.get(slug="lora"),
        gpu=Gpu.objects.get(slug="h200"),
        count=2,
    )
    text = client.get(f"/en/guides/{GUIDE_SLUG}/").content.decode()
    # the editors' choice is what we recommend; what LoRA needs stays the estimate's smallest fit
    assert (
        "LoRA on a BF16 base peaks at 147.5\u00a0GB on one GPU (rule of thumb: 168\u00a0GB). LoRA "
        "needs one H200, the smallest card we rent that holds this guide&#x27;s run"
    ) in text
    assert "We recommend two H200s." in text
