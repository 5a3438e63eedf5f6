"""Every token kind, declared beside its render function: (``PageFigures``, *parsed arguments)
to the figure formatted for the active language, or ``MissingFigure`` (shown as a dash)."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from gpuguide.lib import renting
from guides.content import presentation as show
from guides.content.page_figures import MissingFigure, NothingFits, PageFigures
from guides.content.tokens.registry import (
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
from pricing.domain import calculations as calc
from pricing.domain import training_memory as tm
from pricing.domain import trl_commands
from pricing.domain.formatting import trim
from pricing.selectors import GpuListing

# [[gap_conclusion]]: a run ten times dearer or more decides the start; twice or more is several
WIDE_GAP = Decimal(10)
SEVERAL_TIMES = Decimal(2)
WHICH_ESTIMATE = Choice(("planning", "lower", "upper", "range"))
SPEC_ATTRIBUTES = {
    "bf16": "bf16_dense_tflops",
    "bandwidth": "bandwidth_gb_s",
    "memory": "memory_gb",
}
SPEC_FIELDS = Choice(tuple(SPEC_ATTRIBUTES))
NAME_OR_MEMORY = Choice(("name", "memory"))
WHICH_RECOMMENDED = Choice(("both", "first", "alternative"))
RECOMMENDED_DETAIL = Choice(("price", "plain", "memory"))
LINK_TARGETS = {
    "vram": ("guides:vram", _("How much VRAM do I need?")),
    "gpus": ("guides:gpus", _("GPU prices")),
}


# --- the model and its memory -----------------------------------------------------------


@registry.kind("[[params]]", _("the guide's model size in billions"))
def params(f: PageFigures) -> str:
    return show.number(f.params_billion)


@registry.kind("[[model]]", _("the guide's model by name"))
def model(f: PageFigures) -> str:
    if not f.model_name:
        raise MissingFigure("the guide's model")
    return f.model_name


@registry.kind(
    "[[licence]]",
    _("how the model's weights are licensed and downloaded, from the model's licence note"),
)
def licence(f: PageFigures) -> str:
    note = f.licence_notes.get(show.language()) or f.licence_notes.get("en")
    if not note:
        raise MissingFigure("a licence note for the guide's model")
    return note


@registry.kind(
    "[[memory lora lower]]",
    _("a method's memory for the guide's model: planning (default), lower, upper or range"),
    METHOD,
    optional=(WHICH_ESTIMATE,),
)
def memory(f: PageFigures, method: str, which: str = "planning") -> str:
    if which == "range":
        estimate = f.estimate(method)
        if not estimate.has_range:
            return show.gigabytes(estimate.upper_gb)
        return show.gigabyte_range(estimate.lower_gb, estimate.upper_gb)
    return show.gigabytes(f.memory(method, which))


@registry.kind(
    "[[bytes full-adamw 2]]",
    _("bytes per parameter of a method's rule (rule 1 by default): 18"),
    METHOD,
    optional=(RULE_NUMBER,),
)
def bytes_per_param(f: PageFigures, method: str, rule: int = 1) -> str:
    return show.number(f.rule(method, rule).bytes_per_param)


@registry.kind(
    "[[breakdown full-adamw 1]]",
    _("how a rule adds up: 2 + 12 + 2 = 16, or 48 ÷ 65 = 0.74"),
    METHOD,
    optional=(RULE_NUMBER,),
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
    "[[part_bytes full-8bit-adam optimizer]]",
    _("bytes per parameter of one part of a method's rule (rule 1 by default): 2"),
    METHOD,
    Choice(("weights", "optimizer", "gradients")),
    optional=(RULE_NUMBER,),
)
def part_bytes(f: PageFigures, method: str, part: str, rule: int = 1) -> str:
    for component in f.rule(method, rule).components:
        if component.part == part:
            return show.number(component.bytes_per_param)
    raise MissingFigure(f"the {part} part of rule {rule} of {method}")


@registry.kind(
    "[[reference qlora memory]]",
    _("the measured run behind a rule: its memory (48 GB) or model size (65)"),
    METHOD,
    Choice(("memory", "params")),
)
def reference(f: PageFigures, method: str, which: str) -> str:
    rule = f.rule(method)
    if not rule.is_measured:
        raise MissingFigure(f"a measured reference run for {method}")
    if which == "memory":
        return show.gigabytes(rule.reference_memory_gb)
    return show.number(rule.reference_params_billion)


@registry.kind(
    "[[margin lora]]",
    _("a method's planning margin: 20 % (percent) or 1.2 (factor)"),
    METHOD,
    optional=(Choice(("percent", "factor")),),
)
def margin(f: PageFigures, method: str, style: str = "percent") -> str:
    fraction = f.method(method).rule.planning_margin
    return show.number(1 + fraction) if style == "factor" else show.percent(fraction)


@registry.kind("[[weights qlora]]", _("the base weights alone at the method's precision"), METHOD)
def weights(f: PageFigures, method: str) -> str:
    return show.gigabytes(f.weights_gb(method))


@registry.kind(
    "[[estimate qlora]]",
    _(
        "the estimated peak memory of the guide's run on one GPU (peak, the default), or with the "
        "memory allocator's margin (reserved), which is what must fit"
    ),
    METHOD,
    optional=(Choice(("peak", "reserved")),),
)
def estimate(f: PageFigures, method: str, which: str = "peak") -> str:
    one_gpu = f.peaks(method)[1]
    return show.estimated_gigabytes(one_gpu.reserved_gb if which == "reserved" else one_gpu.peak_gb)


# --- GPUs, configurations and prices ----------------------------------------------------


@registry.kind("[[vram 8xh200]]", _("total memory of N GPUs: 1,128 GB"), CONFIG)
def vram(f: PageFigures, config: ConfigRef) -> str:
    return show.gigabytes(_configuration(f, config).total_memory_gb)


@registry.kind(
    "[[headroom 8xh200 full-adamw lower]]",
    _("memory a configuration leaves after a method's estimate"),
    CONFIG,
    METHOD,
    optional=(WHICH_ESTIMATE,),
)
def headroom(f: PageFigures, config: ConfigRef, method: str, which: str = "planning") -> str:
    return show.gigabytes(calc.headroom_gb(_configuration(f, config), f.memory(method, which)))


@registry.kind(
    "[[price 8xb200@massed-compute]]",
    _("price per hour of N GPUs, ours unless @provider is given: $43.46"),
    CONFIG,
)
def price(f: PageFigures, config: ConfigRef) -> str:
    return show.usd(_price(f, config))


@registry.kind(
    "[[price_ratio 8xb200 a100-80gb]]",
    _("how many times the first configuration's hourly price is the second's: 40"),
    CONFIG,
    CONFIG,
)
def price_ratio(f: PageFigures, first: ConfigRef, second: ConfigRef) -> str:
    return show.number(calc.ratio(_price(f, first), _price(f, second), calc.WHOLE))


@registry.kind(
    "[[spec h100 bf16]]",
    _("a GPU spec: bf16 (TFLOPS), bandwidth (GB/s) or memory"),
    GPU,
    SPEC_FIELDS,
)
def spec(f: PageFigures, gpu: str, field: str) -> str:
    value = getattr(f.listing(gpu), SPEC_ATTRIBUTES[field])
    return show.gigabytes(value) if field == "memory" else show.number(value)


@registry.kind(
    "[[spec_ratio h100 a100-80gb bf16]]",
    _("a spec of the first GPU divided by the second's: 3.2"),
    GPU,
    GPU,
    SPEC_FIELDS,
)
def spec_ratio(f: PageFigures, first: str, second: str, field: str) -> str:
    attribute = SPEC_ATTRIBUTES[field]
    values = [getattr(f.listing(gpu), attribute) for gpu in (first, second)]
    return show.number(calc.ratio(*values))


@registry.kind(
    "[[checked_on]]",
    _(
        "the date of the latest price check, ours unless a provider is given; with a GPU, the "
        "day that GPU's price there was checked (a sentence quoting one price dates it so)"
    ),
    optional=(PROVIDER, GPU),
)
def checked_on(f: PageFigures, provider: str | None = None, gpu: str | None = None) -> str:
    if gpu is None:
        return show.long_date(f.check_date(provider))
    checked = f.listing(gpu, provider).checked_on
    if checked is None:
        raise MissingFigure(f"a price of {gpu} at {provider or f.house}")
    return show.long_date(checked)


@registry.kind(
    "[[smallest_gpu qlora]]",
    _("the smallest single GPU we rent that fits a method: its name or memory"),
    METHOD,
    optional=(NAME_OR_MEMORY,),
)
def smallest_gpu(f: PageFigures, method: str, which: str = "name") -> str:
    return _name_or_memory(f.smallest_gpu(method), which)


@registry.kind(
    "[[weights_gpu lora]]",
    _(
        "the smallest GPU we rent that holds a method's base weights alone (not the whole "
        "run): its name or memory"
    ),
    METHOD,
    optional=(NAME_OR_MEMORY,),
)
def weights_gpu(f: PageFigures, method: str, which: str = "name") -> str:
    offer = calc.smallest_fitting_gpu(f.rentable_offers, f.weights_gb(method))
    if offer is None:
        raise MissingFigure(f"a single GPU that holds the weights of {method}")
    return _name_or_memory(f.listing(offer.slug), which)


def _name_or_memory(gpu: GpuListing, which: str) -> str:
    return show.gigabytes(gpu.memory_gb) if which == "memory" else gpu.name


@registry.kind(
    "[[run_cost qlora]]",
    _(
        "what the guide's training budget costs on the configuration we recommend for a method, "
        "and the block that covers it"
    ),
    METHOD,
)
def run_cost(f: PageFigures, method: str) -> str:
    run = _recommended_run(f, method)
    block = calc.covering_block(run.gpu_hours, f.blocks)
    words = {
        "cost": show.usd(run.usd_per_run),
        "hours": show.number(run.shown_hours),
        "gpus": show.gpu_count(run.configuration.count, run.configuration.gpu.name),
        "block": show.number(block or 0),
    }
    if block is None:
        return gettext("%(cost)s for %(hours)s hours on %(gpus)s") % words
    message = gettext("%(cost)s for %(hours)s hours on %(gpus)s, within a %(block)s GPU-hour block")
    return message % words


def _recommended_run(f: PageFigures, method: str) -> calc.RunPlan:
    """The training budget on the first configuration recommended for ``method``, priced."""
    runs = f.recommended_runs(method)
    if not runs or runs[0].configuration != f.recommended(method)[0]:
        raise MissingFigure(f"a run of {method} on the configuration recommended for it")
    if runs[0].usd_per_run is None:
        raise MissingFigure(f"a price for the configuration recommended for {method}")
    return runs[0]


@registry.kind(
    "[[run_choice qlora h100 a100-80gb]]",
    _(
        "a sentence: which of two GPUs (one card each) runs the guide's training budget for a "
        "method cheaper and which sooner, with hours and cost (nothing where neither holds it)"
    ),
    METHOD,
    GPU,
    GPU,
)
def run_choice(f: PageFigures, method: str, first: str, second: str) -> str:
    runs = f.runs(method, [f.configuration(gpu) for gpu in (first, second)])
    for run in runs:
        if run.usd_per_run is None:
            raise MissingFigure(f"a price for {run.configuration.gpu.slug}")
    if not runs:
        return ""  # neither holds it: [[holds]] says so
    if len(runs) == 1:
        (only,) = runs
        return gettext("For %(budget)s the %(gpu)s takes %(hours)s hours for %(cost)s.") % {
            "budget": budget(f),
            "gpu": only.configuration.gpu.name,
            "hours": show.number(only.shown_hours),
            "cost": show.usd(only.usd_per_run),
        }
    for a, b in (runs, runs[::-1]):
        if a.hours <= b.hours and a.usd_per_run <= b.usd_per_run:
            message = gettext(
                "For %(budget)s the %(a)s is both sooner and cheaper: %(a_hours)s hours for "
                "%(a_cost)s against %(b_hours)s hours for %(b_cost)s."
            )
            return message % ({"budget": budget(f)} | _run_words("a", a) | _run_words("b", b))
    cheaper, sooner = runs if runs[0].usd_per_run < runs[1].usd_per_run else runs[::-1]
    message = gettext(
        "For %(budget)s the %(cheaper)s costs less (%(cheaper_cost)s in %(cheaper_hours)s "
        "hours), the %(sooner)s finishes sooner (%(sooner_hours)s hours for %(sooner_cost)s): "
        "pick the %(cheaper)s when the budget is fixed, the %(sooner)s when the deadline is."
    )
    words = _run_words("cheaper", cheaper) | _run_words("sooner", sooner)
    return message % ({"budget": budget(f)} | words)


def _run_words(key: str, run: calc.RunPlan) -> dict[str, str]:
    """A run on one GPU as [[run_choice]] names it: its GPU, hours and cost."""
    return {
        key: run.configuration.gpu.name,
        f"{key}_hours": show.number(run.shown_hours),
        f"{key}_cost": show.usd(run.usd_per_run),
    }


@registry.kind(
    "[[budget]]",
    _("the training budget the guide's runs are costed for"),
)
def budget(f: PageFigures) -> str:
    words = {"tokens": show.number(f.tokens_per_epoch), "epochs": show.number(f.epochs)}
    if f.epochs == 1:
        return gettext("%(tokens)s training tokens in one epoch") % words
    return gettext("%(tokens)s training tokens × %(epochs)s epochs") % words


@registry.kind(
    "[[cheapest full-adamw]]",
    _("the configuration we rent on which the guide's training budget costs least for a method"),
    METHOD,
)
def cheapest(f: PageFigures, method: str) -> str:
    config = f.cheapest(method)
    return show.config_label(config.count, config.gpu.name)


@registry.kind(
    "[[blocks or]]",
    _("our GPU-hour blocks as a list: 10, 24, 168 or 720"),
    optional=(Choice(("and", "or")),),
)
def blocks(f: PageFigures, joined_by: str = "and") -> str:
    style = "or" if joined_by == "or" else "standard"
    return show.word_list((show.number(b) for b in f.blocks), style)


@registry.kind("[[smallest_block]]", _("our smallest GPU-hour block: 10"))
def smallest_block(f: PageFigures) -> str:
    if not f.blocks:
        raise MissingFigure("an hour block")
    return show.number(min(f.blocks))


@registry.kind("[[scenario_blocks]]", _("the blocks the cost scenarios fill"))
def scenario_blocks(f: PageFigures) -> str:
    return show.word_list(show.number(b) for b in f.scenario_blocks())


@registry.kind(
    "[[scenario_note]]",
    _(
        "a sentence about the editors' assumed-hours table, where the guide has one: the blocks "
        "its runs fill; nothing where it has none"
    ),
)
def scenario_note(f: PageFigures) -> str:
    if not f.scenarios:
        return ""
    return gettext(
        "Our editors' illustration below it assumes the hours instead; its runs fill our blocks "
        "of %(blocks)s GPU-hours."
    ) % {"blocks": scenario_blocks(f)}


@registry.kind(
    "[[longest_sequence qlora]]",
    _(
        "how long a sequence each configuration recommended for a method holds at the guide's "
        "micro-batch, by the peak-memory estimate"
    ),
    METHOD,
)
def longest_sequence(f: PageFigures, method: str) -> str:
    try:
        recommended = f.recommended(method)
    except NothingFits:
        return _nothing_fits()
    items = []
    for config in recommended:
        tokens = f.longest_sequence(method, config)
        words = {"count": config.count, "gpu": config.gpu.name, "tokens": show.number(tokens)}
        if tokens:
            items.append(gettext("%(count)s× %(gpu)s up to %(tokens)s tokens") % words)
        else:
            items.append(gettext("%(count)s× %(gpu)s: not even 256 tokens") % words)
    return show.word_list(items)


@registry.kind(
    "[[throughput qlora]]",
    _(
        "the training speed of a method on the configuration we recommend for it, measured or "
        "derived"
    ),
    METHOD,
)
def throughput(f: PageFigures, method: str) -> str:
    run = _recommended_run(f, method)
    words = {
        "speed": show.number(run.tokens_per_s),
        "gpus": show.gpu_count(run.configuration.count, run.configuration.gpu.name),
    }
    if run.measured:
        return gettext("%(speed)s tokens per second on %(gpus)s (measured)") % words
    return gettext("%(speed)s tokens per second on %(gpus)s (derived)") % words


# --- claims about configurations: sentences that follow the data -------------------------
# Each of these says in words what the guide's figures imply, so that a guide cloned for
# another model, or a price change, never leaves a sentence that is no longer true.


def _nothing_fits() -> str:
    return show.beyond_one_host(calc.HOST_GPU_COUNTS[-1])


def _method_name(f: PageFigures, method: str) -> str:
    """The method as a sentence names it ("Full fine-tuning with AdamW"), never its table head."""
    return f.method(method).prose_name


@registry.kind(
    "[[recommend qlora]]",
    _(
        "the configurations we recommend for a method, over every configuration we rent that holds"
        " it by the estimate (the cheapest run of the guide's training budget, then the fastest "
        "other): both (default), first or alternative; with price (default), plain or memory"
    ),
    METHOD,
    optional=(WHICH_RECOMMENDED, RECOMMENDED_DETAIL),
)
def recommend(f: PageFigures, method: str, which: str = "both", detail: str = "price") -> str:
    try:
        configurations = _recommended(f, method, which)
    except NothingFits:
        return _nothing_fits()
    return show.word_list((_described(c, detail) for c in configurations), "or")


def _recommended(f: PageFigures, method: str, which: str) -> list[calc.Configuration]:
    """The recommendations for ``method``: both, the first or the alternative."""
    configurations = f.recommended(method)
    if which == "alternative" and len(configurations) < 2:
        raise MissingFigure(f"a second configuration that holds {method}")
    return {"first": configurations[:1], "alternative": configurations[1:2]}.get(
        which, configurations
    )


def _described(config: calc.Configuration, detail: str) -> str:
    words = show.gpu_count(config.count, config.gpu.name)
    if detail == "memory":
        return words + show.parenthesized(show.gigabytes(config.total_memory_gb))
    if detail == "plain":
        return words
    if config.usd_per_hour is None:
        return gettext("%(gpus)s (not rented)") % {"gpus": words}
    return gettext("%(gpus)s (%(price)s/hour)") % {
        "gpus": words,
        "price": show.usd(config.usd_per_hour),
    }


@registry.kind(
    "[[rent qlora]]",
    _(
        "a link that rents a method's recommended configuration at our rental site: first "
        "(default) or alternative"
    ),
    METHOD,
    optional=(Choice(("first", "alternative")),),
    html=True,
)
def rent(f: PageFigures, method: str, which: str = "first") -> str:
    (config,) = _recommended(f, method, which)  # NothingFits: nothing to rent, shown as a dash
    url = renting.rent_url(config.gpu.slug, config.count)
    return format_html(
        '<a class="rent" href="{}">{}</a>', url, show.rent_label(config.count, config.gpu.name)
    )


@registry.kind(
    "[[recommend_ratio full-adamw qlora]]",
    _("how many times the first method's recommended price per hour is the second's"),
    METHOD,
    METHOD,
)
def recommend_ratio(f: PageFigures, first: str, second: str) -> str:
    prices = [_priced(f.recommended(method)[0], method) for method in (first, second)]
    return show.number(calc.ratio(*prices, calc.WHOLE))


@registry.kind(
    "[[cost_gap full-adamw qlora]]",
    _(
        "a sentence: how many times the first method's recommended configuration costs per "
        "hour what the second's does, or that we cannot price it"
    ),
    METHOD,
    METHOD,
)
def cost_gap(f: PageFigures, first: str, second: str) -> str:
    try:
        first_config, second_config = f.recommended(first)[0], f.recommended(second)[0]
    except NothingFits:
        return gettext("We cannot price it: %(method)s needs %(beyond)s.") % {
            "method": _method_name(f, first),
            "beyond": _nothing_fits(),
        }
    words = {"first": recommend(f, first, "first"), "second": recommend(f, second, "first")}
    if first_config == second_config:
        said = gettext("At our prices, nothing more per hour of hardware: both run on %(first)s.")
    else:
        ratio = calc.ratio(_priced(first_config, first), _priced(second_config, second), calc.WHOLE)
        words["ratio"] = show.number(ratio)
        if ratio < 2:
            said = gettext(
                "At our prices, not even twice as much per hour of hardware: %(first)s against "
                "%(second)s."
            )
        else:
            said = gettext(
                "At our prices, about %(ratio)s times as much per hour of hardware: %(first)s "
                "against %(second)s."
            )
    return show.sentences([said % words, _run_gap(f, first, second)])


def _run_gap(f: PageFigures, first: str, second: str) -> str:
    """The same two recommendations compared per run of the guide's training budget."""
    first_run, second_run = _recommended_run(f, first), _recommended_run(f, second)
    words = {
        "budget": budget(f),
        "first": show.usd(first_run.usd_per_run),
        "second": show.usd(second_run.usd_per_run),
    }
    ratio = calc.ratio(first_run.usd_per_run, second_run.usd_per_run)
    if abs(ratio - 1) < calc.TENTH:
        message = gettext("Per run of %(budget)s, about as much: %(first)s against %(second)s.")
    else:
        message = gettext(
            "Per run of %(budget)s, %(ratio)s times as much: %(first)s against %(second)s."
        )
    return message % (words | {"ratio": show.number(ratio)})


