"""Guide families (guides.editorial.families): a clone remembers its source, and a published
change of the source's prose reaches every clone that still held the text it replaced."""

from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.utils import translation

from guides.editorial import families, publishing, revisions, translating
from guides.editorial.cloning import clone_guide
from guides.editorial.seeding import CONTENT_DIR, load_clones
from guides.models import FaqEntry, Guide, Section
from guides.pages import selectors
from pricing.models import LanguageModel
from tests.admin_pages import _user
from tests.conftest import GUIDE_SLUG

SEEDED_CLONES = {
    "best-gpu-for-llama-3-1-8b-fine-tuning",
    "best-gpu-for-llama-3-1-405b-fine-tuning",
    "best-gpu-for-qwen-2-5-32b-fine-tuning",
    "best-gpu-for-mistral-7b-fine-tuning",
}
FIXED_DE = "Kurz gesagt: ein korrigierter Satz, der jeden Klon erreicht."
OWN_DE = "Die eigene Antwort dieses Klons."


@pytest.fixture
def source(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.fixture
def editor(seeded):
    return _user("erika", "Reviewers")


def history(guide: Guide) -> list[str]:
    entries = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk")
    with translation.override("en"):
        return [entry.get_change_message() for entry in entries]


def publish_change_of(guide, user, model, position, **values) -> publishing.Outcome:
    content = revisions.editing_content(guide)
    row = content.guide if model is Guide else content.rows[model][position - 1]
    for name, value in values.items():
        setattr(row, name, value)
    outcome = publishing.save_draft(content, user=user, comment="Draft saved", publish=True)
    assert outcome.published, outcome.problems
    return outcome


def nth(model, guide: Guide, number: int):
    return list(model.objects.filter(guide=guide).order_by("position", "pk"))[number - 1]


def make_clone(source: Guide, model_slug: str, *, publish: bool, user=None) -> Guide:
    return clone_guide(
        selectors.guide_for_page(slug=source.slug, include_drafts=True),
        LanguageModel.objects.get(slug=model_slug),
        publish=publish,
        user=user,
    )


# --- a clone remembers its source ------------------------------------------------------------


def test_the_seeds_clones_have_the_70b_guide_as_their_source(source):
    assert {g.slug for g in source.clones.all()} == SEEDED_CLONES
    fine_tuning = Guide.objects.filter(source__isnull=False, kind=Guide.Kind.FINE_TUNING)
    assert fine_tuning.count() == len(SEEDED_CLONES)


def test_clone_guide_sets_the_source(source):
    clone = make_clone(source, "qwen-2.5-7b", publish=False)
    assert clone.source == source


def test_the_clone_guide_command_sets_the_source(source):
    call_command(
        "clone_guide", GUIDE_SLUG, model="qwen-2.5-7b", stdout=StringIO(), stderr=StringIO()
    )
    assert Guide.objects.get(slug="best-gpu-for-qwen-2-5-7b-fine-tuning").source == source


def test_the_seed_links_a_clone_on_file_that_has_no_source(source):
    Guide.objects.filter(source=source).update(source=None)
    assert load_clones(CONTENT_DIR / "clones.json") == 0  # nothing created
    assert {g.slug for g in source.clones.all()} == SEEDED_CLONES


def test_a_revision_neither_records_nor_restores_the_source():
    assert "source" in revisions.GUIDE_EXCLUDED


# --- a published change reaches the clones that follow it -------------------------------------


def test_a_published_short_answer_reaches_the_clones_that_still_had_the_old_text(source, editor):
    old = source.short_answer_de
    overriding = make_clone(source, "qwen-2.5-7b", publish=True, user=editor)
    publish_change_of(overriding, editor, Guide, 0, short_answer_de=OWN_DE)

    outcome = publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)

    answers = dict(Guide.objects.filter(source=source).values_list("slug", "short_answer_de"))
    assert answers == {**dict.fromkeys(SEEDED_CLONES, FIXED_DE), overriding.slug: OWN_DE}
    assert {f.clone.slug for f in outcome.followed} == SEEDED_CLONES
    assert all(f.published for f in outcome.followed)
    # The other languages and fields are untouched: the clones' English is the source's still.
    for clone in Guide.objects.filter(slug__in=SEEDED_CLONES):
        assert clone.short_answer_en == source.short_answer_en
        assert clone.status == Guide.Status.PUBLISHED
    assert old != FIXED_DE


def test_a_section_body_travels_by_position(source, editor):
    third = nth(Section, source, 3)
    fixed = third.body_ja + "(修正済み)"
    publish_change_of(source, editor, Section, 3, body_ja=fixed)
    for clone in Guide.objects.filter(slug__in=SEEDED_CLONES):
        assert nth(Section, clone, 3).body_ja == fixed
        assert nth(Section, clone, 2).body_ja == nth(Section, source, 2).body_ja


