"""What each public page says to search engines and link previews: its title, description,
breadcrumb trail and schema.org data, as context for ``base.html``. Each is built from data,
so that it is unique per page and language."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from guides.content import presentation
from guides.models import Guide
from guides.pages import site, structured_data
from guides.pages.assembly import Comparison, GpuPriceList, GuidePage, HomePage

Trail = list[tuple[str, str]]  # (name, path), home first, the page itself last


def _trail(*steps: tuple[str, str]) -> Trail:
    """The visible breadcrumb: home, then ``steps``."""
    return [(settings.SITE_NAME, reverse("guides:index")), *steps]


def _breadcrumbs(trail: Trail) -> dict:
    return structured_data.breadcrumbs([(name, site.absolute(p)) for name, p in trail])


def _usd_or_dash(value: Decimal | None) -> str:
    return "—" if value is None else presentation.usd(value)


def home(request: HttpRequest, page: HomePage) -> dict:
    publisher = site.publisher(page.house)
    description = _(
        "Which GPU to rent for fine-tuning %(models)s: memory, fit and cost per method, "
        "computed from %(provider)s's prices of %(date)s."
    ) % {
        "models": presentation.word_list(card.guide.language_model.name for card in page.cards),
        "provider": page.house.name,
        "date": presentation.long_date(page.checked.newest) if page.checked else "—",
    }
    return {
        "meta_title": _("Which GPU to rent for fine-tuning"),
        "meta_description": description,
        "json_ld": [
            structured_data.organization(publisher),
            structured_data.website(
                name=settings.SITE_NAME,
                url=site.absolute(request.path),
                language=get_language(),
                publisher=publisher,
            ),
        ],
    }


def guide(request: HttpRequest, guide: Guide, page: GuidePage) -> dict:
    trail = _trail((guide.title, request.path))
    edited = timezone.localdate(guide.updated_at)
    checked = page.checked.newest if page.checked else edited
    # Drawn when the guide was published (guides/editorial/share_images.py); the version in the
    # address makes link previews fetch it again after the next publication.
    share_path = reverse("guides:share_image", kwargs={"slug": guide.slug})
    share_image = site.absolute(f"{share_path}?v={guide.version}")
    article = structured_data.tech_article(
        headline=guide.title,
        description=page.meta_description,
        url=site.absolute(request.path),
        language=get_language(),
        published=guide.published_on,
        modified=max(edited, checked),  # the last edit or the newest price it quotes
        publisher=site.publisher(),
        image_url=share_image,
    )
    return {
        "trail": trail,
        "og_type": "article",
        "share_image_url": share_image,
        "share_image_alt": guide.title,
        "meta_title": guide.title,
        "meta_description": page.meta_description,
        "cites_sources": True,
        "json_ld": [article, _breadcrumbs(trail), page.faq_json_ld],
    }


def tutorial(request: HttpRequest, guide: Guide, page) -> dict:
    """A tutorial's meta: a fine-tuning guide's (``TutorialPage``) or a serving guide's
    (``serving_guide.ServingTutorialPage``)."""
    title = presentation.tutorial_title(page.access.model_name, serving=guide.serves)
    trail = _trail((guide.title, guide.get_absolute_url()), (title, request.path))
    if guide.serves:
        description = _(
            "The vllm serve commands that serve %(model)s on the GPUs our guide recommends, "
            "precision by precision, and how to measure them against our figures."
        ) % {"model": page.access.model_name}
    else:
        description = _(
            "The trl sft commands that fine-tune %(model)s on the GPUs our guide recommends, "
            "method by method, and what each run costs at %(provider)s."
        ) % {"model": page.access.model_name, "provider": page.house_name}
    return {
        "trail": trail,
        "meta_title": title,
        "meta_description": description,
        "json_ld": [_breadcrumbs(trail)],
    }


def gpu_list(request: HttpRequest, prices: GpuPriceList, at: date | None) -> dict:
    description = _(
        "Every GPU %(provider)s rents (%(gpus)s), with specs, current price per GPU-hour, "
        "hour blocks and price history."
    ) % {
        "provider": prices.house.name,
        "gpus": presentation.word_list(row.gpu.name for row in prices.rows),
    }
    # Offers are today's prices: a past day's page (noindex) offers nothing.
    offered = [] if at else [row.gpu for row in prices.rows]
    return {
        "meta_title": _("GPU prices"),
        "meta_description": description,
        "json_ld": structured_data.gpu_products(
            gpus=offered,
            url=site.absolute(request.path),
            seller=site.publisher(prices.house),
            today=timezone.localdate(),
        ),
    }


def vram(methods: list) -> dict:
    description = _(
        "How much GPU memory fine-tuning a model takes with %(methods)s, by model size: "
        "cited rules of thumb and an estimate for your own run."
    ) % {"methods": presentation.word_list(m.name for m in methods)}
    return {
        "meta_title": _("How much VRAM do I need?"),
        "meta_description": description,
        "cites_sources": True,
    }


def serving() -> dict:
    return {
        "meta_title": _("Which GPUs serve a model with vLLM?"),
        "meta_description": _(
            "Whether vLLM starts on the GPUs we rent, and how many requests each holds: "
            "weights, runtime and KV cache per GPU as vLLM budgets them, with the command."
        ),
        "cites_sources": False,
    }


def comparison(request: HttpRequest, comparison: Comparison) -> dict:
    first, second = comparison.first, comparison.second
    title = presentation.comparison_title(first.name, second.name)
    trail = _trail((_("GPU prices"), reverse("guides:gpus")), (title, request.path))
    description = _(
        "%(a)s or %(b)s for fine-tuning: memory, peak BF16 throughput, memory bandwidth "
        "and our price per GPU-hour (%(price_a)s and %(price_b)s) side by side."
    ) % {
        "a": first.name,
        "b": second.name,
        "price_a": _usd_or_dash(first.usd_per_gpu_hour),
        "price_b": _usd_or_dash(second.usd_per_gpu_hour),
    }
    return {
        "title": title,
        "trail": trail,
        "meta_title": title,
        "meta_description": description,
        "json_ld": [_breadcrumbs(trail)],
    }


def legal(request: HttpRequest, title: str) -> dict:
    return {
        "trail": _trail((title, request.path)),
        "meta_title": title,
        "meta_description": _("%(page)s of %(site)s.")
        % {"page": title, "site": settings.SITE_NAME},
    }
