"""Live figures in editor prose: ``[[kind arg ...]]`` tokens, validated on save, filled on render.

Editors never type a figure: ``QLoRA braucht etwa [[memory qlora]]`` renders as
``QLoRA braucht etwa 52,5 GB`` in German and follows every price check and rule change.

Rendering escapes all editor text and every filled value; nothing is evaluated as template
code. Besides tokens, prose knows three bits of markup: a blank line starts a new paragraph,
lines that all start with "- " make a list, and `backticks` mark code. TOKEN_KINDS below is
the whitelist; each kind documents itself (the admin shows that help to editors).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from guides.figures import ConfigRef, MissingFigure, PageFigures
from guides.presentation import config_label, gigabyte_range
from pricing import calculations as calc
from pricing import formatting

logger = logging.getLogger(__name__)

TOKEN_RE = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
CONFIG_RE = re.compile(
    r"^(?:(?P<count>[1-9][0-9]?)x)?(?P<gpu>[a-z0-9][a-z0-9-]*)(?:@(?P<provider>[a-z0-9-]+))?$"
)
MISSING = "—"

# Argument types. Each validates one word and says what it expected.
METHOD, GPU, CONFIG, PROVIDER, FACT, INDEX = "method", "gpu", "config", "provider", "fact", "index"


@dataclass(frozen=True)
class Choice:
    options: tuple[str, ...]


SPEC_FIELDS = Choice(("bf16", "bandwidth", "memory"))
LINK_TARGETS = {
    "vram": ("guides:vram", _("How much VRAM do I need?")),
    "gpus": ("guides:gpus", _("GPU prices")),
}


@dataclass(frozen=True)
class TokenKind:
    name: str
    required: tuple
    optional: tuple
    example: str
    help: str
    render: Callable[[PageFigures, list, str], str]


class TokenError(ValueError):
    pass


# --- rendering of each kind ------------------------------------------------------------


def _memory(f: PageFigures, args: list, locale: str) -> str:
    method, which = args[0], (args[1] if len(args) > 1 else "planning")
    if which == "range":
        estimate = f.estimate(method)
        if not estimate.has_range:
            return formatting.gigabytes(estimate.upper_gb, locale)
        return gigabyte_range(estimate.lower_gb, estimate.upper_gb, locale)
    return formatting.gigabytes(f.memory(method, which), locale)


def _bytes(f: PageFigures, args: list, locale: str) -> str:
    return formatting.number(
        f.rule(args[0], args[1] if len(args) > 1 else 1).bytes_per_param, locale
    )


def _breakdown(f: PageFigures, args: list, locale: str) -> str:
    rule = f.rule(args[0], args[1] if len(args) > 1 else 1)
    num = lambda value: formatting.number(value, locale)  # noqa: E731
    if rule.is_measured:
        shown = rule.measured_ratio.quantize(calc.CENT)
        return (
            f"{num(rule.reference_memory_gb)} ÷ {num(rule.reference_params_billion)} = {num(shown)}"
        )
    parts = " + ".join(num(c.bytes_per_param) for c in rule.components)
    return f"{parts} = {num(rule.bytes_per_param)}"


def _reference(f: PageFigures, args: list, locale: str) -> str:
    rule = f.rule(args[0])
    if not rule.is_measured:
        raise MissingFigure(f"a measured reference run for {args[0]}")
    if args[1] == "memory":
        return formatting.gigabytes(rule.reference_memory_gb, locale)
    return formatting.number(rule.reference_params_billion, locale)


def _margin(f: PageFigures, args: list, locale: str) -> str:
    margin = f.method(args[0]).rule.planning_margin
    if len(args) > 1 and args[1] == "factor":
        return formatting.number(1 + margin, locale)
    return formatting.percent(margin, locale)


def _spec_value(listing, field: str):
    return {
        "bf16": listing.bf16_dense_tflops,
        "bandwidth": listing.bandwidth_gb_s,
        "memory": listing.memory_gb,
    }[field]


def _spec(f: PageFigures, args: list, locale: str) -> str:
    value = _spec_value(f.listing(args[0]), args[1])
    if args[1] == "memory":
        return formatting.gigabytes(value, locale)
    return formatting.number(value, locale)


def _spec_ratio(f: PageFigures, args: list, locale: str) -> str:
    a, b = f.listing(args[0]), f.listing(args[1])
    return formatting.number(calc.ratio(_spec_value(a, args[2]), _spec_value(b, args[2])), locale)


def _price_ratio(f: PageFigures, args: list, locale: str) -> str:
    return formatting.number(calc.ratio(f.price(args[0]), f.price(args[1]), calc.WHOLE), locale)


def _headroom(f: PageFigures, args: list, locale: str) -> str:
    which = args[2] if len(args) > 2 else "planning"
    config = f.configuration(args[0])
    return formatting.gigabytes(calc.headroom_gb(config, f.memory(args[1], which)), locale)


def _smallest_gpu(f: PageFigures, args: list, locale: str) -> str:
    gpu = f.smallest_gpu(args[0])
    if len(args) > 1 and args[1] == "memory":
        return formatting.gigabytes(gpu.memory_gb, locale)
    return gpu.name


def _cheapest(f: PageFigures, args: list, locale: str) -> str:
    config = f.cheapest(args[0])
    return config_label(config.count, config.gpu.name)


def _blocks(f: PageFigures, args: list, locale: str) -> str:
    style = "or" if args and args[0] == "or" else "standard"
    return formatting.word_list([formatting.number(b, locale) for b in f.blocks], locale, style)


def _scenario_blocks(f: PageFigures, args: list, locale: str) -> str:
    return formatting.word_list([formatting.number(b, locale) for b in f.scenario_blocks()], locale)


def _fact(f: PageFigures, args: list, locale: str) -> str:
    value, kind = f.fact(args[0])
    if kind == "usd":
        return formatting.usd(value, locale)
    if kind == "percent":
        return formatting.percent(value / 100, locale)
    return formatting.number(value, locale)


def _link(f: PageFigures, args: list, locale: str) -> str:
    # Returned as HTML: the renderer lets only the link kinds through unescaped.
    url_name, label = LINK_TARGETS[args[0]]
    return format_html('<a href="{}">{}</a>', reverse(url_name), label)


def _compare_link(f: PageFigures, args: list, locale: str) -> str:
    a, b = f.listing(args[0]), f.listing(args[1])
    url = reverse("guides:compare", kwargs={"first": a.slug, "second": b.slug})
    return format_html(
        '<a href="{}">{}</a>', url, gettext("%(a)s vs %(b)s") % {"a": a.name, "b": b.name}
    )


def _kinds() -> dict[str, TokenKind]:
    which = Choice(("planning", "lower", "upper", "range"))
    kinds = [
        TokenKind(
            "params",
            (),
            (),
            "[[params]]",
            _("the guide's model size in billions: 70"),
            lambda f, a, loc: formatting.number(f.params_billion, loc),
        ),
        TokenKind(
            "memory",
            (METHOD,),
            (which,),
            "[[memory lora lower]]",
            _(
                "a method's memory for the guide's model: planning (default), lower, upper "
                "or range, e.g. 140 GB"
            ),
            _memory,
        ),
        TokenKind(
            "bytes",
            (METHOD,),
            (INDEX,),
            "[[bytes full-adamw 2]]",
            _("bytes per parameter of a method's rule (rule 1 by default): 18"),
            _bytes,
        ),
        TokenKind(
            "breakdown",
            (METHOD,),
            (INDEX,),
            "[[breakdown full-adamw 1]]",
            _("how a rule adds up: 2 + 12 + 2 = 16, or 48 ÷ 65 = 0.74"),
            _breakdown,
        ),
        TokenKind(
            "reference",
            (METHOD, Choice(("memory", "params"))),
            (),
            "[[reference qlora memory]]",
            _("the measured run behind a rule: its memory (48 GB) or model size (65)"),
            _reference,
        ),
        TokenKind(
            "margin",
            (METHOD,),
            (Choice(("percent", "factor")),),
            "[[margin lora]]",
            _("a method's planning margin: 20 % (percent) or 1.2 (factor)"),
            _margin,
        ),
        TokenKind(
            "weights",
            (METHOD,),
            (),
            "[[weights qlora]]",
            _("the base weights alone at the method's precision: 35 GB"),
            lambda f, a, loc: formatting.gigabytes(f.weights_gb(a[0]), loc),
        ),
        TokenKind(
            "vram",
            (CONFIG,),
            (),
            "[[vram 8xh200]]",
            _("total memory of N GPUs: 1,128 GB"),
            lambda f, a, loc: formatting.gigabytes(f.configuration(a[0]).total_memory_gb, loc),
        ),
        TokenKind(
            "headroom",
            (CONFIG, METHOD),
            (which,),
            "[[headroom 8xh200 full-adamw lower]]",
            _("memory a configuration leaves after a method's estimate: 8 GB"),
            _headroom,
        ),
        TokenKind(
            "price",
            (CONFIG,),
            (),
            "[[price 8xb200@massed-compute]]",
            _("price per hour of N GPUs, ours unless @provider is given: $43.46"),
            lambda f, a, loc: formatting.usd(f.price(a[0]), loc),
        ),
        TokenKind(
            "price_ratio",
            (CONFIG, CONFIG),
            (),
            "[[price_ratio 8xb200 a100-80gb]]",
            _("how many times the first configuration's hourly price is the second's: 40"),
            _price_ratio,
        ),
        TokenKind(
            "spec",
            (GPU, SPEC_FIELDS),
            (),
            "[[spec h100 bf16]]",
            _("a GPU spec: bf16 (TFLOPS), bandwidth (GB/s) or memory"),
            _spec,
        ),
        TokenKind(
            "spec_ratio",
            (GPU, GPU, SPEC_FIELDS),
            (),
            "[[spec_ratio h100 a100-80gb bf16]]",
            _("a spec of the first GPU divided by the second's: 3.2"),
            _spec_ratio,
        ),
        TokenKind(
            "checked_on",
            (),
            (PROVIDER,),
            "[[checked_on]]",
            _("the date of the latest price check, ours unless a provider is given"),
            lambda f, a, loc: formatting.long_date(f.check_date(a[0] if a else None), loc),
        ),
        TokenKind(
            "smallest_gpu",
            (METHOD,),
            (Choice(("name", "memory")),),
            "[[smallest_gpu qlora]]",
            _("the smallest single GPU we rent that fits a method: its name or memory"),
            _smallest_gpu,
        ),
        TokenKind(
            "cheapest",
            (METHOD,),
            (),
            "[[cheapest full-adamw]]",
            _("the cheapest configuration of the fit table that fits a method: 8× B200"),
            _cheapest,
        ),
        TokenKind(
            "blocks",
            (),
            (Choice(("and", "or")),),
            "[[blocks or]]",
            _("our GPU-hour blocks as a list: 10, 24, 168 or 720"),
            _blocks,
        ),
        TokenKind(
            "scenario_blocks",
            (),
            (),
            "[[scenario_blocks]]",
            _("the blocks the cost scenarios fill: 10, 24 and 168"),
            _scenario_blocks,
        ),
        TokenKind(
            "fact",
            (FACT,),
            (),
            "[[fact minimum-top-up]]",
            _("a cited figure kept under Facts, formatted by its kind"),
            _fact,
        ),
        TokenKind(
            "link",
            (Choice(tuple(LINK_TARGETS)),),
            (),
            "[[link vram]]",
            _("a link to one of our pages: vram or gpus"),
            _link,
        ),
        TokenKind(
            "compare_link",
            (GPU, GPU),
            (),
            "[[compare_link h100 a100-80gb]]",
            _("a link to the comparison page of two GPUs"),
            _compare_link,
        ),
    ]
    return {kind.name: kind for kind in kinds}


TOKEN_KINDS = _kinds()
HTML_KINDS = frozenset({"link", "compare_link"})  # these build their HTML with format_html


# --- parsing and validation ------------------------------------------------------------


@dataclass(frozen=True)
class KnownSlugs:
    """What arguments may name; loaded from the database by the validator."""

    methods: frozenset[str]
    gpus: frozenset[str]
    providers: frozenset[str]
    facts: frozenset[str]


def _parse_arg(kind: str, word: str, known: KnownSlugs | None):
    if isinstance(kind, Choice):
        if word not in kind.options:
            raise TokenError(
                gettext("“%(word)s” is not one of %(options)s")
                % {"word": word, "options": ", ".join(kind.options)}
            )
        return word
    if kind == INDEX:
        if not word.isdigit() or int(word) < 1:
            raise TokenError(gettext("“%(word)s” is not a rule number (1, 2, …)") % {"word": word})
        return int(word)
    if kind == CONFIG:
        match = CONFIG_RE.match(word)
        if not match:
            raise TokenError(
                gettext("“%(word)s” is not a configuration like 8xh200 or b200@massed-compute")
                % {"word": word}
            )
        ref = ConfigRef(match["gpu"], int(match["count"] or 1), match["provider"])
        _check_known(GPU, ref.gpu, known)
        if ref.provider:
            _check_known(PROVIDER, ref.provider, known)
        return ref
    _check_known(kind, word, known)
    return word


def _check_known(kind: str, word: str, known: KnownSlugs | None) -> None:
    if known is None:
        return
    pool = {METHOD: known.methods, GPU: known.gpus, PROVIDER: known.providers, FACT: known.facts}[
        kind
    ]
    if word not in pool:
        raise TokenError(gettext("there is no %(kind)s “%(word)s”") % {"kind": kind, "word": word})


def parse_token(body: str, known: KnownSlugs | None = None) -> tuple[TokenKind, list]:
    words = body.split()
    if not words:
        raise TokenError(gettext("empty token"))
    kind = TOKEN_KINDS.get(words[0])
    if kind is None:
        raise TokenError(gettext("unknown token kind “%(kind)s”") % {"kind": words[0]})
    args = words[1:]
    if not len(kind.required) <= len(args) <= len(kind.required) + len(kind.optional):
        raise TokenError(
            gettext("wrong number of arguments; write it like %(example)s")
            % {"example": kind.example}
        )
    specs = kind.required + kind.optional
    return kind, [_parse_arg(spec, word, known) for spec, word in zip(specs, args, strict=False)]


def token_errors(text: str, known: KnownSlugs | None = None) -> list[str]:
    """One message per bad token in ``text``, naming the token; empty when all are fine."""
    errors = []
    stray = TOKEN_RE.sub("", text or "")
    if "[[" in stray or "]]" in stray:
        errors.append(gettext("unclosed token: every “[[” needs a matching “]]”"))
    for match in TOKEN_RE.finditer(text or ""):
        try:
            parse_token(match.group(1), known)
        except TokenError as exc:
            errors.append(f"{match.group(0)}: {exc}")
    return errors


def known_slugs() -> KnownSlugs:
    from pricing.models import Fact, Gpu, Method, Provider

    return KnownSlugs(
        methods=frozenset(Method.objects.values_list("slug", flat=True)),
        gpus=frozenset(Gpu.objects.values_list("slug", flat=True)),
        providers=frozenset(Provider.objects.values_list("slug", flat=True)),
        facts=frozenset(Fact.objects.values_list("key", flat=True)),
    )


def validate_tokens(text: str) -> None:
    """Model-field validator: refuses unknown or malformed tokens, naming each one."""
    if "[[" not in (text or "") and "]]" not in (text or ""):
        return
    errors = token_errors(text, known_slugs())
    if errors:
        raise ValidationError(errors)


# --- rendering -------------------------------------------------------------------------

CODE_RE = re.compile(r"`([^`\n]+)`")


def _fill(body: str, figures: PageFigures, locale: str) -> str:
    """The escaped, formatted value of one token; a dash (and a log line) if data is missing."""
    try:
        kind, args = parse_token(body)
        value = kind.render(figures, args, locale)
    except (TokenError, MissingFigure, calc.RuleError) as exc:
        logger.warning("cannot fill [[%s]]: %s", body, exc)
        return MISSING
    return value if kind.name in HTML_KINDS else escape(value)


def render_inline(text: str, figures: PageFigures, locale: str) -> SafeString:
    """Escape ``text``, fill its tokens and mark `code`; no paragraphs."""
    out = []
    position = 0
    for match in TOKEN_RE.finditer(text):
        out.append(CODE_RE.sub(r"<code>\1</code>", escape(text[position : match.start()])))
        out.append(_fill(match.group(1), figures, locale))
        position = match.end()
    out.append(CODE_RE.sub(r"<code>\1</code>", escape(text[position:])))
    return mark_safe("".join(out))  # noqa: S308 - every piece above was escaped


def render_prose(text: str, figures: PageFigures, locale: str) -> SafeString:
    """Blocks split on blank lines: a list where every line starts with "- ", else a paragraph."""
    html_blocks = []
    for block in re.split(r"\n\s*\n", (text or "").strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.startswith("- ") for line in lines):
            items = "".join(
                f"<li>{render_inline(line[2:], figures, locale)}</li>" for line in lines
            )
            html_blocks.append(f"<ul>{items}</ul>")
        else:
            html_blocks.append(f"<p>{render_inline(' '.join(lines), figures, locale)}</p>")
    return mark_safe("".join(html_blocks))  # noqa: S308 - built from render_inline's output


def render_plain(text: str, figures: PageFigures, locale: str) -> str:
    """Tokens filled, no markup, not escaped: for meta descriptions and JSON-LD."""
    return html.unescape(re.sub(r"<[^>]+>", "", str(render_inline(text, figures, locale))))
