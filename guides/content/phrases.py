"""Japanese text with a ``<wbr>`` between its phrases (found by BudouX), so that browsers
without ``word-break: auto-phrase`` (Safari, Firefox) break lines there rather than only at
punctuation. BudouX's ``translate_html_string`` adds inline styles, which the
Content-Security-Policy refuses, so text nodes are split here; tags, entities and verbatim
elements stay as they are."""

from __future__ import annotations

import html
import re
from functools import lru_cache

import budoux
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from guides.content.presentation import is_japanese_page

WBR = "<wbr>"
PARSER = budoux.load_default_japanese_parser()
# Kana, CJK ideographs, CJK punctuation and full-width forms.
JAPANESE_RE = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
TAG_RE = re.compile(r"(<[^>]*>)")
URL_RE = re.compile(r"\b(?:https?://|www\.)\S+")
# An entity is one character of text: a break is never put inside one.
CHARACTER_RE = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);|.", re.S)
# SVG too: its <text> and <desc> show no HTML element.
VERBATIM = {"code", "pre", "kbd", "samp", "script", "style", "textarea", "title", "option", "svg"}
# Kinsoku: no line starts with closing punctuation or a small kana, none ends with an opening one.
NO_LINE_START = set("、。，．・：；？！）」』】〕〉》ー～:;,.!?)]}%") | set(
    "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
)
NO_LINE_END = set("（「『【〔〈《([{$")
# A phrase's run of characters longer than LONG_PHRASE may also break inside, SHORTEST_PIECE
# characters from either end: at 9 a 7-character phrase left phone lines 70 % full.
LONG_PHRASE, SHORTEST_PIECE = 6, 3
# Units of two characters after a number, never split: "17.4時間".
SPANS = {"時間", "分間", "秒間", "日間", "週間", "年間"}
LONG_RUN_RE = re.compile(rf"\S{{{LONG_PHRASE + 1},}}")
# Phrased text nodes remembered per process: BudouX takes about as long as the rest of a
# Japanese guide's render (docs/performance.md, "One cache mechanism").
PHRASED_TEXTS = 8192


def phrased_html(markup: str) -> SafeString:
    """``markup`` (HTML) with ``<wbr>`` between the phrases of its Japanese text. A ``<wbr>``
    there already joins the text around it, phrased again: base.html phrases the page once more."""
    parts, text, verbatim = [], [], 0
    for index, part in enumerate(TAG_RE.split(markup)):
        if index % 2 == 0:
            text.append(part)
        elif part == WBR and not verbatim:
            continue  # phrased below with the text around it
        else:
            parts.append("".join(text) if verbatim else _phrased_text("".join(text)))
            parts.append(part)
            text = []
            verbatim += _verbatim_depth_change(part)
    parts.append("".join(text) if verbatim else _phrased_text("".join(text)))
    return mark_safe("".join(parts))  # noqa: S308 - only <wbr> added to what was given


def phrased(value) -> SafeString:
    """Plain text (escaped here) or safe HTML, phrased where the page is Japanese; for headings,
    titles and questions shown from data (the ``phrases`` filter)."""
    escaped = conditional_escape(value)
    return phrased_html(escaped) if is_japanese_page() else escaped


def _verbatim_depth_change(tag: str) -> int:
    match = re.match(r"<(/?)([A-Za-z][A-Za-z0-9]*)", tag)
    if not match or match.group(2).lower() not in VERBATIM:
        return 0
    return -1 if match.group(1) else 1


@lru_cache(maxsize=PHRASED_TEXTS)
def _phrased_text(text: str) -> str:
    """One escaped text node with ``<wbr>`` at its phrase boundaries."""
    if not JAPANESE_RE.search(text):
        return text
    pieces = CHARACTER_RE.findall(text)  # as written: an entity stays an entity
    characters = [html.unescape(piece) for piece in pieces]
    if any(len(character) != 1 for character in characters):
        return text  # an entity of two characters: leave this node as it is
    breaks = _breaks("".join(characters))
    return "".join(WBR + piece if i in breaks else piece for i, piece in enumerate(pieces))


def _breaks(text: str) -> set[int]:
    """Offsets in ``text`` where a line may break: where a phrase starts, and inside a long
    phrase (see LONG_PHRASE)."""
    offsets, start = set(), 0
    for phrase in PARSER.parse(text):
        offsets.update(start + offset for offset in _inside_long_phrase(phrase))
        start += len(phrase)
        if start < len(text) and _may_break(text[start - 1], text[start]):
            offsets.add(start)
    for url in URL_RE.finditer(text):  # copied whole, so never broken
        offsets.difference_update(range(url.start(), url.end() + 1))
    return offsets


def _inside_long_phrase(phrase: str) -> list[int]:
    """Offsets where a long run may break between two Japanese characters: a phone's line holds
    about 22, and a 15-character phrase moved whole to the next leaves this one empty."""
    return [
        offset
        for run in LONG_RUN_RE.finditer(phrase)
        for offset in range(run.start() + SHORTEST_PIECE, run.end() - SHORTEST_PIECE + 1)
        if JAPANESE_RE.match(phrase[offset - 1])
        and JAPANESE_RE.match(phrase[offset])
        and not (phrase[offset - 2].isdigit() and phrase[offset - 1 : offset + 1] in SPANS)
        and _may_break(phrase[offset - 1], phrase[offset])
    ]


def _may_break(before: str, after: str) -> bool:
    """Whether a break between these characters keeps words, numbers and punctuation whole."""
    if before.isspace() or after.isspace():
        return False  # a space breaks already
    if not (JAPANESE_RE.match(before) or JAPANESE_RE.match(after)):
        return False  # inside a Latin word, a number, a URL or a name ("Llama 3.1", "A100")
    if before.isdigit() or before in ".,%":
        return False  # a number with its unit or counter: "17.4時間", "8基"
    return after not in NO_LINE_START and before not in NO_LINE_END
