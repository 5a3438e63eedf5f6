"""Public pages: each parses its input, asks ``guides.pages`` for what the page shows (and
``pages.meta`` for its metadata) and renders it. Nothing here writes, and nothing imports
``guides.editorial`` (.importlinter): revisions are previewed in the admin.
"""

import csv
import functools
import hashlib
from datetime import date

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date, quote_etag, url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_safe

from guides import permissions
from guides.background import signals as background_signals
from guides.content.page_figures import MissingFigure
from guides.forms import PlannerForm, ServingForm
from guides.models import Guide, LegalPage, Operator
from guides.pagecache.http import cache_public_page
from guides.pages import (
    assembly,
    legal_notices,
    meta,
    planner,
    reference_data,
    selectors,
    serving_guide,
    serving_planner,
    site,
)
from guides.pages import tutorial as tutorials
from pricing import selectors as pricing_selectors
from pricing.domain.formatting import trim
from pricing.models import Provider
from pricing.planning import NotOnFile
from pricing.services import PriceCheckError, parse_check_date

AS_OF = "as_of"  # ?as_of=YYYY-MM-DD: the guide, GPU and comparison pages as of that day
SVG = "image/svg+xml"


def _no_prices_yet() -> Http404:
    return Http404(_("No prices have been recorded yet."))


class AsOfRefused(Exception):
    """``?as_of=`` is not one day from our first price check to today."""

    def __init__(self, first: date) -> None:
        super().__init__(first)
        self.first = first


def _as_of(request: HttpRequest) -> date | None:
    """The day ``?as_of=`` names (a check date by ``parse_check_date``'s rule, not before our
    first price check), or None for the current page. Raises AsOfRefused for anything else,
    Provider.DoesNotExist before setup, and Http404 while no price has been checked."""
    values = request.GET.getlist(AS_OF)
    if not values:
        return None
    first = pricing_selectors.first_check_date(provider=reference_data.house_provider())
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


