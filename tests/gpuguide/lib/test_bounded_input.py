"""Bounded parsing of input from outside (gpuguide.lib.bounded_json, bounded_xml): size and
depth are checked before any recursion, so hostile nesting is refused, never a RecursionError."""

import json

import pytest

from gpuguide.lib import bounded_json, bounded_xml
from gpuguide.lib.editor_input import SingleLineValidator

LIMITS = {"max_bytes": 64 * 1024, "max_depth": 20}


def test_json_within_the_limits_is_parsed_as_json_loads_would():
    text = json.dumps({"a": [[1, {"b": "[[[{{{"}]], "c": 'quote " and \\ ]]]'})
    assert bounded_json.loads(text, **LIMITS) == json.loads(text)


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_json_nested_deeper_than_the_limit_is_refused_before_parsing(opening):
    with pytest.raises(bounded_json.JSONTooDeep) as refused:
        bounded_json.loads(opening * 1000, **LIMITS)
    assert str(refused.value) == "JSON is nested deeper than 20 levels."


def test_the_depth_is_exact_and_ignores_brackets_in_strings():
    assert bounded_json.loads("[" * 20 + "]" * 20, **LIMITS) is not None
    with pytest.raises(bounded_json.JSONTooDeep):
        bounded_json.loads("[" * 21 + "]" * 21, **LIMITS)
    escaped = json.dumps(['\\"[[[[', "[" * 1000, "\\"])  # escapes do not end a string
    assert bounded_json.nesting_depth(escaped) == 1
    assert bounded_json.nesting_depth('["unterminated [[[[[[') == 1


def test_json_larger_than_the_limit_is_refused_in_utf8_bytes():
    with pytest.raises(bounded_json.JSONTooLarge) as refused:
        bounded_json.loads(json.dumps("あ" * 30_000, ensure_ascii=False), **LIMITS)
    assert str(refused.value) == ("JSON of 90,002 bytes is larger than the limit of 65,536 bytes.")


def test_bad_json_still_raises_json_decode_error_and_a_huge_number_is_refused():
    with pytest.raises(json.JSONDecodeError):
        bounded_json.loads("{not json", **LIMITS)
    with pytest.raises(bounded_json.JSONNumberTooLong, match="too many digits"):
        bounded_json.loads("1" * 5000, **LIMITS)


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)).replace(
        "&lol0;", "&lol;"
    )
    + "]><lolz>&lol9;</lolz>"
)
EXTERNAL_ENTITY = (
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
    "<x>&secret;</x>"
)


def test_xml_within_the_limits_is_parsed():
    root = bounded_xml.fromstring("<a><b>t<c/>u</b></a>", max_depth=3)
    assert [e.tag for e in root.iter()] == ["a", "b", "c"]


def test_xml_nested_deeper_than_the_limit_is_refused():
    with pytest.raises(bounded_xml.XMLTooDeep, match="deeper than 32 elements"):
        bounded_xml.fromstring("<m>" * 1000 + "</m>" * 1000, max_depth=32)


@pytest.mark.parametrize("attack", [BILLION_LAUGHS, EXTERNAL_ENTITY])
def test_xml_with_a_dtd_or_entities_is_refused(attack):
    with pytest.raises(bounded_xml.XMLDeclarationsRefused):
        bounded_xml.fromstring(attack, max_depth=32)


@pytest.mark.parametrize("text", ["a\nb", "a\rb", "a\x85b", "a\u2028b", "a\u2029b", "a\x0bb"])
def test_a_one_line_field_refuses_every_line_break(text):
    with pytest.raises(Exception) as refused:
        SingleLineValidator()(text)
    assert refused.value.messages == [
        f"This field must be one line: remove the line break (U+{ord(text[1]):04X})."
    ]
    SingleLineValidator()("a\tb — Größe, 日本語")  # tabs and any script are one line
