"""The guide's widest tables, their body rows built in Python.

The fit table has a cell per configuration and method (~60 on a guide): as template nodes, its
loops and filters were a quarter of an uncached guide render; built here with ``format_html``
they cost a tenth of that. The HTML is the template's, byte for byte; values are escaped the
same way (``format_html`` escapes what is not already safe, as ``{{ }}`` does).
"""

from collections.abc import Callable, Hashable

from django import template
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext, pgettext

from guides.content import presentation
from guides.content.page_figures import PriceDates
from guides.content.phrases import phrased
from guides.pages.assembly import (
    Comparison,
    FitCell,
    GuidePage,
    LabelledCostRow,
    LabelledFitRow,
    LabelledRunRow,
    MethodSummaryRow,
    SectionView,
)
from guides.templatetags.figures import stale_after_days
from pricing.domain.calculations import MemoryEstimate

register = template.Library()


def _row(_values: tuple[Hashable, ...], build: Callable[[], str]) -> str:
    return build()


_FIT_ROW = (
    '\n    <tr data-config="{}">\n      <th scope="row" class="nowrap">{}</th>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    "      {}\n"
    '      <td class="num" data-label="{}">{}</td>\n    </tr>\n  '
)
_FIT_CELL = (
    '<td data-label="{}" data-method="{}" class="mark {}">'
    '<span role="img" aria-label="{}" title="{}">{}</span>{}</td>'
)
_RULE_DISAGREES = mark_safe('<sup class="rule-disagrees" aria-hidden="true">*</sup>')


@register.simple_tag
def fit_table_rows(
    rows: list[LabelledFitRow], total_heading: str, price_heading: str
) -> SafeString:
    """``<tr>`` for each configuration: its memory, the estimate's mark per method (with an
    asterisk where the cited rule of thumb says otherwise), its price per hour."""
    return mark_safe(
        "".join(
            _row(
                (
                    "fit",
                    fit.label,
                    fit.configuration,
                    tuple(
                        (c.label, c.method, c.plan.planning_gb, c.plan.reserved_gb_per_gpu)
                        for c in fit.cells
                    ),
                    total_heading,
                    price_heading,
                ),
                lambda fit=fit: _fit_row(fit, total_heading, price_heading),
            )
            for fit in rows
        )
    )


def _fit_row(fit: LabelledFitRow, total_heading: str, price_heading: str) -> str:
    return format_html(
        _FIT_ROW,
        f"{fit.configuration.gpu.slug}:{fit.configuration.count}",
        fit.label,
        total_heading,
        _or_blank(presentation.gigabytes, fit.configuration.total_memory_gb),
        format_html_join("", _FIT_CELL, (_fit_cell(cell) for cell in fit.cells)),
        price_heading,
        _or_blank(presentation.usd, fit.configuration.usd_per_hour),
    )


def _fit_cell(cell: FitCell) -> tuple:
    plan = cell.plan
    words = {
        "need": presentation.estimated_gigabytes(plan.reserved_gb_per_gpu),
        "usable": presentation.estimated_gigabytes(plan.usable_gb_per_gpu),
    }
    if cell.fits:
        css, mark, said = (
            "yes",
            "✓",
            gettext("fits: needs %(need)s per GPU, %(usable)s usable") % words,
        )
    else:
        css, mark = "no", "✗"
        said = gettext("does not fit: needs %(need)s per GPU, %(usable)s usable") % words
    if cell.rule_disagrees:
        said = gettext("%(said)s; the rule of thumb says otherwise") % {"said": said}
    disagrees = _RULE_DISAGREES if cell.rule_disagrees else ""
    return (cell.label, cell.method, css, said, said, mark, disagrees)


_COST_ROW = (
    '\n    <tr>\n      <th scope="row">{}</th>\n'
    '      <td class="nowrap" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n    </tr>\n  '
)