def _priced(configuration: calc.Configuration, method: str) -> Decimal:
    if configuration.usd_per_hour is None:
        raise MissingFigure(f"a price for the configuration recommended for {method}")
    return configuration.usd_per_hour


@registry.kind(
    "[[gap_conclusion full-adamw qlora]]",
    _(
        "a sentence that follows [[cost_gap]] and says what its figures per run imply: the first "
        "method within reach (under twice the second's cost), several times dearer (start with "
        "QLoRA or LoRA), ten times or more (why projects start with them), or beyond one host"
    ),
    METHOD,
    METHOD,
)
def gap_conclusion(f: PageFigures, first: str, second: str) -> str:
    words = {"params": show.number(f.params_billion), "first": _method_name(f, first)}
    try:
        first_run = _recommended_run(f, first)
    except NothingFits:
        message = gettext(
            "%(first)s does not fit on one host we rent, so at %(params)sB a project here "
            "starts with QLoRA or LoRA."
        )
        return message % words
    second_run = _recommended_run(f, second)
    ratio = calc.ratio(first_run.usd_per_run, second_run.usd_per_run)
    words |= {
        "ratio": show.number(ratio),
        "first_cost": show.usd(first_run.usd_per_run),
        "second_cost": show.usd(second_run.usd_per_run),
    }
    if ratio >= WIDE_GAP:
        message = gettext(
            "A gap of %(ratio)s times per run at our prices is why most %(params)sB projects "
            "start with QLoRA or LoRA."
        )
    elif ratio >= SEVERAL_TIMES:
        message = gettext(
            "At %(ratio)s times the cost per run at our prices (%(first_cost)s against "
            "%(second_cost)s), QLoRA or LoRA is the cheaper start at %(params)sB; "
            "full fine-tuning stays within reach where the adapters fall short."
        )
    else:
        message = gettext(
            "At less than twice the cost per run at our prices (%(first_cost)s against "
            "%(second_cost)s), full fine-tuning is within reach at %(params)sB."
        )
    return message % words


