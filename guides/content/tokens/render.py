"""Editor prose to escaped HTML: tokens filled with formatted figures, `backticks` as code.

A blank line starts a paragraph and lines that all start with "- " make a list: ``render_prose``
returns those blocks, and ``guides/includes/prose.html`` lays them out. Nothing is evaluated as
template code; every piece of editor text and every filled value is escaped, except the single
elements that link kinds build with ``format_html``.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from guides.content.page_figures import MissingFigure, PageFigures
from guides.content.phrases import is_japanese_page, phrased_html
from guides.content.tokens import kinds  # noqa: F401 - registers every kind
from guides.content.tokens.registry import TOKEN_RE, TokenError, registry
from pricing.domain.calculations import RuleError

logger = logging.getLogger(__name__)

MISSING = "—"
CODE_RE = re.compile(r"`([^`\n]+)`")
TAG_RE = re.compile(r"<[^>]+>")


def _escaped(text: str) -> str:
    return CODE_RE.sub(r"<code>\1</code>", escape(text))


def _blocks(text: str) -> list[tuple[bool, list[str]]]:
    """Prose split into blocks: (is a list, its lines) or (False, [the paragraph])."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.startswith("- ") for line in lines):
            blocks.append((True, [line[2:] for line in lines]))
        else:
            blocks.append((False, [" ".join(lines)]))
    return blocks


def _filled(body: str, figures: PageFigures) -> str:
    kind, args = registry.parse(body)
    value = kind.render(figures, *args)
    return value if kind.html else escape(value)


def fill(body: str, figures: PageFigures) -> str:
    """The escaped, formatted value of one token; a dash (and a log line) if data is missing."""
    try:
        return _filled(body, figures)
    except (TokenError, MissingFigure, RuleError) as exc:
        logger.warning("cannot fill [[%s]]: %s", body, exc)
        return MISSING


def example_value(token: str, figures: PageFigures) -> SafeString | None:
    """What a token (``[[params]]``) reads as with ``figures``, for the admin's token list;
    None where these figures have no such value (expected there: not logged)."""
    try:
        return mark_safe(_filled(token.removeprefix("[[").removesuffix("]]"), figures))  # noqa: S308 - escaped by _filled, or a kind's own HTML
    except (TokenError, MissingFigure, RuleError):
        return None


def render_inline(text: str, figures: PageFigures) -> SafeString:
    """Escape ``text``, fill its tokens and mark `code`; no paragraphs."""
    out = []
    position = 0
    for match in TOKEN_RE.finditer(text):
        out.append(_escaped(text[position : match.start()]))
        out.append(fill(match.group(1), figures))
        position = match.end()
    out.append(_escaped(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above was escaped


@dataclass(frozen=True)
class Block:
    """A paragraph (``text``) or a list (``items``) of prose, each piece escaped HTML."""

    text: SafeString | str = ""
    items: tuple[SafeString, ...] = ()


def render_prose(text: str, figures: PageFigures) -> list[Block]:
    """Blocks split on blank lines: a list where every line starts with "- ", else a paragraph;
    on a Japanese page its phrases joined by <wbr>."""
    # Japanese: a line may break between phrases in every browser (see phrases.py); the
    # plain renderings (meta description, JSON-LD) come from render_inline, without <wbr>.
    inline = _phrased_inline if is_japanese_page() else render_inline
    return [
        Block(items=tuple(inline(line, figures) for line in lines))
        if is_list
        else Block(text=inline(lines[0], figures))
        for is_list, lines in _blocks(text or "")
    ]


def _phrased_inline(text: str, figures: PageFigures) -> SafeString:
    return phrased_html(render_inline(text, figures))


def render_plain(text: str, figures: PageFigures) -> str:
    """Tokens filled, no markup, not escaped: for meta descriptions and JSON-LD."""
    return html.unescape(TAG_RE.sub("", str(render_inline(text, figures))))
