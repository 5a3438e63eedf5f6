"""The pages as a visitor sees them, and an editor's round in the guide admin, in Debian's headless
Chromium (through Playwright).

``make screenshots`` (SCREENSHOTS=1) also saves each page to screenshots/ for a person to look
at; plain test runs skip that, as it costs more than the checks. These tests skip, loudly,
where Chromium is missing; CI sets REQUIRE_BROWSER=1 and fails instead.
"""

import os
import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.conftest import GUIDE_SLUG, SEED_DAY, as_if_committed, seen_by_the_site

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"
WANT_SCREENSHOTS = os.environ.get("SCREENSHOTS", "") not in {"", "0"}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PRINT_WIDTH = {"width": 718, "height": 1000}  # A4 less 1.5 cm margins, at 96 px to the inch

# The public pages besides the index and the guides (see below), the planner with its results:
# (name, path, HTTP status).
PUBLIC_PAGES = [
    pytest.param("gpus", "/{lang}/gpus/", 200, id="gpus"),
    pytest.param("tutorial", f"/{{lang}}/guides/{GUIDE_SLUG}/tutorial/", 200, id="tutorial"),
    pytest.param("compare", "/{lang}/compare/h100-vs-a100-80gb/", 200, id="compare"),
    pytest.param(
        "planner",
        "/{lang}/vram/?model=llama-3.1-70b&method=qlora&tokens_millions=50&params=405",
        200,
        id="planner",
    ),
    pytest.param(
        "serving",
        "/{lang}/serving/?model=llama-3.1-405b&weight_precision=awq&kv_precision=fp8",
        200,
        id="serving",
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
    assert page.locator("table.fit tbody tr").count() == 10  # every recommendation among them
    fits = {"en": "fits", "de": "passt", "ja": "収まる"}[lang]
    assert page.get_by_role("img", name=re.compile(f"^{fits}[:：]")).count() == 20  # the ✓ marks
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
    heading = page.get_by_role("heading", level=2).inner_text()
    assert "45.1\u00a0GB at the peak on one GPU" in heading
    h200 = page.locator("table.planner-fit tr", has_text="H200").inner_text()
    assert "21\u00a0h*" in h200 and "$64.41" in h200  # trl's recipe: derived, marked *


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_planners_answer_comes_first_focused_and_in_view(page, site, viewport):
    """After "Estimate" the answer's heading has the focus (a screen reader reads it) in the
    top third of the window, and the form it answers is folded under it."""
    _open(page, f"{site}/en/vram/", viewport)
    page.get_by_label("Model on file").select_option("llama-3.1-70b")
    page.get_by_role("button", name="Estimate").click()
    # Chromium moves the focus to an autofocus element at a rendering update, which may come
    # after the load event: to_be_focused waits for it, where reading activeElement would race.
    heading = page.locator("#plan-heading")
    expect(heading).to_be_focused()
    assert 0 <= heading.evaluate("h => h.getBoundingClientRect().top") < viewport["height"] / 3
    assert page.locator("details.planner-fold").get_attribute("open") is None
    assert not page.get_by_role("button", name="Estimate").is_visible()
    page.get_by_text("Change the model or the run").click()
    assert page.get_by_role("button", name="Estimate").is_visible()
    # A size alone is answered by the rules' table, which comes first and takes the focus.
    _open(page, f"{site}/en/vram/?params=405", viewport)
    expect(page.locator("[aria-labelledby=vram-caption]")).to_be_focused()


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
@pytest.mark.parametrize(("name", "path", "status"), PUBLIC_PAGES)
def test_no_table_is_wider_than_a_phone_and_no_page_scrolls_sideways(
    page, site, legal_pages_reviewed, lang, name, path, status
):
    assert _open(page, site + path.format(lang=lang), PHONE, status=status) == []
    _fits_the_phone(page, f"{name}-{lang}")
    if name == "planner":
        assert page.locator("main table").count() == 2  # its results were laid out too


def _fits_the_phone(page, name: str) -> None:
    found = page.evaluate(FITS)
    assert (found["scrolls"], found["wide"]) == (False, []), name
    _screenshot(page, f"{name}-phone")


SCREENSHOT_WIDTHS = (390, 1280)


def _shot_name(url: str, site: str) -> str:
    """'/de/guides/best-gpu-…/tutorial/' -> 'de-guides-best-gpu-…-tutorial'."""
    path = urlsplit(url.removeprefix(site)).path.strip("/") or "root"
    query = urlsplit(url).query
    return (path + ("-" + query if query else "")).replace("/", "-").replace("&", "-")


# From the narrowest phone to a wide desktop: the widths where the layout changes (cards up to
# 50rem, tighter cells up to 64rem) and either side of them.
WIDTHS = [320, 390, 820, 1024, 1280, 1440, 1920]
# Whether the page scrolls sideways, and each table wider than its box (which would scroll
# with nothing to say so, cutting off its last column).
CUT_OFF = """() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page");
  for (const table of document.querySelectorAll("main table")) {
    const box = table.closest(".table-scroll") || table.parentElement;
    if (table.getBoundingClientRect().width > box.clientWidth + 1) found.push(table.className);
  }
  return found;
}"""


@pytest.mark.heavy  # seven widths of about 25 pages: some 15 s a language (docs/testing.md)
@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_nothing_is_cut_off_on_any_page_from_320_to_1920_px(page, site, legal_pages_reviewed, lang):
    """Every public page, every published guide and its tutorial, at every width: no page
    scrolls sideways and no table is wider than its column. Each page is loaded once and the
    window resized (the layout follows without a reload); nothing is loaded from outside."""
    assert _open(page, f"{site}/{lang}/", DESKTOP) == []
    guides = page.eval_on_selector_all(".cards a", "links => links.map(a => a.href)")
    assert len(guides) == 9  # the seed's two guides and their clones, both kinds
    paths = [site + p.format(lang=lang) for _name, p, _status in (x.values for x in PUBLIC_PAGES)]
    paths += [*guides, *(url + "tutorial/" for url in guides), f"{site}/{lang}/"]
    for url in paths:
        status = 404 if "no-such-guide" in url else 200
        assert _open(page, url, DESKTOP, status=status) == [], url
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            assert page.evaluate(CUT_OFF) == [], f"{url} at {width} px"
            if width in SCREENSHOT_WIDTHS:  # `make screenshots`: every page, phone and desktop
                _screenshot(page, _shot_name(url, site) + f"-{width}")


@pytest.mark.parametrize(
    "path", [f"/de/guides/{GUIDE_SLUG}/", f"/ja/guides/{GUIDE_SLUG}/tutorial/"]
)
def test_the_contents_stay_in_view_beside_the_text_on_wide_screens(page, site, path):
    """From 1440 px the contents sit beside the text (which keeps its width) and stay in view
    while the page scrolls; narrower, they stay above the text."""
    # Scrolled at once by script: a wheel scrolls later, and waiting for it with a polled
    # wait_for_function evaluates a string in the page, which the CSP refuses ('unsafe-eval').
    scroll = "window.scrollTo(0, 4000)"
    _open(page, site + path, {"width": 1440, "height": 900})
    page.evaluate(scroll)
    toc = "document.querySelector('nav.toc').getBoundingClientRect()"
    assert page.evaluate(f"window.scrollY > 3000 && {toc}.top >= 0 && {toc}.top < 50")
    assert page.evaluate(
        f"{toc}.right < document.querySelector('main section').getBoundingClientRect().left"
    )
    # The header and the footer line up with the text column (issue 54: at 1920 px they were
    # centred on the window, out of line with it).
    edges = """() => [".site-header .brand", ".site-header .languages", "main h1",
      ".site-footer .wrap > *"].map(s => document.querySelector(s).getBoundingClientRect())
      .map(r => [Math.round(r.left), Math.round(r.right)])"""
    for width in (1440, 1920):
        page.set_viewport_size({"width": width, "height": 900})
        brand, languages, h1, footer = page.evaluate(edges)
        assert brand[0] == h1[0] == footer[0] and languages[1] == h1[1], width
    _open(page, site + path, DESKTOP)
    page.evaluate(scroll)
    assert page.evaluate("window.scrollY > 3000")
    assert page.evaluate(f"{toc}.bottom < 0")  # scrolled away with the text


def test_a_table_region_is_a_tab_stop_only_while_it_scrolls(page, site):
    """On a phone the tables are cards and nothing scrolls: no region is a tab stop there.
    Squeezed into a narrow box on a wide screen, a table scrolls and its region is one."""
    regions = "[...document.querySelectorAll('.table-scroll')].map(r => r.tabIndex)"
    _open(page, f"{site}/de/guides/{GUIDE_SLUG}/", PHONE)
    assert set(page.evaluate(regions)) == {-1}
    page.set_viewport_size(DESKTOP)
    page.evaluate("document.querySelector('.table-scroll').style.width = '200px'")
    page.evaluate("window.dispatchEvent(new Event('resize'))")
    assert page.evaluate(regions)[0] == 0


@pytest.fixture
def h100_changed(django_db_blocker):
    """A second check of our H100 price: its line is a chart (a GPU checked once is words)."""
    from pricing.models import Price, PriceCheck
    from pricing.services import price_check_record

    day = SEED_DAY + timedelta(days=1)
    with seen_by_the_site(django_db_blocker):
        price_check_record(
            provider_slug="gpuwithcrypto", checked_on=day, prices={"h100": Decimal("2.20")}
        )
        as_if_committed()
    yield
    with seen_by_the_site(django_db_blocker):
        Price.objects.filter(checked_on=day).delete()
        PriceCheck.objects.filter(checked_on=day).delete()
        as_if_committed()


def test_chart_labels_are_at_least_12_px_on_any_screen(page, site, h100_changed):
    """The charts scale with their column: on a phone their labels are drawn larger, and
    spaced for it, so that no label is under 12 px on the screen."""
    _open(page, f"{site}/de/gpus/", DESKTOP)
    assert page.locator(".chart > svg").count() == 1  # the H100's; the others are words
    smallest = """() => Math.min(...[...document.querySelectorAll(".chart > svg")].flatMap(svg =>
      [...svg.querySelectorAll("text")].filter(t => t.getBoundingClientRect().width > 0).map(t =>
        parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / 360)))"""
    for width in (320, 390, 820, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(smallest) >= 11.95, f"{width} px"


def test_a_tutorials_commands_scroll_inside_their_box_and_copy_as_printed(page, site):
    """On a phone a command is wider than the screen: its box scrolls, the page does not, and
    what a visitor selects is the command line by line, continuation backslashes and all."""
    _open(page, f"{site}/en/guides/{GUIDE_SLUG}/tutorial/", PHONE)
    whole = page.locator("#train-full-adamw pre.command").nth(1)
    assert whole.evaluate("box => box.scrollWidth > box.clientWidth")
    assert not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    lines = whole.inner_text().splitlines()
    assert lines[0] == "trl sft \\" and lines[-1] == "  --fsdp_state_dict_type SHARDED_STATE_DICT"
    assert all(line.endswith(" \\") for line in lines[:-1])


def test_a_tutorials_copy_buttons_copy_each_command_and_are_absent_without_script(browser, site):
    """static/js/copy-command.js (the CSP allows no inline script) adds a labelled button to
    each command that writes the command, as printed, to the clipboard; without script there
    is no button, and the command is plain text to select."""
    url = f"{site}/de/guides/{GUIDE_SLUG}/tutorial/"
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page = context.new_page()
    try:
        _open(page, url, DESKTOP, ready="#train-full-adamw button.copy")
        blocks = page.locator("main pre.command")
        assert page.locator("main button.copy").count() == blocks.count() > 8
        whole = page.locator("#train-full-adamw pre.command").nth(1)
        button = page.locator("#train-full-adamw button.copy").nth(1)
        assert button.inner_text() == "Kopieren"
        assert button.get_attribute("aria-label") == (
            "Kopieren: Vollständiges Fine-Tuning, AdamW: der ganze Lauf"
        )
        button.click()
        page.wait_for_function("b => b.textContent === 'Kopiert'", arg=button.element_handle())
        assert page.evaluate("navigator.clipboard.readText()") == whole.inner_text()
    finally:
        context.close()
    plain = browser.new_context(java_script_enabled=False)
    page = plain.new_page()
    try:
        _open(page, url, DESKTOP)
        assert page.locator("button.copy").count() == 0
        assert (
            page.locator("#train-full-adamw pre.command")
            .nth(1)
            .inner_text()
            .startswith("trl sft \\\n")
        )
    finally:
        plain.close()


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


# Issue 54: each guide at most 60 % of the shortest guide's height at 390 px on 2026-12-01
# (13,802 px), with its answer, the method table, open.
MOST_ON_A_PHONE = 8_281
FOLDS = "[...document.querySelectorAll('details.fold')].map(d => d.open)"
# The method table: shown, not inside any fold, and no wider than the window.
ANSWER = """() => {
  const table = document.querySelector("table.methods");
  return {shown: table.getBoundingClientRect().height > 0, folded: !!table.closest("details"),
          fits: table.getBoundingClientRect().right <= window.innerWidth};
}"""


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_every_guide_on_a_phone_shows_its_answer_and_folds_only_reference(page, site, lang):
    """Every published guide at 390 px: the method table (the answer) open and within the
    window, the page at most MOST_ON_A_PHONE tall; the sections the answer is derived from,
    the comparison's table and the sources folded, one tap away."""
    _open(page, f"{site}/{lang}/", DESKTOP)
    guides = page.eval_on_selector_all(".cards a", "links => links.map(a => a.href)")
    assert len(guides) == 9  # the seed's two guides and their clones, both kinds
    heights = {}
    for url in guides:
        _open(page, url, PHONE)
        heights[url.rstrip("/").rsplit("/", 1)[-1]] = page.evaluate(
            "document.documentElement.scrollHeight"
        )
        assert page.evaluate(ANSWER) == {"shown": True, "folded": False, "fits": True}
        _fits_the_phone(page, f"guide-{lang}-{url.rstrip('/').rsplit('/', 1)[-1]}")
        # Nothing removed: the reference sections (four of a fine-tuning guide, three of a
        # serving guide's), the comparison's table, the sources.
        sections = 3 if "/best-gpu-for-serving-" in url else 4
        assert page.evaluate(FOLDS) == [False] * (sections + 2), url
    assert max(heights.values()) <= MOST_ON_A_PHONE, heights
    _open(page, f"{site}/{lang}/guides/{GUIDE_SLUG}/", PHONE)  # the run table: fine-tuning's
    fold = page.locator("details.fold", has=page.locator("table.runs"))
    fold.locator("summary").click()
    assert fold.locator("table.runs").is_visible()


def test_folds_open_on_wide_screens_at_a_link_into_them_and_for_printing(page, site):
    guide = f"{site}/de/guides/{GUIDE_SLUG}/"
    _open(page, guide + "#derived-runs", PHONE)  # the note under the run table
    assert page.locator("#derived-runs").is_visible()
    assert page.evaluate(FOLDS).count(True) == 1
    # The contents' link to a folded section opens its fold.
    section = page.locator("section", has=page.locator("table.memory"))
    anchor = section.get_attribute("id")
    page.locator(f"nav.toc a[href='#{anchor}']").click()
    # Opened on hashchange, which fires after the click returns: wait for it.
    expect(section.locator("table.memory")).to_be_visible()
    _open(page, guide, DESKTOP)
    assert page.evaluate(FOLDS) == [True] * 6
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("[...document.querySelectorAll('details')].every(d => d.open)")


def test_latin_text_is_set_in_the_sites_own_inter_and_japanese_in_system_fonts(page, site):
    _open(page, f"{site}/de/", DESKTOP)
    page.evaluate("document.fonts.ready")
    assert page.evaluate("document.fonts.check('16px Inter')")
    fonts = page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name).filter(n => /woff2/.test(n))"
    )
    assert [urlsplit(url).netloc for url in fonts] == [urlsplit(site).netloc]
    family = "getComputedStyle(document.querySelector('h1')).fontFamily"
    assert page.evaluate(family).startswith("Inter, system-ui")