@registry.kind("[[config 8xb200]]", _("a configuration's name as tables write it: 8× B200"), CONFIG)
def config(f: PageFigures, config: ConfigRef) -> str:
    found = _configuration(f, config)
    return show.config_name(found.count, found.gpu.name)


@registry.kind(
    "[[too_small qlora]]",
    _(
        "a sentence: the fit table's configuration that misses the guide's run by the least, "
        "by the estimate (or that every configuration holds it)"
    ),
    METHOD,
)
def too_small(f: PageFigures, method: str) -> str:
    miss = calc.closest_miss(f.plans(method, f.configurations))
    if miss is None:
        return gettext(
            "By the estimate, every configuration compared here holds this guide's %(method)s run."
        ) % {"method": _method_name(f, method)}
    if miss.configuration.count == 1:
        message = gettext(
            "Too small: %(gpus)s. This guide's %(method)s run needs %(need)s on it (an "
            "estimated peak of %(peak)s plus the memory allocator's margin); the %(gpu)s can "
            "use %(usable)s."
        )
    else:
        message = gettext(
            "Too small: %(gpus)s. Sharded over them, this guide's %(method)s run needs %(need)s "
            "on each (an estimated peak of %(peak)s plus the memory allocator's margin); each "
            "%(gpu)s can use %(usable)s."
        )
    return message % (_plan_words(miss) | {"method": _method_name(f, method)})


