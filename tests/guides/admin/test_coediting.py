"""Two editors on one guide: who else has it open, saves merged field by field, true conflicts
shown side by side, the beat's permissions (guides/admin/presence.py, merging.py).
"""

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone, translation

from guides.admin import presence
from guides.admin.merging import compare_fields, value_hash
from guides.editorial import revisions
from guides.models import Guide
from tests.admin_pages import form_data, initial_form_data
from tests.conftest import GUIDE_SLUG


def change_url(guide: Guide) -> str:
    return f"/en/admin/guides/guide/{guide.pk}/change/"


def presence_url(guide: Guide) -> str:
    return f"/en/admin/guides/guide/{guide.pk}/open/"


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.fixture
def ada(administrator):
    administrator.first_name = "Ada"
    administrator.save()
    return administrator


@pytest.fixture
def ada_client(ada) -> Client:
    other = Client()
    other.force_login(ada)
    return other


def _working_copy_field(guide: Guide, model: str, name: str, position: int | None = None):
    versions = revisions.working_copy(guide).revision.version_set.filter(content_type__model=model)
    for version in versions:
        values = version.field_dict
        if position is None or values["position"] == position:
            return values[name]
    raise AssertionError(f"no {model} at {position}")


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- the three-way comparison ---------------------------------------------------------------


def test_each_field_is_mine_theirs_or_a_conflict():
    started = {f"guide:{name}": value_hash("old") for name in "abcde"}
    current = {"a": "old", "b": "theirs", "c": "theirs", "d": "same", "e": "old"}
    mine = {"a": "mine", "b": "old", "c": "mine", "d": "same", "e": "old"}
    merge = compare_fields(started, "guide", current, mine)
    assert (merge.mine, merge.theirs, merge.conflicts) == (["a", "d"], ["b"], ["c"])


# --- merging a stale save ---------------------------------------------------------------------


def test_saves_of_different_fields_are_merged_and_both_kept(client, editor, ada_client, guide):
    client.force_login(editor)
    mine = initial_form_data(client, change_url(guide))
    theirs = initial_form_data(ada_client, change_url(guide))
    theirs["faq_entries-0-answer_en"] = "Ada's answer."
    assert ada_client.post(change_url(guide), theirs).status_code == 302

    mine["short_answer_en"] = "Erika's short answer."
    response = client.post(change_url(guide), mine)

    assert response.status_code == 302
    assert _working_copy_field(guide, "guide", "short_answer_en") == "Erika's short answer."
    first_faq = min(guide.faq_entries.values_list("position", flat=True))
    assert _working_copy_field(guide, "faqentry", "answer_en", first_faq) == "Ada's answer."
    [said] = [m for m in _messages(response) if m.startswith("Merged")]
    assert re.fullmatch(
        r"Merged with Ada's save of \d\d:\d\d: Ada changed the FAQ entries; "
        r"you changed the short answer\.",
        said,
    )
    # The History lists what this editor changed, not the form's bookkeeping (it said
    # "Changed edited_version" after a merge: issue 53).
    entry = LogEntry.objects.filter(object_id=str(guide.pk)).order_by("pk").last()
    with translation.override("en"):
        assert entry.get_change_message() == "Changed Short answer [en]."
    assert entry.user == editor


def test_a_true_conflict_keeps_both_texts_and_saves_nothing(client, editor, ada_client, guide):
    client.force_login(editor)
    mine = initial_form_data(client, change_url(guide))
    theirs = initial_form_data(ada_client, change_url(guide))
    theirs["short_answer_en"] = "Ada's short answer."
    assert ada_client.post(change_url(guide), theirs).status_code == 302
    saved_revisions = guide.revisions.count()

    mine["short_answer_en"] = "Erika's short answer."
    mine["meta_description_en"] = "Erika's description."
    response = client.post(change_url(guide), mine)

    assert response.status_code == 200
    body = response.content.decode()
    assert re.search(
        r"Ada changed this field too \(saved at \d\d:\d\d\)\. Their text is beside it: keep "
        r"yours, or use theirs, then save again\.",
        body,
    )
    assert "Erika&#x27;s short answer." in body  # mine, in the field
    assert "Ada&#x27;s short answer." in body  # theirs, beside it
    # whose text is whose: Ada's beside the field, named, with the time of her save
    assert re.search(r"Ada's text, saved at \d\d:\d\d: Short answer \[en\]", body)
    assert "Use Ada's text" in body
    assert guide.revisions.count() == saved_revisions  # nothing saved
    assert _working_copy_field(guide, "guide", "short_answer_en") == "Ada's short answer."

    again = client.post(change_url(guide), form_data(response))  # keeping mine
    assert again.status_code == 302
    assert _working_copy_field(guide, "guide", "short_answer_en") == "Erika's short answer."
    assert _working_copy_field(guide, "guide", "meta_description_en") == "Erika's description."


