"""JSON from visitors, parsed only once it is known to be small and shallow: ``json.loads``
recurses once per nesting level (1,000 ``[`` raise a RecursionError), so the depth is measured
first by one linear scan that skips strings.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A whole string (escapes included, or unterminated up to the end), or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class JSONRefused(ValueError):
    """Input refused before or while parsing; the message says why, for a person."""


class JSONTooLarge(JSONRefused):
    """More bytes than the limit."""


class JSONTooDeep(JSONRefused):
    """Nested deeper than the limit."""


class JSONNumberTooLong(JSONRefused):
    """An integer beyond Python's digit limit: ``json.loads`` raises a bare ValueError."""


def nesting_depth(text: str, *, stop_above: int | None = None) -> int:
    """The deepest nesting of arrays and objects in ``text``, brackets in strings not counted;
    the scan stops at the first level deeper than ``stop_above``."""
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if stop_above is not None and depth > stop_above:
                break
        elif token in "]}":
            depth -= 1
    return deepest


def loads(text: str, *, max_bytes: int, max_depth: int) -> Any:
    """``json.loads(text)`` for text of at most ``max_bytes`` (UTF-8) nested at most
    ``max_depth`` levels; raises JSONRefused beyond them, json.JSONDecodeError for bad JSON."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JSONTooLarge(
            f"JSON of {size:,} bytes is larger than the limit of {max_bytes:,} bytes."
        )
    if nesting_depth(text, stop_above=max_depth) > max_depth:
        raise JSONTooDeep(f"JSON is nested deeper than {max_depth} levels.")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise JSONNumberTooLong(f"JSON holds a number with too many digits ({exc}).") from None