@registry.kind(
    "[[fit_note full-adamw]]",
    _(
        "sentences on a method's rule of thumb against the estimate: the configuration that "
        "holds only the lower rule on paper and what the estimate says of it, and what the "
        "first recommendation leaves per GPU"
    ),
    METHOD,
)
def fit_note(f: PageFigures, method: str) -> str:
    rules = f.estimate(method)
    lower = min(rules.figures, key=lambda figure: figure.memory_gb)
    words = {"method": f.method(method).short_name}  # the fit table's column head, as named there
    sentences = []
    near = [c for c in f.configurations if rules.lower_gb <= c.total_memory_gb < rules.planning_gb]
    if near:
        closest = max(near, key=lambda c: (c.total_memory_gb, -c.count))
        plan = f.plan(method, closest)
        words |= _plan_words(plan) | {
            "config": show.config_name(closest.count, closest.gpu.name),
            "bytes": show.number(lower.rule.bytes_per_param),
            "memory": show.gigabytes(lower.memory_gb),
            "headroom": show.gigabytes(calc.headroom_gb(closest, lower.memory_gb)),
        }
        sentences.append(
            gettext(
                "%(config)s covers the %(bytes)s-byte rule of thumb (%(memory)s) on paper with "
                "only %(headroom)s to spare."
            )
            % words
        )
        sentences.append(_estimate_decides(plan, closest.count) % words)
    try:
        first = f.recommended_plans(method)[0]
    except NothingFits:
        sentences.append(
            gettext("By the estimate, no configuration on one host holds this %(method)s run.")
            % words
        )
    else:
        sentences.append(
            gettext("%(config)s leaves %(headroom)s per GPU beyond the estimate.")
            % {
                "config": show.config_name(first.configuration.count, first.configuration.gpu.name),
                "headroom": show.estimated_gigabytes(first.estimate_headroom_gb_per_gpu),
            }
        )
    return show.sentences(sentences)


