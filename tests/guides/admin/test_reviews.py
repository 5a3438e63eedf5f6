"""Review before publish, translators per language, the site-wide History and the 403 page:
each role and action through the admin, as an Editor (who may not publish), a Reviewer, a
Translator and an Administrator would."""

import re

import pytest
from django.contrib.admin.models import LogEntry
from django.core import mail
from django.test import Client, override_settings
from django.utils import translation

from gpuguide.lib.zoned_time import zoned
from guides.background import tasks
from guides.editorial import publishing, revisions, translating
from guides.editorial.cloning import clone_guide
from guides.models import Guide, GuideRevision, Review
from guides.pages import selectors
from pricing.models import LanguageModel
from tests.admin_pages import form_data, initial_form_data
from tests.conftest import GUIDE_SLUG, as_if_committed
from tests.guides.admin.test_revision_views import CHANGE, NEW, OLD, _action, _page

REVIEWS = "/en/admin/guides/guide/{}/reviews/{}/"


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def _edited_form(client, guide: Guide) -> dict:
    data = initial_form_data(client, CHANGE.format(guide.pk))
    field = next(k for k, v in data.items() if k.endswith("answer_de") and OLD in v)
    data[field] = data[field].replace(OLD, NEW)
    return data


def _notices() -> list:
    """Send the queued review notices, as the task worker would; the mails sent."""
    as_if_committed()
    from django_tasks import default_task_backend

    for result in default_task_backend.results:
        if result.task.name == "send_review_notice":
            tasks.send_review_notice.call(**result.kwargs)
    default_task_backend.clear()
    sent, mail.outbox[:] = list(mail.outbox), []
    return sent


def _history(guide: Guide) -> list[str]:
    with translation.override("en"):
        return [e.get_change_message() for e in LogEntry.objects.filter(object_id=str(guide.pk))
                .order_by("pk")]  # fmt: skip


# --- an Editor who may not publish ----------------------------------------------------------


def test_an_editor_is_offered_review_instead_of_publishing(client, author, guide):
    client.force_login(author)
    body = client.get(CHANGE.format(guide.pk)).content.decode()
    assert 'name="_publish"' not in body
    assert 'value="Save and submit for review" name="_submit"' in body
    # A crafted "Save and publish" keeps a draft and publishes nothing.
    client.post(CHANGE.format(guide.pk), _edited_form(client, guide) | {"_publish": "1"})
    assert OLD in _page(Client()).content.decode()
    draft = revisions.working_copy(guide)
    assert draft is not None and draft.published_at is None
    for action in ("publish", "schedule", "unschedule"):
        refused = client.post(_action(guide, draft, action))
        assert refused.status_code == 403
        assert "Only a reviewer publishes or schedules guides" in refused.content.decode()


