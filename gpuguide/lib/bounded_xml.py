"""XML from outside (translators' XLIFF files), parsed by defusedxml with a depth limit.

- No DTD at all, so no entities: no billion laughs (exponential expansion), no external
  entity reading a local file or URL (XXE). defusedxml refuses them while parsing.
- No more than ``max_depth`` nested elements: code that walks the tree recursively (inline
  ``<mrk>`` in a segment) then never meets 1,000 levels and a RecursionError. The depth is
  counted as the parser opens elements, before any tree walk.

The size is the caller's to limit, on the bytes before they are decoded.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

ParseError = ET.ParseError  # not well-formed: expat's message, with line and column


class XMLRefused(ValueError):
    """Well-formed or not, XML this module will not build a tree from."""


class XMLTooDeep(XMLRefused):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"XML nested deeper than {limit} elements")


class XMLDeclarationsRefused(XMLRefused):
    """A DOCTYPE, entity declaration or external reference (defusedxml's refusal)."""


class _DepthLimitedTreeBuilder(ET.TreeBuilder):
    def __init__(self, max_depth: int) -> None:
        super().__init__()
        self.max_depth, self.depth = max_depth, 0

    def start(self, tag, attrs):
        self.depth += 1
        if self.depth > self.max_depth:
            raise XMLTooDeep(self.max_depth)
        return super().start(tag, attrs)

    def end(self, tag):
        self.depth -= 1
        return super().end(tag)


def fromstring(text: str, *, max_depth: int) -> ET.Element:
    """The root element of ``text``; raises ParseError, XMLTooDeep or XMLDeclarationsRefused."""
    parser = DefusedXMLParser(target=_DepthLimitedTreeBuilder(max_depth), forbid_dtd=True)
    try:
        parser.feed(text)
        return parser.close()
    except DefusedXmlException as exc:
        raise XMLDeclarationsRefused(str(exc)) from None
