"""Template filters that format the pages' raw Decimals for the active language, through the
``guides.content.presentation`` functions prose tokens use; None renders as ""."""

import json
import re
from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlsplit

from django import template
from django.conf import settings
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language_info, gettext

from guides.content import phrases as japanese_phrases
from guides.content import presentation
from guides.content.page_figures import PriceDates
from guides.pages import site
from guides.pages.assembly import ChartLine, Offer
from pricing.domain.calculations import MemoryEstimate
from pricing.selectors import PriceRun, PriceSummary

register = template.Library()


def _blank_if_none(format_value: Callable) -> Callable:
    def filter_function(value):
        return "" if value is None else format_value(value)

    return filter_function


@register.filter
def stale_after_days(checked: PriceDates | None) -> int | None:
    """``PRICE_STALE_AFTER_DAYS`` where the oldest of the quoted prices is older than that
    (the page then tells visitors so, beside its date; cached pages expire at midnight), else
    None."""
    limit = settings.PRICE_STALE_AFTER_DAYS
    if checked is None or not checked.stale(today=timezone.localdate(), after_days=limit):
        return None
    return limit


register.filter("num", _blank_if_none(presentation.number))
register.filter("gb", _blank_if_none(presentation.gigabytes))
register.filter("usd", _blank_if_none(presentation.usd))
register.filter("tenth_gb", _blank_if_none(presentation.estimated_gigabytes))
register.filter("longdate", _blank_if_none(presentation.long_date))
register.filter("mediumdate", _blank_if_none(presentation.medium_date))
register.filter("parenthesized", _blank_if_none(presentation.parenthesized))


@register.filter
def hours_range(run, unit: str = "h") -> str:
    """A derived run's hours as the model's error allows them: '6.1–13.3 h', or '6.1–13.3'
    with ``unit`` "none" (in a column headed "Hours"); '' where measured."""
    if not run.has_range:
        return ""
    if unit == "none":
        return presentation.number_range(run.shown_hours_low, run.shown_hours_high)
    return presentation.hours_range(run.shown_hours_low, run.shown_hours_high)


@register.filter
def usd_span(figure) -> str:
    """A modelled figure's range, from its (modelled, low, high): '$0.31–$0.69' (en),
    '0,31 $–0,69 $' (de), '$0.31～$0.69' (ja); '' without one."""
    return "" if not figure else presentation.usd_range(figure[1], figure[2])


def _whole(value: Decimal) -> Decimal:
    return value.quantize(Decimal(1), ROUND_HALF_UP)


@register.filter
def whole(value: Decimal) -> str:
    """A modelled speed or count as pages show it, whole (half up): '18'."""
    return presentation.number(_whole(value))


@register.filter
def number_span(figure) -> str:
    """As ``usd_span``, for plain figures, each end whole (a modelled speed): '18–38'."""
    return "" if not figure else presentation.number_range(_whole(figure[1]), _whole(figure[2]))


@register.filter
def cost_range(run) -> str:
    """A derived run's cost as the model's error allows it: '$4.89–$9.99'; '' where measured."""
    if not run.has_range or run.usd_per_run is None:
        return ""
    return presentation.usd_range(run.usd_per_run_low, run.usd_per_run_high)


@register.filter
def covering_block(cost) -> str:
    """The GPU-hour block that covers a run and its price: '24 GPU-hours: $46.10' (a block
    is GPU-hours of one GPU model, shared by all the run's GPUs)."""
    if cost.block_hours is None:
        return gettext("more than our largest block")
    return gettext("%(hours)s GPU-hours: %(cost)s") % {
        "hours": presentation.number(cost.block_hours),
        "cost": presentation.usd(cost.block_cost_usd) if cost.block_cost_usd is not None else "",
    }


@register.filter
def option_prices(option) -> str:
    """What a recommended configuration costs per hour, and for the guide's training budget."""
    if option.usd_per_hour is None:
        return gettext("not rented")
    per_hour = presentation.usd(option.usd_per_hour)
    if option.run is None or option.run.usd_per_run is None:
        return gettext("%(price)s/hour") % {"price": per_hour}
    return gettext("%(price)s/hour, %(cost)s a run of %(hours)s\u00a0h") % {
        "price": per_hour,
        "cost": presentation.usd(option.run.usd_per_run),
        "hours": presentation.number(option.run.shown_hours),
    }


@register.filter
def fit_verdict(cell) -> str:
    """A fit table mark in words, for its label and tooltip: 'fits: needs 41.2 GB per GPU,
    79.1 GB usable', and where the cited rule of thumb says otherwise, that too."""
    figures = {
        "need": presentation.estimated_gigabytes(cell.plan.reserved_gb_per_gpu),
        "usable": presentation.estimated_gigabytes(cell.plan.usable_gb_per_gpu),
    }
    if cell.fits:
        said = gettext("fits: needs %(need)s per GPU, %(usable)s usable") % figures
    else:
        said = gettext("does not fit: needs %(need)s per GPU, %(usable)s usable") % figures
    if cell.rule_disagrees:
        said = gettext("%(said)s; the rule of thumb says otherwise") % {"said": said}
    return said


@register.filter
def price_steps(runs: Iterable[PriceRun]) -> str:
    """'$0.92 from October 29, 2026 and $0.99 from November 15, 2026': a chart line in words."""
    return presentation.word_list(
        gettext("%(price)s from %(date)s")
        % {"price": presentation.usd(r.usd_per_gpu_hour), "date": presentation.long_date(r.first)}
        for r in runs
    )


