"""Warnings for the admin index: data that has gone stale or recommendations gone wrong."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guides import catalogue
from guides import selectors as guide_selectors
from guides.models import Guide
from guides.presentation import config_label
from pricing import calculations as calc
from pricing import selectors
from pricing.models import Provider

STALE_PRICES = gettext_lazy(
    "%(provider)s prices were last checked %(when)s (more than %(days)s days ago)."
)
STALE_SOURCE = gettext_lazy(
    "“%(source)s” was last read on %(when)s; re-read it and update the date."
)
STALE_TRANSLATION = gettext_lazy(
    "“%(guide)s”: the %(language)s text is older than the English it translates."
)
STALE_RECOMMENDATION = gettext_lazy(
    "“%(guide)s”: for %(method)s, %(best)s is now cheaper than the recommended %(recommended)s "
    "and fits."
)


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
    for provider in catalogue.providers():
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


def stale_translation_warnings(guides: list[Guide]) -> list[DashboardWarning]:
    warnings = []
    for guide in guides:
        stamps = {s.language: s.changed_at for s in guide.translation_stamps.all()}
        english = stamps.get(settings.LANGUAGE_CODE)
        for code, name in settings.LANGUAGES:
            if english and code != settings.LANGUAGE_CODE and stamps.get(code, english) < english:
                warnings.append(
                    DashboardWarning(
                        STALE_TRANSLATION % {"guide": guide.title, "language": name},
                        reverse("admin:guides_guide_change", args=[guide.pk]),
                    )
                )
    return warnings


def recommendation_warnings(today: date, guides: list[Guide]) -> list[DashboardWarning]:
    """A method's first recommendation should be the cheapest fit among configurations with
    no more GPUs; otherwise prices have moved and the advice has gone stale."""
    try:
        house = catalogue.house_provider()
    except Provider.DoesNotExist:
        return []
    listings = {g.slug: g for g in selectors.gpu_listings_for_provider(provider=house, at=today)}
    methods = {m.slug: m for m in catalogue.method_listings()}
    warnings = []
    for guide in guides:
        configs = [listings[c.gpu.slug].configuration(c.count) for c in guide.configurations.all()]
        first_by_method = {}
        for rec in guide.recommendations.all():
            first_by_method.setdefault(rec.method.slug, rec)
        for slug, rec in first_by_method.items():
            needed = calc.estimate_memory(methods[slug].rule, guide.language_model.params_billion)
            candidates = [c for c in configs if c.count <= rec.count]
            best = calc.cheapest_fit(candidates, needed.planning_gb)
            if best is not None and (best.gpu.slug, best.count) != (rec.gpu.slug, rec.count):
                warnings.append(
                    DashboardWarning(
                        STALE_RECOMMENDATION
                        % {
                            "guide": guide.title,
                            "method": methods[slug].name,
                            "best": config_label(best.count, best.gpu.name),
                            "recommended": config_label(rec.count, rec.gpu.name),
                        },
                        reverse("admin:guides_guide_change", args=[guide.pk]),
                    )
                )
    return warnings


def dashboard_warnings(today: date | None = None, user=None) -> dict[str, list[DashboardWarning]]:
    """Warnings by topic; with ``user``, only the topics that user can act on."""
    today = today or timezone.localdate()
    guides = cache(guide_selectors.guides_for_dashboard)  # read once, for the two topics
    topics = [
        (_("Prices"), "pricing.add_pricecheck", lambda: stale_price_warnings(today)),
        (_("Sources"), "pricing.change_source", lambda: stale_source_warnings(today)),
        (_("Translations"), "guides.change_guide", lambda: stale_translation_warnings(guides())),
        (
            _("Recommendations"),
            "guides.change_guide",
            lambda: recommendation_warnings(today, guides()),
        ),
    ]
    return {
        topic: warnings()
        for topic, permission, warnings in topics
        if user is None or user.has_perm(permission)
    }