def _priced_page(view):
    """A page of prices: a refused ``?as_of=`` answers 400, and before any price is on file
    (no house provider) the page is a 404."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except AsOfRefused as refused:
            return _as_of_refused(request, refused)
        except Provider.DoesNotExist:
            raise _no_prices_yet() from None

    return wrapped


def _get_guide_or_404(request: HttpRequest, slug: str) -> Guide:
    try:
        # Those who may edit a draft preview it at its real URL; nobody else sees it.
        drafts = permissions.may_preview_guides(request.user, get_language())
        return selectors.guide_for_page(slug=slug, include_drafts=drafts)
    except Guide.DoesNotExist:
        raise Http404(_("No such guide.")) from None


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def index(request: HttpRequest) -> HttpResponse:
    at = _as_of(request)
    home = assembly.home_page(at=at)
    context = {"home": home, "as_of": at, **meta.home(request, home)}
    return render(request, "guides/index.html", context)


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = _get_guide_or_404(request, slug)
    at = _as_of(request)
    page = serving_guide.guide_page_for(guide, at=at)
    context = {"page": page, "guide": guide, "as_of": at, **meta.guide(request, guide, page)}
    return render(request, "guides/guide_detail.html", context)


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def tutorial(request: HttpRequest, slug: str) -> HttpResponse:
    guide = _get_guide_or_404(request, slug)
    at = _as_of(request)
    try:
        if guide.serves:
            page = serving_guide.serving_tutorial_page(guide, at=at)
        else:
            page = tutorials.tutorial_page(guide, at=at)
    except tutorials.NoRepository:
        raise Http404(_("This guide has no tutorial: its model's repository is unknown.")) from None
    context = {"page": page, "guide": guide, "as_of": at, **meta.tutorial(request, guide, page)}
    template = "guides/serving_tutorial.html" if guide.serves else "guides/tutorial.html"
    return render(request, template, context)


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def gpu_list(request: HttpRequest) -> HttpResponse:
    at = _as_of(request)
    prices = assembly.gpu_price_list(at=at)
    context = {
        "prices": prices,
        "as_of": at,
        "comparisons": selectors.published_comparisons(),
        **meta.gpu_list(request, prices, at),
    }
    return render(request, "guides/gpu_list.html", context)


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def gpu_lines(request: HttpRequest, gpu: str) -> HttpResponse:
    """The lines of a GPU's chart on the GPU page (as of the same day), every change a point:
    an SVG image the page's chart draws inside its frame."""
    try:
        lines = assembly.gpu_price_lines(gpu=gpu, at=_as_of(request))
    except assembly.NoSuchGpu:
        raise Http404(_("No such GPU.")) from None
    return render(request, "guides/gpu_lines.svg", {"lines": lines}, content_type=SVG)


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def gpu_price_history(request: HttpRequest, gpu: str) -> HttpResponse:
    """Every price of a GPU at every provider over the GPU page's year (as of the same day),
    as CSV: ISO dates and plain decimal numbers in any language, the column names in the
    page's."""
    try:
        rows = assembly.price_history_rows(gpu=gpu, at=_as_of(request))
    except assembly.NoSuchGpu:
        raise Http404(_("No such GPU.")) from None
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    table = csv.writer(response)
    table.writerow([_("GPU"), _("Provider"), _("First checked"), _("Last checked"),
                    _("USD per GPU-hour")])  # fmt: skip
    for gpu_name, provider, run in rows:
        table.writerow([gpu_name, provider, run.first.isoformat(), run.last.isoformat(),
                        trim(run.usd_per_gpu_hour)])  # fmt: skip
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@csrf_exempt  # its POST reads and changes nothing, like its GET; a token would defeat the cache
def vram(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _posted_vram(request)
    return _vram_page(request)


def _cached_unless_asked(view, form_class):
    """``view``, cached like every page when bare; an answer (the form's fields or ``as_of``
    in the query, free-form) is rendered each time, so that query strings cannot fill the
    cache."""
    cached = cache_public_page(view)
    asked = set(form_class.base_fields) | {AS_OF}

    def dispatch(request: HttpRequest) -> HttpResponse:
        return view(request) if asked & set(request.GET) else cached(request)

    return dispatch


def _posted_vram(request: HttpRequest) -> HttpResponse:
    """The planner's form by POST: a pasted config.json in a query makes a request line longer
    than gunicorn takes (deploy/gunicorn.conf.py), so that one is answered here; anything else
    goes to its own shareable address (303), ``as_of`` kept."""
    posted = {name: value for name, value in request.POST.items() if value.strip()}
    if "config_json" in posted:
        return _vram(request, data=request.POST)
    query = request.GET.copy()
    query.update(posted)
    response = redirect(f"{request.path}?{query.urlencode()}" if query else request.path)
    response.status_code = 303  # See Other: the answer is read with GET
    return response


@_priced_page
def _vram(request: HttpRequest, data=None) -> HttpResponse:
    """``data``: the form's fields where they came by POST; the query's otherwise."""
    at = _as_of(request)
    models, methods = reference_data.language_models(), reference_data.method_listings()
    data = request.GET if data is None else data
    form = PlannerForm(data or None, language_models=models, methods=methods)
    valid = form.is_bound and form.is_valid()
    asked = form.cleaned_data.get("params") if valid else None
    wants_plan = valid and form.wants_estimate
    context = {
        "form": form,
        "table": assembly.vram_table(
            asked_params_billion=asked, methods=methods, language_models=models
        ),
        "plan": planner.plan(form.planner_request(), at=at) if wants_plan else None,
        "answered": valid,  # the answer first, the form folded under it
        "size_beside_model": asked if wants_plan else None,  # not the estimate's: said so
        "as_of": at,
        **meta.vram(methods),
    }
    status = 400 if form.is_bound and not valid else 200
    return render(request, "guides/vram.html", context, status=status)


_vram_page = _cached_unless_asked(_vram, PlannerForm)


@_priced_page
def _serving(request: HttpRequest) -> HttpResponse:
    at = _as_of(request)
    form = ServingForm(request.GET or None, language_models=reference_data.language_models())
    valid = form.is_bound and form.is_valid()
    page = None
    if valid:
        try:
            page = serving_planner.serving_page(
                model=form.cleaned_data["model"],
                setup=form.serving_setup(),
                concurrency=form.cleaned_data["concurrency"],
                at=at,
            )
        except NotOnFile:  # no house provider yet: nothing is rented
            raise _no_prices_yet() from None
    context = {"form": form, "page": page, "as_of": at, **meta.serving()}
    status = 400 if form.is_bound and not valid else 200
    return render(request, "guides/serving.html", context, status=status)


serving = require_safe(_cached_unless_asked(_serving, ServingForm))


@require_safe
def serving_for_model(request: HttpRequest, model: str) -> HttpResponse:
    """Where a fine-tuning guide sends a reader who wants to serve its model: the model's
    serving guide where one is published, else the vLLM planner with the model chosen."""
    guide = selectors.published_serving_guide(model=model)
    if guide is not None:
        return redirect(guide)
    if not any(m.slug == model for m in reference_data.language_models()):
        raise Http404(_("There is no such model."))
    return redirect(f"{reverse('guides:serving')}?{urlencode({'model': model})}")


@require_safe
@cache_public_page(query=[AS_OF], days=[AS_OF])
@_priced_page
def compare(request: HttpRequest, first: str, second: str) -> HttpResponse:
    # Only pairs editors published have a page (their editors preview the others).
    preview = permissions.may_preview(request.user, "guides.change_comparisonpair")
    if not preview and not selectors.comparison_is_published(first=first, second=second):
        raise Http404(_("No such comparison."))
    at = _as_of(request)
    try:
        comparison = assembly.gpu_comparison(first=first, second=second, at=at)
    except MissingFigure:
        raise Http404(_("No such GPU.")) from None
    context = {"comparison": comparison, "as_of": at, **meta.comparison(request, comparison)}
    return render(request, "guides/compare.html", context)


@require_safe
@cache_public_page
def legal(request: HttpRequest, kind: str) -> HttpResponse:
    if kind in Operator.Page.values:
        return _operator_page(request, Operator.Page(kind))
    try:
        # Not public until the company has reviewed it; its editors see it with a notice.
        preview = permissions.may_preview(request.user, "guides.change_legalpage")
        page = selectors.legal_page(kind=kind, include_unreviewed=preview)
    except LegalPage.DoesNotExist:
        raise Http404(_("No such page.")) from None
    context = {"legal": page, **meta.legal(request, page.title)}
    return render(request, "guides/legal.html", context)


def _operator_page(request: HttpRequest, kind: Operator.Page) -> HttpResponse:
    """The imprint, privacy notice or commercial-transactions notice, drawn from the operator's
    details: a 404 to visitors while one is missing; whoever may change them sees the page
    with the missing fields named."""
    operator = selectors.operator()
    missing = operator.missing_fields()
    if missing and not permissions.may_preview(request.user, "guides.change_operator"):
        raise Http404(_("No such page."))
    context = {
        "operator": operator,
        "missing": missing,
        **legal_notices.facts(),
        **meta.legal(request, kind.label),
    }
    return render(request, f"guides/legal/{kind.value.replace('-', '_')}.html", context)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return render(request, "404.html", status=404)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403 with the reason (a PermissionDenied's message, where it has one) and a way back: in
    the admin's frame for admin addresses, else in the site's."""
    reason = str(exception) if exception is not None and str(exception) else ""
    match = request.resolver_match
    in_admin = match is not None and "admin" in match.app_names
    back = request.headers.get("Referer", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = ""
    context = {"reason": reason, "back": back}
    if in_admin:
        context |= admin.site.each_context(request)
        return render(request, "admin/403.html", context, status=403)
    return render(request, "403.html", context, status=403)


SHARE_IMAGE_MAX_AGE = 24 * 60 * 60  # the page's URL for it changes with each publication
SHARE_IMAGE_PENDING_MAX_AGE = 5 * 60  # the site-wide image, until the worker draws its own


@require_safe
def share_image(request: HttpRequest, slug: str) -> HttpResponse:
    """A guide's link-preview image in the page's language; the site-wide image only where
    this machine has no font for the language (manage.py check: guides.W001)."""
    image = selectors.share_image(slug=slug, language=get_language())
    if image is None:
        guide = selectors.published_guide(slug=slug)
        if guide is None:
            raise Http404(_("No such guide."))
        # Not drawn yet (published while no task worker ran): the worker is asked to draw it,
        # and the site-wide image stands in meanwhile (a redirect nobody caches for long).
        background_signals.share_image_missing.send(
            sender=None, guide_id=guide.pk, language=get_language()
        )
        response = redirect(static(site.SHARE_IMAGE))
        patch_cache_control(response, public=True, max_age=SHARE_IMAGE_PENDING_MAX_AGE)
        return response
    png = bytes(image.png)
    etag = quote_etag(hashlib.sha256(png).hexdigest()[:32])
    modified = int(image.drawn_at.timestamp())
    response = get_conditional_response(request, etag=etag, last_modified=modified)
    if response is None:
        response = HttpResponse(png, content_type="image/png")
    response["ETag"] = etag
    response["Last-Modified"] = http_date(modified)
    patch_cache_control(response, public=True, max_age=SHARE_IMAGE_MAX_AGE)
    return response
