"""The guide page's tables, sections and notices as its templates lay them out: the cases the
seed's guide does not show, editors' text escaped, and what every page's frame says."""

from guides.models import GuideSource

from ..conftest import GUIDE_SLUG, forget_cached_pages, review_legal_pages

URL = f"/de/guides/{GUIDE_SLUG}/"


def uncached_page(client, url: str = URL) -> str:
    forget_cached_pages()
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_a_guides_page_shows_an_edit_of_a_source_it_cites(client, seeded):
    uncached_page(client)
    source = GuideSource.objects.filter(guide__slug=GUIDE_SLUG).first().source
    source.title = "Ein neuer Titel"
    source.save()

    page = uncached_page(client)

    assert f'<a href="{source.url}" rel="nofollow noopener">Ein neuer Titel</a>' in page


def test_the_language_links_keep_the_pages_query(client, seeded):
    page = uncached_page(client, f"{URL}?as_of=2026-11-25")
    assert f'href="/en/guides/{GUIDE_SLUG}/?as_of=2026-11-25" hreflang="en"' in page


def test_the_footer_says_what_the_figures_are_only_on_pages_that_cite_sources(client, seeded):
    note = "Die Zahlen sind Planungsregeln"
    assert note in uncached_page(client)
    review_legal_pages()
    assert note not in uncached_page(client, "/de/legal/imprint/")
