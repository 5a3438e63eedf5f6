"""A refused delete in the shared headless Chromium (see test_browser.py): an editor opens the
delete page of the fact the FAQ quotes, reads where it is used, and finds no way to delete it.

One page load, read-only: the editor's account is the only row it adds.
"""

import pytest
from playwright.sync_api import expect

from guides.models import Guide
from pricing.models import Fact, Gpu
from tests.browser.test_public_pages import SHOTS, WANT_SCREENSHOTS
from tests.conftest import GUIDE_SLUG, signed_in_tab, staff_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist

GUIDE = "Guide “Which GPU is best for fine-tuning Llama 3.1 70B?”"


@pytest.fixture(scope="module")
def editor_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="browser-safety", role="Editors")


@pytest.fixture
def editor_tab(browser, editor_cookie):
    with signed_in_tab(browser, editor_cookie) as page:
        yield page


def test_the_delete_page_of_a_quoted_fact_lists_the_faq_and_deletes_nothing(
    site, editor_tab, django_db_blocker
):
    with django_db_blocker.unblock():
        fact = Fact.objects.get(key="minimum-top-up")
        guide = Guide.objects.get(slug=GUIDE_SLUG)
    editor_tab.goto(f"{site}/en/admin/pricing/fact/{fact.pk}/delete/")
    expect(editor_tab.locator("h1")).to_have_text("Cannot delete fact")
    expect(editor_tab.locator("#deleted-objects > li").first).to_contain_text(
        "Used in 9 guides × 3 languages"
    )
    # One line per guide; the 70B guide's opens to the FAQ entry that quotes the fact.
    line = editor_tab.locator("#deleted-objects details").filter(has_text=GUIDE)
    use = line.get_by_role("link", name="FAQ 5 › [[fact minimum-top-up]]")
    expect(use).to_be_hidden()
    line.locator("summary").click(position={"x": 4, "y": 8})  # the marker, not the guide's link
    expect(use).to_have_attribute("href", f"/en/admin/guides/guide/{guide.pk}/change/")
    expect(use).to_be_visible()
    expect(line).to_contain_text("FAQ 5 › [[fact minimum-top-up]] (en, de, ja)")
    expect(editor_tab.locator("#content form")).to_have_count(0)  # no "Yes, I’m sure"
    if WANT_SCREENSHOTS:
        SHOTS.mkdir(exist_ok=True)
        editor_tab.screenshot(path=SHOTS / "admin-refused-delete.png")
    with django_db_blocker.unblock():
        assert Fact.objects.filter(pk=fact.pk).exists()


@pytest.fixture(scope="module")
def administrator_cookie(site, django_db_blocker) -> dict:
    return staff_cookie(site, django_db_blocker, username="browser-admin", role="Administrators")


def test_the_h100s_delete_page_is_one_line_per_guide(
    site, browser, administrator_cookie, django_db_blocker
):
    """The H100 is quoted by tokens in every language of every guide: listed one line per use,
    its page was 3,010 px tall at 1,280 px (123 lines); grouped, the list fits on one screen."""
    with django_db_blocker.unblock():
        h100 = Gpu.objects.get(slug="h100")
    with signed_in_tab(browser, administrator_cookie) as tab:
        tab.goto(f"{site}/en/admin/pricing/gpu/{h100.pk}/delete/")
        expect(tab.locator("#deleted-objects > li").first).to_contain_text(
            "Used in 9 guides × 3 languages and 1 GPU comparison"
        )
        # The summary, 9 guides, the comparison and a price; the places stay folded.
        expect(tab.locator("#deleted-objects li:visible")).to_have_count(12)
        assert tab.locator("#deleted-objects").bounding_box()["height"] < 400
        assert tab.evaluate("document.documentElement.scrollHeight") < 1000
        if WANT_SCREENSHOTS:
            SHOTS.mkdir(exist_ok=True)
            tab.screenshot(path=SHOTS / "admin-refused-delete-grouped.png", full_page=True)
