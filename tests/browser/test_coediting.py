"""Two signed-in editors on one guide, in the shared headless Chromium (see test_browser.py):
each sees the other, saves of different fields merge, a save of the same field shows both
texts, and leaving a changed form asks first (guides/admin/presence.py,
static/js/guide-coediting.js).

A file of its own so that pytest-xdist runs it beside the other browser tests. It edits the
Llama 3.1 405B guide, which no other browser test edits, and puts it back as it was
(``put_back``), as tests/browser/test_editor.py does with the 8B guide.
"""

import re

import pytest
from playwright.sync_api import expect

from guides.models import Guide
from tests.browser.test_editor import ADMIN_ACTION_MS
from tests.conftest import put_back, signed_in_tab, staff_cookie

SLUG = "best-gpu-for-llama-3-1-405b-fine-tuning"

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@pytest.fixture(scope="module")
def ada_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="Ada", role="Reviewers")


@pytest.fixture(scope="module")
def bob_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="Bob", role="Editors")


@pytest.fixture
def ada(browser, ada_cookie):
    with signed_in_tab(browser, ada_cookie) as page:
        yield page


@pytest.fixture
def bob(browser, bob_cookie):
    with signed_in_tab(browser, bob_cookie) as page:
        yield page


@pytest.fixture
def guide(django_db_blocker):
    """The 405B guide, put back as it was (its first revision published, the others gone)."""
    guide = Guide.objects.get(slug=SLUG)
    yield guide
    put_back(guide, django_db_blocker)


def _append(page, field_id: str, text: str) -> None:
    field = page.locator(f"#{field_id}")
    field.fill(field.input_value() + text)


def _save(page) -> None:
    page.get_by_role("button", name="Save draft", exact=True).click()


def _said(page, pattern: str) -> str:
    expect(page.locator("ul.messagelist")).to_contain_text(
        re.compile(pattern), timeout=ADMIN_ACTION_MS
    )
    return page.locator("ul.messagelist").inner_text()


def test_two_editors_see_each_other_merge_and_resolve_a_conflict(ada, bob, site, guide):
    url = f"{site}/en/admin/guides/guide/{guide.pk}/change/"
    ada.goto(url)
    bob.goto(url)
    expect(bob.locator(".guide-presence")).to_have_text(
        re.compile(r"Ada has opened this guide \(\d\d:\d\d\)")
    )
    expect(ada.locator(".guide-presence")).to_be_hidden()  # never told of herself
    # At 1280 px the buttons (Revisions, Translate, History) leave the notice uncovered.
    bob.set_viewport_size({"width": 1280, "height": 800})
    notice = bob.locator(".guide-presence").bounding_box()
    tools = bob.locator(".object-tools").bounding_box()
    assert tools["y"] >= notice["y"] + notice["height"], (notice, tools)

    # Different fields: Ada's meta description, then Bob's short answer, merged (2 actions).
    _append(ada, "id_meta_description_en", " Ada's line.")
    _save(ada)
    _said(ada, r"Saved as draft revision \d+")
    _append(bob, "id_short_answer_en", " Bob's line.")
    _save(bob)
    said = _said(bob, r"Merged with Ada's save of \d\d:\d\d")
    assert re.search(r"Ada changed the meta description; you changed the short answer\.", said), (
        said
    )
    assert bob.locator("#id_meta_description_en").input_value().endswith(" Ada's line.")
    assert bob.locator("#id_short_answer_en").input_value().endswith(" Bob's line.")

    # The same field: Ada's save is refused with both texts, nothing lost.
    _append(ada, "id_short_answer_en", " Ada's other line.")
    _save(ada)
    expect(ada.locator(".edit-conflicts")).to_be_visible(timeout=ADMIN_ACTION_MS)
    expect(ada.locator(".errorlist")).to_contain_text("Bob changed this field too")
    mine = ada.locator("#id_short_answer_en")
    assert mine.input_value().endswith(" Ada's other line.")
    theirs = ada.locator("#id_short_answer_en-theirs")
    assert theirs.input_value().endswith(" Bob's line.")
    # Beside her field (moved there by the script), with "Use Bob's text".
    box = ada.locator(".field-short_answer_en .edit-conflict")
    expect(box).to_be_visible()
    box.get_by_role("button", name="Use Bob's text").click()
    assert mine.input_value() == theirs.input_value()
    _append(ada, "id_short_answer_en", " Ada's other line.")
    _save(ada)
    _said(ada, r"Saved as draft revision \d+")
    merged = ada.locator("#id_short_answer_en").input_value()
    assert merged.endswith(" Bob's line. Ada's other line."), merged

    # Leaving: a changed form asks first; an unchanged one does not.
    bob.goto(url)
    asked = []
    bob.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    bob.locator("#id_question_en").click()  # a user's gesture, which a warning needs
    bob.goto(f"{site}/en/admin/")
    assert asked == []
    bob.goto(url)
    _append(bob, "id_question_en", " Really?")
    with bob.expect_event("dialog") as dialog:
        bob.close(run_before_unload=True)
    assert dialog.value.type == "beforeunload"
