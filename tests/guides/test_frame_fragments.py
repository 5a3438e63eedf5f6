"""Every page's header and footer read no data: a worker renders each once per path (with its
query), language and what the footer shows, and reuses it in the pages it renders to cache;
the links to the icons, fonts, style sheet and script in the head once per language."""

from unittest import mock

import pytest

from gpuguide.lib import cache_tags
from guides.pagecache import fragments, memory

from ..conftest import GUIDE_SLUG, forget_cached_pages, review_legal_pages

GUIDE = f"/de/guides/{GUIDE_SLUG}/"
NOTE = "Die Zahlen sind Planungsregeln"  # the footer's note on pages that cite sources


@pytest.fixture
def rendered_frames():
    """The names of the frame parts rendered (not reused), in order."""
    names = []
    cached_frame = fragments.cached_frame

    def counting(name, vary_on, render):
        def render_and_count():
            names.append(name)
            return render()

        return cached_frame(name, vary_on, render_and_count)

    with mock.patch.object(fragments, "cached_frame", counting):
        yield names


def uncached(client, url: str) -> str:
    forget_cached_pages()
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_a_second_render_reuses_header_and_footer_and_is_the_same_page(
    client, seeded, rendered_frames
):
    first = uncached(client, GUIDE)
    assert rendered_frames == ["head-icons", "head-assets", "header", "footer"]
    rendered_frames.clear()

    assert uncached(client, GUIDE) == first
    assert rendered_frames == []
    memory.forget_local_reads()
    with mock.patch.object(cache_tags, "recording_page", return_value=False):
        assert uncached(client, GUIDE) == first  # as rendered whole


def test_the_header_is_kept_per_path_query_and_language(client, seeded, rendered_frames):
    uncached(client, GUIDE)
    rendered_frames.clear()

    as_of = uncached(client, f"{GUIDE}?as_of=2026-11-25")
    assert rendered_frames == ["header"]  # the same footer
    assert f'href="/en/guides/{GUIDE_SLUG}/?as_of=2026-11-25" hreflang="en"' in as_of
    rendered_frames.clear()

    english = uncached(client, f"/en/guides/{GUIDE_SLUG}/")
    assert rendered_frames == ["head-icons", "head-assets", "header", "footer"]
    assert '<a href="/en/gpus/">GPU prices</a>' in english


def test_the_footer_is_kept_per_what_it_shows(client, seeded, rendered_frames):
    assert NOTE in uncached(client, GUIDE)
    rendered_frames.clear()

    review_legal_pages()
    legal = uncached(client, "/de/legal/imprint/")

    assert rendered_frames == ["header", "footer"]
    assert NOTE not in legal


def test_staff_visits_render_header_and_footer(client, seeded, admin_user, rendered_frames):
    client.force_login(admin_user)
    client.get(GUIDE)
    client.get(GUIDE)
    frames = ["head-icons", "head-assets", "header", "footer"]
    assert rendered_frames == frames * 2  # on every visit, never reused