def test_an_editor_cannot_publish_a_draft_guide_from_its_form(client, author, guide):
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    client.force_login(author)
    data = form_data(client.get(CHANGE.format(guide.pk))) | {"status": "published"}  # not shared
    response = client.post(CHANGE.format(guide.pk), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["status"] == [
        "Only a reviewer publishes: save it as a draft and submit it for review."
    ]


@override_settings(EDITORS_MAY_PUBLISH=True)
def test_the_setting_lets_editors_publish_directly(client, author, guide):
    client.force_login(author)
    client.post(CHANGE.format(guide.pk), _edited_form(client, guide) | {"_publish": "1"})
    assert NEW in _page(Client()).content.decode()


# --- the round: submit, review, send back, submit again, approve ---------------------------


def test_a_submission_is_reviewed_sent_back_and_approved(client, author, editor, guide):
    editor.email = "erika@example.com"
    editor.save()
    client.force_login(author)
    data = _edited_form(client, guide) | {"_submit": "1", "review_comment": "Wording fix"}
    response = client.post(CHANGE.format(guide.pk), data, follow=True)
    draft = revisions.working_copy(guide)
    assert (
        f"Revision {draft.pk} was submitted for review: the reviewers are told."
        in response.content.decode()
    )
    review = Review.objects.get(guide=guide)
    assert (review.state, review.revision, review.submitted_by, review.comment) == (
        Review.State.PENDING, draft, author, "Wording fix"
    )  # fmt: skip
    [notice] = _notices()
    assert notice.to == ["erika@example.com"]  # every reviewer but the author
    assert notice.subject == (
        f"[GPU Guide] Revision {draft.pk} of “{guide.title_en}” waits for your review"
    )
    assert notice.body == (
        f"aiko asks you to review revision {draft.pk} of “{guide.title_en}”.\n\nComment:\n"
        f"Wording fix\n\nThe review: http://testserver{REVIEWS.format(guide.pk, review.pk)}\n"
    )
    assert _history(guide)[-1] == f"Submitted revision {draft.pk} for review: Wording fix"

    # The reviewer's dashboard lists it; the author's lists it as theirs.
    reviewer = Client()
    reviewer.force_login(editor)
    waiting = reviewer.get("/en/admin/").context["dashboard"].waiting_for_review
    assert [(w.message, w.url) for w in waiting] == [
        (
            f"“{guide.title_en}”: revision {draft.pk} from aiko, submitted "
            f"{zoned(review.submitted_at)}: “Wording fix”",
            REVIEWS.format(guide.pk, review.pk),
        )
    ]
    assert client.get("/en/admin/").context["dashboard"].waiting_for_review == []

    # Sent back needs a comment; with one, the author is told and it stays a draft.
    page = reviewer.get(REVIEWS.format(guide.pk, review.pk)).content.decode()
    assert "<del>nie.</del>" in page and "<ins>niemals.</ins>" in page
    refused = reviewer.post(REVIEWS.format(guide.pk, review.pk), {"send_back": "1"})
    assert refused.status_code == 200 and "This field is required." in refused.content.decode()
    reviewer.post(REVIEWS.format(guide.pk, review.pk), {"send_back": "1", "comment": "Keep “nie”."})
    review.refresh_from_db()
    assert (review.state, review.decided_by, review.decision_comment) == (
        Review.State.SENT_BACK, editor, "Keep “nie”."
    )  # fmt: skip
    [notice] = _notices()
    assert notice.to == ["aiko@example.com"]
    assert notice.subject == f"[GPU Guide] Revision {draft.pk} of “{guide.title_en}” was sent back"
    assert "Keep “nie”." in notice.body
    assert OLD in _page(Client()).content.decode()
    [yours] = client.get("/en/admin/").context["dashboard"].submitted
    assert yours.message == f"“{guide.title_en}”: revision {draft.pk} is sent back: “Keep “nie”.”"

    # Submitted again from the Revisions page; approved: published through the one path.
    client.post(_action(guide, draft, "submit"), {"comment": "Second try"})
    again = Review.objects.get(guide=guide, state=Review.State.PENDING)
    _notices()
    reviewer.post(REVIEWS.format(guide.pk, again.pk), {"approve": "1", "comment": "Fine"})
    again.refresh_from_db()
    assert again.state == Review.State.APPROVED
    assert NEW in _page(Client()).content.decode()
    assert revisions.live_revision(guide).published_by == editor
    [notice] = _notices()
    assert notice.subject == f"[GPU Guide] Revision {draft.pk} of “{guide.title_en}” is live"
    assert _history(guide)[-2:] == [
        f"Published revision {draft.pk}",
        f"Approved revision {draft.pk}: Fine",
    ]


def test_a_later_publication_closes_a_pending_review(client, author, editor, guide):
    """The review page refuses a review that a later publication closed; the closing itself is
    pinned in tests/guides/editorial/test_publishing.py."""
    content = revisions.editing_content(guide)
    content.guide.short_answer_en = "Submitted"
    submitted = publishing.save_draft(content, user=author, comment="Draft saved").revision
    review = publishing.submit_for_review(submitted, user=author, comment="")
    baseline = GuideRevision.objects.filter(guide=guide).order_by("pk").first()
    reverted = publishing.revert(baseline, user=editor)
    publishing.publish(reverted.revision, user=editor)
    review.refresh_from_db()
    assert review.state == Review.State.OVERTAKEN  # approving it now would undo that publication
    reviewer = Client()
    reviewer.force_login(editor)
    late = reviewer.post(REVIEWS.format(guide.pk, review.pk), {"approve": "1"})
    assert late.status_code == 403
    assert OLD in _page(Client()).content.decode()


def test_a_translator_submits_from_the_revisions_page(client, translator_de, guide):
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    translating.translation_save(
        guide, language="de", texts={heading.key: "Neu"}, user=translator_de, comment="de"
    )
    draft = revisions.working_copy(guide)
    client.force_login(translator_de)
    page = client.get(f"/en/admin/guides/guide/{guide.pk}/revisions/").content.decode()
    assert "Submit for review" in page and "Publish…" not in page and "Revert" not in page
    client.post(_action(guide, draft, "submit"), {"comment": "Übersetzung"})
    assert Review.objects.get(guide=guide).submitted_by == translator_de


# --- translators: their language only ------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "allowed"), [("de", True), ("ja", False)], ids=["own", "other"]
)
def test_a_translator_works_on_their_language_only(client, translator_de, guide, language, allowed):
    client.force_login(translator_de)
    screen = f"/en/admin/guides/guide/{guide.pk}/translate/{language}/"
    export = f"{screen}export/xliff/"
    importing = f"{screen}import/"
    expected = 200 if allowed else 403
    assert client.get(screen).status_code == expected
    assert client.get(export).status_code == expected
    assert client.post(importing, {}).status_code == (200 if allowed else 403)
    form = client.get(CHANGE.format(guide.pk)).content.decode()
    assert ("Translate into German" in form, "Translate into Japanese" in form) == (True, False)
    if not allowed:
        refused = client.get(screen).content.decode()
        assert "You may not translate this guide into Japanese." in refused
        assert "The admin&#x27;s home page" in refused or "The admin's home page" in refused


