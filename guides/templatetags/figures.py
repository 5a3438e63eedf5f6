"""Template filters that format the service's raw Decimals for the active language (Babel)."""

from datetime import date
from decimal import Decimal

from django import template
from django.conf import settings
from django.urls import translate_url

from guides.presentation import config_label, current_locale, gigabyte_range
from pricing import formatting

register = template.Library()


@register.filter
def num(value: Decimal | int | None) -> str:
    return "" if value is None else formatting.number(value, current_locale())


@register.filter
def gb(value: Decimal | None) -> str:
    return "" if value is None else formatting.gigabytes(value, current_locale())


@register.filter
def usd(value: Decimal | None) -> str:
    return "" if value is None else formatting.usd(value, current_locale())


@register.filter
def percent(fraction: Decimal | None) -> str:
    return "" if fraction is None else formatting.percent(fraction, current_locale())


@register.filter
def longdate(value: date | None) -> str:
    return "" if value is None else formatting.long_date(value, current_locale())


@register.simple_tag
def gb_range(low: Decimal, high: Decimal) -> str:
    return gigabyte_range(low, high, current_locale())


@register.simple_tag
def configuration(count: int, gpu_name: str) -> str:
    return config_label(count, gpu_name)


@register.filter
def or_list(items) -> str:
    return formatting.word_list([str(i) for i in items], current_locale(), "or")


@register.simple_tag(takes_context=True)
def alternates(context) -> list[tuple[str, str]]:
    """(language, absolute URL) of the current page in every language, for hreflang."""
    request = context["request"]
    path = request.path
    return [
        (code, request.build_absolute_uri(translate_url(path, code)))
        for code, _name in settings.LANGUAGES
    ]
