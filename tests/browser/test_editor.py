"""An editor's round in the guide admin, in the shared headless Chromium (see test_browser.py).

A file of its own so that pytest-xdist runs it beside the other browser tests.
"""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from playwright.sync_api import expect

from guides.background import tasks
from guides.models import Guide
from tests.browser.test_public_pages import DESKTOP, WANT_SCREENSHOTS
from tests.conftest import as_if_committed, put_back, seen_by_the_site, signed_in_tab, staff_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist


# --- an editor's round in the guide admin ---------------------------------------------------
# A working copy previewed and scheduled; a later publication that cancels the schedule, so the
# go-live task changes nothing; a diff, a revert, and an older revision published after its
# confirmation page; the public page read at each step. With the token picker. It edits
# the Llama 3.1 8B guide and puts it back as it was: on SQLite the live server shares the test's
# transaction anyway; on PostgreSQL its writes commit (each xdist worker has its own database).
# ``make screenshots`` also saves the admin views that docs/editing.md shows, to docs/editing/.

SLUG = "best-gpu-for-llama-3-1-8b-fine-tuning"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "editing"
ADDED = "Prices as of "
SEEDED_DAY = "October\xa029,\xa02026"  # [[checked_on]], with no-break spaces


def _shot(page, name: str) -> None:
    if WANT_SCREENSHOTS:
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=DOCS / f"{name}.png")


@pytest.fixture(scope="module")
def editor_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="browser-editor", role="Reviewers")


@pytest.fixture
def staff(browser, editor_cookie):
    """A signed-in editor's tab (the token picker and folding rows must pass the CSP)."""
    with signed_in_tab(browser, editor_cookie) as page:
        yield page


@pytest.fixture
def visitor(browser):
    context = browser.new_context(viewport=DESKTOP)
    yield context.new_page()
    context.close()


@pytest.fixture
def guide(django_db_blocker):
    """The 8B guide, put back as it was (its first revision published, the others gone)."""
    guide = Guide.objects.get(slug=SLUG)
    yield guide
    put_back(guide, django_db_blocker)


def _live_text(visitor, site) -> str:
    as_if_committed()  # on SQLite the live server's writes are in the test's transaction
    visitor.goto(f"{site}/en/guides/{SLUG}/")
    return visitor.locator("section.short-answer").inner_text()


def _change(staff, site, guide) -> None:
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/change/")


def _save_a_draft(
    staff, site, guide, added: str, button: str = "Save draft", tick: str | None = None
) -> None:
    """Add ``added`` to the English short answer with the token picker, tick the box labelled
    ``tick`` if given, and press ``button``."""
    _change(staff, site, guide)
    field = staff.locator("#id_short_answer_en")
    field.fill(field.input_value() + " " + added)
    picker = staff.locator(".field-short_answer_en details.token-picker")
    picker.locator("summary").click()
    picker.get_by_role("searchbox").fill("checked")
    picker.get_by_role("searchbox").press("Enter")
    assert field.input_value().endswith(added + "[[checked_on]]")
    if tick:
        staff.get_by_label(tick).check()
    staff.get_by_role("button", name=button, exact=True).click()


# A save or publication renders the guide and runs its checks before it answers: under CI's
# load (the other worker's browser checks beside it) that has taken over Playwright's 5 s.
ADMIN_ACTION_MS = 20_000


def _message(staff, pattern: str) -> re.Match:
    expect(staff.locator("ul.messagelist")).to_contain_text(
        re.compile(pattern), timeout=ADMIN_ACTION_MS
    )
    text = staff.locator("ul.messagelist").inner_text()
    return re.search(pattern, text)


