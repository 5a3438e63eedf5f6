"""A refused delete in the shared headless Chromium (see test_browser.py): an editor opens the
delete page of the fact the FAQ quotes, reads where it is used, and finds no way to delete it.

One page load, read-only: the editor's account is the only row it adds.
"""

import pytest
from playwright.sync_api import expect

from guides.models import Guide
from pricing.models import Fact

from .conftest import GUIDE_SLUG, signed_in_tab, staff_cookie
from .test_browser import SHOTS, WANT_SCREENSHOTS

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
    use = editor_tab.get_by_role("link", name=f"{GUIDE} › FAQ 5 (de) › [[fact minimum-top-up]]")
    expect(use).to_have_attribute("href", f"/en/admin/guides/guide/{guide.pk}/change/")
    expect(editor_tab.locator("#content form")).to_have_count(0)  # no "Yes, I’m sure"
    if WANT_SCREENSHOTS:
        SHOTS.mkdir(exist_ok=True)
        editor_tab.screenshot(path=SHOTS / "admin-refused-delete.png")
    with django_db_blocker.unblock():
        assert Fact.objects.filter(pk=fact.pk).exists()
