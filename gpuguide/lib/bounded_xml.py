"""XML from outside (translators' XLIFF files), parsed by defusedxml: no DTD, so no entities
(billion laughs, XXE), and at most ``max_depth`` nested elements, counted as the parser opens
them, so that a recursive tree walk never meets a RecursionError. The size is the caller's.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

ParseError = ET.ParseError  # not well-formed: expat's message, with line and column


class XMLRefused(ValueError):
    """Well-formed or not, XML this module will not build a tree from."""


class XMLTooDeep(XMLRefused):
    """More nested elements than the limit."""


class XMLDeclarationsRefused(XMLRefused):
    """A DOCTYPE, entity declaration or external reference (defusedxml's refusal)."""


class _DepthLimitedTreeBuilder(ET.TreeBuilder):
    def __init__(self, max_depth: int) -> None:
        super().__init__()
        self.max_depth, self.depth = max_depth, 0

    def start(self, tag, attrs):
        self.depth += 1
        if self.depth > self.max_depth:
            raise XMLTooDeep(f"XML nested deeper than {self.max_depth} elements")
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
