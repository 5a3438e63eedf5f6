"""schema.org data for search engines: plain dicts from page values, one builder per type.

Every URL handed in is absolute (see ``guides.pages.site``); figures stay Decimals until here and
are written as plain decimal strings ("2.32"), which schema.org reads in any locale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

CONTEXT = "https://schema.org"


def decimal_text(value: Decimal) -> str:
    """'0.82' for Decimal('0.8200'), '10' for Decimal('10.00'): no exponent, no padding."""
    text = f"{value.normalize():f}"
    return text


@dataclass(frozen=True)
class Publisher:
    """The company behind the site: our house provider, with the site's logo."""

    name: str
    url: str
    logo_url: str

    def as_organization(self) -> dict:
        return {
            "@type": "Organization",
            "name": self.name,
            "url": self.url,
            "logo": {"@type": "ImageObject", "url": self.logo_url},
        }


def organization(publisher: Publisher) -> dict:
    return {"@context": CONTEXT, **publisher.as_organization()}


def website(*, name: str, url: str, language: str, publisher: Publisher) -> dict:
    return {
        "@context": CONTEXT,
        "@type": "WebSite",
        "name": name,
        "url": url,
        "inLanguage": language,
        "publisher": publisher.as_organization(),
    }


def tech_article(
    *,
    headline: str,
    description: str,
    url: str,
    language: str,
    published: date | None,
    modified: date,
    publisher: Publisher,
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
        "author": publisher.as_organization(),
        "publisher": publisher.as_organization(),
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


@dataclass(frozen=True)
class GpuOffer:
    """One GPU we rent at its current price per GPU-hour, checked on a day."""

    name: str
    vendor: str
    usd_per_gpu_hour: Decimal
    checked_on: date
    valid_until: date


def gpu_products(*, offers: list[GpuOffer], url: str, seller: Publisher) -> list[dict]:
    """A Product with its Offer per GPU we rent: the hourly price, its currency and validity."""
    return [
        {
            "@context": CONTEXT,
            "@type": "Product",
            "name": offer.name,
            "brand": {"@type": "Brand", "name": offer.vendor},
            "offers": {
                "@type": "Offer",
                "url": url,
                "price": decimal_text(offer.usd_per_gpu_hour),
                "priceCurrency": "USD",
                "validFrom": offer.checked_on.isoformat(),
                "priceValidUntil": offer.valid_until.isoformat(),
                "availability": "https://schema.org/InStock",
                "priceSpecification": {
                    "@type": "UnitPriceSpecification",
                    "price": decimal_text(offer.usd_per_gpu_hour),
                    "priceCurrency": "USD",
                    "unitCode": "HUR",  # UN/CEFACT: per hour (of one GPU)
                },
                "seller": seller.as_organization(),
            },
        }
        for offer in offers
    ]
