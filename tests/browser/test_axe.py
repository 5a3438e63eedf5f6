"""axe-core on every public page in three languages, in the shared headless Chromium.

A file of its own so that pytest-xdist runs it beside the other browser tests (each worker has
its own live server and browser); skips loudly where axe-core is missing, fails in CI.
"""

import pytest

from tests.browser.test_public_pages import DESKTOP
from tests.page_checks import AXE_JS, LANGS, skip_or_fail
from tests.page_checks import PAGES as CHECKED_PAGES

pytestmark = [pytest.mark.browser, pytest.mark.django_db]  # the database must exist


# axe-core's findings, a few elements each: enough to find what to fix.
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  }));
}"""


@pytest.fixture(scope="module")
def axe_script():
    """axe-core's script; where it is missing, this says so before any browser starts."""
    if not AXE_JS.exists():
        skip_or_fail("axe-core (node_modules/axe-core) is")
    return AXE_JS


@pytest.fixture(scope="module")
def axe_page(axe_script, browser):
    """A tab that lets axe-core's script in: the site's CSP (rightly) refuses injected code.

    The script is sent to the browser once and runs in every document the tab loads:
    injecting the 500 KB script into each page over the DevTools connection cost more than
    running it.
    """
    context = browser.new_context(bypass_csp=True)
    context.add_init_script(path=axe_script)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_every_public_page_passes_axe_core(axe_page, site, legal_pages_reviewed, lang):
    """WCAG checks of axe-core on every public page (desktop width), 0 violations."""
    axe_page.set_viewport_size(DESKTOP)
    found = {}
    for path, status in CHECKED_PAGES:
        url = site + path.format(lang=lang)
        assert axe_page.goto(url).status == status, url
        violations = axe_page.evaluate(AXE_RUN)
        if violations:
            found[path.format(lang=lang)] = violations
    assert found == {}
