"""The pages as a visitor sees them, and an editor's round in the guide admin, in Debian's headless
Chromium (through Playwright).

``make screenshots`` (SCREENSHOTS=1) also saves each page to screenshots/ for a person to look
at; plain test runs skip that, as it costs more than the checks. These tests skip, loudly,
where Chromium is missing; CI sets REQUIRE_BROWSER=1 and fails instead.
"""

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from playwright.sync_api import expect
from reversion.models import Revision

from guides import revisions
from guides.models import Guide

from .conftest import GUIDE_SLUG, as_if_committed
from .page_checks import AXE_JS, LANGS, skip_or_fail
from .page_checks import PAGES as CHECKED_PAGES

SHOTS = Path(__file__).resolve().parent.parent / "screenshots"
WANT_SCREENSHOTS = os.environ.get("SCREENSHOTS", "") not in {"", "0"}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PRINT_WIDTH = {"width": 718, "height": 1000}  # A4 less 1.5 cm margins, at 96 px to the inch

# The public pages besides the index and the guides (see below), the planner with its results:
# (name, path, HTTP status).
PUBLIC_PAGES = [
    pytest.param("gpus", "/{lang}/gpus/", 200, id="gpus"),
    pytest.param("compare", "/{lang}/compare/h100-vs-a100-80gb/", 200, id="compare"),
    pytest.param(
        "planner",
        "/{lang}/vram/?model=llama-3.1-70b&method=qlora&tokens_millions=50&params=405",
        200,
        id="planner",
    ),
    pytest.param("not-found", "/{lang}/guides/no-such-guide/", 404, id="not-found"),
    pytest.param("legal", "/{lang}/legal/privacy/", 200, id="legal"),
]
# One expression per page: whether the page scrolls sideways, and which tables are wider than
# the window (a table inside a scrolling box still counts: on a phone nothing should hide).
FITS = """() => ({
  scrolls: document.documentElement.scrollWidth > window.innerWidth,
  wide: [...document.querySelectorAll("table")]
    .filter(t => t.getBoundingClientRect().width > window.innerWidth)
    .map(t => t.className),
})"""

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist


def _screenshot(page, name: str) -> None:
    if WANT_SCREENSHOTS:
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=SHOTS / f"{name}.png", full_page=True)


@pytest.fixture(scope="module")
def page(browser):
    """One tab for the module's tests (a new browser context per test costs more than a test);
    each test loads its own page into it."""
    context = browser.new_context()
    yield context.new_page()
    context.close()


def _open(page, url: str, viewport: dict, ready: str | None = None, status: int = 200) -> list[str]:
    """Load ``url`` (and wait for ``ready``, a selector, if given); return every request that
    left the live server meanwhile. Fails if the Content-Security-Policy blocked anything."""
    outside: list[str] = []
    blocked: list[str] = []
    host = urlsplit(url).netloc

    def note(request) -> None:
        if urlsplit(request.url).netloc != host:
            outside.append(request.url)

    def console(message) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            blocked.append(message.text)

    page.on("request", note)
    page.on("console", console)
    page.set_viewport_size(viewport)
    response = page.goto(url)
    if ready:
        page.wait_for_selector(ready)
    page.remove_listener("request", note)
    page.remove_listener("console", console)
    assert response.status == status
    assert blocked == [], f"CSP violations on {url}"
    return outside


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_guide_reads_well_on_desktop_and_phone_and_loads_nothing_from_outside(page, site, lang):
    outside = _open(page, f"{site}/{lang}/guides/{GUIDE_SLUG}/", DESKTOP)
    assert outside == []
    assert page.locator("table.fit tbody tr").count() == 10
    fits = {"en": "fits", "de": "passt", "ja": "収まる"}[lang]
    assert page.get_by_role("img", name=fits, exact=True).count() == 18
    for form, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)  # the layout follows without a reload
        # The page itself never scrolls sideways (on a phone each table row is a card).
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), form
        _screenshot(page, f"guide-{lang}-{form}")


def test_language_switcher_keeps_the_page(page, site):
    _open(page, f"{site}/en/guides/{GUIDE_SLUG}/", DESKTOP)
    page.get_by_role("navigation", name="Language").get_by_role("link", name="Deutsch").click()
    assert page.url.endswith(f"/de/guides/{GUIDE_SLUG}/")
    assert page.locator("html").get_attribute("lang") == "de"