def test_using_theirs_resolves_a_conflict(client, editor, ada_client, guide):
    client.force_login(editor)
    mine = initial_form_data(client, change_url(guide))
    theirs = initial_form_data(ada_client, change_url(guide))
    theirs["faq_entries-1-question_en"] = "Ada's question?"
    assert ada_client.post(change_url(guide), theirs).status_code == 302
    mine["faq_entries-1-question_en"] = "Erika's question?"
    refused = client.post(change_url(guide), mine)
    assert refused.status_code == 200
    assert refused.context["edit_conflicts"][0].theirs == "Ada's question?"

    chosen = form_data(refused)
    chosen["faq_entries-1-question_en"] = "Ada's question?"  # what "Use theirs" does
    assert client.post(change_url(guide), chosen).status_code == 302
    assert _working_copy_field(guide, "faqentry", "question_en", 2) == "Ada's question?"


# --- who else has the guide open ----------------------------------------------------------


def _notices(client, guide) -> list[str]:
    return client.get(change_url(guide)).context["others_editing"]


def test_the_other_editor_sees_who_has_the_guide_open(client, editor, ada_client, guide):
    client.force_login(editor)
    with time_machine.travel(timezone.now(), tick=False):  # one minute, however slow the run
        assert _notices(ada_client, guide) == []  # Ada is never told of herself
        opened_at = presence.short_time(timezone.now())
        body = client.get(change_url(guide)).content.decode()
        assert f"Ada has opened this guide ({opened_at})" in body
        assert re.fullmatch(r"\d\d:\d\d", opened_at)
        assert _notices(ada_client, guide) == [f"erika has opened this guide ({opened_at})"]


def test_saving_removes_the_editor_from_the_list(client, editor, ada_client, guide):
    client.force_login(editor)
    data = initial_form_data(ada_client, change_url(guide))
    ada_client.get(change_url(guide))
    assert len(_notices(client, guide)) == 1
    assert ada_client.post(change_url(guide), data).status_code == 302
    assert _notices(client, guide) == []


def test_an_editor_not_heard_from_for_twenty_minutes_is_no_longer_listed(
    client, editor, ada_client, guide
):
    client.force_login(editor)
    ada_client.get(change_url(guide))
    later = timezone.now() + presence.OPEN_FOR - timedelta(minutes=1)
    with time_machine.travel(later, tick=False):
        assert len(_notices(client, guide)) == 1
        ada_client.post(presence_url(guide))  # a beat keeps Ada listed
    with time_machine.travel(later + presence.OPEN_FOR - timedelta(seconds=1), tick=False):
        assert len(_notices(client, guide)) == 1
    with time_machine.travel(later + presence.OPEN_FOR + timedelta(minutes=1), tick=False):
        assert _notices(client, guide) == []


def test_leaving_the_form_removes_the_editor(client, editor, ada_client, guide):
    client.force_login(editor)
    ada_client.get(change_url(guide))
    response = ada_client.post(presence_url(guide), {"leave": "1"})
    assert response.status_code == 200
    assert _notices(client, guide) == []


# --- the beat: staff who may change the guide, with the CSRF token -------------------------


def test_the_beat_answers_who_else_is_there(client, editor, ada_client, guide):
    client.force_login(editor)
    ada_client.get(change_url(guide))
    response = client.post(presence_url(guide))
    assert response.status_code == 200
    assert response.json()["others"][0].startswith("Ada has opened this guide (")


@pytest.mark.parametrize(
    ("who", "status"), [("editor", 200), ("translator_de", 403), ("recorder", 403)]
)
def test_the_beat_needs_the_right_to_change_the_guide(client, request, guide, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.post(presence_url(guide)).status_code == status


def test_the_beat_needs_staff_a_post_and_the_csrf_token(editor, guide):
    anonymous = Client()
    assert anonymous.post(presence_url(guide)).status_code == 302  # to the sign-in page
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(editor)
    assert strict.get(presence_url(guide)).status_code == 405
    assert strict.post(presence_url(guide)).status_code == 403  # no token
    strict.get(change_url(guide))  # sets the CSRF cookie
    token = strict.cookies["csrftoken"].value
    assert strict.post(presence_url(guide), {"csrfmiddlewaretoken": token}).status_code == 200
