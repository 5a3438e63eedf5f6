"""The publishing use cases (guides.editorial.publishing) called as functions, with model
objects: save a draft, publish, publish an older revision, revert, schedule and unschedule,
apply what is due, submit for review, send back, approve. The admin's buttons that call them
keep one round trip each (tests/guides/admin/); what each function does is pinned here."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import translation
from django_tasks import default_task_backend

from gpuguide.lib.zoned_time import zoned
from guides.background import tasks
from guides.editorial import notices, publishing, revisions, translating
from guides.editorial.cloning import clone_guide
from guides.models import FaqEntry, Guide, GuideRevision, Review
from guides.pages import selectors
from guides.permissions import NotAllowed
from pricing.models import LanguageModel
from tests.conftest import GUIDE_SLUG, NOON, as_if_committed

TOMORROW_9 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # the tests' clock is 2026-11-29
OLD = "Ungenutzte GPU-Stunden verfallen nie."
NEW = "Ungenutzte GPU-Stunden verfallen niemals."
FAILING = " Alternativ: [[recommend full-adamw alternative]]."  # a token the check refuses


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.fixture
def frozen():
    """The clock stopped at noon, so that the times the functions write are known."""
    with time_machine.travel(NOON, tick=False):
        yield NOON


def history(guide: Guide) -> list[str]:
    """The guide's History, oldest first, as the English admin's History page words it."""
    entries = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk")
    with translation.override("en"):
        return [entry.get_change_message() for entry in entries]


def live_page(lang: str = "de") -> str:
    as_if_committed()  # each earlier call committed, as a request's would
    with translation.override("en"):  # the request's language ends with it
        return Client().get(f"/{lang}/guides/{GUIDE_SLUG}/").content.decode()


def edited(guide: Guide) -> revisions.Content:
    """What an edit starts from, the crypto answer changed in German (OLD to NEW) where the
    edit still holds OLD."""
    content = revisions.editing_content(guide)
    for faq in content.rows[FaqEntry]:
        faq.answer_de = faq.answer_de.replace(OLD, NEW)
    return content


def draft(guide: Guide, user, *, text: str = "", comment: str = "Draft saved") -> GuideRevision:
    """A working copy: the crypto answer changed, and the English short answer where ``text``."""
    content = edited(guide)
    if text:
        content.guide.short_answer_en = text
    outcome = publishing.save_draft(content, user=user, comment=comment)
    assert not outcome.published and outcome.problems == []
    return outcome.revision


def failing_draft(guide: Guide, user) -> GuideRevision:
    content = revisions.editing_content(guide)
    content.guide.short_answer_de += FAILING
    return publishing.save_draft(content, user=user, comment="Draft saved").revision


def go_lives(guide: Guide) -> list[int]:
    return [r.pk for r in revisions.pending_go_lives(guide)]


# --- saving a draft --------------------------------------------------------------------------


def test_a_live_guides_edit_is_kept_as_its_working_copy(editor, guide):
    live, version = revisions.live_revision(guide), guide.version
    before = len(history(guide))
    outcome = publishing.save_draft(edited(guide), user=editor, comment="Wording")
    assert (outcome.published, outcome.problems, outcome.cancelled) == (False, [], [])
    assert outcome.revision == revisions.working_copy(guide)
    assert outcome.revision.published_at is None and outcome.revision.revision.user == editor
    assert revisions.live_revision(guide) == live  # the live rows untouched
    assert [c.field for c in revisions.compare(live, outcome.revision)] == ["Answer (German)"]
    assert OLD in live_page() and NEW not in live_page()
    guide.refresh_from_db()
    assert (guide.status, guide.version) == (Guide.Status.PUBLISHED, version + 1)
    assert history(guide)[before:] == ["Wording"]


def test_save_and_publish_checks_the_guide_once_and_publishes(editor, guide, frozen, monkeypatch):
    checked = []
    real_check = publishing.guide_problems
    monkeypatch.setattr(
        publishing,
        "guide_problems",
        lambda *a, **kw: checked.append(a[0].slug) or real_check(*a, **kw),
    )
    outcome = publishing.save_draft(edited(guide), user=editor, comment="Fixed", publish=True)
    # The guide once; then each clone that follows the changed text, once (guides.families).
    assert checked[0] == guide.slug and checked.count(guide.slug) == 1
    assert sorted(checked[1:]) == sorted(clone.slug for clone in guide.clones.all())
    assert (outcome.published, outcome.problems, outcome.cancelled) == (True, [], [])
    live = revisions.live_revision(guide)
    assert live == outcome.revision and revisions.working_copy(guide) is None
    assert (live.published_at, live.published_by) == (frozen, editor)
    assert NEW in live_page()
    assert history(guide)[-2:] == ["Fixed", f"Published revision {live.pk}"]


def test_save_and_publish_that_fails_the_check_keeps_a_draft(editor, guide):
    live = revisions.live_revision(guide)
    content = edited(guide)
    content.guide.short_answer_de += FAILING
    outcome = publishing.save_draft(content, user=editor, comment="Draft saved", publish=True)
    assert not outcome.published and outcome.problems
    assert outcome.revision == revisions.working_copy(guide)
    assert revisions.live_revision(guide) == live and OLD in live_page()
    assert history(guide)[-1] == "Draft saved"


def test_a_draft_guides_edit_writes_its_rows(editor, guide):
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    guide.refresh_from_db()
    outcome = publishing.save_draft(edited(guide), user=editor, comment="Draft saved")
    assert not outcome.published and outcome.problems == []  # a draft is not checked
    assert FaqEntry.objects.filter(guide=guide, answer_de__contains=NEW).exists()
    assert revisions.working_copy(guide) == outcome.revision


def test_an_editor_who_may_not_publish_is_refused_every_publishing_step(author, editor, guide):
    content, before = edited(guide), GuideRevision.objects.filter(guide=guide).count()
    with pytest.raises(NotAllowed, match="Only a reviewer publishes"):
        publishing.save_draft(content, user=author, comment="x", publish=True)
    assert GuideRevision.objects.filter(guide=guide).count() == before  # nothing kept
    copy = draft(guide, author)  # a draft they may save
    for step in (
        lambda: publishing.publish(copy, user=author),
        lambda: publishing.publish_rows(guide, user=author, comment="x"),
        lambda: publishing.schedule(copy, go_live_at=TOMORROW_9, expire_at=None, user=author),
        lambda: publishing.unschedule(copy, user=author),
    ):
        with pytest.raises(NotAllowed, match="Only a reviewer publishes, schedules or reviews"):
            step()
    review = publishing.submit_for_review(copy, user=author, comment="")
    with pytest.raises(NotAllowed):
        publishing.approve(review, user=author)
    with pytest.raises(NotAllowed):
        publishing.send_back(review, user=author, comment="No")
    assert OLD in live_page() and revisions.pending_go_lives(guide) == []


@override_settings(EDITORS_MAY_PUBLISH=True)
def test_the_setting_lets_editors_publish_directly(author, guide):
    outcome = publishing.save_draft(edited(guide), user=author, comment="x", publish=True)
    assert outcome.published and revisions.live_revision(guide).published_by == author
    assert NEW in live_page()


# --- publishing a stored revision ------------------------------------------------------------


def test_publishing_an_older_revision_brings_back_its_content(editor, guide):
    baseline = revisions.live_revision(guide)
    publishing.save_draft(edited(guide), user=editor, comment="x", publish=True)
    newer = draft(guide, editor, text="A draft")
    later = NOON + timedelta(hours=1)
    with time_machine.travel(later, tick=False):
        outcome = publishing.publish(baseline, user=editor)
    assert (outcome.published, outcome.problems, outcome.cancelled) == (True, [], [])
    baseline.refresh_from_db()
    assert (baseline.published_at, baseline.published_by) == (later, editor)
    assert revisions.live_revision(guide) == baseline
    assert revisions.working_copy(guide) == newer  # the newer draft stays a draft
    assert OLD in live_page()
    assert history(guide)[-1] == f"Published revision {baseline.pk}"


def test_a_revision_that_fails_the_check_is_not_published(editor, guide):
    live, failing = revisions.live_revision(guide), failing_draft(guide, editor)
    entries = len(history(guide))
    outcome = publishing.publish(failing, user=editor)
    assert not outcome.published and outcome.problems
    assert revisions.live_revision(guide) == live  # rolled back: the rows as they were
    assert FAILING.strip() not in Guide.objects.get(pk=guide.pk).short_answer_de
    assert len(history(guide)) == entries


def test_publishing_cancels_the_guides_other_go_lives(editor, guide):
    baseline = revisions.live_revision(guide)
    scheduled = draft(guide, editor, text="Scheduled")
    publishing.schedule(scheduled, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    outcome = publishing.publish(baseline, user=editor)
    assert outcome.published and [r.pk for r in outcome.cancelled] == [scheduled.pk]
    assert GuideRevision.objects.get(pk=scheduled.pk).go_live_at is None
    assert history(guide)[-2:] == [
        f"Published revision {baseline.pk}",
        f"Cancelled the go-live of revision {scheduled.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"revision {baseline.pk} was published after it was scheduled",
    ]


def test_an_expiry_stays_with_the_page_when_a_new_revision_goes_live(editor, guide):
    live = revisions.live_revision(guide)
    expiry = TOMORROW_9 + timedelta(days=3)
    publishing.schedule(live, go_live_at=None, expire_at=expiry, user=editor)
    new_live = publishing.save_draft(edited(guide), user=editor, comment="x", publish=True).revision
    assert revisions.live_revision(guide) == new_live != live
    assert [(r.pk, r.expire_at) for r in revisions.schedules(guide).expiring] == [
        (new_live.pk, expiry)
    ]
    assert GuideRevision.objects.get(pk=live.pk).expire_at is None


# --- revert ----------------------------------------------------------------------------------


def test_a_revert_is_a_new_draft_and_cancels_a_schedule_that_would_undo_it(editor, guide):
    """Revision N scheduled for tomorrow 09:00, then a revert and its publication: at 09:00
    nothing happens, and the page keeps what was published last."""
    baseline = revisions.live_revision(guide)
    scheduled = draft(guide, editor)
    publishing.schedule(scheduled, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    outcome = publishing.revert(baseline, user=editor)
    copy = outcome.revision
    assert copy == revisions.working_copy(guide) and copy.pk > scheduled.pk
    assert (outcome.published, outcome.problems) == (False, [])
    assert [r.pk for r in outcome.cancelled] == [scheduled.pk]
    assert revisions.compare(baseline, copy) == []
    assert copy.revision.comment == f"Reverted to revision {baseline.pk}"
    assert history(guide)[-2:] == [
        f"Reverted to revision {baseline.pk}",
        f"Cancelled the go-live of revision {scheduled.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"the guide was reverted to revision {baseline.pk} after it was scheduled",
    ]
    assert go_lives(guide) == [] and revisions.live_revision(guide) == baseline
    assert publishing.publish(copy, user=editor).published
    with time_machine.travel(TOMORROW_9 + timedelta(seconds=1), tick=False):
        assert publishing.apply_due_changes() == []
    assert OLD in live_page() and revisions.live_revision(guide) == copy


# --- schedules -------------------------------------------------------------------------------


def test_a_schedule_is_kept_with_who_set_it_and_in_the_history(editor, guide):
    copy = draft(guide, editor)
    expiry = TOMORROW_9 + timedelta(days=1)
    assert publishing.schedule(copy, go_live_at=TOMORROW_9, expire_at=expiry, user=editor) == []
    copy.refresh_from_db()
    assert (copy.go_live_at, copy.expire_at, copy.scheduled_by) == (TOMORROW_9, expiry, editor)
    as_if_committed()
    assert [
        r.task.run_after
        for r in default_task_backend.results
        if r.task.name == "apply_scheduled_changes"
    ] == [TOMORROW_9, expiry]  # the task worker applies each at its time
    assert history(guide)[-1] == (
        f"Scheduled revision {copy.pk}: goes live at Nov. 30, 2026, 9 a.m. (UTC); "
        "expires at Dec. 1, 2026, 9 a.m. (UTC)"
    )
    assert OLD in live_page()  # nothing changes before its time


def test_scheduling_a_go_live_replaces_the_guides_other(editor, guide):
    first = draft(guide, editor, text="First")
    publishing.schedule(first, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    second = draft(guide, editor, text="Second")
    later = TOMORROW_9 + timedelta(hours=1)
    assert publishing.schedule(second, go_live_at=later, expire_at=None, user=editor) == [first]
    assert go_lives(guide) == [second.pk]
    assert history(guide)[-2:] == [
        f"Cancelled the go-live of revision {first.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"revision {second.pk} was scheduled in its place",
        f"Scheduled revision {second.pk}: goes live at Nov. 30, 2026, 10 a.m. (UTC)",
    ]


def test_the_live_revision_cannot_be_scheduled_to_go_live(editor, guide):
    live = revisions.live_revision(guide)
    with pytest.raises(publishing.ScheduleRefused, match=f"Revision {live.pk} is live already"):
        publishing.schedule(live, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    assert go_lives(guide) == []


@pytest.mark.parametrize("clear", ["unschedule", "schedule without times"])
def test_clearing_a_schedule(editor, guide, clear):
    copy = draft(guide, editor)
    publishing.schedule(copy, go_live_at=TOMORROW_9, expire_at=TOMORROW_9, user=editor)
    if clear == "unschedule":
        publishing.unschedule(copy, user=editor)
    else:
        assert publishing.schedule(copy, go_live_at=None, expire_at=None, user=editor) == []
    copy.refresh_from_db()
    assert (copy.go_live_at, copy.expire_at) == (None, None) and go_lives(guide) == []
    assert history(guide)[-1] == f"Cleared the schedule of revision {copy.pk}"


# --- what is due: the task worker, and publish_scheduled from cron -------------------------


def test_a_go_live_is_published_under_who_scheduled_it(editor, guide):
    copy = draft(guide, editor)
    publishing.schedule(copy, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    with time_machine.travel(TOMORROW_9, tick=False):
        assert tasks.apply_scheduled_changes.call() == [
            f"{GUIDE_SLUG}: revision {copy.pk} published"
        ]
        assert publishing.apply_due_changes() == []  # once is enough
    copy.refresh_from_db()
    assert (copy.published_at, copy.published_by, copy.go_live_at) == (TOMORROW_9, None, None)
    assert revisions.live_revision(guide) == copy
    entry = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk").last()
    assert (entry.user, entry.get_change_message()) == (
        editor,
        f"Published revision {copy.pk} as scheduled",
    )
    assert NEW in live_page()


def test_a_go_live_that_fails_its_checks_is_not_retried(editor, guide):
    live, failing = revisions.live_revision(guide), failing_draft(guide, editor)
    publishing.schedule(failing, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    out = StringIO()
    with time_machine.travel(TOMORROW_9, tick=False):
        call_command("publish_scheduled", stdout=out)
        call_command("publish_scheduled", stdout=out)
    assert out.getvalue() == (
        f"{GUIDE_SLUG}: revision {failing.pk} not published (it fails its checks)\n"
        "Nothing was due.\n"
    )
    assert history(guide)[-1] == (
        f"Revision {failing.pk} was not published as scheduled: it fails its checks"
    )
    assert revisions.live_revision(guide) == live and go_lives(guide) == []
    assert revisions.working_copy(guide) == failing


def test_an_expiry_takes_the_guide_offline_at_its_time(editor, guide):
    live = revisions.live_revision(guide)
    publishing.schedule(live, go_live_at=None, expire_at=TOMORROW_9, user=editor)
    assert publishing.apply_due_changes(TOMORROW_9 - timedelta(seconds=1)) == []
    assert publishing.apply_due_changes(TOMORROW_9) == [f"{GUIDE_SLUG}: expired, taken offline"]
    guide.refresh_from_db()
    assert guide.status == Guide.Status.DRAFT
    assert GuideRevision.objects.get(pk=live.pk).expire_at is None  # spent
    assert revisions.schedules(guide).expiring == []
    assert history(guide)[-1] == (
        f"Taken offline: revision {live.pk} expired at Nov. 30, 2026, 9 a.m. (UTC)"
    )


# --- review before publish -------------------------------------------------------------------


def test_a_submission_is_sent_back_submitted_again_and_approved(author, editor, guide, frozen):
    copy = draft(guide, author)
    review = publishing.submit_for_review(copy, user=author, comment="Wording fix")
    assert (review.state, review.revision, review.submitted_by, review.comment) == (
        Review.State.PENDING, copy, author, "Wording fix"
    )  # fmt: skip
    assert history(guide)[-1] == f"Submitted revision {copy.pk} for review: Wording fix"

    with pytest.raises(ValueError, match="Say what needs changing"):
        publishing.send_back(review, user=editor, comment="  ")
    publishing.send_back(review, user=editor, comment="Keep “nie”.")
    review.refresh_from_db()
    assert (review.state, review.decided_by, review.decided_at, review.decision_comment) == (
        Review.State.SENT_BACK, editor, frozen, "Keep “nie”."
    )  # fmt: skip
    assert history(guide)[-1] == f"Sent revision {copy.pk} back: Keep “nie”."
    assert OLD in live_page() and revisions.working_copy(guide) == copy
    with pytest.raises(NotAllowed, match="already decided"):
        publishing.approve(review, user=editor)

    again = publishing.submit_for_review(copy, user=author, comment="")
    assert history(guide)[-1] == f"Submitted revision {copy.pk} for review"
    outcome = publishing.approve(again, user=editor, comment="Fine")
    assert outcome.published and revisions.live_revision(guide) == copy
    again.refresh_from_db()
    assert (again.state, again.decided_by, again.decision_comment) == (
        Review.State.APPROVED, editor, "Fine"
    )  # fmt: skip
    assert revisions.live_revision(guide).published_by == editor
    assert NEW in live_page()
    assert history(guide)[-2:] == [
        f"Published revision {copy.pk}",
        f"Approved revision {copy.pk}: Fine",
    ]


def test_who_may_not_edit_the_guide_cannot_submit_it(recorder, editor, guide):
    copy = draft(guide, editor)
    with pytest.raises(NotAllowed, match="you cannot submit it for review"):
        publishing.submit_for_review(copy, user=recorder, comment="")
    assert not Review.objects.filter(guide=guide).exists()


def test_a_later_submission_replaces_the_pending_one(author, guide):
    first = publishing.submit_for_review(draft(guide, author), user=author, comment="")
    second_copy = draft(guide, author, text="Second")
    second = publishing.submit_for_review(second_copy, user=author, comment="")
    first.refresh_from_db()
    assert (first.state, second.state) == (Review.State.REPLACED, Review.State.PENDING)
    assert history(guide)[-2:] == [
        f"Review of revision {first.revision_id} replaced by a later submission",
        f"Submitted revision {second_copy.pk} for review",
    ]


def test_a_later_publication_closes_a_pending_review(author, editor, guide):
    review = publishing.submit_for_review(draft(guide, author), user=author, comment="")
    baseline = GuideRevision.objects.filter(guide=guide).order_by("pk").first()
    reverted = publishing.revert(baseline, user=editor)
    publishing.publish(reverted.revision, user=editor)
    review.refresh_from_db()
    assert (review.state, review.decided_by) == (Review.State.OVERTAKEN, editor)
    assert review.get_state_display() == "closed: a later revision was published"
    notice = notices.review_notice(review, "en")  # not "replaced by a later submission"
    assert f"Revision {review.revision_id} of “{guide.title_en}” was not reviewed: " in notice.body
    assert f"{editor} published a later revision first." in notice.body
    assert history(guide)[-1] == (
        f"Review of revision {review.revision_id} closed: "
        f"revision {reverted.revision.pk} was published"
    )
    with pytest.raises(NotAllowed):  # approving it now would undo that publication
        publishing.approve(review, user=editor)
    assert OLD in live_page()


def test_publishing_the_reviewed_revision_approves_its_review(author, editor, guide):
    copy = draft(guide, author)
    review = publishing.submit_for_review(copy, user=author, comment="")
    publishing.publish(copy, user=editor)
    review.refresh_from_db()
    assert (review.state, review.decided_by) == (Review.State.APPROVED, editor)


def test_an_approval_that_fails_the_check_publishes_nothing(author, editor, guide):
    review = publishing.submit_for_review(failing_draft(guide, author), user=author, comment="")
    outcome = publishing.approve(review, user=editor)
    assert not outcome.published and outcome.problems
    review.refresh_from_db()
    assert review.state == Review.State.PENDING


# --- the other callers -----------------------------------------------------------------------


def _heading(guide: Guide) -> translating.TextField:
    return next(f for f in translating.text_fields(guide) if f.name == "heading")


def test_a_translation_saved_on_the_screen_is_a_working_copy_in_the_history(editor, guide):
    heading = _heading(guide)
    saved = translating.translation_save(
        guide, language="de", texts={heading.key: "Neue Überschrift"}, user=editor,
        comment="Übersetzt",
    )  # fmt: skip
    assert saved.working_copy and saved.revision == revisions.working_copy(guide)
    assert _heading(guide).texts["de"] == "Neue Überschrift"  # in the working copy
    assert heading.texts["de"] in live_page()  # not on the live page
    assert history(guide)[-1] == "Übersetzt"


def test_a_translation_import_goes_the_same_way(editor, guide):
    heading = _heading(guide)
    exported = translating.xliff_export(guide, "de")
    assert exported.count(f">{heading.texts['de']}<") == 1
    changed = exported.replace(f">{heading.texts['de']}<", ">Neue Überschrift<")
    result = translating.translation_import(
        guide, language="de", data=changed.encode(), filename="t.xlf", user=editor, dry_run=False
    )
    assert result.saved.working_copy and result.saved.revision == revisions.working_copy(guide)
    assert history(guide)[-1] == result.saved.revision.revision.comment
    assert history(guide)[-1].startswith("Imported ")


def _drawings_queued() -> list[int]:
    as_if_committed()
    return [
        r.kwargs["guide_id"]
        for r in default_task_backend.results
        if r.task.name == "draw_share_images"
    ]


def test_a_published_clone_is_published_through_the_path(editor, guide):
    default_task_backend.clear()
    qwen = LanguageModel.objects.get(slug="qwen-2.5-7b")
    clone = clone_guide(selectors.guide_for_page(slug=guide.slug), qwen, publish=True, user=editor)
    live = revisions.live_revision(clone)
    assert clone.status == Guide.Status.PUBLISHED and live.published_by == editor
    assert live.revision.comment == f"Made from “{guide.title_en}”"
    assert _drawings_queued() == [clone.pk]
    assert history(clone) == [f"Made from “{guide.title_en}”", f"Published revision {live.pk}"]


def test_a_draft_guides_rows_are_published_as_they_stand(editor, guide):
    qwen = LanguageModel.objects.get(slug="qwen-2.5-7b")
    clone = clone_guide(selectors.guide_for_page(slug=guide.slug), qwen, publish=False)
    default_task_backend.clear()
    outcome = publishing.publish_rows(clone, user=editor, comment="First publication")
    assert (outcome.published, outcome.problems) == (True, [])
    clone.refresh_from_db()
    assert clone.status == Guide.Status.PUBLISHED
    live = revisions.live_revision(clone)
    assert live == outcome.revision
    assert (live.published_by, live.revision.comment) == (editor, "First publication")
    assert _drawings_queued() == [clone.pk]  # its share images, as any publication's
    assert history(clone)[-2:] == ["First publication", f"Published revision {live.pk}"]


def test_seeded_guides_are_published_with_a_revision(guide):
    live = revisions.live_revision(guide)
    assert live.revision.comment == "Loaded from the seed content"
    assert live.published_by is None and guide.published_on is not None


def test_zoned_times_name_their_zone_in_the_admin_language():
    with override_settings(TIME_ZONE="Asia/Tokyo"):
        with translation.override("ja"):
            assert zoned(TOMORROW_9) == "2026年11月30日18:00 (Asia/Tokyo)"
        with translation.override("de"):
            assert zoned(TOMORROW_9) == "30. November 2026 18:00 (Asia/Tokyo)"