def test_a_section_added_to_the_source_carries_no_text_to_the_wrong_section(source, editor):
    """Rows are matched by id across the source's revisions: a new first section shifts the
    places, and the changed text still lands on the clone's section that held it."""
    second = nth(Section, source, 2)
    fixed = second.heading_en + " (revised)"
    content = revisions.editing_content(source)
    for section in content.rows[Section]:
        section.position += 1
        if section.pk == second.pk:
            section.heading_en = fixed
    headings = {f"heading_{code}": "New" for code in ("en", "de", "ja")}
    content.rows[Section].append(Section(guide=source, position=1, **headings))
    outcome = publishing.save_draft(content, user=editor, comment="Draft saved", publish=True)
    assert outcome.published, outcome.problems
    clone = Guide.objects.get(slug="best-gpu-for-mistral-7b-fine-tuning")
    assert nth(Section, clone, 2).heading_en == fixed
    assert [s.heading_en for s in Section.objects.filter(guide=clone)].count("New") == 0


def test_each_clone_s_history_says_what_it_followed(source, editor):
    faq = nth(FaqEntry, source, 2)
    outcome = publish_change_of(source, editor, FaqEntry, 2, answer_de=faq.answer_de + " Ergänzt.")
    source_revision = revisions.live_revision(source)
    for followed in outcome.followed:
        live = revisions.live_revision(followed.clone)
        message = f"Followed Llama 3.1 70B's revision {source_revision.pk}: FAQ entry 2 answer (de)"
        assert history(followed.clone)[-2:] == [message, f"Published revision {live.pk}"]
        assert live.revision.comment == message
        assert live.published_by == editor


def test_a_draft_clone_gets_the_text_in_its_rows(source, editor):
    draft_clone = make_clone(source, "qwen-2.5-7b", publish=False)
    publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)
    draft_clone.refresh_from_db()
    assert draft_clone.short_answer_de == FIXED_DE
    assert draft_clone.status == Guide.Status.DRAFT


def test_a_clone_s_working_copy_is_carried_over_onto_the_followed_text(source, editor):
    clone = Guide.objects.get(slug="best-gpu-for-llama-3-1-8b-fine-tuning")
    content = revisions.editing_content(clone)
    content.guide.meta_description_en = "The clone's own draft."
    publishing.save_draft(content, user=editor, comment="Draft saved")
    publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)
    clone.refresh_from_db()
    assert clone.short_answer_de == FIXED_DE  # live
    working_copy = revisions.working_copy(clone)
    [(_model, _pk, values)] = [
        row for row in revisions.revision_rows(working_copy.revision) if row[0] is Guide
    ]
    assert values["meta_description_en"] == "The clone's own draft."
    assert values["short_answer_de"] == FIXED_DE


def test_a_clone_of_a_clone_follows_in_turn(source, editor):
    eight_b = Guide.objects.get(slug="best-gpu-for-llama-3-1-8b-fine-tuning")
    grandchild = make_clone(eight_b, "qwen-2.5-7b", publish=True, user=editor)
    outcome = publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)
    grandchild.refresh_from_db()
    assert grandchild.short_answer_de == FIXED_DE
    assert grandchild.slug in {f.clone.slug for f in outcome.followed}


def test_the_publication_message_says_which_clones_took_which_texts(source, editor):
    outcome = publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)
    assert families.reached_message(outcome.followed) == (
        "The change reached 4 clones: Llama 3.1 405B: short answer (de); Llama 3.1 8B: short "
        "answer (de); Mistral 7B: short answer (de); Qwen 2.5 32B: short answer (de)."
    )


def test_a_clone_whose_source_is_deleted_keeps_its_text(source):
    clone = Guide.objects.get(slug="best-gpu-for-mistral-7b-fine-tuning")
    text = clone.short_answer_de
    source.delete()
    clone.refresh_from_db()
    assert clone.source is None and clone.short_answer_de == text
    assert families.follow_marks(revisions.editing_content(clone)) == {}


def test_a_clone_whose_english_is_its_own_keeps_its_translation_out_of_date(source, editor):
    """The finding (issue 53): a clone whose English was its own took the source's new German,
    and its "German out of date" mark was cleared: its German page translated other English."""
    own = make_clone(source, "qwen-2.5-7b", publish=True, user=editor)
    publish_change_of(own, editor, Guide, 0, short_answer_en="This clone's own short answer.")
    own.refresh_from_db()
    assert own.short_answer_de == source.short_answer_de  # the source's German, other English

    outcome = publish_change_of(source, editor, Guide, 0, short_answer_de=FIXED_DE)

    own.refresh_from_db()
    assert own.short_answer_de == source.short_answer_de != FIXED_DE  # kept, not followed
    assert own.slug not in {f.clone.slug for f in outcome.followed}
    assert {f.clone.slug for f in outcome.followed} == SEEDED_CLONES  # theirs still follow
    stale = {
        (guide.slug, language): {field.name for field in fields}
        for guide, language, fields in translating.stale_translations()
    }
    assert "short_answer" in stale[(own.slug, "de")]
    assert "short_answer" in stale[(own.slug, "ja")]
