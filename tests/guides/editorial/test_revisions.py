"""Revisions' mechanics (guides.editorial.revisions), called as functions: which revision is
live, online and the working copy; a row an edit adds; the baseline of a guide without
revisions; which expiries still count."""

from datetime import UTC, datetime, timedelta

import pytest

from guides.editorial import publishing, revisions
from guides.models import FaqEntry, Guide, GuideRevision
from tests.conftest import GUIDE_SLUG

TOMORROW_9 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def save(guide: Guide, user, text: str, *, publish: bool = False) -> GuideRevision:
    content = revisions.editing_content(guide)
    content.guide.short_answer_en = text
    return publishing.save_draft(content, user=user, comment=text, publish=publish).revision


def test_live_online_and_working_copy(editor, guide):
    baseline = revisions.live_revision(guide)
    assert revisions.online_revision(guide) == baseline and revisions.working_copy(guide) is None
    copy = save(guide, editor, "Draft")
    assert revisions.working_copy(guide) == copy and revisions.live_revision(guide) == baseline
    assert revisions.editing_content(guide).guide.short_answer_en == "Draft"  # the copy's
    assert revisions.rows_content(guide).guide.short_answer_en != "Draft"  # the live rows'
    publishing.publish(copy, user=editor)
    assert revisions.working_copy(guide) is None and revisions.live_revision(guide) == copy
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    guide.refresh_from_db()
    assert revisions.online_revision(guide) is None and revisions.live_revision(guide) == copy


def test_a_row_added_to_a_working_copy_gets_its_id_at_once(editor, guide):
    content = revisions.editing_content(guide)
    last = content.rows[FaqEntry][-1]
    added = FaqEntry(question_en="New?", answer_en="Yes.", position=last.position + 1)
    content.rows[FaqEntry].append(added)
    copy = publishing.save_draft(content, user=editor, comment="Added").revision
    assert added.pk is not None and not FaqEntry.objects.filter(pk=added.pk).exists()
    held = revisions.revision_content(copy).rows[FaqEntry]
    assert [row.pk for row in held][-1] == added.pk
    other = FaqEntry.objects.create(guide=guide, question_en="Q", answer_en="A", position=99)
    assert other.pk > added.pk  # its id stays reserved
    other.delete()
    publishing.publish(copy, user=editor)
    assert FaqEntry.objects.get(pk=added.pk).question_en == "New?"


def test_a_guide_without_revisions_gets_its_live_rows_as_a_baseline(editor, guide):
    GuideRevision.objects.filter(guide=guide).delete()
    copy = save(guide, editor, "Draft")
    baseline, newest = GuideRevision.objects.filter(guide=guide).order_by("pk")
    assert newest == copy and baseline.published_at is not None
    assert baseline.revision.comment == "Live content when revisions began"
    assert revisions.live_revision(guide) == baseline
    revisions.ensure_baseline(guide)  # once only
    assert GuideRevision.objects.filter(guide=guide).count() == 2


def test_an_expiry_counts_only_on_the_live_revision_of_a_live_guide(editor, guide):
    live = revisions.live_revision(guide)
    GuideRevision.objects.filter(pk=live.pk).update(expire_at=TOMORROW_9)
    assert [r.pk for r in revisions.schedules(guide).expiring] == [live.pk]
    copy = save(guide, editor, "Later")
    GuideRevision.objects.filter(pk=copy.pk).update(go_live_at=TOMORROW_9 + timedelta(hours=1))
    assert [r.pk for r in revisions.pending_go_lives(guide)] == [copy.pk]
    later = save(guide, editor, "Published", publish=True)
    assert [r.pk for r in revisions.schedules(guide).expiring] == [later.pk]  # carried over
    GuideRevision.objects.filter(pk=live.pk).update(expire_at=TOMORROW_9)  # replaced since
    assert [r.pk for r in revisions.schedules(guide).expiring] == [later.pk]
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    assert revisions.schedules(guide).expiring == []
