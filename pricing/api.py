"""The pricing app's JSON endpoints: parse (``pricing.schemas``), read (``selectors``),
compute (``training_memory``), answer."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from pricing import selectors, training_memory
from pricing.schemas import Errors, MemoryEstimate, MemoryQuery, QueryError

router = Router(tags=["memory"])

# The architecture form is a pure function of its query string. A model on file can be
# corrected by an editor at any time, so its answers are stored but revalidated on every use.
PURE_ANSWER_CACHE = "public, max-age=3600"
ON_FILE_ANSWER_CACHE = "no-cache"


@router.get(
    "/",
    response={200: MemoryEstimate, 400: Errors, 404: Errors},
    url_name="memory",
    summary="Peak GPU memory of one fine-tuning step",
)
def memory_estimate(
    request: HttpRequest, response: HttpResponse, query: Query[MemoryQuery]
) -> MemoryEstimate:
    """Peak memory per GPU of one training step and what is alive at that moment, for a
    language model on file (``model``) or any Llama-style decoder given by the seven
    architecture fields of its config.json. ``method``: ``qlora`` (4-bit base, LoRA
    adapters), ``lora`` (bf16 base, LoRA adapters), ``full-8bit-adam`` or ``full-adamw``
    (every weight trained). Each refused parameter is named in ``errors``; an unknown
    ``model`` is a 404."""
    if query.model is None:
        architecture = query.architecture()
        response["Cache-Control"] = PURE_ANSWER_CACHE
    else:
        architecture = _architecture_on_file(query.model)
        response["Cache-Control"] = ON_FILE_ANSWER_CACHE
    setup = query.training_setup()
    peak = training_memory.estimate_peak_memory(architecture, setup)
    return MemoryEstimate.of(peak, architecture, setup, model=query.model)


# HEAD answers like GET (the server drops the body); kept out of the OpenAPI description,
# which would otherwise carry the operation twice under one operationId.
router.add_api_operation("/", ["HEAD"], memory_estimate, include_in_schema=False)


def _architecture_on_file(slug: str) -> training_memory.Architecture:
    language_model = selectors.language_model_by_slug(slug=slug)
    if language_model is None:
        known = ", ".join(m.slug for m in selectors.language_models())
        raise QueryError({"model": f"no language model {slug!r} on file (known: {known})"}, 404)
    try:
        return language_model.architecture
    except training_memory.EstimateError as exc:
        raise QueryError({"model": f"the architecture on file is inconsistent: {exc}"}) from exc
