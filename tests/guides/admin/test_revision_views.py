"""Working copies of live guides: draft revisions, preview, publish, diff, revert, schedule."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django_tasks import default_task_backend

from guides.background import tasks
from guides.editorial import publishing, revisions, translating
from guides.models import CHILD_ROWS, FaqEntry, Guide, GuideRevision
from tests.admin_pages import initial_form_data
from tests.conftest import GUIDE_SLUG, as_if_committed

CHANGE = "/en/admin/guides/guide/{}/change/"
OLD = "Ungenutzte GPU-Stunden verfallen nie."
NEW = "Ungenutzte GPU-Stunden verfallen niemals."


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def _page(client, lang: str = "de", query: str = ""):
    as_if_committed()  # each earlier request committed
    return client.get(f"/{lang}/guides/{GUIDE_SLUG}/{query}")


def _preview_url(guide: Guide, revision_pk: int, lang: str = "de") -> str:
    return f"/{lang}/admin/guides/guide/{guide.pk}/revisions/{revision_pk}/preview/"


def _preview(client, guide: Guide, revision: GuideRevision, lang: str = "de"):
    as_if_committed()
    return client.get(_preview_url(guide, revision.pk, lang))


def _save_draft(client, guide: Guide, **extra) -> dict:
    """Save the guide form with the crypto answer changed in German; the form data sent."""
    data = initial_form_data(client, CHANGE.format(guide.pk))
    field = next(k for k, v in data.items() if k.endswith("answer_de") and OLD in v)
    data[field] = data[field].replace(OLD, NEW)
    data |= extra
    response = client.post(CHANGE.format(guide.pk), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return data


def stale_translation_keys(guide: Guide) -> list[tuple[str, str]]:
    """(field key, language) of every field a translator is told to look at."""
    fields = translating.text_fields(guide)
    return [
        (key, language)
        for language in translating.target_languages()
        for key in translating.stale_fields(fields, language, translating.bases_of(guide, language))
    ]


def _action(guide: Guide, revision: GuideRevision, action: str) -> str:
    return f"/en/admin/guides/guide/{guide.pk}/revisions/{revision.pk}/{action}/"


def test_a_live_guides_edit_is_a_draft_until_published(client, editor, guide):
    visitor = Client()
    assert OLD in _page(visitor).content.decode()
    client.force_login(editor)
    _save_draft(client, guide)
    baseline, draft = GuideRevision.objects.filter(guide=guide).order_by("pk")
    assert baseline.published_at is not None and draft.published_at is None
    assert revisions.working_copy(guide) == draft
    # The live page, for visitors and staff, is unchanged.
    assert OLD in _page(visitor).content.decode()
    assert OLD in _page(client).content.decode()
    assert FaqEntry.objects.filter(guide=guide, answer_de__contains=NEW).count() == 0
    # Staff preview the draft in the admin, privately; the public URL shows no revision.
    preview = _preview(client, guide, draft)
    body = preview.content.decode()
    assert NEW in body and OLD not in body
    assert f"Vorschau der Revision {draft.pk}" in body
    assert "private" in preview["Cache-Control"] and "no-store" in preview["Cache-Control"]
    assert OLD in _page(client, query=f"?revision={draft.pk}").content.decode()
    assert _preview(visitor, guide, draft).status_code == 302  # to the admin's sign-in
    assert client.get(_preview_url(guide, 999999)).status_code == 404
    # The form edits the working copy, and says so.
    form = client.get(CHANGE.format(guide.pk)).content.decode()
    assert NEW in form
    assert f"You are editing draft revision {draft.pk}" in form
    # Publish: the live page changes; who and when are kept.
    response = client.post(_action(guide, draft, "publish"), {"next": "change"}, follow=True)
    assert f"Published: the live page now shows revision {draft.pk}." in response.content.decode()
    assert NEW in _page(visitor).content.decode()
    draft.refresh_from_db()
    assert draft.published_by.username == "erika" and draft.published_at is not None
    assert revisions.working_copy(guide) is None
    assert revisions.live_revision(guide) == draft


def test_save_and_publish_in_one_click(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")
    assert NEW in _page(Client()).content.decode()
    live = revisions.live_revision(guide)
    assert live.revision.user.username == "erika"
    # The History names the field the form changed, then the publication.
    entries = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("-pk")[:2]
    with translation.override("en"):
        said = [e.get_change_message() for e in reversed(entries)]
    assert said == [
        "Changed Answer [de] for FAQ entry “Can I pay for the GPUs with crypto?”.",
        f"Published revision {live.pk}",
    ]


def test_untouched_text_sent_with_crlf_changes_nothing(client, editor, guide):
    """Browsers send textareas with CRLF: the first save of the seed must log no change."""
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    data = {k: v.replace("\n", "\r\n") if isinstance(v, str) else v for k, v in data.items()}
    data["_publish"] = "1"
    assert client.post(CHANGE.format(guide.pk), data).status_code == 302
    saved, published_entry = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("-pk")[:2][
        ::-1
    ]
    assert saved.get_change_message() == "No fields changed."
    baseline, published = GuideRevision.objects.filter(guide=guide).order_by("pk")
    assert published_entry.get_change_message() == f"Published revision {published.pk}"
    assert revisions.compare(baseline, published) == []
    # Nor does it tell translators that any English changed.
    assert stale_translation_keys(guide) == []


def test_the_diff_names_each_changed_field_in_its_language(client, editor, guide):
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    data["title_ja"] = "新しいタイトル"
    data["lora_rank"] = "32"
    field = next(k for k, v in data.items() if k.endswith("answer_de") and OLD in v)
    data[field] = data[field].replace(OLD, NEW)
    assert client.post(CHANGE.format(guide.pk), data).status_code == 302
    baseline, draft = GuideRevision.objects.filter(guide=guide).order_by("pk")
    position = FaqEntry.objects.get(guide=guide, answer_de__contains=OLD).position
    changes = revisions.compare(baseline, draft)
    assert [(c.where, c.field) for c in changes] == [
        ("The guide", "Title (Japanese)"),
        ("The guide", "LoRA rank"),
        (f"FAQ entry {position}", "Answer (German)"),
    ]
    assert (str(changes[1].old), str(changes[1].new)) == ("<del>16</del>", "<ins>32</ins>")
    assert str(changes[2].old).endswith("verfallen <del>nie.</del>")
    assert str(changes[2].new).endswith("verfallen <ins>niemals.</ins>")
    page = client.get(
        f"/en/admin/guides/guide/{guide.pk}/revisions/compare/?from={baseline.pk}&to={draft.pk}"
    ).content.decode()
    assert "Answer (German)" in page and "<ins>niemals.</ins>" in page
    assert "Title (Japanese)" in page and "<ins>新しいタイトル</ins>" in page
    listing = client.get(f"/en/admin/guides/guide/{guide.pk}/revisions/").content.decode()
    assert f'id="revision-{draft.pk}"' in listing and "working copy" in listing


def test_revert_makes_a_new_revision_from_an_old_one(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide, _publish="1")
    baseline, published = GuideRevision.objects.filter(guide=guide).order_by("pk")
    response = client.post(_action(guide, baseline, "revert"), follow=True)
    copy = GuideRevision.objects.filter(guide=guide).first()
    assert copy.pk > published.pk
    assert (
        f"Revision {copy.pk} is a copy of revision {baseline.pk}: a draft until you publish it."
        in response.content.decode()
    )
    assert revisions.compare(baseline, copy) == []
    assert NEW in _page(Client()).content.decode()  # still live until published
    client.post(_action(guide, copy, "publish"))
    assert OLD in _page(Client()).content.decode()
    assert list(GuideRevision.objects.filter(guide=guide).values_list("pk", flat=True)) == [
        copy.pk, published.pk, baseline.pk
    ]  # fmt: skip


def _scheduled_runs() -> list:
    """When the queued "apply the scheduled changes" tasks are to run."""
    as_if_committed()  # the schedule is announced once its transaction commits
    return [
        r.task.run_after
        for r in default_task_backend.results
        if r.task.name == "apply_scheduled_changes"
    ]


def test_a_scheduled_revision_goes_live_at_its_time_and_expires(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide)
    draft = revisions.working_copy(guide)
    go_live = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    response = client.post(
        _action(guide, draft, "schedule"),
        {f"r{draft.pk}-go_live_at": "2026-11-29T18:00", f"r{draft.pk}-expire_at": ""},
        follow=True,
    )
    assert f"Schedule of revision {draft.pk} saved." in response.content.decode()
    draft.refresh_from_db()
    assert draft.go_live_at == go_live
    assert _scheduled_runs() == [go_live]  # the task worker applies it at its time
    visitor = Client()
    assert OLD in _page(visitor).content.decode()  # and now cached
    assert [r.go_live_at for r in revisions.pending_go_lives()] == [go_live]
    with time_machine.travel(go_live + timedelta(seconds=1), tick=False):
        assert OLD in _page(visitor).content.decode()  # a visit publishes nothing
        assert tasks.apply_scheduled_changes.call() == [
            f"{GUIDE_SLUG}: revision {draft.pk} published"
        ]
        as_if_committed()
        assert NEW in _page(visitor).content.decode()
    draft.refresh_from_db()
    assert draft.published_at == go_live + timedelta(seconds=1)
    assert draft.published_by is None
    # An expiry takes the guide offline at its time.
    expire = go_live + timedelta(hours=1)
    publishing.schedule(draft, go_live_at=None, expire_at=expire, user=editor)
    assert _scheduled_runs() == [go_live, expire]
    with time_machine.travel(expire + timedelta(seconds=1), tick=False):
        assert tasks.apply_scheduled_changes.call() == [f"{GUIDE_SLUG}: expired, taken offline"]
        as_if_committed()
        assert _page(visitor).status_code == 404
    assert Guide.objects.get(pk=guide.pk).status == Guide.Status.DRAFT


def test_a_schedule_must_expire_after_it_goes_live(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide)
    draft = revisions.working_copy(guide)
    response = client.post(
        _action(guide, draft, "schedule"),
        {
            f"r{draft.pk}-go_live_at": "2026-11-29T18:00",
            f"r{draft.pk}-expire_at": "2026-11-29T17:00",
        },
        follow=True,
    )
    assert "A revision must expire after it goes live." in response.content.decode()
    draft.refresh_from_db()
    assert draft.go_live_at is None


def test_a_bad_token_is_reported_once_on_its_field(client, editor, guide):
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    field = next(k for k, v in data.items() if k.endswith("answer_de") and OLD in v)
    data[field] = "[[memory qlroa]]"
    response = client.post(CHANGE.format(guide.pk), data)
    assert response.status_code == 200
    body = response.content.decode()
    assert "cannot be published while these are empty" not in body
    faq = next(
        f.formset for f in response.context["inline_admin_formsets"]
        if f.formset.prefix == "faq_entries"
    )  # fmt: skip
    form = faq.forms[int(field.split("-")[1])]
    assert form.errors == {"answer_de": ["[[memory qlroa]]: there is no method “qlroa”"]}
    assert faq.non_form_errors() == []
    assert "[[memory qlroa]]" in body  # the editor's text is kept
    assert not GuideRevision.objects.filter(guide=guide).exclude(published_at=None).count() > 1


def test_the_admin_index_lists_guides_first(client, editor):
    client.force_login(editor)
    apps = [app["app_label"] for app in client.get("/en/admin/").context["app_list"]]
    assert apps[0] == "guides"


def test_a_row_added_in_a_draft_is_previewed_and_published(client, editor, guide):
    """A new FAQ entry exists only in the draft revision until it is published."""
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    n = int(data["faq_entries-TOTAL_FORMS"])
    data["faq_entries-TOTAL_FORMS"] = str(n + 1)
    texts = {
        "en": "Is there a free trial?",
        "de": "Gibt es eine Probezeit?",
        "ja": "試用はありますか？",
    }
    data |= {f"faq_entries-{n}-position": "9", f"faq_entries-{n}-guide": str(guide.pk)}
    for lang, text in texts.items():
        data[f"faq_entries-{n}-question_{lang}"] = text
        data[f"faq_entries-{n}-answer_{lang}"] = "[[checked_on]]"
    assert client.post(CHANGE.format(guide.pk), data).status_code == 302
    draft = revisions.working_copy(guide)
    assert FaqEntry.objects.filter(guide=guide).count() == n
    assert "Gibt es eine Probezeit?" in _preview(client, guide, draft).content.decode()
    assert "Gibt es eine Probezeit?" not in _page(Client()).content.decode()
    # The form shows the draft's new row; saving it again keeps it.
    again = client.get(CHANGE.format(guide.pk))
    assert "Gibt es eine Probezeit?" in again.content.decode()
    client.post(_action(guide, draft, "publish"))
    assert FaqEntry.objects.filter(guide=guide).count() == n + 1
    assert "Gibt es eine Probezeit?" in _page(Client()).content.decode()


def _add_faq_entry(data: dict, guide) -> None:
    """One more FAQ entry in the guide form's data, at position 9, in every language."""
    n = int(data["faq_entries-TOTAL_FORMS"])
    data["faq_entries-TOTAL_FORMS"] = str(n + 1)
    data |= {f"faq_entries-{n}-position": "9", f"faq_entries-{n}-guide": str(guide.pk)}
    for lang in ("en", "de", "ja"):
        data |= {f"faq_entries-{n}-question_{lang}": "?", f"faq_entries-{n}-answer_{lang}": "!"}