def test_the_planner_answers_bad_input_in_place_then_plans(page, site):
    _open(page, f"{site}/en/vram/", DESKTOP)
    page.get_by_label("Model size (billions of parameters)").fill("seventy")
    page.get_by_role("button", name="Estimate").click()
    assert "Please correct the fields marked below." in page.get_by_role("alert").inner_text()
    assert page.get_by_text("Enter a number in digits 0–9, such as 70.").is_visible()
    page.get_by_label("Model size (billions of parameters)").fill("405")
    page.get_by_label("Model on file").select_option("llama-3.1-70b")
    page.get_by_label("Training tokens (millions, per epoch)").fill("50")
    page.get_by_role("button", name="Estimate").click()
    assert "Your model (405B)" in page.locator("table.vram").inner_text()
    assert "57.5\u00a0GB per GPU at the peak" in page.get_by_role("heading", level=2).inner_text()
    h200 = page.locator("table.planner-fit tr", has_text="H200").inner_text()
    assert "27.3\u00a0h" in h200 and "$83.81" in h200


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
@pytest.mark.parametrize(("name", "path", "status"), PUBLIC_PAGES)
def test_no_table_is_wider_than_a_phone_and_no_page_scrolls_sideways(
    page, site, lang, name, path, status
):
    assert _open(page, site + path.format(lang=lang), PHONE, status=status) == []
    _fits_the_phone(page, f"{name}-{lang}")
    if name == "planner":
        assert page.locator("main table").count() == 2  # its results were laid out too


def _fits_the_phone(page, name: str) -> None:
    found = page.evaluate(FITS)
    assert (found["scrolls"], found["wide"]) == (False, []), name
    _screenshot(page, f"{name}-phone")


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_index_and_every_guide_fit_a_phone(page, site, lang):
    assert _open(page, f"{site}/{lang}/", PHONE) == []
    _fits_the_phone(page, f"index-{lang}")
    guides = page.eval_on_selector_all(".cards a", "links => links.map(a => a.href)")
    assert len(guides) >= 2  # the seed's guide and its clones
    for url in guides:
        assert _open(page, url, PHONE) == []
        _fits_the_phone(page, f"{url.rstrip('/').rsplit('/', 1)[-1]}-{lang}")


def test_print_drops_navigation_and_keeps_every_column(page, site):
    _open(page, f"{site}/de/guides/{GUIDE_SLUG}/", PRINT_WIDTH)
    page.emulate_media(media="print")
    try:
        printed = page.evaluate(
            """() => ({
              hidden: ["header.site-header", "footer.site-footer", "nav.languages"]
                .map(s => getComputedStyle(document.querySelector(s)).display),
              wide: [...document.querySelectorAll("main table")]
                .filter(t => t.getBoundingClientRect().width > window.innerWidth)
                .map(t => t.className),
              headings: getComputedStyle(document.querySelector("table.fit thead")).display,
            })"""
        )
    finally:
        page.emulate_media(media="screen")
    assert printed == {"hidden": ["none"] * 3, "wide": [], "headings": "table-header-group"}


# axe-core's findings, a few elements each: enough to find what to fix.
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  }));
}"""


@pytest.fixture(scope="module")
def axe_page(browser):
    """A tab that lets axe-core's script in: the site's CSP (rightly) refuses injected code."""
    if not AXE_JS.exists():
        skip_or_fail("axe-core (node_modules/axe-core) is")
    context = browser.new_context(bypass_csp=True)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_every_public_page_passes_axe_core(axe_page, site, lang):
    """WCAG checks of axe-core on every public page (desktop width), 0 violations."""
    source = AXE_JS.read_text(encoding="utf-8")
    axe_page.set_viewport_size(DESKTOP)
    found = {}
    for path, status in CHECKED_PAGES:
        url = site + path.format(lang=lang)
        assert axe_page.goto(url).status == status, url
        axe_page.add_script_tag(content=source)
        violations = axe_page.evaluate(AXE_RUN)
        if violations:
            found[path.format(lang=lang)] = violations
    assert found == {}


# --- an editor's round in the guide admin ---------------------------------------------------
# A working copy previewed, scheduled, compared and reverted, with the token picker. Here, not in
# a file of its own, so that it shares this file's worker, Chromium and live server. It edits the
# Llama 3.1 8B guide (no other browser test reads it) and puts it back as it was: on SQLite the
# live server shares the test's transaction anyway; on PostgreSQL its writes commit.
# ``make screenshots`` also saves the admin views that docs/editing.md shows, to docs/editing/.

SLUG = "best-gpu-for-llama-3-1-8b-fine-tuning"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "editing"
ADDED = "Prices as of "
SEEDED_DAY = "October\xa029,\xa02026"  # [[checked_on]], with no-break spaces


def _shot(page, name: str) -> None:
    if WANT_SCREENSHOTS:
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=DOCS / f"{name}.png")


@pytest.fixture(scope="module")
def editor_cookie(site, django_db_blocker) -> dict:
    """A signed-in editor's session cookie for the live server."""
    with django_db_blocker.unblock():
        user, _created = User.objects.get_or_create(username="browser-editor", is_staff=True)
        user.groups.add(Group.objects.get(name="Editors"))
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": site}


