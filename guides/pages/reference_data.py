"""The small reference tables every page reads, cached site-wide (see pagecache.reads).

Rendering a guide would otherwise spend six of its queries on providers, methods with their
rules and components, hour blocks and facts, identical for every page and visitor.
"""

from __future__ import annotations

from guides.pagecache.reads import cached_site_wide
from guides.pages import selectors as guide_selectors
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


def throughputs_for_run(
    *, language_model: str, seq_len: int, batch_size: int, gradient_checkpointing: bool
) -> dict[str, selectors.ThroughputListing]:
    """Each method's measurement of exactly this run (measurements are shared data)."""
    run = f"{language_model}:{seq_len}:{batch_size}:{int(gradient_checkpointing)}"
    return cached_site_wide(
        f"throughputs:{run}",
        lambda: selectors.throughputs_for_run(
            language_model=language_model,
            seq_len=seq_len,
            batch_size=batch_size,
            gradient_checkpointing=gradient_checkpointing,
        ),
    )
