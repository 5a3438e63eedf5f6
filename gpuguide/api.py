"""The JSON API, version 1, at /api/v1/: its OpenAPI description at /api/v1/openapi.json and
Swagger UI at /api/v1/docs, served from django-ninja's bundled static files (``ninja`` is in
INSTALLED_APPS), so no page loads anything from the internet. Every successful GET carries an
ETag and is answered 304 when the client has it (``api_caching``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Swagger
from ninja.errors import ValidationError

from gpuguide.lib import api_caching
from guides.api import router as guides_router
from pricing import planning
from pricing.api import planner as planner_router
from pricing.api import router as pricing_router
from pricing.domain import training_memory
from pricing.schemas import QueryError, estimate_errors
from pricing.serving_api import router as serving_router


class ConditionalNinjaAPI(NinjaAPI):
    def create_response(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = super().create_response(request, *args, **kwargs)
        return api_caching.conditional(request, response)


api = ConditionalNinjaAPI(
    title="GPU Guide API",
    version="1",
    description="Read-only figures behind the GPU Guide's pages.",
    urls_namespace="api-v1",
    # Swagger UI would show a badge fetched from validator.swagger.io; no outside requests.
    docs=Swagger(settings={"validatorUrl": None}),
)
api.add_router("/memory/", pricing_router)
api.add_router("/", planner_router)
api.add_router("/guides/", guides_router)
api.add_router("/serving/", serving_router)


def _errors(request: HttpRequest, errors: dict[str, str], status: int = 400) -> HttpResponse:
    return api.create_response(request, {"errors": errors}, status=status)


@api.exception_handler(QueryError)
def _refused_parameters(request: HttpRequest, exc: QueryError) -> HttpResponse:
    return _errors(request, exc.errors, exc.status)


@api.exception_handler(planning.PlanningError)
def _not_plannable(request: HttpRequest, exc: planning.PlanningError) -> HttpResponse:
    """Something named that is not on file (404), or on file but unusable (400)."""
    status = 404 if isinstance(exc, planning.NotOnFile) else 400
    return _errors(request, {exc.parameter: exc.message}, status)


@api.exception_handler(training_memory.EstimateError)
def _impossible_inputs(request: HttpRequest, exc: training_memory.EstimateError) -> HttpResponse:
    return _errors(request, estimate_errors(exc))


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Ninja's own refusals, should any bypass the schemas' ``QueryError``, in the same shape."""
    errors: dict[str, str] = {}
    for error in exc.errors:
        errors.setdefault(str(error["loc"][-1]) if error["loc"] else "parameters", error["msg"])
    return _errors(request, errors)
