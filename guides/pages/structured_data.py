"""schema.org data for search engines: plain dicts, one builder per type. URLs handed in are
absolute (``guides.pages.site``); figures are written as plain decimal strings ("2.32")."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings

from pricing.selectors import GpuListing

CONTEXT = "https://schema.org"


def decimal_text(value: Decimal) -> str:
    """'0.82' for Decimal('0.8200'), '10' for Decimal('10.00'): no exponent, no padding."""
    return f"{value.normalize():f}"


def organization(publisher: dict) -> dict:
    """``site.publisher``'s Organization on its own."""
    return {"@context": CONTEXT, **publisher}


def website(*, name: str, url: str, language: str, publisher: dict) -> dict:
    return {
        "@context": CONTEXT,
        "@type": "WebSite",
        "name": name,
        "url": url,
        "inLanguage": language,
        "publisher": publisher,
    }


def tech_article(
    *,
    headline: str,
    description: str,
    url: str,
    language: str,
    published: date | None,
    modified: date,
    publisher: dict,
    image_url: str,
) -> dict:
    data = {
        "@context": CONTEXT,
        "@type": "TechArticle",
        "headline": headline,
        "description": description,
        "url": url,
        "mainEntityOfPage": url,
        "inLanguage": language,
        "image": image_url,
        "dateModified": modified.isoformat(),
        "author": publisher,
        "publisher": publisher,
    }
    if published is not None:
        data["datePublished"] = published.isoformat()
    return data


def breadcrumbs(items: list[tuple[str, str]]) -> dict:
    """BreadcrumbList of (name, absolute URL), outermost first: the visible trail's links."""
    return {
        "@context": CONTEXT,
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": position, "name": name, "item": url}
            for position, (name, url) in enumerate(items, start=1)
        ],
    }


def faq_page(questions: list[tuple[str, str]]) -> dict:
    """FAQPage for (question, plain-text answer) pairs."""
    return {
        "@context": CONTEXT,
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


def gpu_products(*, gpus: list[GpuListing], url: str, seller: dict, today: date) -> list[dict]:
    """A Product with its Offer per GPU we rent at a checked price: the hourly price, its
    currency and validity (a price holds until the next check, due within
    PRICE_STALE_AFTER_DAYS)."""
    valid = timedelta(days=settings.PRICE_STALE_AFTER_DAYS)
    return [
        {
            "@context": CONTEXT,
            "@type": "Product",
            "name": gpu.name,
            "brand": {"@type": "Brand", "name": gpu.vendor},
            "offers": {
                "@type": "Offer",
                "url": url,
                "price": decimal_text(gpu.usd_per_gpu_hour),
                "priceCurrency": "USD",
                "validFrom": gpu.checked_on.isoformat(),
                "priceValidUntil": (max(gpu.checked_on, today) + valid).isoformat(),
                "availability": "https://schema.org/InStock",
                "priceSpecification": {
                    "@type": "UnitPriceSpecification",
                    "price": decimal_text(gpu.usd_per_gpu_hour),
                    "priceCurrency": "USD",
                    "unitCode": "HUR",  # UN/CEFACT: per hour (of one GPU)
                },
                "seller": seller,
            },
        }
        for gpu in gpus
        if gpu.usd_per_gpu_hour is not None and gpu.checked_on is not None
    ]