@register.filter
def series_description(line: ChartLine) -> str:
    """A chart line in words, as long for a year of daily changes as for three: its prices
    from each day, or how many since when, their range and the latest few."""
    provider, summary = provider_name(line), line.summary
    if line.single:
        return gettext("%(provider)s: one check so far, %(price)s on %(date)s.") % {
            "provider": provider,
            "price": presentation.usd(summary.latest.usd_per_gpu_hour),
            "date": presentation.long_date(summary.latest.last),
        }
    latest = price_steps(summary.recent)
    if summary.prices == len(summary.recent):
        return gettext("%(provider)s: %(steps)s.") % {"provider": provider, "steps": latest}
    return gettext(
        "%(provider)s: %(count)s prices since %(start)s, from %(low)s to %(high)s; "
        "the latest %(steps)s."
    ) % {
        "provider": provider,
        "count": presentation.number(summary.prices),
        "start": presentation.long_date(summary.first.first),
        "low": presentation.usd(summary.low),
        "high": presentation.usd(summary.high),
        "steps": latest,
    }


@register.filter
def legend_entry(line: ChartLine) -> str:
    """A legend's words for a line: the provider, and for a single check its day."""
    if not line.single:
        return provider_name(line)
    return gettext("%(provider)s: one check so far (%(date)s)") % {
        "provider": provider_name(line),
        "date": presentation.medium_date(line.summary.latest.last),
    }


@register.filter
def date_range(summary: PriceSummary) -> str:
    """The days a provider's prices were checked at: one day, or the first to the last."""
    return presentation.date_range(summary.first.first, summary.latest.last)


@register.filter
def provider_name(item: ChartLine | Offer) -> str:
    """A provider's name, marked as ours for the house: a chart line or an offer."""
    return (
        gettext("%(provider)s (ours)") % {"provider": item.provider}
        if item.house
        else item.provider
    )


FLAG_RE = re.compile(r"(?<!\S)(--?[\w.=-]+)")


@register.filter
def flag_pieces(text: str) -> list[tuple[bool, str]]:
    """``text`` in pieces, each command-line flag (``--throughput``) one marked True: the
    template keeps each flag on one line."""
    return [(index % 2 == 1, piece) for index, piece in enumerate(FLAG_RE.split(text)) if piece]


@register.filter(is_safe=True)
def phrases(text) -> SafeString:
    """``text`` escaped, and on a Japanese page with ``<wbr>`` between its phrases, so that
    every browser breaks the line between them. Element content only: never in an attribute,
    ``<title>`` or ``<option>``."""
    return japanese_phrases.phrased(text)


@register.filter
def read_on(day) -> str:
    """' (read October 29, 2026)': when a cited source was read."""
    read = gettext("read %(date)s") % {"date": presentation.long_date(day)}
    return presentation.parenthesized(read)


@register.filter
def host(url: str) -> str:
    """'vm.massedcompute.com' for https://vm.massedcompute.com/pricing: a source's short name."""
    return urlsplit(url).hostname or ""


@register.filter
def figure(value: Decimal | None, kind: str) -> str:
    """``{{ row.first|figure:row.kind }}``: formatted as the data says (gb, usd, number)."""
    return "" if value is None else presentation.figure(value, kind)


@register.filter
def command_value(command, flag: str) -> str:
    """``{{ method.command|command_value:"--accelerate_config" }}``: the value a command gives."""
    return command.value(flag) or ""


@register.filter
def memory_needed(estimate: MemoryEstimate) -> str:
    """What the cited rules of thumb ask for: '≈ 52.5 GB', a range, or where the plan's
    margin goes past the highest rule, the lower bound and what to plan with."""
    if estimate.planning_gb != estimate.upper_gb:
        return gettext("%(low)s lower bound, ≈ %(plan)s to plan with") % {
            "low": presentation.gigabytes(estimate.lower_gb),
            "plan": presentation.gigabytes(estimate.planning_gb),
        }
    if estimate.has_range:
        return presentation.gigabyte_range(estimate.lower_gb, estimate.upper_gb)
    return "≈ " + presentation.gigabytes(estimate.planning_gb)


_JSON_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


@register.filter
def json_ld(data: dict) -> SafeString:
    """A <script type="application/ld+json"> block; <, > and & escaped as in json_script."""
    payload = json.dumps(data, ensure_ascii=False).translate(_JSON_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(payload))


@register.filter
def nowrap(text: str) -> SafeString:
    """``text`` escaped, kept on one line."""
    return format_html('<span class="nowrap">{}</span>', text)


register.simple_tag(presentation.gigabyte_range, name="gb_range")


@register.filter
def or_list(items) -> str:
    return presentation.word_list((str(i) for i in items), "or")


@register.simple_tag(takes_context=True)
def alternates(context) -> list[tuple[str, str]]:
    """(language, absolute URL) of the current page in every language, for hreflang."""
    return [(code, site.absolute(path)) for code, path in context["page_in_languages"]]


@register.simple_tag(takes_context=True)
def language_links(context) -> list[tuple[str, str, str]]:
    """(language, path of the current page in it, the language's own name): the switcher."""
    return [
        (code, path, get_language_info(code)["name_local"])
        for code, path in context["page_in_languages"]
    ]


register.simple_tag(presentation.comparison_title, name="comparison_title")


OG_LOCALES = {"en": "en_US", "de": "de_DE", "ja": "ja_JP"}


@register.simple_tag
def og_locale(language: str) -> str:
    """Open Graph's locale for a language code: 'de' -> 'de_DE'."""
    return OG_LOCALES.get(language, language)


@register.simple_tag
def config_label(configuration) -> str:
    """A configuration as tables write it: '1× A100 80GB' (en, de), 'A100 80GBを1基' (ja)."""
    return presentation.config_label(configuration.count, configuration.gpu.name)