@register.simple_tag
def cost_table_rows(
    rows: list[LabelledCostRow],
    config_heading: str,
    hours_heading: str,
    gpu_hours_heading: str,
    cost_heading: str,
) -> SafeString:
    """``<tr>`` for each cost scenario: its method, configuration, hours, GPU-hours and cost."""
    headings = (config_heading, hours_heading, gpu_hours_heading, cost_heading)
    return mark_safe(
        "".join(
            _row(_cost_key(cost, headings), lambda cost=cost: _cost_row(cost, *headings))
            for cost in rows
        )
    )


def _cost_key(cost: LabelledCostRow, headings: tuple[str, ...]) -> tuple[Hashable, ...]:
    """What a cost row shows is worked out from these: hours and GPU-hours from the scenario's
    hours and count, the cost from those and the price."""
    scenario = cost.row.scenario
    return (
        "cost",
        cost.method_name,
        cost.label,
        scenario.configuration,
        scenario.hours,
        cost.row.block_hours,
        *headings,
    )


def _cost_row(
    cost: LabelledCostRow,
    config_heading: str,
    hours_heading: str,
    gpu_hours_heading: str,
    cost_heading: str,
) -> str:
    return format_html(
        _COST_ROW,
        cost.method_name,
        config_heading,
        cost.label,
        hours_heading,
        _or_blank(presentation.number, cost.row.scenario.hours),
        gpu_hours_heading,
        _or_blank(presentation.number, cost.row.gpu_hours),
        cost_heading,
        _or_blank(presentation.usd, cost.row.cost_usd),
    )


_RUN_ROW = (
    '\n    <tr data-method="{}" data-config="{}">\n      <th scope="row">{}</th>\n'
    '      <td class="nowrap" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}" data-basis="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n'
    '      <td class="num nowrap" data-label="{}">{}</td>\n    </tr>\n  '
)


@register.simple_tag
def run_table_rows(rows: list[LabelledRunRow], *headings: str) -> SafeString:
    """``<tr>`` for each run of the training budget: method, configuration, speed (measured or
    derived), hours, GPU-hours, the run's cost and the GPU-hour block that covers it."""
    return mark_safe(
        "".join(
            _row(_run_key(row, headings), lambda row=row: _run_row(row, *headings)) for row in rows
        )
    )


def _run_key(row: LabelledRunRow, headings: tuple[str, ...]) -> tuple[Hashable, ...]:
    """What a run row shows is worked out from these: the hours from the tokens and the speed,
    the cost from those and the price, the block from its hours and the price."""
    run, scenario = row.run, row.cost.scenario
    return (
        "run",
        row.method,
        row.method_name,
        row.label,
        run.configuration,
        run.tokens_per_s,
        run.measured,
        run.training_tokens,
        scenario.configuration,
        scenario.hours,
        row.cost.block_hours,
        *headings,
    )


def _run_row(row: LabelledRunRow, *headings: str) -> str:
    config_h, speed_h, hours_h, gpu_hours_h, cost_h, block_h = headings
    return format_html(
        _RUN_ROW,
        row.method,
        f"{row.run.configuration.gpu.slug}:{row.run.configuration.count}",
        row.method_name,
        config_h,
        row.label,
        speed_h,
        row.run.time_basis,
        _speed(row.run),
        hours_h,
        presentation.number(row.run.shown_hours),
        gpu_hours_h,
        presentation.number(row.run.shown_gpu_hours),
        cost_h,
        _or_blank(presentation.usd, row.run.usd_per_run),
        block_h,
        _block(row.cost),
    )


def _speed(run) -> str:
    """Measured speeds say so; derived ones carry the note's mark (the table's footnote)."""
    speed = presentation.number(run.tokens_per_s)
    if run.measured:
        return _translated(gettext("%(speed)s (measured)"), speed=speed)
    return format_html(
        '{}<sup><a href="#derived-runs" aria-label="{}">*</a></sup>', speed, gettext("derived")
    )


