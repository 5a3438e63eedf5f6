"""Public pages: each parses its input, calls one service and renders what it returns."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from guides import selectors, services
from guides.caching import cache_public_page
from guides.figures import MissingFigure
from guides.forms import ModelSizeForm
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
@cache_public_page
def vram(request: HttpRequest) -> HttpResponse:
    form = ModelSizeForm(request.GET if "params" in request.GET else None)
    asked = form.cleaned_data["params"] if form.is_bound and form.is_valid() else None
    table = services.vram_table(asked_params_billion=asked)
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(request, "guides/vram.html", {"form": form, "table": table}, status=status)


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
