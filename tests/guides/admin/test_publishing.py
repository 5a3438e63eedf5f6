"""The one publishing path (guides.editorial.publishing) and each of its callers: the guide
form, the revisions views, the translation screen and imports, cloning, seeding, the scheduler.
"""

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
from guides.editorial import publishing, revisions, translating
from guides.editorial.cloning import clone_guide
from guides.models import Guide, GuideRevision
from guides.pages import selectors
from pricing.models import LanguageModel
from tests.admin_pages import form_data, initial_form_data
from tests.conftest import GUIDE_SLUG, as_if_committed
from tests.guides.admin.test_revision_views import CHANGE, NEW, OLD, _action, _page, _save_draft

TOMORROW_9 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # the tests' clock is 2026-11-29


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def history(guide: Guide) -> list[str]:
    """The guide's History, oldest first, as the English admin's History page words it."""
    entries = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk")
    with translation.override("en"):
        return [entry.get_change_message() for entry in entries]


def drawings_queued() -> list[int]:
    as_if_committed()
    return [
        r.kwargs["guide_id"]
        for r in default_task_backend.results
        if r.task.name == "draw_share_images"
    ]


def _draft_revision(client, guide: Guide) -> GuideRevision:
    """The guide form's first save (from the form as first shown): a working copy."""
    _save_draft(client, guide)
    return revisions.working_copy(guide)


def _another_draft(guide: Guide, user, text: str) -> GuideRevision:
    """A working copy whose English short answer is ``text``, saved the way every form does."""
    content = revisions.editing_content(guide)
    content.guide.short_answer_en = text
    return publishing.save_draft(content, user=user, comment="Draft saved").revision


# --- the guide form --------------------------------------------------------------------------


def test_save_and_publish_checks_the_guide_once(client, editor, guide, monkeypatch):
    checked = []
    real_check = publishing.guide_problems
    monkeypatch.setattr(
        publishing,
        "guide_problems",
        lambda *a, **kw: checked.append(a[0].slug) or real_check(*a, **kw),
    )
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")
    # The guide once; then each clone that follows the changed text, once (guides.families).
    assert checked[0] == guide.slug and checked.count(guide.slug) == 1
    assert sorted(checked[1:]) == sorted(clone.slug for clone in guide.clones.all())
    assert NEW in _page(Client()).content.decode()
    draft = GuideRevision.objects.filter(guide=guide).first()
    assert (
        history(guide)[-2]
        == "Changed Answer [de] for FAQ entry “Can I pay for the GPUs with crypto?”."
    )
    assert history(guide)[-1] == f"Published revision {draft.pk}"


def test_a_drafts_first_publication_from_the_form_goes_through_the_path(client, editor, guide):
    qwen = LanguageModel.objects.get(slug="qwen-2.5-7b")
    draft = clone_guide(selectors.guide_for_page(slug=guide.slug), qwen, publish=False)
    default_task_backend.clear()
    client.force_login(editor)
    data = form_data(client.get(CHANGE.format(draft.pk)))  # a guide of this test's: not shared
    data["status"] = "published"
    response = client.post(CHANGE.format(draft.pk), data, follow=True)
    assert "Published: the live page now shows revision" in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == Guide.Status.PUBLISHED
    published = revisions.live_revision(draft)
    assert (published.published_by, published.revision.comment) == (editor, "Draft saved")
    assert drawings_queued() == [draft.pk]  # its share images, as any publication's
    assert history(draft) == ["Changed Status.", f"Published revision {published.pk}"]


