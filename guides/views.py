"""Public pages: each parses its input, calls one service and renders what it returns."""

from datetime import date, timedelta

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from guides import planner, presentation, selectors, services, site, structured_data
from guides.caching import cache_public_page
from guides.figures import MissingFigure
from guides.forms import PlannerForm
from guides.models import Guide, LegalPage
from guides.presentation import comparison_title, json_ld
from pricing import selectors as pricing_selectors
from pricing.models import Provider
from pricing.services import PriceCheckError, parse_check_date

AS_OF = "as_of"  # ?as_of=YYYY-MM-DD: the guide, GPU and comparison pages as of that day


def _no_prices_yet() -> Http404:
    return Http404(_("No prices have been recorded yet."))


class AsOfRefused(Exception):
    """``?as_of=`` is not one day from our first price check to today."""

    def __init__(self, first: date) -> None:
        super().__init__(first)
        self.first = first


def _as_of(request: HttpRequest) -> date | None:
    """The day ``?as_of=`` names, or None for the current page.

    The value must be one day by the price checks' own rule (``parse_check_date``: YYYY-MM-DD
    in ASCII digits, a real day, not in the future) and not before our first price check.
    Raises AsOfRefused for anything else, Provider.DoesNotExist before setup, and Http404 while
    no price has been checked.
    """
    values = request.GET.getlist(AS_OF)
    if not values:
        return None
    first = services.price_history_start()
    if first is None:
        raise _no_prices_yet()
    try:
        day = parse_check_date(value=values[0]) if len(values) == 1 else None
    except PriceCheckError:
        day = None
    if day is None or day < first:
        raise AsOfRefused(first)
    return day


def _as_of_refused(request: HttpRequest, refused: AsOfRefused) -> HttpResponse:
    """A 400 in the page layout saying which days ``as_of`` takes (never cached: not a 200)."""
    context = {"first": refused.first.isoformat(), "today": timezone.localdate().isoformat()}
    return render(request, "guides/as_of_refused.html", context, status=400)


def _get_guide_or_404(request: HttpRequest, slug: str) -> Guide:
    try:
        # Staff preview drafts at their real URL; visitors never see them.
        return selectors.guide_for_page(slug=slug, include_drafts=request.user.is_staff)
    except Guide.DoesNotExist:
        raise Http404(_("No such guide.")) from None


def _json_ld(*blocks: dict) -> SafeString:
    return SafeString("".join(json_ld(block) for block in blocks))


def _trail(*steps: tuple[str, str]) -> list[tuple[str, str]]:
    """The visible breadcrumb: home, then ``steps`` of (name, path), the page itself last."""
    return [(settings.SITE_NAME, reverse("guides:index")), *steps]


def _breadcrumbs_json_ld(request: HttpRequest, trail: list[tuple[str, str]]) -> dict:
    return structured_data.breadcrumbs([(name, site.absolute(request, p)) for name, p in trail])


@require_safe
@cache_public_page
def index(request: HttpRequest) -> HttpResponse:
    try:
        home = services.home_page()
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    publisher = site.publisher(request, home.house)
    data = _json_ld(
        structured_data.organization(publisher),
        structured_data.website(
            name=settings.SITE_NAME,
            url=site.absolute(request, request.path),
            language=get_language(),
            publisher=publisher,
        ),
    )
    context = {
        "home": home,
        "json_ld": data,
        "meta_title": _("Which GPU to rent for fine-tuning"),
        "meta_description": _(
            "Which GPU to rent for fine-tuning %(models)s: memory, fit and cost per method, "
            "computed from %(provider)s's prices of %(date)s."
        )
        % {
            "models": presentation.word_list(card.model_name for card in home.cards),
            "provider": home.house.name,
            "date": presentation.long_date(home.checked.newest) if home.checked else "—",
        },
    }
    return render(request, "guides/index.html", context)


@require_safe
@cache_public_page
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = _get_guide_or_404(request, slug)
    try:
        at = _as_of(request)
        page = services.guide_page(guide, at=at)
    except AsOfRefused as refused:
        return _as_of_refused(request, refused)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    trail = _trail((guide.title, request.path))
    url = site.absolute(request, request.path)
    edited = timezone.localdate(guide.updated_at)
    checked = page.checked.newest if page.checked else edited
    article = structured_data.tech_article(
        headline=guide.title,
        description=page.meta_description,
        url=url,
        language=get_language(),
        published=guide.published_on,
        modified=max(edited, checked),
        publisher=site.publisher(request),
        image_url=site.absolute(request, static(site.SHARE_IMAGE)),
    )
    context = {
        "page": page,
        "guide": guide,
        "as_of": at,
        "trail": trail,
        "og_type": "article",
        "meta_title": guide.title,
        "meta_description": page.meta_description,
        "cites_sources": True,
        "json_ld": _json_ld(article, _breadcrumbs_json_ld(request, trail)) + page.faq_json_ld,
    }
    return render(request, "guides/guide_detail.html", context)


