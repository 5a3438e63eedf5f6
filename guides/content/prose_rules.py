"""Figures typed into prose, refused with the token that says it instead, so that a price change
or a cloned guide never leaves a stale number: memory, money, hours and GPU counts ("2× H200",
"zwei H200", "H200を2基") in English, German and Japanese. GPU and model names ("A100 80GB",
"Llama 3.1 8B"), bit widths and code spans stay. The GPU names come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from guides.content.tokens.registry import TOKEN_RE

NUMBER = r"\d(?:[\d.,\u00a0\u202f]*\d)?"  # 1,120 or 52,5 or 1 120; ends in a digit
CODE_SPAN_RE = re.compile(r"`[^`\n]*`")
MEMORY_RE = re.compile(rf"{NUMBER}\s*-?\s*(?:GB|GiB|TB)(?![A-Za-z])")
MONEY_RE = re.compile(rf"(?:US\$|\$|USD)\s*{NUMBER}|{NUMBER}\s*(?:US\$|\$|USD|ドル)")
HOURS_RE = re.compile(
    rf"{NUMBER}\s*-?\s*(?:hours?\b|hrs?\b|h\b|Stunden\w*|Stunde\b|Std\.|時間)", re.IGNORECASE
)
# "1時間あたり" and "1時間[[price …]]" say "per hour" in Japanese: a unit, not a figure.
PER_HOUR = {"1時間"}
COUNT_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|sixteen|"
    "zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|sechzehn"
)


@dataclass(frozen=True)
class TypedFigure:
    text: str  # what the editor typed
    message: str  # what to write instead


def _fix(kind: str, typed: str) -> str:
    hints = {
        "memory": _("write [[memory METHOD]], [[spec GPU memory]] or [[vram CONFIG]] instead"),
        "money": _("write [[price CONFIG]] or [[recommend METHOD]] instead"),
        "hours": _("write [[blocks]], [[scenario_blocks]] or [[smallest_block]] instead"),
        "count": _("write [[recommend METHOD]] or [[config CONFIG]] instead"),
    }
    return _("“%(typed)s” is a typed figure: %(fix)s.") % {"typed": typed, "fix": hints[kind]}


def typed_figures(text: str, gpu_names: Iterable[str]) -> list[TypedFigure]:
    """Every figure typed into ``text`` (tokens and code spans are not looked at)."""
    text = CODE_SPAN_RE.sub(" ", TOKEN_RE.sub(" ⟦⟧ ", text or ""))
    found: list[TypedFigure] = []
    names = "|".join(sorted({re.escape(n) for n in gpu_names if n}, key=len, reverse=True))
    if names:
        count_re = re.compile(
            rf"\d+\s*[×xX]\s*(?:{names})"  # 2× H200, 8x B200
            rf"|\b(?:{COUNT_WORDS})\s+(?:{names})"  # two H200s, zwei H200
            rf"|(?:{names})\s*(?:を|が)?\s*[0-9０-９一二三四五六七八]+\s*[基台枚]",  # H200を2基
            re.IGNORECASE,
        )
        found += [TypedFigure(m[0], _fix("count", m[0])) for m in count_re.finditer(text)]
        text = re.sub(names, " GPU ", text)  # "A100 80GB", "RTX 4090": a name's digits stay
    for kind, pattern in (("memory", MEMORY_RE), ("money", MONEY_RE), ("hours", HOURS_RE)):
        for match in pattern.finditer(text):
            typed = match.group(0).strip()
            if typed not in PER_HOUR:
                found.append(TypedFigure(typed, _fix(kind, typed)))
    return found


# --- a typed yes or no against the token that answers ---------------------------------------
# "Nein. [[single_gpu qlora]]" says no where the token says QLoRA fits on one GPU: the guide
# check refuses the pair. The words each language answers with, and what they answer.
TYPED_ANSWERS = {"yes": True, "no": False, "ja": True, "nein": False, "はい": True, "いいえ": False}
# Matched against the text reversed: searching for the last word from the front tries every
# position of a long text, once per token.
_LAST_WORD_REVERSED_RE = re.compile(r"\W*(\w+)")


def typed_answer(before: str) -> tuple[bool, int] | None:
    """What a yes or no typed right before a token answers (the last word of ``before``:
    "Yes.", "Nein,", "いいえ。") and where the word starts; None where there is no such word."""
    found = _LAST_WORD_REVERSED_RE.match(before[::-1])
    if not found:
        return None
    word = found.group(1)[::-1].casefold()
    if word not in TYPED_ANSWERS:
        return None
    return TYPED_ANSWERS[word], len(before) - found.end(1)


# --- a requirement worded around a recommendation -------------------------------------------
# "Full fine-tuning needs [[recommend full-adamw first plain]]" says the recommendation (the
# cheapest run) is what the run needs, where the fit table shows smaller configurations that hold
# it: [[needs METHOD]] names the smallest. The guide check refuses such a pair.
RECOMMENDING_KINDS = frozenset({"recommend", "rent", "cheapest"})
_REQUIRED_BEFORE_RE = re.compile(
    r"(?:\b(?:needs?|requires?|required|braucht|brauchen|benötigt|benötigen|erfordert)"
    r"|必要な構成は|必要なのは|必要な構成：)\W{0,2}$",
    re.IGNORECASE,
)
_REQUIRED_AFTER_RE = re.compile(r"^\W{0,2}(?:が|は|も)?必要")


def requirement_names_recommendation(kind: str, before: str, after: str) -> bool:
    """Whether a token of ``kind`` that names a recommendation is worded as a requirement: a
    "needs", "braucht" or "必要" right before it (``before``, the text up to the token) or, in
    Japanese, right after it (``after``)."""
    if kind not in RECOMMENDING_KINDS:
        return False
    return bool(_REQUIRED_BEFORE_RE.search(before) or _REQUIRED_AFTER_RE.search(after))