def _estimate_decides(plan: calc.PlannedFit, count: int) -> str:
    """What the estimate says of a configuration the rule of thumb barely covers."""
    if count == 1 and plan.fits_by_estimate:
        return gettext(
            "The estimate decides: this run needs %(need)s on it, within the %(usable)s it can "
            "use, so it is marked ✓ in the %(method)s column."
        )
    if count == 1:
        return gettext(
            "The estimate decides: this run needs %(need)s on it, more than the %(usable)s it "
            "can use, so it is marked ✗ in the %(method)s column."
        )
    if plan.fits_by_estimate:
        return gettext(
            "The estimate decides: sharded over its GPUs, this run needs %(need)s on each, "
            "within the %(usable)s each can use, so it is marked ✓ in the %(method)s column."
        )
    return gettext(
        "The estimate decides: sharded over its GPUs, this run needs %(need)s on each, more "
        "than the %(usable)s each can use, so it is marked ✗ in the %(method)s column."
    )


@registry.kind(
    "[[single_gpu qlora]]",
    _(
        "a sentence: the smallest single GPU we rent that holds the guide's run of a method by "
        "the estimate, or what it needs instead"
    ),
    METHOD,
)
def single_gpu(f: PageFigures, method: str) -> str:
    words = {
        "method": _method_name(f, method),
        "peak": show.estimated_gigabytes(f.peaks(method)[1].peak_gb),
    }
    try:
        gpu = f.smallest_gpu(method)
    except MissingFigure:
        said = gettext(
            "%(method)s does not fit on one GPU we rent: on one card this guide's run would "
            "peak at %(peak)s."
        )
        return show.sentences([said % words, needs(f, method)])
    words |= {"gpu": gpu.name, "memory": show.gigabytes(gpu.memory_gb)}
    if _names_its_memory(gpu.name, gpu.memory_gb):  # not "the A100 80GB with 80 GB"
        message = gettext(
            "%(method)s fits on one GPU: the smallest we rent that holds this guide's run "
            "(an estimated peak of %(peak)s) is the %(gpu)s."
        )
    else:
        message = gettext(
            "%(method)s fits on one GPU: the smallest we rent that holds this guide's run "
            "(an estimated peak of %(peak)s) is the %(gpu)s with %(memory)s."
        )
    return message % words