def test_a_preview_writes_nothing_and_is_for_whoever_may_edit_its_language(
    client, editor, translator_de, guide
):
    """Built from the revision in memory: no write, no savepoint rolled back. A translator
    previews their own language only."""
    client.force_login(editor)
    _save_draft(client, guide)
    draft = revisions.working_copy(guide)
    as_if_committed()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(_preview_url(guide, draft.pk))
    assert response.status_code == 200 and NEW in response.content.decode()
    written = [
        q["sql"]
        for q in queries
        if q["sql"].startswith(("INSERT", "UPDATE", "DELETE", "SAVEPOINT", "ROLLBACK"))
        and "django_session" not in q["sql"]
    ]
    assert written == []
    assert FaqEntry.objects.filter(guide=guide, answer_de__contains=NEW).count() == 0
    translator = Client()
    translator.force_login(translator_de)
    assert NEW in _preview(translator, guide, draft).content.decode()
    assert _preview(translator, guide, draft, lang="ja").status_code == 403
    # The revision list links each language's preview in the admin.
    listed = client.get(f"/en/admin/guides/guide/{guide.pk}/revisions/").content.decode()
    assert _preview_url(guide, draft.pk, "ja") in listed


def test_a_live_guides_save_writes_none_of_its_rows(client, editor, guide):
    """The working copy is built from the validated forms: the live guide's rows are neither
    written nor rehearsed in a savepoint rolled back."""
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    _add_faq_entry(data, guide)
    data["title_en"] += " (draft)"
    revisions.ensure_baseline(guide)
    with CaptureQueriesContext(connection) as queries:
        assert client.post(CHANGE.format(guide.pk), data).status_code == 302
    content_tables = ("guides_guide", *(model._meta.db_table for model in CHILD_ROWS))
    writes = [
        q["sql"]
        for q in queries
        if q["sql"].startswith(("INSERT", "UPDATE", "DELETE", "ROLLBACK"))
        and any(f'"{table}"' in q["sql"].split(" WHERE ")[0] for table in content_tables)
    ]
    assert [w.split(" SET ")[0] for w in writes] == ['UPDATE "guides_guide"']  # its version
    assert not [q for q in queries if q["sql"].startswith("ROLLBACK")]