def _block(cost) -> str:
    if cost.block_hours is None:
        return gettext("more than our largest block")
    return _translated(
        gettext("%(hours)s h: %(cost)s"),
        hours=presentation.number(cost.block_hours),
        cost=_or_blank(presentation.usd, cost.block_cost_usd),
    )


_COMPARISON_ROW = (
    '\n    <tr>\n      <th scope="row">{}</th>\n'
    '      <td class="num" data-label="{}">{}</td><td class="num" data-label="{}">{}</td>\n'
    '      <td class="num" data-label="{}">{}</td>\n    </tr>\n  '
)
_NO_VALUE = "—"


@register.simple_tag
def comparison_table_rows(comparison: Comparison, ratio_heading: str) -> SafeString:
    """``<tr>`` for each spec: the two GPUs' values and their ratio; each kept by the values
    it shows (a price among them)."""
    first, second = comparison.first.name, comparison.second.name
    return mark_safe(
        "".join(
            _row(
                (
                    "comparison",
                    str(row.heading),
                    row.kind,
                    row.first,
                    row.second,
                    row.ratio,
                    first,
                    second,
                    ratio_heading,
                ),
                lambda row=row: _comparison_row(row, first, second, ratio_heading),
            )
            for row in comparison.rows
        )
    )


def _comparison_row(row, first: str, second: str, ratio_heading: str) -> str:
    return format_html(
        _COMPARISON_ROW,
        row.heading,
        first,
        _figure_or_dash(row.first, row.kind),
        second,
        _figure_or_dash(row.second, row.kind),
        ratio_heading,
        # as {% blocktranslate %}: the message as is, the value escaped
        _translated(gettext("%(ratio)s×"), ratio=presentation.number(row.ratio))
        if row.ratio
        else _NO_VALUE,
    )


_COMPARISON_TABLE = (
    '\n\n<div class="table-scroll" role="region" tabindex="0" aria-label="{}">\n'
    '<table class="comparison">\n  <caption>{}</caption>\n'
    '  <thead><tr><th scope="col">{}</th><th scope="col" class="num">{}</th>'
    '<th scope="col" class="num">{}</th><th scope="col" class="num">{}</th></tr></thead>\n'
    "  <tbody>\n  {}\n  </tbody>\n</table>\n</div>\n{}"
)


@register.simple_tag
def comparison_table(comparison: Comparison, caption: str) -> SafeString:
    """Two GPUs' specs and prices side by side (comparison_table.html, on the comparison page
    and in a guide's section), captioned ``caption`` or "A vs B"."""
    first, second = comparison.first.name, comparison.second.name
    ratio_heading = _heading("Ratio")
    return format_html(
        _COMPARISON_TABLE,
        caption or _heading("Comparison"),
        caption or _translated(gettext("%(a)s vs %(b)s"), a=first, b=second),
        _heading("Spec"),
        first,
        second,
        ratio_heading,
        comparison_table_rows(comparison, ratio_heading),
        checked_on(comparison.checked),
    )


_METHOD_ROW = (
    '\n    <tr data-method="{}">\n      <th scope="row">{}</th>\n'
    '      <td data-label="{}">{}</td>\n'
    '      <td data-label="{}">{}</td>\n    </tr>\n  '
)


@register.simple_tag
def method_table_rows(
    rows: list[MethodSummaryRow], memory_heading: str, rent_heading: str
) -> SafeString:
    """``<tr>`` for each method: the memory it needs, and what to rent for it at what price."""
    return mark_safe(
        "".join(
            _row(
                (
                    "method",
                    row.method,
                    tuple(_option_key(option) for option in row.recommended),
                    row.not_offered,
                    row.override,
                    row.peak_gb_per_gpu,
                    row.peak_on,
                    memory_heading,
                    rent_heading,
                ),
                lambda row=row: _method_row(row, memory_heading, rent_heading),
            )
            for row in rows
        )
    )


