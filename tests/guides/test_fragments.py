"""The parts of a guide's page that read no price (the memory and estimate tables, the
sources) are rendered once per guide, ``site`` token and language, and reused by the renders
that follow a price check; an edit of the guide or of shared data renders them again."""

from datetime import date
from decimal import Decimal as D
from unittest import mock

import pytest

from gpuguide.lib import cache_tags
from guides.models import GuideSource, Section
from guides.pagecache import fragments, memory, versions
from pricing.services import price_check_record

from ..conftest import GUIDE_SLUG, forget_cached_pages

URL = f"/de/guides/{GUIDE_SLUG}/"
FRAGMENTS = ["memory-table", "estimate-table", "sources"]  # in the order the page shows them


@pytest.fixture
def rendered_fragments():
    """The names of the fragments rendered (not taken from the cache), in order."""
    names = []
    cached_fragment = fragments.cached_fragment

    def counting(guide_pk, name, vary_on, render):
        def render_and_count():
            names.append(name)
            return render()

        return cached_fragment(guide_pk, name, vary_on, render_and_count)

    with mock.patch.object(fragments, "cached_fragment", counting):
        yield names


def uncached_page(client) -> str:
    forget_cached_pages()
    response = client.get(URL)
    assert response.status_code == 200
    return response.content.decode()


def test_a_render_after_a_price_check_reuses_the_fragments_and_shows_the_new_price(
    client, seeded, rendered_fragments
):
    first = uncached_page(client)
    assert rendered_fragments == FRAGMENTS
    assert "4,00\xa0$" not in first

    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"b200": D("4.00")})  # fmt: skip
    rendered_fragments.clear()
    page = uncached_page(client)

    assert rendered_fragments == []
    # the fit and method tables around the fragments show the new price
    assert '<td class="num" data-label="GPUwithCrypto pro Stunde">4,00\xa0$</td>' in page
    assert "(4,00\xa0$/Stunde, " in page  # the method table's recommendation
    memory.forget_local_reads()
    with mock.patch.object(cache_tags, "recording_page", return_value=False):
        assert page == uncached_page(client)  # the same page as rendered whole


def test_an_edit_of_the_guide_renders_its_fragments_again(client, seeded, rendered_fragments):
    uncached_page(client)
    section = Section.objects.get(guide__slug=GUIDE_SLUG, table=Section.Table.MEMORY)
    section.table_caption_de = "Regeln, neu gefasst"
    section.save()
    rendered_fragments.clear()

    page = uncached_page(client)

    assert rendered_fragments == FRAGMENTS
    assert '<caption id="section-2-caption">Regeln, neu gefasst</caption>' in page
    rendered_fragments.clear()
    uncached_page(client)
    assert rendered_fragments == []  # and then reused again


def test_an_edit_of_shared_data_renders_them_again(client, seeded, rendered_fragments):
    uncached_page(client)
    source = GuideSource.objects.filter(guide__slug=GUIDE_SLUG).first().source
    source.title = "Ein neuer Titel"
    source.save()
    rendered_fragments.clear()

    page = uncached_page(client)

    assert rendered_fragments == FRAGMENTS
    assert f'<a href="{source.url}" rel="nofollow noopener">Ein neuer Titel</a>' in page


def test_fragments_are_kept_per_language(client, seeded, rendered_fragments):
    uncached_page(client)
    rendered_fragments.clear()
    response = client.get(URL.replace("/de/", "/ja/"))
    assert rendered_fragments == FRAGMENTS
    assert '<caption id="section-2-caption">Speicherregeln und Quellen</caption>' not in (
        response.content.decode()
    )


def test_staff_visits_render_every_fragment(client, seeded, admin_user, rendered_fragments):
    client.force_login(admin_user)  # may see a draft: nothing taken from or put in the cache
    client.get(URL)
    client.get(URL)
    assert rendered_fragments == FRAGMENTS * 2


def test_a_fragment_is_rendered_again_when_what_it_varies_on_changes(seeded):
    with cache_tags.recording(versions.current_versions):
        assert fragments.cached_fragment(1, "caption", ["1 $"], lambda: "one") == "one"
        assert fragments.cached_fragment(1, "caption", ["1 $"], lambda: "other") == "one"
        assert fragments.cached_fragment(1, "caption", ["2 $"], lambda: "two") == "two"
    assert fragments.cached_fragment(1, "caption", ["1 $"], lambda: "outside") == "outside"
