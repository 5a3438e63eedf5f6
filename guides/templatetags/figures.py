"""Template filters that format the service's raw Decimals for the active language.

Each wraps a ``guides.presentation`` function, the same ones prose tokens use; a missing value
(None) renders as an empty string so templates can add their own ``default``.
"""

from collections.abc import Callable
from decimal import Decimal

from django import template
from django.conf import settings
from django.urls import translate_url

from guides import presentation

register = template.Library()


def _blank_if_none(format_value: Callable) -> Callable:
    def filter_function(value):
        return "" if value is None else format_value(value)

    return filter_function


register.filter("num", _blank_if_none(presentation.number))
register.filter("gb", _blank_if_none(presentation.gigabytes))
register.filter("usd", _blank_if_none(presentation.usd))
register.filter("longdate", _blank_if_none(presentation.long_date))
register.filter("parenthesized", _blank_if_none(presentation.parenthesized))


@register.filter
def figure(value: Decimal | None, kind: str) -> str:
    """``{{ row.first|figure:row.kind }}``: formatted as the data says (gb, usd, number)."""
    return "" if value is None else presentation.figure(value, kind)


@register.simple_tag
def gb_range(low: Decimal, high: Decimal) -> str:
    return presentation.gigabyte_range(low, high)


@register.filter
def or_list(items) -> str:
    return presentation.word_list((str(i) for i in items), "or")


@register.simple_tag(takes_context=True)
def alternates(context) -> list[tuple[str, str]]:
    """(language, absolute URL) of the current page in every language, for hreflang."""
    request = context["request"]
    path = request.path
    return [
        (code, request.build_absolute_uri(translate_url(path, code)))
        for code, _name in settings.LANGUAGES
    ]