def test_a_translator_cannot_change_the_guide_itself(client, translator_de, guide):
    client.force_login(translator_de)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    assert client.post(CHANGE.format(guide.pk), data).status_code == 403


# --- the site-wide History ---------------------------------------------------------------


def test_the_site_wide_history_lists_every_objects_entries_with_filters(client, editor, guide):
    draft = revisions.working_copy(guide) or GuideRevision.objects.filter(guide=guide).first()
    publishing.schedule(draft, go_live_at=None, expire_at=None, user=editor)
    client.force_login(editor)
    page = client.get("/en/admin/admin/logentry/")
    assert page.status_code == 200
    body = page.content.decode()
    assert f"Cleared the schedule of revision {draft.pk}" in body
    assert f'href="/en/admin/guides/guide/{guide.pk}/change/"' in body
    mine = client.get(f"/en/admin/admin/logentry/?user__id__exact={editor.pk}")
    assert list(mine.context["cl"].result_list) == list(LogEntry.objects.filter(user=editor))
    assert client.post("/en/admin/admin/logentry/add/").status_code == 403


def test_an_editor_cannot_read_the_site_wide_history(client, author):
    client.force_login(author)
    response = client.get("/en/admin/admin/logentry/")
    assert response.status_code == 403
    assert "Not allowed" in response.content.decode()


# --- 403 pages ---------------------------------------------------------------------------


