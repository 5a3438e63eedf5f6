"""The pieces editors' diffs compare: words, and in Japanese phrases.

Japanese has no spaces, so a paragraph is one "word" to ``gpuguide.lib.word_diff`` and a
changed word marks all of it replaced. Each word with Japanese characters is split here into
its phrases (BudouX, the parser the public pages break lines with), so a change marks only the
phrases it touched; text without Japanese is split exactly as before.
"""

from __future__ import annotations

from gpuguide.lib.word_diff import words
from guides.content.phrases import JAPANESE_RE, PARSER


def diff_pieces(text: str) -> list[str]:
    """``text`` as words and the white space between them, Japanese words as their phrases;
    joined, the pieces give ``text`` back."""
    return [piece for word in words(text) for piece in _phrases(word)]


def _phrases(word: str) -> list[str]:
    return PARSER.parse(word) if JAPANESE_RE.search(word) else [word]