def _option_key(option) -> tuple[Hashable, ...]:
    """What a recommended option shows is worked out from these (its run's hours and cost from
    the tokens and speed, and the price in its configuration's key)."""
    run = option.run
    return (
        option.label,
        option.usd_per_hour,
        option.config,
        option.rent_url,
        option.rent_label,
        None
        if run is None
        else (run.configuration, run.tokens_per_s, run.measured, run.training_tokens),
    )


def _method_row(row: MethodSummaryRow, memory_heading: str, rent_heading: str) -> str:
    return format_html(
        _METHOD_ROW,
        row.method.slug,
        row.method.name,
        memory_heading,
        _memory_cell(row),
        rent_heading,
        _what_to_rent(row),
    )


def _memory_cell(row: MethodSummaryRow) -> SafeString:
    """The rule of thumb, and under it the estimate that decides."""
    peak = presentation.gigabytes(row.peak_gb_per_gpu)
    if row.peak_on:
        estimate = _translated(
            gettext("estimate: %(peak)s per GPU on %(config)s"),
            peak=peak,
            config=format_html('<span class="nowrap">{}</span>', row.peak_on),
        )
    else:
        estimate = _translated(gettext("estimate: %(peak)s on one GPU"), peak=peak)
    return format_html(
        '{}<br><span class="estimate">{}</span>',
        _translated(gettext("rule of thumb: %(rule)s"), rule=_memory_needed(row.method.estimate)),
        estimate,
    )


def _memory_needed(estimate: MemoryEstimate) -> str:
    if estimate.planning_gb != estimate.upper_gb:
        return _translated(
            gettext("%(low)s lower bound, ≈ %(plan)s to plan with"),
            low=_or_blank(presentation.gigabytes, estimate.lower_gb),
            plan=_or_blank(presentation.gigabytes, estimate.planning_gb),
        )
    if estimate.has_range:
        return presentation.gigabyte_range(estimate.lower_gb, estimate.upper_gb)
    return "≈ " + _or_blank(presentation.gigabytes, estimate.planning_gb)


def _what_to_rent(row: MethodSummaryRow) -> str:
    if not row.recommended:
        return capfirst(row.not_offered)
    separator = pgettext(
        "between alternatives, with the spaces the language puts around it", " or "
    )
    # Each option on its own line, the alternative after "or": two prices each are long.
    return mark_safe(
        format_html("<br>{}", separator.lstrip()).join(
            format_html(
                '<span class="nowrap" data-config="{}">{}</span>{} '
                '<a class="rent" href="{}">{}</a>',
                option.config,
                option.label,
                presentation.parenthesized(_option_prices(option)),
                option.rent_url,
                option.rent_label,
            )
            for option in row.recommended
        )
        + (
            format_html(' <span class="muted">{}</span>', gettext("(our editors’ choice)"))
            if row.override
            else ""
        )
    )


def _option_prices(option) -> str:
    """What a recommended configuration costs per hour and for the guide's training budget."""
    if option.usd_per_hour is None:
        return gettext("not rented")
    per_hour = presentation.usd(option.usd_per_hour)
    if option.run is None or option.run.usd_per_run is None:
        return _translated(gettext("%(price)s/hour"), price=per_hour)
    return _translated(
        gettext("%(price)s/hour, %(cost)s a run of %(hours)s h"),
        price=per_hour,
        cost=presentation.usd(option.run.usd_per_run),
        hours=presentation.number(option.run.shown_hours),
    )


def _translated(message: str, **values: str) -> SafeString:
    """As ``{% blocktranslate %}``: the translated message as is, the values escaped."""
    return mark_safe(message % {name: conditional_escape(v) for name, v in values.items()})


def _or_blank(format_value, value) -> str:
    return "" if value is None else format_value(value)


def _figure_or_dash(value, kind: str) -> str:
    return _NO_VALUE if value is None else presentation.figure(value, kind) or _NO_VALUE


# --- the guide page's sections and notes, built here rather than as template nodes -----------
# A section loop with an include per table was the largest part of the guide's templates
# after a price check; the HTML below is guide_detail.html's and the includes', byte for byte
# (tests/test_page_text.py holds them to it).

