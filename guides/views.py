"""Public pages: each parses its input, calls one service and renders what it returns."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from guides import planner, selectors, services
from guides.caching import cache_public_page
from guides.figures import MissingFigure
from guides.forms import PlannerForm
from guides.models import Guide
from pricing.models import Provider


def _no_prices_yet() -> Http404:
    return Http404(_("No prices have been recorded yet."))


def _get_guide_or_404(request: HttpRequest, slug: str) -> Guide:
    try:
        # Staff preview drafts at their real URL; visitors never see them.
        return selectors.guide_for_page(slug=slug, include_drafts=request.user.is_staff)
    except Guide.DoesNotExist:
        raise Http404(_("No such guide.")) from None


@require_GET
@cache_public_page
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "guides/index.html", {"guides": selectors.published_guides()})


@require_GET
@cache_public_page
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = _get_guide_or_404(request, slug)
    try:
        page = services.guide_page(guide)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    return render(request, "guides/guide_detail.html", {"page": page, "guide": guide})


@require_GET
@cache_public_page
def gpu_list(request: HttpRequest) -> HttpResponse:
    try:
        prices = services.gpu_price_list()
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    return render(request, "guides/gpu_list.html", {"prices": prices})


@require_GET
def vram(request: HttpRequest) -> HttpResponse:
    # The bare page and ?params= are cached like every page; a planner query is free-form
    # and rendered each time, so that query strings cannot fill the cache.
    if set(request.GET) <= {"params"}:
        return _cached_vram(request)
    return _vram(request)


def _vram(request: HttpRequest) -> HttpResponse:
    form = PlannerForm(request.GET or None)
    valid = form.is_bound and form.is_valid()
    asked = form.cleaned_data.get("params") if valid else None
    context = {
        "form": form,
        "table": services.vram_table(asked_params_billion=asked),
        "plan": planner.plan(form.planner_request()) if valid and form.wants_estimate else None,
    }
    status = 400 if form.is_bound and not valid else 200
    return render(request, "guides/vram.html", context, status=status)


_cached_vram = cache_public_page(_vram)


@require_GET
@cache_public_page
def compare(request: HttpRequest, first: str, second: str) -> HttpResponse:
    try:
        comparison = services.gpu_comparison(first=first, second=second)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    except MissingFigure:
        raise Http404(_("No such GPU.")) from None
    return render(request, "guides/compare.html", {"comparison": comparison})


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return render(request, "404.html", status=404)
