"""The publishing path's admin callers: the guide form's publication of a draft guide, the
schedule it names, the Save schedule and Unschedule buttons, Revert's warning, and publishing a
stored revision from the Revisions page. What the use cases themselves do (and their other
callers: translations, cloning, seeding, the scheduler) is pinned by calling them, in
tests/guides/editorial/test_publishing.py.
"""

from datetime import UTC, datetime

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client, override_settings
from django.utils import translation
from django_tasks import default_task_backend

from guides.editorial import publishing, revisions
from guides.editorial.cloning import clone_guide
from guides.models import Guide, GuideRevision
from guides.pages import selectors
from pricing.models import LanguageModel
from tests.admin_pages import form_data
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


def _another_draft(guide: Guide, user, text: str) -> GuideRevision:
    """A working copy whose English short answer is ``text``, saved the way every form does."""
    content = revisions.editing_content(guide)
    content.guide.short_answer_en = text
    return publishing.save_draft(content, user=user, comment="Draft saved").revision


# --- the guide form --------------------------------------------------------------------------


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
    draft = _another_draft(guide, editor, "A draft")
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


# --- schedules that cannot undo later work ---------------------------------------------------


def test_a_revert_tells_the_editor_which_schedule_it_cancelled(client, editor, guide):
    """The Revert button's warning; what the revert cancels, and why, is pinned in
    tests/guides/editorial/test_publishing.py."""
    scheduled = _another_draft(guide, editor, "Scheduled")
    publishing.schedule(scheduled, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    baseline = GuideRevision.objects.filter(guide=guide).order_by("pk").first()
    client.force_login(editor)
    response = client.post(_action(guide, baseline, "revert"), follow=True)
    assert (
        f"Cancelled the scheduled go-live of revision {scheduled.pk} at Nov. 30, 2026, 9 a.m. "
        "(UTC): it was set before this change and would have undone it at its time."
    ) in response.content.decode()
    assert revisions.pending_go_lives(guide) == []


def test_scheduling_a_go_live_replaces_the_guides_other(client, editor, guide):
    first = _another_draft(guide, editor, "First")
    publishing.schedule(first, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    second = _another_draft(guide, editor, "Second")
    client.force_login(editor)
    response = client.post(
        _action(guide, second, "schedule"),
        {f"r{second.pk}-go_live_at": "2026-11-30T10:00", f"r{second.pk}-expire_at": ""},
        follow=True,
    )
    body = response.content.decode()
    assert f"Schedule of revision {second.pk} saved." in body
    assert "goes live at Nov. 30, 2026, 10 a.m. (UTC)" in body
    assert f"Cancelled the scheduled go-live of revision {first.pk}" in body
    assert revisions.pending_go_lives(guide) == [second]
    assert history(guide)[-2] == (
        f"Cancelled the go-live of revision {first.pk} at Nov. 30, 2026, 9 a.m. (UTC): "
        f"revision {second.pk} was scheduled in its place"
    )
    assert history(guide)[-1] == (
        f"Scheduled revision {second.pk}: goes live at Nov. 30, 2026, 10 a.m. (UTC)"
    )


def test_a_go_live_in_the_past_is_refused_on_the_form(client, editor, guide):
    client.force_login(editor)
    draft = _another_draft(guide, editor, "A draft")
    response = client.post(
        _action(guide, draft, "schedule"),
        {f"r{draft.pk}-go_live_at": "2026-11-28T09:00", f"r{draft.pk}-expire_at": ""},
        follow=True,
    )
    assert "Choose a go-live time in the future" in response.content.decode()
    assert revisions.pending_go_lives(guide) == []


def test_clearing_a_schedule(client, editor, guide):
    client.force_login(editor)
    draft = _another_draft(guide, editor, "A draft")
    publishing.schedule(draft, go_live_at=TOMORROW_9, expire_at=None, user=editor)
    response = client.post(_action(guide, draft, "unschedule"), follow=True)
    assert f"Schedule of revision {draft.pk} cleared." in response.content.decode()
    assert revisions.pending_go_lives(guide) == []
    assert history(guide)[-1] == f"Cleared the schedule of revision {draft.pk}"


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
    draft = _another_draft(guide, editor, "A draft")
    body = client.get(CHANGE.format(guide.pk)).content.decode()
    assert f'href="{_action(guide, draft, "publish")}?next=change"' in body
    assert f"Review and publish revision {draft.pk}" in body
    response = client.post(_action(guide, draft, "publish"), {"next": "change"})
    assert response["Location"] == CHANGE.format(guide.pk)


def test_a_view_only_user_cannot_reach_the_confirmation(client, recorder, guide):
    client.force_login(recorder)
    live = GuideRevision.objects.filter(guide=guide).first()
    assert client.get(_action(guide, live, "publish")).status_code == 403
