"""What makes a render after a price check cheap, and a fresh process's first visits: prose
that quotes no price reused (found out with price-blind figures), plans and recommendations
remembered, the shared cache's reads fetched in one round trip, and ``warm_up``.
Counts and identities, not timings (those are in docs/performance.md)."""

import logging
from dataclasses import replace
from datetime import date
from decimal import Decimal as D
from unittest import mock

import pytest
from django.db import OperationalError, connection
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from gpuguide.lib import cache_tags
from guides import warmup
from guides.content import page_figures, presentation
from guides.content.page_figures import ReadsPrices
from guides.content.tokens.registry import TOKEN_RE
from guides.content.tokens.render import fill
from guides.models import Guide, Section
from guides.pagecache import memory, reads, versions
from guides.pages import assembly, selectors
from pricing.domain import calculations as calc
from pricing.services import price_check_record

from ..conftest import GUIDE_SLUG, TODAY, forget_cached_pages

URL = f"/de/guides/{GUIDE_SLUG}/"


def uncached_page(client, url: str = URL) -> str:
    forget_cached_pages()
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def rendered_texts():
    """Every prose text rendered (price-blind or with the prices), in order."""
    texts = []

    def counting(render):
        def render_and_count(text, figures, **filled):
            texts.append(text)
            return render(text, figures, **filled)

        render_and_count.__name__ = render.__name__  # GuideProse keys its parts on it
        return render_and_count

    with (
        mock.patch.object(assembly, "render_prose", counting(assembly.render_prose)),
        mock.patch.object(assembly, "render_plain", counting(assembly.render_plain)),
    ):
        yield texts


def test_a_render_after_a_price_check_renders_only_the_prose_that_quotes_prices(
    client, seeded, rendered_texts
):
    uncached_page(client)
    first = len(rendered_texts)
    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"b200": D("4.00"), "a100-80gb": D("0.99")})  # fmt: skip
    rendered_texts.clear()

    page = uncached_page(client)

    guide = Guide.objects.get(slug=GUIDE_SLUG)
    headings = [section.heading for section in Section.objects.filter(guide=guide)]
    assert 0 < len(rendered_texts) < first / 2
    assert not set(headings) & set(rendered_texts)  # these quote no price: reused
    assert "0,99\xa0$" in page and "4,00\xa0$" in page
    # the very page a render of everything makes
    memory.forget_local_reads()
    with mock.patch.object(cache_tags, "recording_page", return_value=False):
        assert page == uncached_page(client)


def test_an_edit_of_the_guide_renders_its_prose_again(client, seeded, rendered_texts):
    uncached_page(client)
    section = Section.objects.filter(guide__slug=GUIDE_SLUG).first()
    section.heading_de = "Eine neue Überschrift"
    section.save()
    rendered_texts.clear()

    page = uncached_page(client)

    assert "Eine neue Überschrift" in rendered_texts
    assert "Eine neue Überschrift" in page