def test_a_row_added_in_a_draft_keeps_its_id_when_published(client, editor, guide):
    """Its id is reserved when the working copy is saved: a row inserted meanwhile gets
    another, and the row goes live under it (its translations and diffs name it so)."""
    client.force_login(editor)
    data = initial_form_data(client, CHANGE.format(guide.pk))
    _add_faq_entry(data, guide)
    assert client.post(CHANGE.format(guide.pk), data).status_code == 302
    draft = revisions.working_copy(guide)
    [added] = [r for r in revisions.revision_content(draft).rows[FaqEntry] if r.position == 9]
    other = Guide.objects.exclude(pk=guide.pk).first()
    meanwhile = FaqEntry.objects.create(guide=other, question="?", answer="!")
    assert meanwhile.pk != added.pk
    client.post(_action(guide, draft, "publish"))
    assert FaqEntry.objects.get(pk=added.pk).guide_id == guide.pk


def test_the_editing_manual_is_linked_from_the_admin_header(client, editor):
    client.force_login(editor)
    index = client.get("/en/admin/").content.decode()
    assert '<a href="/en/admin/manual/">Editing manual</a>' in index
    manual = client.get("/en/admin/manual/").content.decode()
    assert "<h2>Working copies: editing a live guide</h2>" in manual
    assert '<img src="editing/working-copy.png" alt="The guide form editing a working copy"' in (
        manual
    )
    shot = client.get("/en/admin/manual/editing/working-copy.png")
    assert shot.status_code == 200 and shot["Content-Type"] == "image/png"
    assert client.get("/en/admin/manual/editing/nothing.png").status_code == 404
    client.logout()
    assert client.get("/en/admin/manual/").status_code == 302  # to the sign-in page


