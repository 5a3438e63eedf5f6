"""Figures formatted for the visitor: the one place that reads the active language.

Template filters (``guides.templatetags.figures``) and prose tokens (``guides.tokens.kinds``)
both format through these functions, so a figure looks the same in a table and in a sentence.
The Babel work itself is in ``pricing.formatting``, which takes the locale explicitly.
"""

import json
from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, to_locale

from pricing import formatting


def current_locale() -> str:
    """The Babel locale of the active language: 'en', 'de' or 'ja'."""
    return to_locale(get_language() or "en")


def number(value: Decimal | int) -> str:
    return formatting.number(value, current_locale())


def gigabytes(value: Decimal) -> str:
    return formatting.gigabytes(value, current_locale())


def usd(value: Decimal) -> str:
    return formatting.usd(value, current_locale())


def percent(fraction: Decimal) -> str:
    return formatting.percent(fraction, current_locale())


def long_date(value: date) -> str:
    return formatting.long_date(value, current_locale())


def medium_date(value: date) -> str:
    return formatting.medium_date(value, current_locale())


def word_list(items: Iterable[str], style: str = "standard") -> str:
    return formatting.word_list(list(items), current_locale(), style)


FORMATTERS = {"number": number, "gb": gigabytes, "usd": usd, "percent": percent}


def figure(value: Decimal, kind: str) -> str:
    """A value formatted by the kind its data names: number, gb, usd or percent."""
    return FORMATTERS[kind](value)


def config_label(count: int, gpu_name: str) -> str:
    """'1× A100 80GB' (en, de); 'A100 80GBを1台' (ja)."""
    return gettext("%(count)s× %(gpu)s") % {"count": count, "gpu": gpu_name}


def gigabyte_range(low: Decimal, high: Decimal) -> str:
    """'1,120–1,260 GB' (en), '1.120–1.260 GB' (de), '1,120〜1,260 GB' (ja)."""
    return gettext("%(low)s–%(high)s GB") % {"low": number(low), "high": number(high)}


_JSON_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def json_ld(data: dict) -> SafeString:
    """A <script type="application/ld+json"> block; <, > and & escaped as in json_script."""
    payload = json.dumps(data, ensure_ascii=False).translate(_JSON_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(payload))


def faq_page_json_ld(questions: list[tuple[str, str]]) -> SafeString:
    """schema.org FAQPage for (question, plain-text answer) pairs."""
    return json_ld(
        {
            "@context": "https://schema.org",
            "@type": "FAQPage",
            "mainEntity": [
                {
                    "@type": "Question",
                    "name": question,
                    "acceptedAnswer": {"@type": "Answer", "text": answer},
                }
                for question, answer in questions
            ],
        }
    )
