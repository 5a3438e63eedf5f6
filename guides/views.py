"""Public pages: thin views that load, call the services and render."""

from decimal import Decimal

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from guides import services
from guides.caching import cache_public_page
from guides.charts import price_chart
from guides.forms import ModelSizeForm
from guides.models import Guide
from guides.presentation import current_locale, faq_page_json_ld
from pricing import calculations as calc
from pricing import selectors
from pricing.models import Provider


def _no_prices_yet() -> Http404:
    return Http404(_("No prices have been recorded yet."))


def _get_guide_or_404(request: HttpRequest, slug: str) -> Guide:
    try:
        # Staff preview drafts at their real URL; visitors never see them.
        return services.load_guide(slug, include_drafts=request.user.is_staff)
    except Guide.DoesNotExist:
        raise Http404(_("No such guide.")) from None


@require_GET
@cache_public_page
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "guides/index.html", {"guides": services.published_guides()})


@require_GET
@cache_public_page
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = _get_guide_or_404(request, slug)
    try:
        page = services.guide_page(guide, locale=current_locale())
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    faq_json_ld = faq_page_json_ld([(e.question, e.answer_plain) for e in page.faq])
    return render(
        request,
        "guides/guide_detail.html",
        {"page": page, "guide": guide, "faq_json_ld": faq_json_ld},
    )


@require_GET
@cache_public_page
def gpu_list(request: HttpRequest) -> HttpResponse:
    try:
        house = selectors.house_provider()
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    history = selectors.price_history(provider=house)
    blocks = selectors.hour_blocks()
    gpus = [
        (
            gpu,
            price_chart(history.get(gpu.slug, [])),
            calc.block_prices(gpu.usd_per_gpu_hour, blocks),
        )
        for gpu in selectors.gpu_listings_for_provider(provider=house, rentable_only=True)
    ]
    return render(
        request,
        "guides/gpu_list.html",
        {
            "house": house,
            "gpus": gpus,
            "blocks": blocks,
            "checked_on": selectors.latest_check_date(provider=house),
        },
    )


@require_GET
@cache_public_page
def vram(request: HttpRequest) -> HttpResponse:
    form = ModelSizeForm(request.GET if "params" in request.GET else None)
    methods = selectors.method_listings()
    models = selectors.language_models()
    rows = [(m.name, m.params_billion) for m in models]
    if form.is_bound and form.is_valid():
        rows.insert(0, (None, form.cleaned_data["params"]))  # the visitor's size comes first
    table = [
        (name, params, [calc.estimate_memory(m.rule, params) for m in methods])
        for name, params in rows
    ]
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(
        request,
        "guides/vram.html",
        {"form": form, "methods": methods, "table": table},
        status=status,
    )


@require_GET
@cache_public_page
def compare(request: HttpRequest, first: str, second: str) -> HttpResponse:
    try:
        figures = services.page_figures(params_billion=Decimal(1))
        comparison = services.compare_gpus(figures, first, second)
    except Provider.DoesNotExist:
        raise _no_prices_yet() from None
    except LookupError:
        raise Http404(_("No such GPU.")) from None
    return render(request, "guides/compare.html", {"comparison": comparison})


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return render(request, "404.html", status=404)
