"""A refused delete in the shared headless Chromium (see test_browser.py): an editor opens the
delete page of the fact the FAQ quotes, reads where it is used, and finds no way to delete it.

One page load, read-only: the editor's account is the only row it adds.
"""

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from playwright.sync_api import expect

from guides.models import Guide
from pricing.models import Fact

from .conftest import GUIDE_SLUG
from .test_browser import DESKTOP, SHOTS, WANT_SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist

GUIDE = "Guide “Which GPU is best for fine-tuning Llama 3.1 70B?”"


@pytest.fixture(scope="module")
def editor_cookie(site, django_db_blocker) -> dict:
    """A signed-in editor's session cookie, written before any test's transaction begins (on
    SQLite the live server would otherwise wait for that transaction's lock)."""
    with django_db_blocker.unblock():
        user, _created = User.objects.get_or_create(username="browser-safety", is_staff=True)
        user.groups.add(Group.objects.get(name="Editors"))
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": site}


@pytest.fixture
def editor_tab(browser, editor_cookie):
    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies([editor_cookie])
    yield context.new_page()
    context.close()


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