def test_the_form_names_the_guides_schedule_with_its_time_zone(client, editor, guide):
    client.force_login(editor)
    draft = _draft_revision(client, guide)
    publishing.schedule(draft, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    with override_settings(TIME_ZONE="Europe/Berlin"):
        body = client.get(CHANGE.format(guide.pk)).content.decode()
        index = client.get("/en/admin/").content.decode()
    note = f"Revision {draft.pk} goes live at Nov. 30, 2026, 10 a.m. (Europe/Berlin)"
    assert f"{note} (scheduled by {editor.username})." in body
    assert (
        f"“{guide.title}”: revision {draft.pk} goes live at Nov. 30, 2026, 10 a.m. "
        f"(Europe/Berlin) (scheduled by {editor.username})."
    ) in index


def test_zoned_times_name_their_zone_in_the_admin_language():
    with override_settings(TIME_ZONE="Asia/Tokyo"):
        with translation.override("ja"):
            assert zoned(TOMORROW_9) == "2026年11月30日18:00 (Asia/Tokyo)"
        with translation.override("de"):
            assert zoned(TOMORROW_9) == "30. November 2026 18:00 (Asia/Tokyo)"


# --- schedules that cannot undo later work ---------------------------------------------------


def test_a_later_publication_cancels_a_schedule_that_would_undo_it(client, editor, guide):
    """Revision N scheduled for tomorrow 09:00, then a revert and a publication: at 09:00
    nothing happens, and the page keeps what was published last."""
    client.force_login(editor)
    scheduled = _draft_revision(client, guide)
    response = client.post(
        _action(guide, scheduled, "schedule"),
        {f"r{scheduled.pk}-go_live_at": "2026-11-30T09:00", f"r{scheduled.pk}-expire_at": ""},
        follow=True,
    )
    assert "goes live at Nov. 30, 2026, 9 a.m. (UTC)" in response.content.decode()
    baseline = GuideRevision.objects.filter(guide=guide).order_by("pk").first()
    response = client.post(_action(guide, baseline, "revert"), follow=True)
    body = response.content.decode()
    assert (
        f"Cancelled the scheduled go-live of revision {scheduled.pk} at Nov. 30, 2026, 9 a.m. "
        "(UTC): it was set before this change and would have undone it at its time."
    ) in body
    copy = GuideRevision.objects.filter(guide=guide).first()
    assert history(guide)[-2:] == [
        f"Reverted to revision {baseline.pk}",
        f"Cancelled the go-live of revision {scheduled.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"the guide was reverted to revision {baseline.pk} after it was scheduled",
    ]
    scheduled.refresh_from_db()
    assert scheduled.go_live_at is None and revisions.pending_go_lives(guide) == []
    client.post(_action(guide, copy, "publish"))
    with time_machine.travel(TOMORROW_9 + timedelta(seconds=1), tick=False):
        assert publishing.apply_due_changes() == []
    assert OLD in _page(Client()).content.decode()


def test_publishing_cancels_the_guides_other_go_lives(editor, guide):
    baseline = revisions.live_revision(guide)
    scheduled = _another_draft(guide, editor, "Scheduled")
    publishing.schedule(scheduled, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    outcome = publishing.publish(baseline, user=editor)
    assert outcome.published and [r.pk for r in outcome.cancelled] == [scheduled.pk]
    assert GuideRevision.objects.get(pk=scheduled.pk).go_live_at is None


def test_scheduling_a_go_live_replaces_the_guides_other(client, editor, guide):
    client.force_login(editor)
    first = _draft_revision(client, guide)
    publishing.schedule(first, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    second = _another_draft(guide, editor, "Second")
    cancelled = publishing.schedule(
        second, go_live_at=TOMORROW_9 + timedelta(hours=1), expire_at=None, user=editor
    )
    assert cancelled == [first]
    assert revisions.pending_go_lives(guide) == [second]
    assert history(guide)[-2] == (
        f"Cancelled the go-live of revision {first.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"revision {second.pk} was scheduled in its place"
    )
    assert history(guide)[-1] == (
        f"Scheduled revision {second.pk}: goes live at Nov. 30, 2026, 10 a.m. (UTC)"
    )


def test_the_live_revision_cannot_be_scheduled_to_go_live(editor, guide):
    live = revisions.live_revision(guide)
    with pytest.raises(publishing.ScheduleRefused, match=f"Revision {live.pk} is live already"):
        publishing.schedule(live, go_live_at=TOMORROW_9, expire_at=None, user=editor)


def test_a_go_live_in_the_past_is_refused_on_the_form(client, editor, guide):
    client.force_login(editor)
    draft = _draft_revision(client, guide)
    response = client.post(
        _action(guide, draft, "schedule"),
        {f"r{draft.pk}-go_live_at": "2026-11-28T09:00", f"r{draft.pk}-expire_at": ""},
        follow=True,
    )
    assert "Choose a go-live time in the future" in response.content.decode()
    assert revisions.pending_go_lives(guide) == []


def test_an_expiry_stays_with_the_page_when_a_new_revision_goes_live(client, editor, guide):
    live = revisions.live_revision(guide)
    expiry = TOMORROW_9 + timedelta(days=3)
    publishing.schedule(live, go_live_at=None, expire_at=expiry, user=editor)
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")  # the form as first shown: nothing saved since
    new_live = revisions.live_revision(guide)
    assert new_live.pk != live.pk
    assert [(r.pk, r.expire_at) for r in revisions.schedules(guide).expiring] == [
        (new_live.pk, expiry)
    ]
    assert GuideRevision.objects.get(pk=live.pk).expire_at is None


def test_clearing_a_schedule(client, editor, guide):
    client.force_login(editor)
    draft = _draft_revision(client, guide)
    publishing.schedule(draft, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    response = client.post(_action(guide, draft, "unschedule"), follow=True)
    assert f"Schedule of revision {draft.pk} cleared." in response.content.decode()
    assert revisions.pending_go_lives(guide) == []
    assert history(guide)[-1] == f"Cleared the schedule of revision {draft.pk}"


# --- the scheduler ---------------------------------------------------------------------------


def test_a_go_live_is_in_the_history_under_who_scheduled_it(client, editor, guide):
    client.force_login(editor)
    draft = _draft_revision(client, guide)
    publishing.schedule(draft, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    with time_machine.travel(TOMORROW_9, tick=False):
        assert tasks.apply_scheduled_changes.call() == [
            f"{GUIDE_SLUG}: revision {draft.pk} published"
        ]
    entry = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk").last()
    assert (entry.user, entry.get_change_message()) == (
        editor,
        f"Published revision {draft.pk} as scheduled",
    )
    assert NEW in _page(Client()).content.decode()


def test_a_go_live_that_fails_its_checks_is_not_retried(client, editor, guide):
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    data["short_answer_de"] += " Alternativ: [[recommend full-adamw alternative]]."
    client.post(CHANGE.format(guide.pk), data)
    failing = revisions.working_copy(guide)
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
    assert revisions.live_revision(guide).pk != failing.pk


# --- the revisions page: publishing a stored revision asks first ------------------------------


def test_publishing_an_older_revision_shows_what_it_changes_first(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")
    live = revisions.live_revision(guide)
    older = GuideRevision.objects.filter(guide=guide).order_by("pk").first()
    page = client.get(_action(guide, older, "publish"))
    body = page.content.decode()
    assert page.status_code == 200
    assert f"Revision {older.pk} is older than the live revision {live.pk}" in body
    assert "stays a draft" not in body  # there is no working copy
    draft = _another_draft(guide, editor, "A draft")
    body = client.get(_action(guide, older, "publish")).content.decode()
    assert f"A newer draft, revision {draft.pk}, stays a draft" in body
    assert "<del>niemals.</del>" in body and "<ins>nie.</ins>" in body
    assert NEW in _page(Client()).content.decode()  # nothing changed yet
    client.post(_action(guide, older, "publish"))
    assert OLD in _page(Client()).content.decode()
    assert history(guide)[-1] == f"Published revision {older.pk}"


def test_the_working_copy_banner_leads_to_the_confirmation(client, editor, guide):
    client.force_login(editor)
    draft = _draft_revision(client, guide)
    body = client.get(CHANGE.format(guide.pk)).content.decode()
    assert f'href="{_action(guide, draft, "publish")}?next=change"' in body
    assert f"Review and publish revision {draft.pk}" in body
    response = client.post(_action(guide, draft, "publish"), {"next": "change"})
    assert response["Location"] == CHANGE.format(guide.pk)


def test_a_view_only_user_cannot_reach_the_confirmation(client, recorder, guide):
    client.force_login(recorder)
    live = GuideRevision.objects.filter(guide=guide).first()
    assert client.get(_action(guide, live, "publish")).status_code == 403


# --- the other callers ---------------------------------------------------------------------


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
    assert heading.texts["de"] in _page(Client()).content.decode()  # not on the live page
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


def test_a_published_clone_is_published_through_the_path(editor, guide):
    default_task_backend.clear()
    qwen = LanguageModel.objects.get(slug="qwen-2.5-7b")
    clone = clone_guide(selectors.guide_for_page(slug=guide.slug), qwen, publish=True, user=editor)
    live = revisions.live_revision(clone)
    assert clone.status == Guide.Status.PUBLISHED and live.published_by == editor
    assert live.revision.comment == f"Made from “{guide.title_en}”"
    assert drawings_queued() == [clone.pk]
    assert history(clone) == [f"Made from “{guide.title_en}”", f"Published revision {live.pk}"]


def test_seeded_guides_are_published_with_a_revision(guide):
    live = revisions.live_revision(guide)
    assert live.revision.comment == "Loaded from the seed content"
    assert live.published_by is None and guide.published_on is not None
