"""The token kinds of serving guides, from ``PageFigures.serving`` (a plan per weight
precision); a fine-tuning guide has none, so these show a dash there."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from guides.content import presentation as show
from guides.content.page_figures import MissingFigure, PageFigures
from guides.content.tokens.registry import GPU, Choice, registry
from pricing import serving_plans
from pricing.domain import serving

PRECISION = Choice(serving_plans.GUIDE_PRECISIONS)
SERVING_DETAIL = Choice(
    ("config", "cost", "users", "month", "price", "speed", "ttft", "alternative")
)
ASSUMPTION = Choice(("context", "prompt", "output", "target"))
WHOLE = Decimal(1)


def _rounded(value: Decimal) -> Decimal:
    return value.quantize(WHOLE, ROUND_HALF_UP)


def _whole(value: Decimal) -> str:
    return show.number(_rounded(value))


def _whole_with_range(figure: tuple[Decimal, Decimal, Decimal], unit: str = "") -> str:
    """A modelled figure and its range in whole numbers: '42 ms (31–58)'."""
    value, low, high = figure
    range_text = show.number_range(_rounded(low), _rounded(high))
    return _whole(value) + unit + show.parenthesized(range_text)


@registry.kind(
    "[[serving fp8 config]]",
    _(
        "the configuration a serving guide recommends in a precision (bf16, fp8, awq), or its "
        "cost (per million output tokens at the latency target, with its range), users, "
        "month, price (per hour), speed (tokens a second for one user), ttft (time to first "
        "token) or alternative"
    ),
    PRECISION,
    optional=(SERVING_DETAIL,),
)
def serving_figure(f: PageFigures, precision: str, detail: str = "config") -> str:
    choice = f.serving_choice(precision)
    row = choice.chosen
    if detail == "alternative":
        if choice.alternative is None:
            raise MissingFigure("another configuration within the target")
        row = choice.alternative
    if detail in ("config", "alternative"):
        return show.config_name(row.count, row.gpu.name)
    if detail == "users":
        return show.number(row.at_target.users)
    if detail == "month":
        return show.usd(row.usd_per_month)
    if detail == "price":
        return show.usd(row.usd_per_hour)
    if detail == "cost":
        cost, low, high = row.at_target.usd_per_million_tokens
        return show.usd(cost) + show.parenthesized(show.usd_range(low, high))
    if detail == "speed":
        return _whole_with_range(row.at_concurrency.tokens_per_s_per_user)
    return _whole_with_range(row.at_concurrency.ttft_ms, "\u00a0ms")  # ttft


@registry.kind(
    "[[serving_close_call fp8]]",
    _("a sentence where the serving recommendation in a precision is a close call, else nothing"),
    PRECISION,
)
def serving_close_call(f: PageFigures, precision: str) -> str:
    choice = f.serving_choice(precision)
    if not choice.close_call:
        return ""
    cheapest = choice.contenders[0]
    return gettext(
        "%(cheapest)s writes the cheapest million tokens by the model (%(cost)s), but "
        "%(count)s configurations cost the same within its error; we name the one whose "
        "GPU-hour block for a month costs least up front."
    ) % {
        "cheapest": show.config_name(cheapest.count, cheapest.gpu.name),
        "cost": show.usd(cheapest.at_target.usd_per_million_tokens[0]),
        "count": show.number(len(choice.contenders)),
    }


@registry.kind(
    "[[serving_weights fp8]]",
    _("the model's weights in a precision, all on one GPU (GB)"),
    PRECISION,
)
def serving_weights(f: PageFigures, precision: str) -> str:
    plan = f.serving_plan(precision)
    one = next(row for row in plan.rows if row.count == 1)
    return show.gigabytes(one.memory.weights_gb.quantize(Decimal("0.1"), ROUND_HALF_UP))


@registry.kind("[[kv_per_token]]", _("the model's KV cache per token in bf16 (bytes)"))
def kv_per_token(f: PageFigures) -> str:
    return show.number(f.serving_plan("bf16").kv_bytes_per_token)


@registry.kind(
    "[[serving_fewest fp8 h100]]",
    _("the fewest GPUs of a kind that vLLM starts the model on in a precision"),
    PRECISION,
    GPU,
)
def serving_fewest(f: PageFigures, precision: str, gpu: str) -> str:
    rows = [r for r in f.serving_plan(precision).rows if r.gpu.slug == gpu]
    if not rows:
        raise MissingFigure(f"{gpu} among the GPUs we rent")
    starting = next((r for r in rows if r.starts), None)
    if starting is None:
        return gettext("not even %(config)s") % {
            "config": show.config_name(rows[-1].count, rows[-1].gpu.name)
        }
    return show.config_name(starting.count, starting.gpu.name)


@registry.kind(
    "[[serving_assumption prompt]]",
    _("a serving guide's load: context, prompt or output (tokens), or target (ms a token)"),
    ASSUMPTION,
)
def serving_assumption(f: PageFigures, which: str) -> str:
    plan = f.serving_plan("bf16")
    value = {
        "context": plan.setup.context,
        "prompt": plan.workload.prompt_tokens,
        "output": plan.workload.output_tokens,
        "target": plan.tpot_target_ms,
    }[which]
    return show.number(value)


@registry.kind("[[vllm_version]]", _("the vLLM version whose budget the serving figures follow"))
def vllm_version(f: PageFigures) -> str:
    return serving.VLLM_VERSION


@registry.kind(
    "[[planner_link]]",
    _("a link to the vLLM planner with the guide's model chosen"),
    html=True,
)
def planner_link(f: PageFigures) -> str:
    plan = f.serving_plan("bf16")
    url = f"{reverse('guides:serving')}?model={plan.model.slug}"
    return format_html('<a href="{}">{}</a>', url, gettext("The vLLM planner"))