def _names_its_memory(gpu_name: str, memory_gb: Decimal) -> bool:
    """Whether a GPU's name already says its memory, as "A100 80GB" does."""
    return f"{trim(memory_gb)}GB" in gpu_name.replace(" ", "")


@registry.kind(
    "[[verdict qlora rtx-4090]]",
    _(
        "a sentence that starts with Yes or No: whether one GPU holds the guide's run of a "
        "method by the estimate, and why (the weights alone, or the estimate)"
    ),
    METHOD,
    GPU,
)
def verdict(f: PageFigures, method: str, gpu: str) -> str:
    card = f.listing(gpu)
    plan = f.plan(method, card.configuration(1))
    weights = f.weights_gb(method)
    words = _plan_words(plan) | {
        "method": _method_name(f, method),
        "gpu": card.name,
        "memory": show.gigabytes(card.memory_gb),
        "weights": show.gigabytes(weights),
        "bits": show.number(f.method(method).rule.weight_bytes_per_param * 8),
    }
    if plan.fits_by_estimate:
        sentence = gettext(
            "Yes. This guide's %(method)s run needs %(need)s on one GPU (an estimated peak of "
            "%(peak)s plus the memory allocator's margin), and the %(gpu)s can use %(usable)s."
        )
        if card.usd_per_gpu_hour is None:
            not_rented = gettext("We do not rent the %(gpu)s, though.")
            return show.sentences([sentence % words, not_rented % words])
        return sentence % words
    if weights > plan.usable_gb_per_gpu:
        sentence = gettext(
            "No. Even at %(bits)s bits, the weights alone take %(weights)s, more than the "
            "%(memory)s of the %(gpu)s."
        )
    else:
        sentence = gettext(
            "No. The %(bits)s-bit weights alone take %(weights)s, but this guide's %(method)s "
            "run needs %(need)s on one GPU (an estimated peak of %(peak)s plus the memory "
            "allocator's margin), more than the %(usable)s the %(gpu)s can use."
        )
    try:
        instead = gettext("The smallest GPU we rent that holds it is the %(gpu)s.") % {
            "gpu": f.smallest_gpu(method).name
        }
    except MissingFigure:
        instead = gettext("No single GPU we rent holds it.")
    return show.sentences([sentence % words, instead])


@registry.kind(
    "[[yes_no_one_gpu qlora]]",
    _("Yes. or No.: whether a single GPU we rent holds the guide's run of a method"),
    METHOD,
)
def yes_no_one_gpu(f: PageFigures, method: str) -> str:
    return gettext("Yes.") if _fits_one_gpu(f, method) else gettext("No.")


