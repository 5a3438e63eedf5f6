"""Warnings for the admin index: data that has gone stale or recommendations gone wrong."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guides import selectors as guide_selectors
from guides.consistency import guide_problems
from guides.presentation import config_label
from guides.services import guide_figures, page_figures
from guides.translating import language_name, stale_translations
from guides.translation_admin import translation_url
from pricing import selectors
from pricing.models import Provider

STALE_PRICES = gettext_lazy(
    "%(provider)s prices were last checked %(when)s (more than %(days)s days ago)."
)
STALE_SOURCE = gettext_lazy(
    "“%(source)s” was last read on %(when)s; re-read it and update the date."
)
STALE_TRANSLATION = gettext_lazy(
    "“%(guide)s”: the %(language)s text is older than the English it translates: %(fields)s."
)
STALE_RECOMMENDATION = gettext_lazy(
    "“%(guide)s”: for %(method)s, %(best)s is now cheaper than the recommended %(recommended)s "
    "and fits."
)
GUIDE_PROBLEM = gettext_lazy("“%(guide)s” is published but no longer right: %(problem)s")


@dataclass(frozen=True)
class DashboardWarning:
    message: str
    url: str


def _months_ago(today: date, months: int) -> date:
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    return today.replace(year=year, month=month + 1, day=min(today.day, 28))


def stale_price_warnings(today: date) -> list[DashboardWarning]:
    limit = today - timedelta(days=settings.PRICE_STALE_AFTER_DAYS)
    latest = selectors.latest_check_dates(at=today)
    warnings = []
    for provider in selectors.providers():
        last = latest.get(provider.slug)
        if last is None or last < limit:
            warnings.append(
                DashboardWarning(
                    STALE_PRICES
                    % {
                        "provider": provider.name,
                        "when": last.isoformat() if last else _("never"),
                        "days": settings.PRICE_STALE_AFTER_DAYS,
                    },
                    reverse("admin:pricing_pricecheck_add") + f"?provider={provider.pk}",
                )
            )
    return warnings


def stale_source_warnings(today: date) -> list[DashboardWarning]:
    limit = _months_ago(today, settings.SOURCE_STALE_AFTER_MONTHS)
    return [
        DashboardWarning(
            STALE_SOURCE % {"source": source.title, "when": source.read_on.isoformat()},
            reverse("admin:pricing_source_change", args=[source.pk]),
        )
        for source in selectors.sources_read_before(day=limit)
    ]


def stale_translation_warnings() -> list[DashboardWarning]:
    """Per guide and language, the fields whose English changed since their translation was
    saved (``guides.translating``), linked to exactly those fields in the translation view."""
    return [
        DashboardWarning(
            STALE_TRANSLATION
            % {
                "guide": guide.title,
                "language": language_name(code),
                "fields": "; ".join(f"{f.where}: {f.label}" for f in fields),
            },
            f"{translation_url(guide, code, changed_only=True)}#{fields[0].anchor}",
        )
        for guide, code, fields in stale_translations()
    ]


def guide_check_warnings(today: date) -> list[DashboardWarning]:
    """Each published guide's problems as of today (``guides.consistency``): a price change
    can make a sentence untrue or an editor's recommendation wrong; each names the guide and
    the sentence. An editor's recommendation that still fits but is no longer the cheapest is
    named too."""
    guides = guide_selectors.published_guides_for_checking()
    if not guides:
        return []
    try:  # what every guide shares, read once: prices, methods, facts, measurements
        shared = page_figures(params_billion=Decimal(1), at=today)
    except Provider.DoesNotExist:
        return []  # nothing is priced before the house provider is set up
    throughputs = selectors.throughput_runs()
    # every GPU is listed at every provider (priced or not): their names, with no query
    gpu_names = frozenset(g.name for gpus in shared.listings.values() for g in gpus.values())
    pairs = set(guide_selectors.published_comparison_pairs())
    warnings = []
    for guide in guides:
        url = reverse("admin:guides_guide_change", args=[guide.pk])
        figures = guide_figures(guide, at=today, catalogue_figures=shared, throughputs=throughputs)
        problems = guide_problems(
            guide, gpu_names=gpu_names, figures=figures, published_pairs=pairs
        )
        warnings += [
            DashboardWarning(GUIDE_PROBLEM % {"guide": guide.title, "problem": p}, url)
            for p in problems
        ]
        for method, override in figures.recommendations.items():
            cheapest = figures.ranked(method)[:1]
            if cheapest and cheapest[0] != override[0]:
                warnings.append(
                    DashboardWarning(
                        STALE_RECOMMENDATION
                        % {
                            "guide": guide.title,
                            "method": figures.method(method).name,
                            "best": config_label(cheapest[0].count, cheapest[0].gpu.name),
                            "recommended": config_label(override[0].count, override[0].gpu.name),
                        },
                        url,
                    )
                )
    return warnings


def dashboard_warnings(today: date | None = None, user=None) -> dict[str, list[DashboardWarning]]:
    """Warnings by topic; with ``user``, only the topics that user can act on."""
    today = today or timezone.localdate()
    topics = [
        (_("Prices"), "pricing.add_pricecheck", lambda: stale_price_warnings(today)),
        (_("Sources"), "pricing.change_source", lambda: stale_source_warnings(today)),
        (_("Translations"), "guides.change_guide", stale_translation_warnings),
        (_("Published guides"), "guides.change_guide", lambda: guide_check_warnings(today)),
    ]
    return {
        topic: warnings()
        for topic, permission, warnings in topics
        if user is None or user.has_perm(permission)
    }