_SECTION = (
    '\n  <section id="{}" aria-labelledby="{}-h">\n    <h2 id="{}-h">{}</h2>\n    {}\n'
    "    {}\n    {}\n  </section>\n  "
)
_TABLE_FOLD = '<details class="fold table-fold"><summary>{}</summary>\n    {}</details>'


@register.simple_tag(takes_context=True)
def guide_sections(context: template.Context, sections: list[SectionView]) -> SafeString:
    """Each section of the guide: heading, body, its table folded (the section's include,
    rendered in the page's context with ``section``, ``comparison`` and ``caption`` set, as
    ``{% include %}`` did) and closing; as the template's ``{% for %}`` loop laid them out."""
    return mark_safe("".join(_section(context, section) for section in sections))


def _section(context: template.Context, section: SectionView) -> str:
    table = ""
    if section.table_template:
        # as {% blocktranslate with name=section.caption|default:section.heading %}
        summary = _translated(gettext("Table: %(name)s"), name=section.caption or section.heading)
        included = context.template.engine.get_template(section.table_template)
        with context.push(section=section, comparison=section.comparison, caption=section.caption):
            html = included.render(context)
        table = format_html(_TABLE_FOLD, summary, mark_safe(html))
    anchor = section.anchor
    return format_html(
        _SECTION, anchor, anchor, anchor, section.heading, section.body, table, section.closing
    )


@register.simple_tag
def toc_entries(sections: list[SectionView]) -> SafeString:
    """The table of contents' ``<li>`` for each section (the template's loop did this)."""
    return format_html_join(
        "", '<li><a href="#{}">{}</a></li>', ((s.anchor, s.heading) for s in sections)
    )


_FAQ_ENTRY = (
    '\n    <details class="faq-entry"><summary><h3>{}</h3></summary>\n    {}</details>\n    '
)


@register.simple_tag
def faq_entries(entries) -> SafeString:
    """Each question folded over its answer, as the template's ``{% for %}`` laid them out
    (question and answer escaped unless already safe, as ``{{ }}`` does)."""
    return format_html_join("", _FAQ_ENTRY, ((e.question, e.answer) for e in entries))


# The guide's price tables around their rows, as fit_table.html, cost_table.html and
# method_table.html laid them out (those now call these): headings escaped as {% translate %}
# does, a provider's name as {% blocktranslate %} does.

_FIT_TABLE = (
    '\n\n<div class="table-scroll" role="region" aria-labelledby="{}-caption" tabindex="0">\n'
    '<table class="fit">\n  <caption id="{}-caption">{}</caption>\n  <thead><tr>\n'
    '    <th scope="col">{}</th>\n    <th scope="col" class="num">{}</th>\n    {}\n'
    '    <th scope="col" class="num">{}</th>\n  </tr></thead>\n  <tbody>\n  {}\n  </tbody>\n'
    "</table>\n</div>\n{}\n{}"
)


@register.simple_tag
def fit_table(page: GuidePage, section: SectionView) -> SafeString:
    """The fit table: a row per configuration, a mark per method, its price per hour."""
    total_heading = _heading("Total VRAM")
    price_heading = _translated(gettext("%(provider)s per hour"), provider=page.house_name)
    note = ""
    if page.rule_disagreements:
        note = format_html(
            '<p class="note">{}</p>',
            phrased(
                _heading(
                    "* The cited rule of thumb marks this cell the other way; the estimate for "
                    "this guide's run decides."
                )
            ),
        )
    return format_html(
        _FIT_TABLE,
        section.anchor,
        section.anchor,
        section.caption or section.heading,
        _heading("Configuration"),
        total_heading,
        format_html_join(
            "", '<th scope="col" class="mark">{}</th>', ((m.short_name,) for m in page.fit_columns)
        ),
        price_heading,
        fit_table_rows(page.fit_rows, total_heading, price_heading),
        note,
        checked_on(page.fit_checked),
    )