def test_price_blind_figures_refuse_every_read_of_a_price(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    blind = assembly.guide_figures(guide).without_prices()
    for read in (
        lambda: blind.listing("h100"),
        lambda: blind.price("h100"),
        lambda: blind.check_date(),
        lambda: blind.rentable_offers(),
        lambda: blind.table_configurations(),
        lambda: blind.recommended("qlora"),
        lambda: list(blind.configurations),
        lambda: blind.scenarios[0],
    ):
        with pytest.raises(ReadsPrices):
            read()
    assert blind.memory("qlora") > 0  # what reads no price still answers
    assert blind.peak("qlora").peak_gb > 0


def test_prose_is_marked_by_whether_it_quotes_a_price(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    figures = assembly.guide_figures(guide)
    with cache_tags.recording(versions.current_versions):
        prose = assembly.GuideProse(guide, figures)
        assert prose.plain("[[price h100]]") == assembly.render_plain("[[price h100]]", figures)
        assert prose.plain("[[memory qlora]]") == assembly.render_plain("[[memory qlora]]", figures)
    assert prose.reused[("render_plain", "[[price h100]]")] is assembly._READS_PRICES
    assert prose.reused[("render_plain", "[[memory qlora]]")] == assembly.render_plain(
        "[[memory qlora]]", figures
    )


def test_a_price_check_plans_and_costs_again_only_the_configurations_it_repriced(client, seeded):
    uncached_page(client)
    planned = mock.patch.object(
        page_figures.planning, "planned", wraps=page_figures.planning.planned
    )
    costed = mock.patch.object(
        page_figures.planning, "run_plans", wraps=page_figures.planning.run_plans
    )
    with planned as plans, costed as runs:
        uncached_page(client)
        assert (plans.call_count, runs.call_count) == (0, 0)  # the same prices: all remembered
        price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                           prices={"b200": D("4.37")})  # fmt: skip
        page = uncached_page(client)
    assert '<td class="num" data-label="GPUwithCrypto pro Stunde">4,37\xa0$</td>' in page
    planned_again = {c.gpu.slug for call in plans.call_args_list for c in call.args[0]}
    costed_again = {p.configuration.gpu.slug for call in runs.call_args_list for p in call.args[0]}
    assert planned_again == costed_again == {"b200"}


def test_a_worker_without_the_reads_fetches_them_in_one_round_trip(client, seeded):
    uncached_page(client)
    memory.forget_local_reads()  # another worker, or a fresh process: the shared cache has them
    with mock.patch.object(reads, "cache", mock.Mock(wraps=reads.cache)) as shared:
        uncached_page(client)
    fetched = [key for call in shared.get_many.call_args_list for key in call.args[0]]
    assert shared.get_many.call_count == 1  # the guide, providers, methods, blocks, facts...
    assert len(fetched) == 6  # ... and the legal pages the footer names
    # one by one only the latest prices, whose key needs the providers, and the guide's run's
    # measurements, whose key needs the guide
    read_one_by_one = [call.args[0] for call in shared.get.call_args_list]
    assert len(read_one_by_one) == 2
    assert ":latest-prices:" in read_one_by_one[0] and ":throughputs:" in read_one_by_one[1]


def as_a_fresh_process() -> None:
    """Nothing of this process's own memory left: pages, reads, fragments and tokens."""
    forget_cached_pages()
    memory.forget_local_reads()
    versions.forget()


def first_index_visit_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/en/").status_code == 200
    return len(queries)


def test_a_cold_first_index_visit_renders(client, seeded):
    as_a_fresh_process()
    assert first_index_visit_queries(client) > 5


def test_after_warm_up_the_first_index_visit_makes_the_version_check_alone(client, seeded):
    as_a_fresh_process()
    warmup.warm_up()
    assert first_index_visit_queries(client) == 1
    for language in ("de", "ja"):
        assert client.get(f"/{language}/")["X-Page-Cache"] == "hit"


def test_warm_up_survives_a_database_that_is_down(client, seeded, caplog):
    as_a_fresh_process()

    def down(*_args, **_kwargs):
        raise OperationalError("connection refused")

    with (
        caplog.at_level(logging.WARNING, logger="guides.warmup"),
        mock.patch.object(CursorWrapper, "execute", down),
    ):
        warmup.warm_up()  # does not raise
    assert "database is unavailable" in caplog.text
    assert first_index_visit_queries(client) > 1  # nothing stored: rendered on the visit


def test_warm_up_logs_a_failing_step_and_goes_on(seeded, caplog):
    as_a_fresh_process()
    with (
        caplog.at_level(logging.WARNING, logger="guides.warmup"),
        mock.patch.object(warmup, "get_template", side_effect=RuntimeError("broken")),
    ):
        warmup.warm_up()
    assert "_compile_templates failed" in caplog.text
    assert versions.current() is not None  # the steps after it ran


def _hashing_refused(configuration):
    raise AssertionError(f"hashed {configuration}")


def test_page_figures_look_configurations_up_without_hashing_them(seeded):
    """A configuration's hash walks its GPU offer and speed in Python; a page asks for the
    same plans and runs thousands of times, so the figures key them on plain tuples."""
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    figures = assembly.guide_figures(guide)
    with mock.patch.object(calc.Configuration, "__hash__", _hashing_refused):
        for method in figures.methods:
            figures.plans(method)
            figures.runs(method)
            for configuration in figures.configurations:
                figures.plan(method, configuration)
                figures.runs(method, [configuration])


def test_page_figures_tell_the_same_gpu_at_two_prices_apart(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    figures = assembly.guide_figures(guide)
    house = figures.configuration("h100", 8)
    elsewhere = calc.Configuration(replace(house.gpu, usd_per_gpu_hour=D("123.45")), 8)
    assert figures.plan("qlora", house).configuration == house
    assert figures.plan("qlora", elsewhere).configuration == elsewhere
    house_run, other_run = figures.runs("qlora", [house, elsewhere])
    assert house_run.configuration == house and other_run.configuration == elsewhere
    assert other_run.usd_per_run != house_run.usd_per_run
    # and a repeated question is answered from what was worked out, the same object
    assert figures.runs("qlora", [house])[0] is house_run


def test_a_text_that_quotes_prices_fills_again_only_its_tokens_that_read_one(client, seeded):
    uncached_page(client)
    filled = []

    def filling(token, figures):
        filled.append((token, figures))
        return fill(token, figures)

    price_check_record(provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20),
                       prices={"b200": D("4.00")})  # fmt: skip
    uncached_page(client)  # the price-free parts are kept per site token: this one fills them
    with mock.patch.object(assembly, "fill", filling):
        page = uncached_page(client)
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    blind = assembly.guide_figures(guide).without_prices()
    assert filled  # some tokens quote prices...
    for token, _figures in filled:  # ...and only those are filled again
        with pytest.raises(ReadsPrices):
            fill(token, blind)
    # tokens that read no price, in texts that do, are reused: the short answer's [[memory]]
    short_answer = guide.short_answer
    assert "[[price" in short_answer or "[[recommend" in short_answer
    reused = {t for t in TOKEN_RE.findall(short_answer) if t not in {t for t, _ in filled}}
    assert reused
    memory.forget_local_reads()
    with mock.patch.object(cache_tags, "recording_page", return_value=False):
        assert page == uncached_page(client)  # the very page a render of everything makes


# --- round three: recommendations remembered -------------------------------------------------


def test_recommendations_are_worked_out_again_only_when_a_price_they_rest_on_moves(client, seeded):
    uncached_page(client)
    with mock.patch.object(
        page_figures.planning, "recommended", wraps=page_figures.planning.recommended
    ) as computed:
        uncached_page(client)
        assert computed.call_count == 0  # the same prices: every method's remembered
        price_check_record(provider_slug="gpuwithcrypto", checked_on=TODAY,
                           prices={"h100": D("1.11")})  # fmt: skip
        page = uncached_page(client)
        assert computed.call_count > 0  # ours moved: worked out again
    assert "1,11\xa0$" in page
    memory.forget_local_reads()
    with mock.patch.object(cache_tags, "recording_page", return_value=False):
        assert page == uncached_page(client)  # the very page a render of everything makes


def test_remembered_recommendations_are_this_pages_configurations(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    remembered = {}
    first = assembly.guide_figures(guide)
    first.remembered = remembered
    chosen = first.recommended("qlora")
    assert remembered  # kept by the plain values of every configuration we rent
    second = assembly.guide_figures(guide)
    second.remembered = remembered
    with mock.patch.object(page_figures.planning, "recommended") as computed:
        again = second.recommended("qlora")
    computed.assert_not_called()
    assert again == chosen
    host = {id(c) for c in second.host_configurations()}
    assert all(id(c) in host for c in again)  # the second page's objects, not the first's


# --- round four: the language looked up once, labels kept ------------------------------------


@pytest.mark.parametrize("language", ["en", "de", "ja"])
def test_a_pinned_language_formats_as_the_active_one(language):
    with translation.override(language):
        unpinned = (
            presentation.number(D("1234.5")),
            presentation.gpu_count(2, "H200"),
            presentation.parenthesized("x"),
            presentation.config_label(8, "B200"),
            presentation.rent_label(1, "B200"),
        )
        with presentation.language_pinned() as pinned:
            assert pinned == language
            assert presentation.language() == language
            assert (
                presentation.number(D("1234.5")),
                presentation.gpu_count(2, "H200"),
                presentation.parenthesized("x"),
                presentation.config_label(8, "B200"),
                presentation.rent_label(1, "B200"),
            ) == unpinned
        with translation.override("ja" if language != "ja" else "de"):
            assert presentation.language() != language  # unpinned again: Django's answer


def test_labels_are_kept_per_language():
    with translation.override("ja"):
        ja = presentation.config_label(8, "B200")
    with translation.override("en"):
        en = presentation.config_label(8, "B200")
        said = presentation.translated("derived")
        with mock.patch.object(presentation, "gettext", side_effect=AssertionError):
            assert presentation.config_label(8, "B200") == en  # kept: no catalogue lookup
            assert presentation.translated("derived") == said
    assert en == "8× B200" and ja != en
    with translation.override("de"):
        assert presentation.translated("derived") == translation.gettext("derived") != said


def test_a_gpus_own_fields_are_worked_out_once_for_every_provider(seeded):
    """``gpu_listings_for_providers``: a GPU's choices' labels once a GPU, not once a provider;
    the listings those of one provider asked alone."""
    from pricing import selectors as pricing_selectors
    from pricing.models import Gpu, Provider

    providers = list(Provider.objects.all())
    assert len(providers) > 1
    labelled = []
    label = Gpu.get_form_factor_display

    def counted(gpu):
        labelled.append(gpu.slug)
        return label(gpu)

    with mock.patch.object(Gpu, "get_form_factor_display", counted):
        listings = pricing_selectors.gpu_listings_for_providers(providers=providers)
    assert sorted(labelled) == sorted(x.slug for x in listings[providers[0].slug])
    for provider in providers:
        alone = pricing_selectors.gpu_listings_for_providers(providers=[provider])
        assert listings[provider.slug] == alone[provider.slug]


def test_recommendations_key_the_configurations_we_rent_once_a_page(seeded):
    guide = selectors.guide_for_page(slug=GUIDE_SLUG)
    remembered = {}
    first = assembly.guide_figures(guide)
    first.remembered = remembered
    for method in first.methods:
        first.recommended(method)
    second = assembly.guide_figures(guide)
    second.remembered = remembered
    host = len(second.host_configurations())
    with mock.patch.object(page_figures, "config_key", wraps=page_figures.config_key) as keyed:
        for method in second.methods:
            second.recommended(method)
    assert len(second.methods) > 1
    assert keyed.call_count == host  # every method's key from the one set of keys
