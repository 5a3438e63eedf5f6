"""Review before publish, one browser round per role, in the shared headless Chromium: an
Editor (who may not publish) submits a working copy with a comment, a Reviewer finds it on the
dashboard, reads the diff and approves it, the public page changes; a German translator is
refused the Japanese screen with the reason and a way back; an Administrator finds the approval
in the site-wide History. ``make screenshots`` saves the views docs/editing.md shows.

It edits the Qwen 2.5 32B guide and puts it back as it was (see tests/browser/test_editor.py).
"""

import re

import pytest
from playwright.sync_api import expect
from reversion.models import Revision

from guides.editorial import publishing
from guides.models import Guide, Review
from tests.browser.test_editor import _shot
from tests.browser.test_public_pages import DESKTOP
from tests.conftest import as_if_committed, signed_in_tab, staff_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

SLUG = "best-gpu-for-qwen-2-5-32b-fine-tuning"
ADDED = " Reviewed before it went live."


@pytest.fixture(scope="module")
def cookies(site, django_db_blocker) -> dict:
    return {
        role: staff_cookie(site, django_db_blocker, username=name, role=role)
        for name, role in [
            ("browser-author", "Editors"),
            ("browser-reviewer", "Reviewers"),
            ("browser-translator-de", "Translators (German)"),
            ("browser-administrator", "Administrators"),
        ]
    }


@pytest.fixture
def guide(django_db_blocker):
    """The Qwen 2.5 32B guide, put back as it was (its first revision live, no other)."""
    guide = Guide.objects.get(slug=SLUG)
    yield guide
    with django_db_blocker.unblock():
        Review.objects.filter(guide=guide).delete()
        first = guide.revisions.order_by("pk").first()
        if first is not None:
            publishing.publish(first, user=None)
            Revision.objects.filter(guide_revision__guide=guide).exclude(
                guide_revision=first
            ).delete()


def _live_text(browser, site) -> str:
    as_if_committed()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{site}/en/guides/{SLUG}/")
    text = page.locator("section.short-answer").inner_text()
    context.close()
    return text


def test_an_editor_submits_a_reviewer_approves_a_translator_keeps_to_german(
    browser, site, guide, cookies
):
    before = _live_text(browser, site)
    with signed_in_tab(browser, cookies["Editors"]) as author:
        author.goto(f"{site}/en/admin/guides/guide/{guide.pk}/change/")
        expect(author.get_by_role("button", name="Save and publish")).to_have_count(0)
        field = author.locator("#id_short_answer_en")
        field.fill(field.input_value() + ADDED)
        author.get_by_label("Comment for the reviewer").fill("One sentence added.")
        _shot(author, "submit-for-review")
        author.get_by_role("button", name="Save and submit for review").click()
        expect(author.locator("ul.messagelist")).to_contain_text("was submitted for review")
        number = re.search(
            r"Revision (\d+) was submitted", author.locator("ul.messagelist").inner_text()
        ).group(1)
        assert _live_text(browser, site) == before  # nothing is live until a reviewer says so

        with signed_in_tab(browser, cookies["Reviewers"]) as reviewer:
            reviewer.goto(f"{site}/en/admin/")
            waiting = reviewer.locator(".dashboard-reviews")
            expect(waiting).to_contain_text(f"revision {number} from browser-author")
            expect(waiting).to_contain_text("“One sentence added.”")
            waiting.get_by_role("link").first.click()
            expect(reviewer.locator("#revision-diff ins")).to_have_text(ADDED)
            reviewer.get_by_label("Your comment (needed to send it back)").fill("Good.")
            _shot(reviewer, "review")
            reviewer.get_by_role("button", name=f"Approve and publish revision {number}").click()
            expect(reviewer.locator("ul.messagelist")).to_contain_text(
                f"Approved: the live page now shows revision {number}."
            )
        assert ADDED.strip() not in before
        assert ADDED.strip() in _live_text(browser, site)  # live once approved
        author.goto(f"{site}/en/admin/")
        expect(author.locator(".dashboard-submitted")).to_contain_text(
            f"revision {number} is approved and published: “Good.”"
        )

    # The site-wide History, filtered to the reviewer: the approval, with its comment.
    with signed_in_tab(browser, cookies["Administrators"]) as administrator:
        administrator.goto(f"{site}/en/admin/admin/logentry/")
        administrator.locator("#changelist-filter").get_by_role(
            "link", name="browser-reviewer"
        ).click()
        rows = administrator.locator("#result_list tbody tr")
        expect(rows.first).to_contain_text(f"Approved revision {number}: Good.")
        expect(rows.first).to_contain_text(f"Guide: {guide.title_en}")
        _shot(administrator, "history")

    with signed_in_tab(browser, cookies["Translators (German)"]) as translator:
        translator.goto(f"{site}/en/admin/guides/guide/{guide.pk}/change/")
        tools = translator.locator(".object-tools")
        expect(tools).to_contain_text("Translate into German")
        expect(tools).not_to_contain_text("Translate into Japanese")
        translator.goto(f"{site}/en/admin/guides/guide/{guide.pk}/translate/ja/")
        expect(translator.locator(".errornote")).to_have_text(
            "You may not translate this guide into Japanese."
        )
        _shot(translator, "not-allowed")
        translator.get_by_role("link", name="The admin's home page").click()
        expect(translator).to_have_url(f"{site}/en/admin/")