@pytest.fixture
def staff(browser, editor_cookie):
    """A signed-in editor's tab; at the end, nothing on the admin pages was blocked by the CSP
    (the token picker and folding rows are a static script: no inline code)."""
    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies([editor_cookie])
    page = context.new_page()
    blocked: list[str] = []
    page.on(
        "console",
        lambda m: (
            blocked.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text
            else None
        ),
    )
    yield page
    context.close()
    assert blocked == []


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
    with django_db_blocker.unblock():
        first = guide.revisions.order_by("pk").first()
        if first is not None:
            revisions.publish(first)
            Revision.objects.filter(guide_revision__guide=guide).delete()
        revisions.forget_schedule()


def _live_text(visitor, site) -> str:
    as_if_committed()  # on SQLite the live server's writes are in the test's transaction
    visitor.goto(f"{site}/en/guides/{SLUG}/")
    return visitor.locator("section.short-answer").inner_text()


def _change(staff, site, guide) -> None:
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/change/")


def _save_a_draft(staff, site, guide) -> int:
    """Add a sentence with the token picker and save; the draft revision's number."""
    _change(staff, site, guide)
    field = staff.locator("#id_short_answer_en")
    field.fill(field.input_value() + " " + ADDED)
    picker = staff.locator(".field-short_answer_en details.token-picker")
    picker.locator("summary").click()
    picker.get_by_role("searchbox").fill("checked")
    picker.get_by_role("searchbox").press("Enter")
    assert field.input_value().endswith(ADDED + "[[checked_on]]")
    staff.get_by_role("button", name="Save draft").click()
    expect(staff.locator("ul.messagelist")).to_contain_text("Saved as draft revision")
    message = staff.locator("ul.messagelist li").first.inner_text()
    number = re.search(r"Saved as draft revision (\d+)", message)
    assert number, message
    return int(number.group(1))


def test_a_working_copy_previewed_scheduled_compared_and_reverted(staff, visitor, site, guide):
    """One editor's round, in as few page loads as it takes (each admin page costs a second)."""
    before = _live_text(visitor, site)
    number = _save_a_draft(staff, site, guide)
    assert (
        "the live page is unchanged until you publish it"
        in staff.locator("ul.messagelist").inner_text()
    )
    assert _live_text(visitor, site) == before  # the working copy: the live page is unchanged
    banner = staff.locator(".working-copy")
    assert f"You are editing draft revision {number}" in banner.inner_text()
    _shot(staff, "working-copy")

    # Preview at the page's real URL.
    staff.goto(site + banner.get_by_role("link", name="English").get_attribute("href"))
    assert f"Preview of revision {number}" in staff.locator(".draft-banner").inner_text()
    assert ADDED + SEEDED_DAY in staff.locator("section.short-answer").inner_text()
    _shot(staff, "preview")

    # Scheduled: live at 18:00, not before.
    staff.goto(f"{site}/en/admin/guides/guide/{guide.pk}/revisions/")
    row = staff.locator(f"#revision-{number}")
    row.get_by_label("Go live at").fill("2026-11-29T18:00")
    row.get_by_role("button", name="Save schedule").click()
    expect(staff.locator("ul.messagelist")).to_contain_text(f"Schedule of revision {number} saved.")
    _shot(staff, "revisions")
    assert _live_text(visitor, site) == before  # and now in the page cache
    with time_machine.travel(datetime(2026, 11, 29, 18, 0, 1, tzinfo=UTC), tick=False):
        assert ADDED + SEEDED_DAY in _live_text(visitor, site)

    # The diff between the first revision and the one now live.
    staff.reload()
    staff.get_by_role("button", name="Compare the chosen revisions").click()
    diff = staff.locator("#revision-diff")
    expect(diff.locator("tbody tr")).to_have_count(1)
    assert "Short answer (English)" in diff.inner_text()
    assert diff.locator("ins").inner_text() == " " + ADDED + "[[checked_on]]"
    _shot(staff, "diff")

    # Revert: a new draft made from the first revision, live once published.
    staff.go_back()
    first = guide.revisions.order_by("pk").first()
    staff.locator(f"#revision-{first.pk}").get_by_role(
        "button", name="Revert to this revision"
    ).click()
    expect(staff.locator("ul.messagelist")).to_contain_text("is a copy of revision")
    message = staff.locator("ul.messagelist").inner_text()
    copy = int(re.search(r"Revision (\d+) is a copy of revision", message).group(1))
    assert ADDED in _live_text(visitor, site)  # a draft until published
    staff.locator(f"#revision-{copy}").get_by_role("button", name="Publish").click()
    assert (
        f"Published: the live page now shows revision {copy}."
        in staff.locator("ul.messagelist").inner_text()
    )
    assert _live_text(visitor, site) == before
