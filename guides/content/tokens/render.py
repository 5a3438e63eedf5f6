"""Editor prose to HTML: text escaped, tokens filled with formatted figures, a little markup.

A blank line starts a paragraph, lines that all start with "- " make a list, and `backticks`
mark code. Nothing is evaluated as template code; every piece of editor text and every filled
value is escaped, except the HTML that link kinds build with ``format_html``.
"""

from __future__ import annotations

import html
import logging
import re

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


def fill(body: str, figures: PageFigures) -> str:
    """The escaped, formatted value of one token; a dash (and a log line) if data is missing."""
    try:
        kind, args = registry.parse(body)
        value = kind.render(figures, *args)
    except (TokenError, MissingFigure, RuleError) as exc:
        logger.warning("cannot fill [[%s]]: %s", body, exc)
        return MISSING
    return value if kind.html else escape(value)


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


def render_prose(text: str, figures: PageFigures) -> SafeString:
    """Blocks split on blank lines: a list where every line starts with "- ", else a paragraph;
    Japanese phrases joined by <wbr>."""
    html_blocks = []
    for is_list, lines in _blocks(text or ""):
        if is_list:
            items = "".join(f"<li>{render_inline(line, figures)}</li>" for line in lines)
            html_blocks.append(f"<ul>{items}</ul>")
        else:
            html_blocks.append(f"<p>{render_inline(lines[0], figures)}</p>")
    prose = "".join(html_blocks)
    # Japanese: a line may break between phrases in every browser (see phrases.py); the
    # plain renderings (meta description, JSON-LD) come from render_inline, without <wbr>.
    if is_japanese_page():
        return phrased_html(prose)
    return mark_safe(prose)  # noqa: S308 - built from render_inline's output


def render_plain(text: str, figures: PageFigures) -> str:
    """Tokens filled, no markup, not escaped: for meta descriptions and JSON-LD."""
    return html.unescape(TAG_RE.sub("", str(render_inline(text, figures))))
