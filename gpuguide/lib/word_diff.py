"""The word diff editors are shown: escaped HTML with removed words in <del> and added ones in
<ins>. A caller may split differently (``split``: Japanese has no spaces, so the guides split it
into phrases with BudouX).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

# A word or the white space after it: joining the pieces gives the text back unchanged.
WORD_RE = re.compile(r"\s+|[^\s]+")
# Text -> the pieces compared, which joined give the text back.
Splitter = Callable[[str], list[str]]


def words(text: str) -> list[str]:
    return WORD_RE.findall(text)


def _runs(old: str, new: str, split: Splitter) -> Iterator[tuple[str, str]]:
    """("equal" | "delete" | "insert", text) in reading order, a deletion before its insertion."""
    a, b = split(old), split(new)
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            yield "equal", "".join(a[i1:i2])
            continue
        if i2 > i1:
            yield "delete", "".join(a[i1:i2])
        if j2 > j1:
            yield "insert", "".join(b[j1:j2])


_TEMPLATE = {"equal": "{}", "delete": "<del>{}</del>", "insert": "<ins>{}</ins>"}


def _html(runs: Iterator[tuple[str, str]]) -> SafeString:
    return format_html_join("", "{}", ((format_html(_TEMPLATE[op], text),) for op, text in runs))


def marked_words(old: str, new: str, split: Splitter = words) -> tuple[SafeString, SafeString]:
    """The old and the new text, escaped, removed words in <del> and added ones in <ins>."""
    runs = list(_runs(old, new, split))
    return (
        _html(r for r in runs if r[0] != "insert"),
        _html(r for r in runs if r[0] != "delete"),
    )


def inline_diff(old: str, new: str, split: Splitter = words) -> SafeString:
    """One text, escaped: what stayed, removed words in <del>, added ones in <ins> after them."""
    return _html(_runs(old, new, split))