def test_a_working_copy_scheduled_then_overtaken_reverted_and_an_older_one_published(
    staff, visitor, site, guide, django_db_blocker
):
    """One editor's round, in as few page loads as it takes (each admin page costs a second)."""
    before = _live_text(visitor, site)
    _save_a_draft(staff, site, guide, ADDED)
    number = int(_message(staff, r"Saved as draft revision (\d+)").group(1))
    assert (
        "the live page is unchanged until you publish it"
        in staff.locator("ul.messagelist").inner_text()
    )
    assert _live_text(visitor, site) == before  # the working copy: the live page is unchanged
    banner = staff.locator(".working-copy")
    assert f"You are editing draft revision {number}" in banner.inner_text()
    _shot(staff, "working-copy")

    # Preview, in the admin (its address: the page as the revision makes it).
    staff.goto(site + banner.get_by_role("link", name="English").get_attribute("href"))
    assert f"Preview of revision {number}" in staff.locator(".draft-banner").inner_text()
    assert ADDED + SEEDED_DAY in staff.locator("section.short-answer").inner_text()
    _shot(staff, "preview")

    # Scheduled: live at 18:00 (UTC, and the page says so), not before.
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/revisions/")
    row = staff.locator(f"#revision-{number}")
    row.get_by_label("Go live at").fill("2026-11-29T18:00")
    row.get_by_role("button", name="Save schedule").click()
    _message(staff, f"Schedule of revision {number} saved.")
    assert (
        "goes live at Nov. 29, 2026, 6 p.m. (UTC)"
        in staff.locator(f"#revision-{number}").inner_text()
    )
    _shot(staff, "revisions")
    assert _live_text(visitor, site) == before  # and now in the page cache

    # A later publication from the form, which names the schedule beside its buttons and asks
    # first (it would take the scheduled text live early), cancels it.
    _change(staff, site, guide)
    assert (
        f"Revision {number} goes live at Nov. 29, 2026, 6 p.m. (UTC) (scheduled by browser-editor)."
        in staff.locator(".schedule-notes").inner_text()
    )
    assert f"Revision {number} goes live at" in staff.locator(".publish-scheduled").inner_text()
    later = "Checked again: "
    _save_a_draft(staff, site, guide, later, button="Save and publish", tick="Publish its text now")
    published = int(_message(staff, r"the live page now shows revision (\d+)").group(1))
    assert f"It holds the text of revision {number}, which was scheduled" in (
        staff.locator("ul.messagelist").inner_text()
    )
    assert f"Cancelled the scheduled go-live of revision {number} at Nov. 29, 2026, 6 p.m." in (
        staff.locator("ul.messagelist").inner_text()
    )
    assert later + SEEDED_DAY in _live_text(visitor, site)
    with time_machine.travel(datetime(2026, 11, 29, 18, 0, 1, tzinfo=UTC), tick=False):
        with seen_by_the_site(django_db_blocker):  # the task worker, at 18:00: nothing is due
            assert tasks.apply_scheduled_changes.call() == []
        assert later + SEEDED_DAY in _live_text(visitor, site)

    # The diff between the two newest: the scheduled draft and the later publication.
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/revisions/")
    assert "goes live at" not in staff.locator("#revision-list").inner_text()
    staff.get_by_role("button", name="Compare the chosen revisions").click()
    diff = staff.locator("#revision-diff")
    expect(diff.locator("tbody tr")).to_have_count(1)
    assert "Short answer (English)" in diff.inner_text()
    assert diff.locator("ins").inner_text() == f" {later}[[checked_on]]"
    _shot(staff, "diff")

    # Revert: a new draft made from the first revision, live once published.
    staff.go_back()
    first = guide.revisions.order_by("pk").first()
    staff.locator(f"#revision-{first.pk}").get_by_role(
        "button", name="Revert to this revision"
    ).click()
    copy = int(_message(staff, r"Revision (\d+) is a copy of revision").group(1))
    assert later in _live_text(visitor, site)  # a draft until published
    staff.locator(f"#revision-{copy}").get_by_role("link", name="Publish…").click()
    expect(staff.locator("#revision-diff tbody tr")).to_have_count(1)  # what it changes, first
    staff.get_by_role("button", name=f"Publish revision {copy}").click()
    _message(staff, f"Published: the live page now shows revision {copy}.")
    assert _live_text(visitor, site) == before

    # An older revision asks first, naming what it brings back.
    staff.locator(f"#revision-{published}").get_by_role("link", name="Publish…").click()
    expect(staff.locator(".errornote")).to_have_count(1)  # older; no newer draft stays
    expect(staff.locator(".errornote")).to_contain_text(f"older than the live revision {copy}")
    assert staff.locator("#revision-diff ins").inner_text() == (
        f" {ADDED}[[checked_on]] {later}[[checked_on]]"
    )
    _shot(staff, "publish-older")
    assert _live_text(visitor, site) == before  # nothing happens until it is confirmed
    staff.get_by_role("button", name=f"Publish revision {published}").click()
    _message(staff, f"Published: the live page now shows revision {published}.")
    assert later + SEEDED_DAY in _live_text(visitor, site)