@require_safe
@cache_public_page
def gpu_list(request: HttpRequest) -> HttpResponse:
    try:
        at = _as_of(request)
        prices = services.gpu_price_list(at=at)
    except AsOfRefused as refused:
        return _as_of_refused(request, refused)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    today = timezone.localdate()
    offers = [
        structured_data.GpuOffer(
            name=row.gpu.name,
            vendor=row.gpu.vendor,
            usd_per_gpu_hour=row.gpu.usd_per_gpu_hour,
            checked_on=row.gpu.checked_on,
            # Our prices hold until the next check; we re-check them within this many days.
            valid_until=max(row.gpu.checked_on, today)
            + timedelta(days=settings.PRICE_STALE_AFTER_DAYS),
        )
        for row in prices.rows
        if row.gpu.usd_per_gpu_hour is not None and row.gpu.checked_on is not None
    ]
    products = structured_data.gpu_products(
        offers=offers,
        url=site.absolute(request, request.path),
        seller=site.publisher(request, prices.house),
    )
    context = {
        "prices": prices,
        "as_of": at,
        "comparisons": selectors.published_comparisons(),
        "json_ld": "" if at else _json_ld(*products),
        "meta_title": _("GPU prices"),
        "meta_description": _(
            "Every GPU %(provider)s rents (%(gpus)s), with specs, current price per GPU-hour, "
            "hour blocks and price history."
        )
        % {
            "provider": prices.house.name,
            "gpus": presentation.word_list(row.gpu.name for row in prices.rows),
        },
    }
    return render(request, "guides/gpu_list.html", context)


@require_safe
def vram(request: HttpRequest) -> HttpResponse:
    # The bare page and ?params= are cached like every page; a planner query is free-form
    # and rendered each time, so that query strings cannot fill the cache.
    if set(request.GET) <= {"params"}:
        return _cached_vram(request)
    return _vram(request)


def _vram(request: HttpRequest) -> HttpResponse:
    try:
        at = _as_of(request)
    except AsOfRefused as refused:
        return _as_of_refused(request, refused)
    models, methods = pricing_selectors.language_models(), pricing_selectors.method_listings()
    form = PlannerForm(request.GET or None, language_models=models, methods=methods)
    valid = form.is_bound and form.is_valid()
    asked = form.cleaned_data.get("params") if valid else None
    wants_plan = valid and form.wants_estimate
    context = {
        "form": form,
        "table": services.vram_table(
            asked_params_billion=asked, methods=methods, language_models=models
        ),
        "plan": planner.plan(form.planner_request(), at=at) if wants_plan else None,
        "as_of": at,
        "cites_sources": True,
        "meta_title": _("How much VRAM do I need?"),
        "meta_description": _(
            "How much GPU memory fine-tuning a model takes with %(methods)s, by model size: "
            "cited rules of thumb and an estimate for your own run."
        )
        % {"methods": presentation.word_list(m.name for m in methods)},
    }
    status = 400 if form.is_bound and not valid else 200
    return render(request, "guides/vram.html", context, status=status)


_cached_vram = cache_public_page(_vram)


@require_safe
@cache_public_page
def compare(request: HttpRequest, first: str, second: str) -> HttpResponse:
    # Only pairs editors published have a page (staff preview the others).
    if not request.user.is_staff and not selectors.comparison_is_published(
        first=first, second=second
    ):
        raise Http404(_("No such comparison."))
    try:
        at = _as_of(request)
        comparison = services.gpu_comparison(first=first, second=second, at=at)
    except AsOfRefused as refused:
        return _as_of_refused(request, refused)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    except MissingFigure:
        raise Http404(_("No such GPU.")) from None
    title = comparison_title(comparison.first.name, comparison.second.name)
    trail = _trail((_("GPU prices"), reverse("guides:gpus")), (title, request.path))
    context = {
        "comparison": comparison,
        "as_of": at,
        "title": title,
        "trail": trail,
        "meta_title": title,
        "meta_description": _(
            "%(a)s or %(b)s for fine-tuning: memory, peak BF16 throughput, memory bandwidth "
            "and our price per GPU-hour (%(price_a)s and %(price_b)s) side by side."
        )
        % {
            "a": comparison.first.name,
            "b": comparison.second.name,
            "price_a": _price_or_dash(comparison.first.usd_per_gpu_hour),
            "price_b": _price_or_dash(comparison.second.usd_per_gpu_hour),
        },
        "json_ld": _json_ld(_breadcrumbs_json_ld(request, trail)),
    }
    return render(request, "guides/compare.html", context)


@require_safe
@cache_public_page
def legal(request: HttpRequest, kind: str) -> HttpResponse:
    try:
        page = selectors.legal_page(kind=kind)
    except LegalPage.DoesNotExist:
        raise Http404(_("No such page.")) from None
    context = {
        "legal": page,
        "trail": _trail((page.title, request.path)),
        "meta_title": page.title,
        "meta_description": _("%(page)s of %(site)s.")
        % {
            "page": page.title,
            "site": settings.SITE_NAME,
        },
    }
    return render(request, "guides/legal.html", context)


def _price_or_dash(value) -> str:
    return presentation.usd(value) if value is not None else "—"


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return render(request, "404.html", status=404)