def test_publish_scheduled_applies_what_is_due_once(client, editor, guide):
    client.force_login(editor)
    _save_draft(client, guide)
    draft = revisions.working_copy(guide)
    go_live = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    publishing.schedule(draft, go_live_at=go_live, expire_at=None, user=editor)
    out = StringIO()
    call_command("publish_scheduled", stdout=out)
    assert out.getvalue() == "Nothing was due.\n"
    with time_machine.travel(go_live, tick=False):
        call_command("publish_scheduled", stdout=out)
        assert out.getvalue().endswith(f"{GUIDE_SLUG}: revision {draft.pk} published\n")
        assert publishing.apply_due_changes() == []  # done once
    assert FaqEntry.objects.filter(guide=guide, answer_de__contains=NEW).count() == 1


def test_a_japanese_diff_marks_the_changed_phrase_not_the_paragraph(guide):
    revisions.ensure_baseline(guide)
    old = guide.short_answer_ja
    assert "手法によって変わります。" in old
    guide.short_answer_ja = old.replace("手法によって", "用途によって")  # "method" -> "use"
    guide.save()
    revisions.store(revisions.snapshot(guide), guide=guide, user=None, comment="Draft saved")
    baseline, draft = GuideRevision.objects.filter(guide=guide).order_by("pk")
    [change] = revisions.compare(baseline, draft)
    assert change.field == "Short answer (Japanese)"
    # The phrase alone (BudouX: "最適なGPUは|手法に|よって|変わります。"), not the paragraph.
    assert str(change.old).startswith(
        "[[model]]のファインチューニングに最適なGPUは<del>手法に</del>よって変わります。"
    )
    assert str(change.old).count("<del>") == 1 and "<ins>" not in str(change.old)
    assert str(change.new) == guide.short_answer_ja.replace("用途に", "<ins>用途に</ins>", 1)