_RUN_TABLE = (
    '\n\n<div class="table-scroll" role="region" aria-labelledby="{}-caption" tabindex="0">\n'
    '<table class="cost runs">\n  <caption id="{}-caption">{}</caption>\n  <thead><tr>\n'
    '    <th scope="col">{}</th>\n    <th scope="col">{}</th>\n'
    '    <th scope="col" class="num">{}</th>\n    <th scope="col" class="num">{}</th>\n'
    '    <th scope="col" class="num">{}</th>\n    <th scope="col" class="num">{}</th>\n'
    '    <th scope="col" class="num">{}</th>\n  </tr></thead>\n  <tbody>\n  {}\n  </tbody>\n'
    "</table>\n</div>\n{}\n{}\n{}"
)
_ASSUMED_TABLE = (
    "\n\n"
    '<div class="table-scroll" role="region" aria-labelledby="{}-assumed-caption" tabindex="0">\n'
    '<table class="cost assumed">\n  <caption id="{}-assumed-caption">{}</caption>\n'
    '  <thead><tr>\n    <th scope="col">{}</th>\n    <th scope="col">{}</th>\n'
    '    <th scope="col" class="num">{}</th>\n    <th scope="col" class="num">{}</th>\n'
    '    <th scope="col" class="num">{}</th>\n  </tr></thead>\n  <tbody>\n  {}\n  </tbody>\n'
    "</table>\n</div>\n"
)


@register.simple_tag
def cost_table(page: GuidePage, section: SectionView) -> SafeString:
    """The runs of the training budget, with the derived speeds' note, and the editors'
    assumed-hours table where the guide has cost scenarios."""
    run_headings = (
        _heading("Configuration"),
        _heading("Tokens per second"),
        _heading("Hours"),
        _heading("GPU-hours"),
        _translated(gettext("%(provider)s cost of the run"), provider=page.house_name),
        _heading("Block that covers it"),
    )
    method_heading = _heading("Method")
    note = ""
    if page.run_rows:
        note = format_html(
            '<p class="note" id="derived-runs">{}</p>',
            phrased(
                _translated(
                    gettext(
                        "* Derived, not measured: run times come from a throughput model (the "
                        "products' FLOPs at each GPU's dense BF16 peak, memory traffic at its "
                        "bandwidth, and for several GPUs the weights gathered over NVLink or "
                        "PCIe at every step), calibrated on steps timed on one H200. A real "
                        "run, with data loading and evaluation, is slower; measure your steps "
                        "per hour in a short run first."
                    )
                )
            ),
        )
    assumed = ""
    if page.cost_rows:
        headings = (
            run_headings[0],
            _heading("Assumed hours (not measured)"),
            run_headings[3],
            _translated(gettext("%(provider)s cost"), provider=page.house_name),
        )
        assumed = format_html(
            _ASSUMED_TABLE,
            section.anchor,
            section.anchor,
            _heading("Our editors’ illustration: assumed hours, not derived from the model"),
            method_heading,
            *headings,
            cost_table_rows(page.cost_rows, *headings),
        )
    return format_html(
        _RUN_TABLE,
        section.anchor,
        section.anchor,
        section.caption or section.heading,
        method_heading,
        *run_headings,
        run_table_rows(page.run_rows, *run_headings),
        note,
        assumed,
        checked_on(page.cost_checked),
    )


_METHOD_TABLE = (
    '\n\n<div class="table-scroll" role="region" aria-labelledby="{}-caption" tabindex="0">\n'
    '<table class="methods">\n  <caption id="{}-caption">{}</caption>\n'
    '  <thead><tr><th scope="col">{}</th><th scope="col">{}</th><th scope="col">{}</th></tr>'
    "</thead>\n  <tbody>\n  {}\n  </tbody>\n</table>\n</div>"
)


