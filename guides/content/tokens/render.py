"""Editor prose to escaped HTML: tokens filled with formatted figures, `backticks` as code,
paragraphs and lists as blocks (laid out by ``guides/includes/prose.html``). Nothing is
evaluated as template code; everything is escaped but the links kinds build with format_html."""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from guides.content.page_figures import MissingFigure, PageFigures
from guides.content.phrases import phrased_html
from guides.content.presentation import is_japanese_page
from guides.content.tokens import kinds  # noqa: F401 - registers every kind
from guides.content.tokens.registry import TOKEN_RE, TokenError, registry
from pricing.domain.calculations import RuleError

logger = logging.getLogger(__name__)

MISSING = "—"
CODE_RE = re.compile(r"`([^`\n]+)`")
TAG_RE = re.compile(r"<[^>]+>")


def _escaped(text: str) -> str:
    return CODE_RE.sub(r"<code>\1</code>", escape(text))


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
    parts = TOKEN_RE.split(text)  # text, a token's inside, text, ...
    out = (fill(part, figures) if i % 2 else _escaped(part) for i, part in enumerate(parts))
    return mark_safe("".join(out))  # noqa: S308 - every piece was escaped


@dataclass(frozen=True)
class Block:
    """A paragraph (``text``) or a list (``items``) of prose, each piece escaped HTML."""

    text: SafeString | str = ""
    items: tuple[SafeString, ...] = ()


def render_prose(text: str, figures: PageFigures) -> list[Block]:
    """Blocks split on blank lines: a list where every line starts with "- ", else a paragraph;
    on a Japanese page with <wbr> between phrases (not in render_plain's meta descriptions)."""
    inline = _phrased_inline if is_japanese_page() else render_inline
    blocks = []
    for block in re.split(r"\n\s*\n", (text or "").strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if lines and all(line.startswith("- ") for line in lines):
            blocks.append(Block(items=tuple(inline(line[2:], figures) for line in lines)))
        elif lines:
            blocks.append(Block(text=inline(" ".join(lines), figures)))
    return blocks


def _phrased_inline(text: str, figures: PageFigures) -> SafeString:
    return phrased_html(render_inline(text, figures))


def render_plain(text: str, figures: PageFigures) -> str:
    """Tokens filled, no markup, not escaped: for meta descriptions and JSON-LD."""
    return html.unescape(TAG_RE.sub("", str(render_inline(text, figures))))