def test_a_refusal_in_the_admin_says_why_and_leads_back(client, author, guide):
    client.force_login(author)
    draft_page = f"/en/admin/guides/guide/{guide.pk}/revisions/"
    revision = GuideRevision.objects.filter(guide=guide).first()
    response = client.get(
        _action(guide, revision, "publish"), HTTP_REFERER=f"http://testserver{draft_page}"
    )
    body = response.content.decode()
    assert response.status_code == 403
    assert "Only a reviewer publishes or schedules guides: submit it for review." in body
    assert f'<a href="http://testserver{draft_page}">Back to the page you came from</a>' in body
    assert "GPU Guide administration" in body  # the admin's frame
    elsewhere = client.get(
        _action(guide, revision, "publish"), HTTP_REFERER="https://evil.example/"
    )
    assert "evil.example" not in elsewhere.content.decode()


def test_a_reviewer_sees_the_copies_an_approval_publishes_into(client, author, editor, guide):
    """The finding (issue 53): a source guide's review did not say that approving publishes
    into its live copies."""
    client.force_login(author)
    data = _edited_form(client, guide) | {"_submit": "1", "review_comment": "Wording fix"}
    client.post(CHANGE.format(guide.pk), data)
    review = Review.objects.get(guide=guide)
    reviewer = Client()
    reviewer.force_login(editor)
    page = reviewer.get(REVIEWS.format(guide.pk, review.pk)).content.decode()
    assert "Approving also publishes into 4 copies that still follow this guide's text:" in page
    copies = re.findall(r"<li>([^<:]+): (FAQ entry \d+ answer \(de\))</li>", page)
    assert sorted(name for name, _field in copies) == [
        "Llama 3.1 405B", "Llama 3.1 8B", "Mistral 7B", "Qwen 2.5 32B"
    ]  # fmt: skip
    assert len({field for _name, field in copies}) == 1  # the one FAQ answer changed
    preview = f"/en/admin/guides/guide/{guide.pk}/revisions/{review.revision_id}/preview/"
    assert f'href="{preview}"' in page


def test_a_new_guides_review_shows_its_whole_text_and_previews(client, author, editor, guide):
    """The finding (issue 53): a new guide's review page showed no text, no preview, no diff."""
    new = clone_guide(
        selectors.guide_for_page(slug=guide.slug, include_drafts=True),
        LanguageModel.objects.get(slug="qwen-2.5-7b"),
        publish=False,
        user=author,
    )
    draft = publishing.save_draft(revisions.rows_content(new), user=author, comment="new").revision
    review = publishing.submit_for_review(draft, user=author, comment="A new guide")
    client.force_login(editor)
    page = client.get(REVIEWS.format(new.pk, review.pk)).content.decode()
    assert "The guide is not live: approving puts it online." in page
    assert f"The whole text of revision {draft.pk}" in page
    assert '<th scope="col">Not live yet</th>' in page
    assert f'<td class="diff-new"><ins>{new.title_en}</ins></td>' in page
    assert f'href="/de/admin/guides/guide/{new.pk}/revisions/{draft.pk}/preview/"' in page


def test_who_may_only_view_a_guide_is_offered_no_button(client, guide):
    """The finding (issue 53): a view-only form showed save buttons that answered 403."""
    from django.contrib.auth.models import Permission, User

    viewer = User.objects.create_user("viewer", password="pw-for-tests-only", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_guide"))
    client.force_login(viewer)
    page = client.get(CHANGE.format(guide.pk))
    assert page.status_code == 200
    body = page.content.decode()
    assert 'type="submit"' not in body.split('id="guide_form"', 1)[1]


def test_a_translators_dashboard_lists_their_languages_only(client, translator_de, editor, guide):
    """The finding (issue 53): the German translator's dashboard listed the Japanese work, with
    links that answered 403."""
    content = revisions.editing_content(guide)
    content.guide.short_answer_en = "A new English short answer, in no translation yet."
    publishing.save_draft(content, user=editor, comment="English changed", publish=True)
    client.force_login(translator_de)
    warnings = client.get("/en/admin/").context["dashboard"].warnings["Translations"]
    assert {warning.language for warning in warnings} == {"de"}
    assert all("/translate/de/" in warning.url for warning in warnings)
    assert all(client.get(warning.url.split("#")[0]).status_code == 200 for warning in warnings)
