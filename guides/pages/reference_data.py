"""The small reference tables every page reads, the same for every page and visitor, cached
site-wide (see pagecache.reads); the latest prices under each provider's ``prices`` version."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from gpuguide.lib import cache_tags
from guides.pagecache.reads import cached_site_wide, cached_under
from guides.pages import selectors as guide_selectors
from pricing import cache_tags as pricing_tags
from pricing import selectors
from pricing.models import LanguageModel, Provider


def providers() -> list[Provider]:
    """Every provider, ours first."""
    return cached_site_wide("providers", selectors.providers)


def house_provider() -> Provider:
    """The provider whose prices our pages quote; raises Provider.DoesNotExist before setup."""
    house = next((provider for provider in providers() if provider.is_house), None)
    if house is None:
        raise Provider.DoesNotExist("there is no house provider yet")
    return house


def method_listings() -> list[selectors.MethodListing]:
    return cached_site_wide("methods", selectors.method_listings)


def hour_blocks() -> list[int]:
    return cached_site_wide("hour-blocks", selectors.hour_blocks)


def facts() -> dict[str, selectors.FactValue]:
    return cached_site_wide("facts", selectors.facts)


def legal_page_kinds() -> list[str]:
    """The legal pages the company has reviewed, by kind: what the footer links."""
    return cached_site_wide("legal-pages", guide_selectors.legal_page_kinds)


def language_models() -> list[LanguageModel]:
    return cached_site_wide("language-models", selectors.language_models)


def throughputs_for_run(**run) -> dict[str, selectors.ThroughputListing]:
    """Each method's measurement of exactly this run (``selectors.throughputs_for_run``'s
    language_model, seq_len, batch_size and gradient_checkpointing)."""
    key = "{language_model}:{seq_len}:{batch_size}:{gradient_checkpointing:d}".format(**run)
    return cached_site_wide(f"throughputs:{key}", lambda: selectors.throughputs_for_run(**run))


@dataclass(frozen=True)
class LatestPrices:
    """Each provider's latest prices and check day as of a day (see ``latest_prices``)."""

    listings: dict[str, dict[str, selectors.GpuListing]]  # provider slug -> GPU slug -> GPU
    check_dates: dict[str, date]  # provider slug -> its latest check, where it has one


def latest_prices(*, at: date | None = None, ours_only: bool = False) -> LatestPrices:
    """Every GPU with its latest price at each provider (``ours_only``: at ours alone, so that
    a page quoting only our prices stays cached through a competitor's check) as of ``at``, and
    each provider's latest check day: cached under the ``site`` and the providers' ``prices``
    versions (the providers are in its tags, not its key)."""
    day = at or timezone.localdate()
    quoted = [house_provider()] if ours_only else providers()

    def load() -> LatestPrices:
        found = selectors.gpu_listings_for_providers(providers=quoted, at=day)
        if ours_only:
            [house] = quoted
            checked = selectors.latest_check_date(provider=house, at=day)
            check_dates = {} if checked is None else {house.slug: checked}
        else:
            check_dates = selectors.latest_check_dates(at=day)
        return LatestPrices(
            listings={slug: {gpu.slug: gpu for gpu in gpus} for slug, gpus in found.items()},
            check_dates=check_dates,
        )

    tags = [cache_tags.SITE, *(pricing_tags.prices(provider.pk) for provider in quoted)]
    return cached_under(tags, f"latest-prices:{day.isoformat()}", load)


def price_summaries(*, at: date | None = None) -> dict[str, dict[int, selectors.PriceSummary]]:
    """Each provider's prices for each GPU over the charts' year up to ``at``, summed up: a
    pass over the year's prices (50 ms for a year of daily changes), cached for every language
    under each provider's ``prices`` version."""
    day = at or timezone.localdate()
    everyone = providers()
    return cached_under(
        [cache_tags.SITE, *(pricing_tags.prices(provider.pk) for provider in everyone)],
        f"price-summaries:{day.isoformat()}",
        lambda: selectors.price_summaries(providers=everyone, at=day),
        per_language=False,
    )
