"""Every token kind, declared beside the function that renders it.

A render function takes the page's ``PageFigures`` and the parsed arguments (optional ones
have defaults in the signature) and returns the figure formatted for the active language.
It raises ``MissingFigure`` where the data is not on file; the renderer shows a dash then.
Adding a kind touches only this module.
"""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from guides import presentation as show
from guides.figures import MissingFigure, PageFigures
from guides.tokens.registry import (
    CONFIG,
    FACT,
    GPU,
    METHOD,
    PROVIDER,
    RULE_NUMBER,
    Choice,
    ConfigRef,
    registry,
)
from pricing import calculations as calc

WHICH_ESTIMATE = Choice(("planning", "lower", "upper", "range"))
SPEC_FIELDS = Choice(("bf16", "bandwidth", "memory"))
LINK_TARGETS = {
    "vram": ("guides:vram", _("How much VRAM do I need?")),
    "gpus": ("guides:gpus", _("GPU prices")),
}


# --- the model and its memory -----------------------------------------------------------


@registry.kind("params", example="[[params]]", help=_("the guide's model size in billions: 70"))
def params(f: PageFigures) -> str:
    return show.number(f.params_billion)


@registry.kind(
    "memory",
    required=(METHOD,),
    optional=(WHICH_ESTIMATE,),
    example="[[memory lora lower]]",
    help=_(
        "a method's memory for the guide's model: planning (default), lower, upper "
        "or range, e.g. 140 GB"
    ),
)
def memory(f: PageFigures, method: str, which: str = "planning") -> str:
    if which == "range":
        estimate = f.estimate(method)
        if not estimate.has_range:
            return show.gigabytes(estimate.upper_gb)
        return show.gigabyte_range(estimate.lower_gb, estimate.upper_gb)
    return show.gigabytes(f.memory(method, which))


@registry.kind(
    "bytes",
    required=(METHOD,),
    optional=(RULE_NUMBER,),
    example="[[bytes full-adamw 2]]",
    help=_("bytes per parameter of a method's rule (rule 1 by default): 18"),
)
def bytes_per_param(f: PageFigures, method: str, rule: int = 1) -> str:
    return show.number(f.rule(method, rule).bytes_per_param)


@registry.kind(
    "breakdown",
    required=(METHOD,),
    optional=(RULE_NUMBER,),
    example="[[breakdown full-adamw 1]]",
    help=_("how a rule adds up: 2 + 12 + 2 = 16, or 48 ÷ 65 = 0.74"),
)
def breakdown(f: PageFigures, method: str, rule_number: int = 1) -> str:
    rule = f.rule(method, rule_number)
    if rule.is_measured:
        shown = rule.measured_ratio.quantize(calc.CENT)
        return (
            f"{show.number(rule.reference_memory_gb)} ÷ "
            f"{show.number(rule.reference_params_billion)} = {show.number(shown)}"
        )
    parts = " + ".join(show.number(c.bytes_per_param) for c in rule.components)
    return f"{parts} = {show.number(rule.bytes_per_param)}"


@registry.kind(
    "reference",
    required=(METHOD, Choice(("memory", "params"))),
    example="[[reference qlora memory]]",
    help=_("the measured run behind a rule: its memory (48 GB) or model size (65)"),
)
def reference(f: PageFigures, method: str, which: str) -> str:
    rule = f.rule(method)
    if not rule.is_measured:
        raise MissingFigure(f"a measured reference run for {method}")
    if which == "memory":
        return show.gigabytes(rule.reference_memory_gb)
    return show.number(rule.reference_params_billion)


@registry.kind(
    "margin",
    required=(METHOD,),
    optional=(Choice(("percent", "factor")),),
    example="[[margin lora]]",
    help=_("a method's planning margin: 20 % (percent) or 1.2 (factor)"),
)
def margin(f: PageFigures, method: str, style: str = "percent") -> str:
    fraction = f.method(method).rule.planning_margin
    return show.number(1 + fraction) if style == "factor" else show.percent(fraction)


