"""Figures formatted for the visitor in the active language: template filters and prose tokens
both format through here, so a figure looks the same in a table and in a sentence. The Babel
work is in ``pricing.domain.formatting``, which takes the locale explicitly."""

from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal

from django.utils.translation import get_language, gettext, gettext_lazy, pgettext, to_locale

from pricing.domain import formatting


def language() -> str:
    """The active language's code ('en' when none is active)."""
    return get_language() or "en"


def is_japanese_page() -> bool:
    return language().startswith("ja")


def current_locale() -> str:
    """The Babel locale of the active language: 'en', 'de' or 'ja'."""
    return to_locale(language())


def _in_language(format_: Callable[..., str]) -> Callable[..., str]:
    """A ``pricing.domain.formatting`` function given the active language's locale last."""
    return lambda *values: format_(*values, current_locale())


number = _in_language(formatting.number)
gigabytes = _in_language(formatting.gigabytes)
usd = _in_language(formatting.usd)
percent = _in_language(formatting.percent)
long_date = _in_language(formatting.long_date)
medium_date = _in_language(formatting.medium_date)
date_range = _in_language(formatting.date_range)


# Estimated figures (the planner's peaks, reserves, usable memory) to a tenth of a GB.
ESTIMATE_STEP = Decimal("0.1")


def estimated(value: Decimal) -> Decimal:
    """An estimated figure as every page shows it: to a tenth of a GB, half up (50.25 -> 50.3)."""
    return value.quantize(ESTIMATE_STEP, ROUND_HALF_UP)


def estimated_gigabytes(value: Decimal) -> str:
    return gigabytes(estimated(value))


def word_list(items: Iterable[str], style: str = "standard") -> str:
    return formatting.word_list(list(items), current_locale(), style)


FORMATTERS = {"number": number, "gb": gigabytes, "usd": usd, "percent": percent}


def figure(value: Decimal, kind: str) -> str:
    """A value formatted by the kind its data names: number, gb, usd or percent."""
    return FORMATTERS[kind](value)


# A serving guide's weight precisions (serving_plans.GUIDE_PRECISIONS), as pages name them.
PRECISION_LABELS = {"bf16": "BF16", "fp8": "FP8", "awq": gettext_lazy("AWQ (4-bit)")}


def config_label(count: int, gpu_name: str) -> str:
    """'1× A100 80GB' (en, de); 'A100 80GBを1基' (ja): for tables."""
    return gettext("%(count)s× %(gpu)s") % {"count": count, "gpu": gpu_name}


# Counts of GPUs as prose says them; past eight (one host) in digits.
NUMBER_WORDS = {
    "en": ("one", "two", "three", "four", "five", "six", "seven", "eight"),
    "de": ("eine", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"),
}


def gpu_count(count: int, gpu_name: str) -> str:
    """A count of GPUs in words: 'one A100 80GB', 'two H200s' (en); 'eine A100 80GB',
    'zwei H200' (de); 'H200を2基' (ja, with the counter for machines)."""
    code = language()[:2]
    words = NUMBER_WORDS.get(code)
    if code == "ja" or words is None or count > len(words):
        return config_label(count, gpu_name)
    word = words[count - 1]
    if code == "en" and count > 1:
        # "two H200s", but "four A100 80GB GPUs" where a plural s would read as "GBs"
        gpu_name = f"{gpu_name} GPUs" if gpu_name.endswith("GB") else f"{gpu_name}s"
    return f"{word} {gpu_name}"


def config_name(count: int, gpu_name: str) -> str:
    """A configuration as a noun in a sentence: '8× B200' (en, de); 'B200 8基' (ja)."""
    return pgettext("a configuration as a noun", "%(count)s× %(gpu)s") % {
        "count": count,
        "gpu": gpu_name,
    }


def rent_label(count: int, gpu_name: str) -> str:
    """A rent link's text, saying what it rents: 'Rent 1× B200' (ja 'B200 1基をレンタル')."""
    return gettext("Rent %(config)s") % {"config": config_name(count, gpu_name)}


def tutorial_title(model_name: str, *, serving: bool = False) -> str:
    """The tutorial's title, and the guide's link to it (a serving guide's: vLLM's commands)."""
    if serving:
        title = gettext("Step-by-step commands: serve %(model)s with vLLM on a rented GPU")
    else:
        title = gettext("Step-by-step commands: fine-tune %(model)s on a rented GPU")
    return title % {"model": model_name}


def parenthesized(text: str) -> str:
    """' (text)' after a word; full-width and unspaced in Japanese: '（text）'."""
    return f"（{text}）" if is_japanese_page() else f" ({text})"


def sentences(items: Iterable[str]) -> str:
    """Sentences joined as the language writes them: spaced, or not in Japanese."""
    return ("" if is_japanese_page() else " ").join(items)


def beyond_one_host(gpus_per_host: int) -> str:
    """What a method needs when no configuration on one host holds it."""
    return gettext("more than one %(count)s-GPU host, which we do not offer") % {
        "count": number(gpus_per_host)
    }


def comparison_title(first: str, second: str) -> str:
    """'H100 vs A100 80GB', 'H100 vs. A100 80GB', 'H100とA100 80GBの比較'."""
    return gettext("%(a)s vs %(b)s") % {"a": first, "b": second}


def gigabyte_range(low: Decimal, high: Decimal) -> str:
    """'1,120–1,260 GB' (en), '1.120–1.260 GB' (de), '1,120〜1,260 GB' (ja)."""
    return gettext("%(low)s–%(high)s GB") % {"low": number(low), "high": number(high)}


def hours_range(low: Decimal, high: Decimal) -> str:
    """A run's hours as a range: '6.1–13.3 h' (en), '6,1–13,3 h' (de), '6.1〜13.3時間' (ja)."""
    shown = gettext("%(low)s–%(high)s h") % {"low": number(low), "high": number(high)}
    return shown.replace(" ", "\u00a0")  # a line may break after the dash, not before "h"


def number_range(low: Decimal, high: Decimal) -> str:
    """A range of plain figures, where a column's heading names the unit: '6.1–13.3'."""
    return gettext("%(low)s–%(high)s") % {"low": number(low), "high": number(high)}


def usd_range(low: Decimal, high: Decimal) -> str:
    """A run's cost as a range: '$4.89–$9.99' (en), '4,89 $–9,99 $' (de)."""
    return gettext("%(low)s–%(high)s") % {"low": usd(low), "high": usd(high)}
