"""A guide family on the guide form (guides.admin.families): the source's form names the
clones its text reaches, a clone's form marks each prose field as following or its own, and a
publication from the form says which clones took which texts."""

import pytest

from guides.editorial import families, publishing, revisions
from guides.models import FaqEntry, Guide, Section
from tests.conftest import GUIDE_SLUG
from tests.guides.admin.test_revision_views import CHANGE, _save_draft

EIGHT_B = "best-gpu-for-llama-3-1-8b-fine-tuning"
FOLLOWS = "Follows Llama 3.1 70B: a change published there reaches this text."
OWN = "Its own text (differs from Llama 3.1 70B): changes published there do not reach it."


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.fixture
def clone(seeded) -> Guide:
    return Guide.objects.get(slug=EIGHT_B)


def _override_short_answer_de(clone: Guide, user) -> None:
    content = revisions.editing_content(clone)
    content.guide.short_answer_de = "Die eigene Antwort."
    publishing.save_draft(content, user=user, comment="Draft saved", publish=True)


def test_the_sources_form_names_the_clones_its_text_reaches(client, editor, guide):
    client.force_login(editor)
    page = client.get(CHANGE.format(guide.pk)).content.decode()
    assert (
        "A published change of its text reaches 4 clones that still follow it: Llama 3.1 "
        "405B, Llama 3.1 8B, Mistral 7B, Qwen 2.5 32B (each field where the clone&#x27;s text "
        "is still this guide&#x27;s)."
    ) in page


def test_a_clone_that_made_every_text_its_own_is_not_named(editor, guide, clone):
    Guide.objects.filter(pk=clone.pk).update(source=None)
    assert [c.slug for c in families.following_clones(guide)] == [
        "best-gpu-for-llama-3-1-405b-fine-tuning",
        "best-gpu-for-mistral-7b-fine-tuning",
        "best-gpu-for-qwen-2-5-32b-fine-tuning",
    ]


def test_a_clones_form_marks_followed_and_own_fields(client, editor, clone):
    _override_short_answer_de(clone, editor)
    client.force_login(editor)
    response = client.get(CHANGE.format(clone.pk))
    fields = response.context["adminform"].form.fields
    assert fields["short_answer_en"].help_text.startswith(FOLLOWS)
    assert fields["short_answer_de"].help_text.startswith(OWN)
    assert "Cloned from Llama 3.1 70B" in response.content.decode()
    inlines = {f.formset.model: f.formset for f in response.context["inline_admin_formsets"]}
    section = inlines[Section].forms[2]
    assert section.fields["body_ja"].help_text.startswith(FOLLOWS)
    assert inlines[FaqEntry].forms[0].fields["answer_de"].help_text.startswith(FOLLOWS)


def test_the_sources_own_form_has_no_marks(client, editor, guide):
    client.force_login(editor)
    response = client.get(CHANGE.format(guide.pk))
    help_text = response.context["adminform"].form.fields["short_answer_de"].help_text
    assert "Follows" not in help_text and "Its own text" not in help_text


def test_publishing_from_the_form_says_which_clones_took_which_texts(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")
    response = client.get(CHANGE.format(guide.pk))
    shown = [str(m) for m in response.context["messages"]]
    number = [
        n
        for n, entry in enumerate(FaqEntry.objects.filter(guide=guide), start=1)
        if "niemals" in entry.answer_de
    ][0]
    field = f"FAQ entry {number} answer (de)"
    assert (
        f"The change reached 4 clones: Llama 3.1 405B: {field}; Llama 3.1 8B: {field}; "
        f"Mistral 7B: {field}; Qwen 2.5 32B: {field}."
    ) in shown
    for slug in ("best-gpu-for-mistral-7b-fine-tuning", EIGHT_B):
        clone_answer = FaqEntry.objects.filter(guide__slug=slug).order_by("position", "pk")
        assert "niemals" in list(clone_answer)[number - 1].answer_de