@registry.kind(
    "weights",
    required=(METHOD,),
    example="[[weights qlora]]",
    help=_("the base weights alone at the method's precision: 35 GB"),
)
def weights(f: PageFigures, method: str) -> str:
    return show.gigabytes(f.weights_gb(method))


# --- GPUs, configurations and prices ----------------------------------------------------


@registry.kind(
    "vram",
    required=(CONFIG,),
    example="[[vram 8xh200]]",
    help=_("total memory of N GPUs: 1,128 GB"),
)
def vram(f: PageFigures, config: ConfigRef) -> str:
    return show.gigabytes(_configuration(f, config).total_memory_gb)


@registry.kind(
    "headroom",
    required=(CONFIG, METHOD),
    optional=(WHICH_ESTIMATE,),
    example="[[headroom 8xh200 full-adamw lower]]",
    help=_("memory a configuration leaves after a method's estimate: 8 GB"),
)
def headroom(f: PageFigures, config: ConfigRef, method: str, which: str = "planning") -> str:
    return show.gigabytes(calc.headroom_gb(_configuration(f, config), f.memory(method, which)))


@registry.kind(
    "price",
    required=(CONFIG,),
    example="[[price 8xb200@massed-compute]]",
    help=_("price per hour of N GPUs, ours unless @provider is given: $43.46"),
)
def price(f: PageFigures, config: ConfigRef) -> str:
    return show.usd(_price(f, config))


@registry.kind(
    "price_ratio",
    required=(CONFIG, CONFIG),
    example="[[price_ratio 8xb200 a100-80gb]]",
    help=_("how many times the first configuration's hourly price is the second's: 40"),
)
def price_ratio(f: PageFigures, first: ConfigRef, second: ConfigRef) -> str:
    return show.number(calc.ratio(_price(f, first), _price(f, second), calc.WHOLE))


def _spec_value(f: PageFigures, gpu: str, field: str):
    listing = f.listing(gpu)
    return {
        "bf16": listing.bf16_dense_tflops,
        "bandwidth": listing.bandwidth_gb_s,
        "memory": listing.memory_gb,
    }[field]


@registry.kind(
    "spec",
    required=(GPU, SPEC_FIELDS),
    example="[[spec h100 bf16]]",
    help=_("a GPU spec: bf16 (TFLOPS), bandwidth (GB/s) or memory"),
)
def spec(f: PageFigures, gpu: str, field: str) -> str:
    value = _spec_value(f, gpu, field)
    return show.gigabytes(value) if field == "memory" else show.number(value)


@registry.kind(
    "spec_ratio",
    required=(GPU, GPU, SPEC_FIELDS),
    example="[[spec_ratio h100 a100-80gb bf16]]",
    help=_("a spec of the first GPU divided by the second's: 3.2"),
)
def spec_ratio(f: PageFigures, first: str, second: str, field: str) -> str:
    return show.number(calc.ratio(_spec_value(f, first, field), _spec_value(f, second, field)))


@registry.kind(
    "checked_on",
    optional=(PROVIDER,),
    example="[[checked_on]]",
    help=_("the date of the latest price check, ours unless a provider is given"),
)
def checked_on(f: PageFigures, provider: str | None = None) -> str:
    return show.long_date(f.check_date(provider))


@registry.kind(
    "smallest_gpu",
    required=(METHOD,),
    optional=(Choice(("name", "memory")),),
    example="[[smallest_gpu qlora]]",
    help=_("the smallest single GPU we rent that fits a method: its name or memory"),
)
def smallest_gpu(f: PageFigures, method: str, which: str = "name") -> str:
    gpu = f.smallest_gpu(method)
    return show.gigabytes(gpu.memory_gb) if which == "memory" else gpu.name


