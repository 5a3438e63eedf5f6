"""What a render after a price check reuses instead of building again: the guide with its rows
(cached under the guide's and the site's tokens), parsed prose, Babel locales and formatted
figures. Counts and identities, not timings (those are in docs/performance.md)."""

from datetime import date
from decimal import Decimal as D
from unittest import mock

from babel import Locale
from django.db import connection
from django.test.utils import CaptureQueriesContext

from guides.content.tokens import render
from guides.models import Section
from guides.pagecache import http, reads
from pricing.domain import formatting
from pricing.services import price_check_record

from ..conftest import GUIDE_SLUG, as_if_committed, forget_cached_pages

URL = f"/de/guides/{GUIDE_SLUG}/"
GUIDE_TABLES = ("guides_guide", "guides_section", "guides_faqentry", "guides_guidesource")


def render_after_write(client) -> tuple[list[str], str]:
    """The SQL of a render with the tokens cached but not the page, and the page's text."""
    forget_cached_pages()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries], response.content.decode()


def reads_the_guide(sql: list[str]) -> bool:
    return any(f'"{table}"' in query for query in sql for table in GUIDE_TABLES)


def test_a_price_check_re_renders_the_guide_without_reading_it_again(client, seeded):
    client.get(URL)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"a100-80gb": D("0.99")})  # fmt: skip
    as_if_committed()
    sql, page = render_after_write(client)
    assert not reads_the_guide(sql)
    # the version check, the token table (it changed), the prices and their check days
    assert len(sql) == 4
    assert "0,99\xa0$" in page  # the new price, in the cached guide's prose and tables


def test_an_edit_of_the_guide_reads_it_again(client, seeded):
    client.get(URL)
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.heading_de = "Neue Überschrift"
    section.save()
    sql, page = render_after_write(client)
    assert reads_the_guide(sql)
    assert "Neue Überschrift" in page
    sql, _page = render_after_write(client)
    assert not reads_the_guide(sql)  # and then keeps it


def test_an_unpublished_guide_is_not_served_from_the_cache(client, seeded):
    client.get(URL)
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.guide.status = "draft"
    section.guide.save()
    forget_cached_pages()
    assert client.get(URL).status_code == 404


def test_prose_is_parsed_once_and_babel_locales_once_per_language(client, seeded):
    client.get(URL)
    formatting.number.cache_clear()  # the figures are formatted again, with the same locales
    formatting.usd.cache_clear()
    with (
        mock.patch.object(render.registry, "parse", wraps=render.registry.parse) as parse,
        mock.patch.object(Locale, "parse", wraps=Locale.parse) as parse_locale,
    ):
        render_after_write(client)
    assert parse.call_count == 0  # every token's grammar was parsed by the first render
    # Babel asks for the locale on each call, but it is handed the parsed one: none is parsed
    assert parse_locale.call_count > 0
    assert {type(call.args[0]) for call in parse_locale.call_args_list} == {Locale}
    assert formatting.number.cache_info().currsize > 10  # and it did format figures
    assert formatting._parsed("de") is formatting._parsed("de")


def test_equal_figures_format_alike_whatever_their_trailing_zeros():
    assert formatting.usd(D("9.2000"), "de") == formatting.usd(D("9.2"), "de") == "9,20\xa0$"
    assert formatting.number(D("52.50"), "en") == formatting.number(52.5, "en") == "52.5"


def read_keys(read: mock.Mock) -> list[str]:
    return [call.args[0] for call in read.call_args_list]


def test_a_worker_reuses_what_it_took_from_the_cache_until_a_token_changes(client, seeded):
    client.get(URL)
    with mock.patch.object(http.cache, "get", wraps=http.cache.get) as read:
        render_after_write(client)
    assert not [key for key in read_keys(read) if key.startswith(reads.READ_PREFIX)]
    Section.objects.filter(guide__slug=GUIDE_SLUG).first().save()  # the guide's token changes
    sql, _page = render_after_write(client)
    assert reads_the_guide(sql)
