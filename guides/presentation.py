"""Labels that combine translated words with formatted figures (used by tokens and templates)."""

import json

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, to_locale

from pricing import formatting


def current_locale() -> str:
    """The Babel locale of the active language: 'en', 'de' or 'ja'."""
    return to_locale(get_language() or "en")


def config_label(count: int, gpu_name: str) -> str:
    """'1× A100 80GB' (en, de); 'A100 80GBを1台' (ja)."""
    return gettext("%(count)s× %(gpu)s") % {"count": count, "gpu": gpu_name}


def gigabyte_range(low, high, locale: str) -> str:
    """'1,120–1,260 GB' (en), '1.120–1.260 GB' (de), '1,120〜1,260 GB' (ja)."""
    return gettext("%(low)s–%(high)s GB") % {
        "low": formatting.number(low, locale),
        "high": formatting.number(high, locale),
    }


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