@register.simple_tag
def method_table(page: GuidePage, section: SectionView) -> SafeString:
    """Each method: the memory it needs and what to rent for it."""
    memory_heading, rent_heading = _heading("Memory"), _heading("Rent")
    return format_html(
        _METHOD_TABLE,
        section.anchor,
        section.anchor,
        section.caption or section.heading,
        _heading("Method"),
        memory_heading,
        rent_heading,
        method_table_rows(page.method_summary, memory_heading, rent_heading),
    )


def _heading(message: str) -> SafeString:
    """As ``{% translate "message" %}``: the translated message as is (a template's literal
    is safe, and so is its translation), as ``_translated``. Kept per language: a table asks
    for a dozen headings, each a catalogue lookup."""
    return mark_safe(gettext(message))


@register.simple_tag
def checked_on(checked: PriceDates | None) -> SafeString:
    """ "Prices checked on ..." for the prices a page or table quotes (nothing without any),
    with the newline that ended includes/checked_on.html. Kept by the language and the two
    days it shows: a long date is a Babel call."""
    if checked is None:
        return mark_safe("\n")
    return mark_safe(
        _row(("checked-on", checked.oldest, checked.newest), lambda: _checked_on(checked))
    )


def _checked_on(checked: PriceDates) -> str:
    if checked.oldest == checked.newest:
        said = _translated(
            gettext("Prices checked on %(date)s."),
            date=_or_blank(presentation.long_date, checked.oldest),
        )
    else:
        said = _translated(
            gettext("Prices checked between %(oldest)s and %(newest)s."),
            oldest=_or_blank(presentation.long_date, checked.oldest),
            newest=_or_blank(presentation.long_date, checked.newest),
        )
    return format_html('<p class="checked-on">{}</p>\n', said)


@register.simple_tag
def stale_notice(checked: PriceDates | None) -> SafeString:
    """The warning that the oldest quoted price is past ``PRICE_STALE_AFTER_DAYS`` (nothing
    otherwise), with the newline that ended includes/stale_notice.html."""
    days = stale_after_days(checked)
    if not days:
        return mark_safe("\n")
    said = _translated(
        gettext(
            "These prices may be out of date: the oldest was checked on %(date)s, more than "
            "%(days)s days ago. Check the current price before you rent."
        ),
        date=_or_blank(presentation.long_date, checked.oldest),
        days=presentation.number(days),
    )
    return format_html('<p class="stale-notice" role="note">{}</p>\n', said)


class _GuideFragmentNode(template.Node):
    def __init__(self, nodelist, guide, name, vary_on) -> None:
        self.nodelist, self.guide, self.name, self.vary_on = nodelist, guide, name, vary_on

    def render(self, context) -> str:
        return self.nodelist.render(context)


@register.tag
def guide_fragment(parser, token) -> _GuideFragmentNode:
    """``{% guide_fragment guide "name" value... %}...{% endguide_fragment %}``: what is
    inside, rendered as it is (the arguments are read by nothing)."""
    bits = token.split_contents()
    if len(bits) < 3:
        raise template.TemplateSyntaxError(f"{bits[0]} takes a guide and a name")
    nodelist = parser.parse(("endguide_fragment",))
    parser.delete_first_token()
    guide, name, *vary_on = (parser.compile_filter(bit) for bit in bits[1:])
    return _GuideFragmentNode(nodelist, guide, name, vary_on)


class _LanguagePinnedNode(template.Node):
    def __init__(self, nodelist) -> None:
        self.nodelist = nodelist

    def render(self, context) -> str:
        return self.nodelist.render(context)


@register.tag
def language_pinned(parser, token) -> _LanguagePinnedNode:
    """``{% language_pinned %}...{% endlanguage_pinned %}``: what is inside, rendered as it
    is."""
    if len(token.split_contents()) != 1:
        raise template.TemplateSyntaxError("language_pinned takes no arguments")
    nodelist = parser.parse(("endlanguage_pinned",))
    parser.delete_first_token()
    return _LanguagePinnedNode(nodelist)
