"""The pieces editors' diffs compare: words, and each word with Japanese characters split into
its phrases (BudouX), so that a change in unspaced Japanese marks only the phrases it touched."""

from __future__ import annotations

from gpuguide.lib.word_diff import words
from guides.content.phrases import JAPANESE_RE, PARSER


def diff_pieces(text: str) -> list[str]:
    """``text`` as words and the white space between them; joined, they give ``text`` back."""
    return [
        piece
        for word in words(text)
        for piece in (PARSER.parse(word) if JAPANESE_RE.search(word) else [word])
    ]
