"""The guide page's tables, sections and notices as its templates lay them out: the cases the
seed's guide does not show, editors' text escaped, and what every page's frame says."""

import re
from dataclasses import replace
from datetime import date
from decimal import Decimal as D
from unittest import mock

from django.template.loader import render_to_string
from django.utils import translation

from guides.models import GuideSource, Section
from guides.pages import assembly, selectors
from tests.conftest import GUIDE_SLUG, forget_cached_pages, review_legal_pages

URL = f"/de/guides/{GUIDE_SLUG}/"


def uncached_page(client, url: str = URL) -> str:
    forget_cached_pages()
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def english_page() -> assembly.GuidePage:
    with translation.override("en"):
        return assembly.guide_page(selectors.guide_for_page(slug=GUIDE_SLUG))


def rendered_table(page: assembly.GuidePage, table: str) -> str:
    """The section's include that lays out ``table`` (fit_table.html...), in English."""
    template = f"guides/includes/{table}.html"
    [section] = [s for s in page.sections if s.table_template == template]
    with translation.override("en"):
        return render_to_string(template, {"page": page, "section": section, "guide": page.guide})


def test_the_answer_is_never_folded_reference_is_and_each_price_table_says_its_check_day(
    client, seeded
):
    page = uncached_page(client)
    # Memory rules, estimate, fit and cost fold with their sections' text; the comparison's
    # table folds alone; the method table, the answer, folds on no screen.
    assert page.count('<details class="fold section-fold">') == 4
    assert page.count('<details class="fold table-fold">') == 1
    methods = page.index('<table class="methods">')
    assert "<details" not in page[:methods]  # the first section's
    assert page.count('<p class="checked-on">') == 4  # page, fit, cost and comparison tables


def test_a_sections_table_caption_is_escaped_in_its_summary_and_caption(client, seeded):
    section = Section.objects.get(guide__slug=GUIDE_SLUG, table=Section.Table.FIT)
    section.table_caption_de = 'Passt <b class="x">& mehr'
    section.save()

    page = uncached_page(client)

    escaped = "Passt &lt;b class=&quot;x&quot;&gt;&amp; mehr"
    assert f"<summary>Erklärung und Tabelle: {escaped}</summary>" in page
    assert f'-caption">{escaped}</caption>' in page
    assert '<b class="x">' not in page


def test_old_prices_are_said_to_be_out_of_date_once_below_the_short_answer(client, seeded):
    with mock.patch("django.utils.timezone.localdate", return_value=date(2027, 3, 1)):
        page = uncached_page(client)
    assert page.count('<p class="stale-notice" role="note">') == 1
    assert page.index('class="stale-notice"') < page.index('<nav class="toc"')


def test_the_fit_table_marks_a_cell_where_the_rule_of_thumb_says_otherwise(seeded):
    page = english_page()
    # the seed's guide has two: QLoRA on one L40S and LoRA on one H200 fit by the estimate,
    # not by the rule of thumb
    seeded_cells = [c for row in page.fit_rows for c in row.cells if c.rule_disagrees]
    assert [(c.plan.configuration.gpu.slug, c.method) for c in seeded_cells] == [
        ("l40s", "qlora"),
        ("h200", "lora"),
    ]
    first, *rows = page.fit_rows
    index, cell = next((i, c) for i, c in enumerate(first.cells) if not c.rule_disagrees)
    fits = cell.plan.configuration.total_memory_gb + (1 if cell.fits else -1)
    disagreeing = replace(cell, plan=replace(cell.plan, planning_gb=fits))
    cells = [*first.cells[:index], disagreeing, *first.cells[index + 1 :]]
    page = replace(page, fit_rows=[replace(first, cells=cells), *rows])

    table = rendered_table(page, "fit_table")

    assert table.count('<sup class="rule-disagrees" aria-hidden="true">*</sup>') == 3
    assert table.count('; the rule of thumb says otherwise"') == 2 * 3  # each label and title
    assert '<p class="note">* The cited rule of thumb marks this cell the other way' in table


def test_the_run_table_says_which_speeds_were_measured_and_where_no_block_covers_a_run(seeded):
    page = english_page()
    measured, uncovered, *rows = page.run_rows
    measured = replace(measured, run=replace(measured.run, measured=True))
    uncovered = replace(uncovered, cost=replace(uncovered.cost, block_hours=None))

    table = rendered_table(replace(page, run_rows=[measured, uncovered, *rows]), "cost_table")

    assert table.count('data-basis="measured"') == 1
    assert table.count(" (measured)</td>") == 1
    assert (
        table.count('<sup><a href="#derived-runs" aria-label="derived">*</a></sup>')
        == len(rows) + 1
    )
    assert table.count(">more than our largest block</td>") == 1


def test_the_method_table_says_what_is_not_rented_not_offered_or_chosen_by_our_editors(seeded):
    page = english_page()
    chosen, nothing, *rows = page.method_summary
    option = chosen.recommended[0]
    options = [replace(option, usd_per_hour=None), replace(option, run=None)]
    chosen = replace(chosen, recommended=options, override=True, peak_on="8× B200", close_call=None)
    nothing = replace(
        nothing, recommended=[], not_offered="nothing on one host", override=True, close_call=None
    )

    table = rendered_table(replace(page, method_summary=[chosen, nothing, *rows]), "method_table")

    row = table.split(f'<tr data-method="{chosen.method.slug}">', 1)[1].split("</tr>", 1)[0]
    rent = row.split('<td data-label="Rent">', 1)[1]
    unpriced, no_run = rent.split("<br>")
    assert f"{option.label}</span> (not rented) <a " in unpriced
    assert re.search(r"\(\$[\d.,]+/hour\) <a ", no_run)  # its price per hour, and no run
    assert table.count("(our editors’ choice)") == 1  # not where nothing is offered
    assert 'on <span class="nowrap">8× B200</span></span></td>' in table
    assert '<td data-label="Rent">Nothing on one host</td>' in table


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
    note = "Faustregeln stammen aus den zitierten Quellen."
    assert note in uncached_page(client)
    review_legal_pages()
    assert note not in uncached_page(client, "/de/legal/imprint/")


def test_a_ratio_and_a_missing_figure_in_the_comparison_table(seeded):
    page = english_page()
    [section] = [s for s in page.sections if s.comparison]
    first, second, *rows = section.comparison.rows
    comparison = replace(
        section.comparison,
        rows=[replace(first, ratio=D("2")), replace(second, first=None, ratio=None), *rows],
    )
    with translation.override("en"):
        table = render_to_string(
            "guides/includes/comparison_table.html", {"comparison": comparison, "caption": ""}
        )
    a, b = comparison.first.name, comparison.second.name
    assert 'aria-label="Comparison">' in table and f"<caption>{a} vs {b}</caption>" in table
    assert '<td class="num" data-label="Ratio">2×</td>' in table
    assert f'<td class="num" data-label="{a}">—</td>' in table
    assert table.count('<td class="num" data-label="Ratio">—</td>') >= 1