@registry.kind(
    "[[holds qlora h100 a100-80gb]]",
    _(
        "a sentence: which of two GPUs holds the guide's run of a method on one card, by the "
        "estimate"
    ),
    METHOD,
    GPU,
    GPU,
)
def holds(f: PageFigures, method: str, first: str, second: str) -> str:
    a, b = f.listing(first), f.listing(second)
    plan_a, plan_b = f.plan(method, a.configuration(1)), f.plan(method, b.configuration(1))
    need = plan_a.reserved_gb_per_gpu
    if plan_b.fits_by_estimate and not plan_a.fits_by_estimate:  # the one that holds first
        (a, plan_a), (b, plan_b) = (b, plan_b), (a, plan_a)
    words = {
        "method": f.method(method).short_name,  # "this guide's Full, AdamW run": a label
        "need": show.estimated_gigabytes(need),
        "first": a.name,
        "second": b.name,
        "first_usable": show.estimated_gigabytes(plan_a.usable_gb_per_gpu),
        "second_usable": show.estimated_gigabytes(plan_b.usable_gb_per_gpu),
    }
    a_holds, b_holds = plan_a.fits_by_estimate, plan_b.fits_by_estimate
    same = plan_a.usable_gb_per_gpu == plan_b.usable_gb_per_gpu
    if a_holds and b_holds and same:
        message = gettext(
            "Both hold this guide's %(method)s run on one card: it needs %(need)s with the "
            "memory allocator's margin, and each can use %(first_usable)s."
        )
    elif a_holds and b_holds:
        message = gettext(
            "Both hold this guide's %(method)s run on one card: it needs %(need)s with the "
            "memory allocator's margin; the %(first)s can use %(first_usable)s, the "
            "%(second)s %(second_usable)s."
        )
    elif not (a_holds or b_holds) and same:
        message = gettext(
            "Neither holds this guide's %(method)s run on one card: it needs %(need)s with "
            "the memory allocator's margin, and each can use %(first_usable)s. Both need "
            "several cards."
        )
    elif not (a_holds or b_holds):
        message = gettext(
            "Neither holds this guide's %(method)s run on one card: it needs %(need)s with "
            "the memory allocator's margin; the %(first)s can use %(first_usable)s, the "
            "%(second)s %(second_usable)s. Both need several cards."
        )
    else:
        message = gettext(
            "Only the %(first)s holds this guide's %(method)s run on one card: it needs %(need)s "
            "with the memory allocator's margin; the %(first)s can use %(first_usable)s, the "
            "%(second)s only %(second_usable)s."
        )
    return message % words


@registry.kind(
    "[[full_needs]]",
    _(
        "sentences: what full fine-tuning needs with AdamW and with an 8-bit optimizer (the "
        "fewest GPUs, then the smallest card, that hold the guide's run by the estimate), each "
        "with its memory per GPU"
    ),
)
def full_needs(f: PageFigures) -> str:
    return show.sentences([needs(f, "full-adamw"), needs(f, "full-8bit-adam")])


# --- requirements: the smallest configuration that holds the run -------------------------
# "Needs" names what the fit table's ✓ says is enough (``PageFigures.smallest_fit``), never the
# recommendation, and says why in figures per GPU where the run is sharded.


@registry.kind(
    "[[needs qlora]]",
    _(
        "a sentence: what a method needs, the fewest GPUs and then the smallest card we rent "
        "that hold the guide's run by the estimate, with its memory per GPU and, where it is "
        "sharded, why fewer GPUs do not hold it"
    ),
    METHOD,
)
def needs(f: PageFigures, method: str) -> str:
    words = {"method": _method_name(f, method)}
    try:
        plan = f.smallest_fit(method)
    except NothingFits:
        largest = _largest(f, method, calc.HOST_GPU_COUNTS[-1])
        if largest is None:
            raise
        return gettext(
            "%(method)s needs %(beyond)s: on %(gpus)s, the most we rent on one host, this "
            "guide's run would need %(need)s on each with the memory allocator's margin, more "
            "than the %(usable)s each can use."
        ) % (words | {"beyond": _nothing_fits()} | _plan_words(largest))
    words |= _plan_words(plan)
    if plan.configuration.count == 1:
        return (
            gettext(
                "%(method)s needs %(gpus)s, the smallest card we rent that holds this guide's run: "
                "%(need)s with the memory allocator's margin (an estimated peak of %(peak)s), "
                "within the %(usable)s it can use."
            )
            % words
        )
    if not tm.Method(method).uses_adapters:  # every weight trained: FP32 masters
        said = gettext(
            "%(method)s needs %(gpus)s, the fewest GPUs we rent that hold this guide's run. "
            "Sharded, FSDP keeps FP32 master weights and gradients "
            "and splits them and the optimizer states across the GPUs: %(need)s per GPU with "
            "the memory allocator's margin (an estimated peak of %(peak)s), within the "
            "%(usable)s each %(gpu)s can use."
        )
    else:
        said = gettext(
            "%(method)s needs %(gpus)s, the fewest GPUs we rent that hold this guide's run. "
            "Sharded, the weights are split across the GPUs, while each keeps the layers being "
            "gathered and its own activations: %(need)s per GPU with the memory allocator's "
            "margin (an estimated peak of %(peak)s), within the %(usable)s each %(gpu)s can "
            "use."
        )
    return show.sentences(s for s in (said % words, _fewer_do_not_hold(f, method, plan)) if s)


def _plan_words(plan: calc.PlannedFit) -> dict[str, str]:
    configuration = plan.configuration
    return {
        "gpus": show.gpu_count(configuration.count, configuration.gpu.name),
        "gpu": configuration.gpu.name,
        "need": show.estimated_gigabytes(plan.reserved_gb_per_gpu),
        "peak": show.estimated_gigabytes(plan.peak_gb_per_gpu),
        "usable": show.estimated_gigabytes(plan.usable_gb_per_gpu),
    }


def _largest(f: PageFigures, method: str, count: int) -> calc.PlannedFit | None:
    """The configuration of ``count`` GPUs we rent whose cards can use the most memory (the
    cheaper on ties): the closest that many GPUs come to holding the run."""
    plans = [
        p
        for p in f.plans(method)
        if p.configuration.count == count and p.configuration.usd_per_hour is not None
    ]
    return max(
        plans, key=lambda p: (p.usable_gb_per_gpu, -p.configuration.usd_per_hour), default=None
    )