def test_save_and_publish_asks_before_it_takes_scheduled_text_live_early(client, editor, guide):
    """The finding (issue 53): the form of a guide whose working copy is scheduled published
    that text at once on "Save and publish", saying only that the schedule was cancelled."""
    client.force_login(editor)
    _save_draft(client, guide)
    draft = revisions.working_copy(guide)
    publishing.schedule(draft, go_live_at=datetime(2026, 12, 1, 18, 0, tzinfo=UTC), expire_at=None,
                        user=editor)  # fmt: skip
    url = CHANGE.format(guide.pk)
    form = client.get(url).content.decode()
    assert f"Revision {draft.pk} goes live at " in form
    assert f'name="publish_scheduled_now" value="{draft.pk}"' in form

    data = initial_form_data(client, url)
    refused = client.post(url, {**data, "_publish": "Save and publish"})
    assert refused.status_code == 200
    assert f"Not saved: this form edits revision {draft.pk}, scheduled to go live at" in (
        refused.content.decode()
    )
    assert revisions.working_copy(guide).pk == draft.pk  # nothing stored
    assert OLD in _page(Client()).content.decode()  # nothing live
    other = client.post(url, {**data, "_publish": "1", "publish_scheduled_now": str(draft.pk + 9)})
    assert other.status_code == 200  # a tick for another revision confirms nothing

    confirmed = client.post(
        url, {**data, "_publish": "1", "publish_scheduled_now": str(draft.pk)}, follow=True
    )
    said = confirmed.content.decode()
    live = revisions.live_revision(guide)
    assert f"Published: the live page now shows revision {live.pk}." in said
    assert f"It holds the text of revision {draft.pk}, which was scheduled to go live at " in said
    assert "that text is live now, and its schedule is cancelled." in said
    assert NEW in _page(Client()).content.decode()
    assert revisions.pending_go_lives(guide) == []