@registry.kind(
    "cheapest",
    required=(METHOD,),
    example="[[cheapest full-adamw]]",
    help=_("the cheapest configuration of the fit table that fits a method: 8× B200"),
)
def cheapest(f: PageFigures, method: str) -> str:
    config = f.cheapest(method)
    return show.config_label(config.count, config.gpu.name)


@registry.kind(
    "blocks",
    optional=(Choice(("and", "or")),),
    example="[[blocks or]]",
    help=_("our GPU-hour blocks as a list: 10, 24, 168 or 720"),
)
def blocks(f: PageFigures, joined_by: str = "and") -> str:
    style = "or" if joined_by == "or" else "standard"
    return show.word_list((show.number(b) for b in f.blocks), style)


@registry.kind(
    "scenario_blocks",
    example="[[scenario_blocks]]",
    help=_("the blocks the cost scenarios fill: 10, 24 and 168"),
)
def scenario_blocks(f: PageFigures) -> str:
    return show.word_list(show.number(b) for b in f.scenario_blocks())


@registry.kind(
    "longest_sequence",
    required=(METHOD,),
    example="[[longest_sequence qlora]]",
    help=_(
        "how long a sequence each configuration recommended for a method holds at the guide's "
        "micro-batch, by the peak-memory estimate: 1× A100 80GB up to 9,216 tokens"
    ),
)
def longest_sequence(f: PageFigures, method: str) -> str:
    items = []
    for config in f.recommended(method):
        tokens = f.longest_sequence(method, config)
        words = {"count": config.count, "gpu": config.gpu.name, "tokens": show.number(tokens)}
        if tokens:
            items.append(gettext("%(count)s× %(gpu)s up to %(tokens)s tokens") % words)
        else:
            items.append(gettext("%(count)s× %(gpu)s: not even 256 tokens") % words)
    return show.word_list(items)


@registry.kind(
    "throughput",
    required=(METHOD,),
    example="[[throughput qlora]]",
    help=_(
        "training speed measured for the guide's model and run, where it was measured: "
        "508.2 tokens per second on one H200"
    ),
)
def throughput(f: PageFigures, method: str) -> str:
    measured = f.throughput(method)
    return gettext("%(speed)s tokens per second on one %(gpu)s") % {
        "speed": show.number(measured.tokens_per_s),
        "gpu": measured.gpu_name,
    }


# --- cited facts and links --------------------------------------------------------------


@registry.kind(
    "fact",
    required=(FACT,),
    example="[[fact minimum-top-up]]",
    help=_("a cited figure kept under Facts, formatted by its kind"),
)
def fact(f: PageFigures, key: str) -> str:
    cited = f.fact(key)
    if cited.kind == "percent":
        return show.percent(cited.value / 100)  # stored as 1 for 1 %
    return show.usd(cited.value) if cited.kind == "usd" else show.number(cited.value)


@registry.kind(
    "link",
    required=(Choice(tuple(LINK_TARGETS)),),
    example="[[link vram]]",
    help=_("a link to one of our pages: vram or gpus"),
    html=True,
)
def link(f: PageFigures, target: str) -> str:
    url_name, label = LINK_TARGETS[target]
    return format_html('<a href="{}">{}</a>', reverse(url_name), label)


@registry.kind(
    "compare_link",
    required=(GPU, GPU),
    example="[[compare_link h100 a100-80gb]]",
    help=_("a link to the comparison page of two GPUs"),
    html=True,
)
def compare_link(f: PageFigures, first: str, second: str) -> str:
    a, b = f.listing(first), f.listing(second)
    url = reverse("guides:compare", kwargs={"first": a.slug, "second": b.slug})
    return format_html(
        '<a href="{}">{}</a>', url, gettext("%(a)s vs %(b)s") % {"a": a.name, "b": b.name}
    )


def _configuration(f: PageFigures, config: ConfigRef) -> calc.Configuration:
    return f.configuration(config.gpu, config.count, provider=config.provider)


def _price(f: PageFigures, config: ConfigRef) -> Decimal:
    return f.price(config.gpu, config.count, provider=config.provider)