def _fewer_do_not_hold(f: PageFigures, method: str, plan: calc.PlannedFit) -> str:
    """Why fewer GPUs do not do: the largest cards at the next smaller count, and what each
    would need."""
    fewer = calc.HOST_GPU_COUNTS[calc.HOST_GPU_COUNTS.index(plan.configuration.count) - 1]
    closest = _largest(f, method, fewer)
    if closest is None:
        return ""
    if fewer == 1:
        message = gettext(
            "On one %(gpu)s it would need %(need)s, more than the %(usable)s it can use."
        )
    else:
        message = gettext(
            "On %(gpus)s it would need %(need)s on each, more than the %(usable)s each can use."
        )
    return message % _plan_words(closest)


@registry.kind(
    "[[we_recommend qlora]]",
    _(
        "a sentence that follows [[needs]]: the configurations we recommend for its method "
        "(the first and its alternative), or that we have none on one host"
    ),
    METHOD,
)
def we_recommend(f: PageFigures, method: str) -> str:
    try:
        recommended = f.recommended(method)
    except NothingFits:
        return gettext("We have nothing on one host to recommend for it.")
    words = {"configs": recommend(f, method, "both", "plain")}
    if len(recommended) == 1:
        return gettext("We recommend %(configs)s.") % words
    return gettext("We recommend %(configs)s (the second for a tight deadline).") % words


@registry.kind(
    "[[speed qlora]]",
    _(
        "sentences: how long and how much the guide's training budget takes for a method on "
        "the configuration we recommend, and whether that speed was measured or derived"
    ),
    METHOD,
)
def speed(f: PageFigures, method: str) -> str:
    try:
        run = _recommended_run(f, method)
    except NothingFits:
        return gettext("We cannot time it: %(method)s needs %(beyond)s.") % {
            "method": _method_name(f, method),
            "beyond": _nothing_fits(),
        }
    words = {
        "method": _method_name(f, method),
        "budget": budget(f),
        "gpus": show.gpu_count(run.configuration.count, run.configuration.gpu.name),
        "speed": show.number(run.tokens_per_s),
        "hours": show.number(run.shown_hours),
        "cost": show.usd(run.usd_per_run),
    }
    said = gettext(
        "For %(budget)s, %(method)s on %(gpus)s runs at about %(speed)s tokens per second: "
        "%(hours)s hours, %(cost)s at our prices."
    )
    if run.measured:
        basis = gettext("We timed this run on that GPU.")
    else:
        basis = gettext(
            "That speed is derived, not measured: a model of compute, memory traffic and "
            "the links between GPUs, calibrated on training steps we timed on one H200. Data "
            "loading and evaluation make a real run slower."
        )
    return show.sentences([said % words, basis])


# --- cited facts and links --------------------------------------------------------------


@registry.kind(
    "[[fact minimum-top-up]]", _("a cited figure kept under Facts, formatted by its kind"), FACT
)
def fact(f: PageFigures, key: str) -> str:
    cited = f.fact(key)
    if cited.kind == "percent":
        return show.percent(cited.value / 100)  # stored as 1 for 1 %
    return show.usd(cited.value) if cited.kind == "usd" else show.number(cited.value)


@registry.kind(
    "[[link vram]]",
    _("a link to one of our pages: vram or gpus"),
    Choice(tuple(LINK_TARGETS)),
    html=True,
)
def link(f: PageFigures, target: str) -> str:
    url_name, label = LINK_TARGETS[target]
    return format_html('<a href="{}">{}</a>', reverse(url_name), label)


@registry.kind(
    "[[tutorial_link]]",
    _("a link to the guide's tutorial: the commands that run each method on rented GPUs"),
    html=True,
)
def tutorial_link(f: PageFigures) -> str:
    if not (f.guide_slug and trl_commands.REPOSITORY.match(f.model_repository)):
        raise MissingFigure("the Hugging Face repository of the guide's model (for its tutorial)")
    url = reverse("guides:tutorial", kwargs={"slug": f.guide_slug})
    title = show.tutorial_title(f.model_name, serving=bool(f.serving))
    return format_html('<a href="{}">{}</a>', url, title)


@registry.kind(
    "[[compare_link h100 a100-80gb]]",
    _("a link to the comparison page of two GPUs"),
    GPU,
    GPU,
    html=True,
)
def compare_link(f: PageFigures, first: str, second: str) -> str:
    a, b = f.listing(first), f.listing(second)
    url = reverse("guides:compare", kwargs={"first": a.slug, "second": b.slug})
    return format_html('<a href="{}">{}</a>', url, show.comparison_title(a.name, b.name))


def _configuration(f: PageFigures, config: ConfigRef) -> calc.Configuration:
    return f.configuration(config.gpu, config.count, provider=config.provider)


def _price(f: PageFigures, config: ConfigRef) -> Decimal:
    return f.price(config.gpu, config.count, provider=config.provider)


def _fits_one_gpu(f: PageFigures, method: str) -> bool:
    try:
        f.smallest_gpu(method)
    except MissingFigure:
        return False
    return True


# What the answering kinds answer: a "Yes."/"No." typed before one is checked against it.
ANSWERS = {
    "verdict": lambda f, method, gpu: f.fits(method, f.listing(gpu).configuration(1)),
    "yes_no_one_gpu": _fits_one_gpu,
    "single_gpu": _fits_one_gpu,
}
