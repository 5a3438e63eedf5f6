"""A translator's round in the guide admin, in the shared headless Chromium (see test_browser.py).

The dashboard's warning leads to the one field whose English changed, marked with the English
diff; the translator saves it. Then a file goes out and back in: downloaded as XLIFF, a target
changed, checked in a dry run and applied. Both edit the Mistral 7B guide (no other browser
test does) and put it back as it was. ``make screenshots`` saves the views docs/translating.md
shows, to docs/editing/.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from guides.editorial import publishing, revisions, translating
from guides.models import Guide, Section, TranslationBasis
from tests.browser.test_public_pages import WANT_SCREENSHOTS
from tests.conftest import put_back, seen_by_the_site, signed_in_tab, staff_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist

SLUG = "best-gpu-for-mistral-7b-fine-tuning"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "editing"
ADDED = " Check the licence before you start."


def _shot(page, name: str) -> None:
    if WANT_SCREENSHOTS:
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=DOCS / f"{name}.png", full_page=False)


@pytest.fixture(scope="module")
def translator_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="browser-translator", role="Editors")


@pytest.fixture
def staff(browser, translator_cookie):
    with signed_in_tab(browser, translator_cookie, accept_downloads=True) as page:
        yield page


@pytest.fixture
def guide(django_db_blocker):
    """The Mistral guide, put back as it was: its first revision live, no other, no bases."""
    guide = Guide.objects.get(slug=SLUG)
    yield guide
    put_back(guide, django_db_blocker)
    with seen_by_the_site(django_db_blocker):
        TranslationBasis.objects.filter(guide=guide).delete()


def _english_changed_and_published(guide: Guide) -> translating.TextField:
    """An editor's revision, published, that adds a sentence to section 2's English."""
    body = next(f for f in translating.text_fields(guide) if f.key.startswith("section.")
                and f.name == "body" and f.where == "Section 2")  # fmt: skip
    revisions.ensure_baseline(guide)
    content = revisions.rows_content(guide)
    section = next(row for row in content.rows[Section] if row.pk == body.pk)
    section.body_en = body.texts["en"] + ADDED
    draft = revisions.store(
        revisions.snapshot(content), guide=guide, user=None, comment="Draft saved"
    )
    assert publishing.publish(draft, user=None).published
    return body


def test_the_dashboard_leads_to_the_changed_field_which_is_saved(
    staff, site, guide, django_db_blocker
):
    with seen_by_the_site(django_db_blocker):
        body = _english_changed_and_published(guide)
    staff.goto(f"{site}/en/admin/")
    staff.get_by_role("link", name=f"“{guide.title}”: the German text is missing or older").click()
    # The unsaved-changes guard is a deferred script, listening from DOMContentLoaded on: the
    # rows are there earlier, and on a busy machine (CI's) the check below came first.
    staff.wait_for_url(re.compile(r"/translate/de/\?changed=1#"), wait_until="domcontentloaded")
    row = staff.locator(f"#{body.anchor}")
    expect(row).to_have_class("stale")
    assert staff.url.endswith(f"?changed=1#{body.anchor}")
    expect(staff.locator(".translation-table tbody tr")).to_have_count(1)
    expect(row.locator(".english-diff ins")).to_have_text(ADDED)
    staff.evaluate("window.scrollTo(0, 0)")
    _shot(staff, "translation")

    target = row.get_by_role("textbox")
    target.fill(target.input_value() + " Prüfen Sie vorher die Lizenz.")
    # Leaving with the change unsaved asks first: the page cancels its unload.
    asks = "() => { const e = new Event('beforeunload', {cancelable: true});" \
        " window.dispatchEvent(e); return e.defaultPrevented; }"  # fmt: skip
    assert staff.evaluate(asks) is True
    staff.get_by_role("button", name="Save translation").click()
    expect(staff.locator("ul.messagelist")).to_contain_text("Saved as draft revision")
    expect(staff.locator(".translation-table tbody")).to_contain_text("No field to show.")
    assert staff.evaluate(asks) is False  # saved: nothing to lose


def test_a_file_downloaded_changed_checked_and_imported(staff, site, guide, tmp_path):
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/translate/ja/")
    with staff.expect_download() as download:
        staff.get_by_role("link", name="Download XLIFF").click()
    assert download.value.suggested_filename == f"{SLUG}.ja.xlf"
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    changed = "どの手法にどのGPUを使うか"
    path.write_text(path.read_text().replace(f">{heading.texts['ja']}<", f">{changed}<", 1))

    staff.get_by_label("File to import (Markdown or XLIFF)").set_input_files(path)
    staff.get_by_role("button", name="Check the file (dry run)").click()
    expect(staff.locator("#content-main")).to_contain_text(
        "Dry run: importing this XLIFF file would change 1 field."
    )
    # Japanese is compared by phrase: only the phrases that differ are marked.
    expect(staff.locator(".import-diff ins")).to_have_text(["どの手法にどの", "使うか"])
    _shot(staff, "translation-import")
    staff.get_by_role("button", name="Apply the import").click()
    expect(staff.locator("ul.messagelist")).to_contain_text("Saved as draft revision")
    expect(staff.locator(f"#{heading.anchor}").get_by_role("textbox")).to_have_value(changed)
