"""The pricing app's JSON endpoints: parse (``pricing.schemas``), read and compute
(``planning``, ``training_memory``), answer. Each sets its Cache-Control from
``gpuguide.lib.api_caching``; the API adds the ETag."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router

from gpuguide.lib import api_caching
from pricing import planning
from pricing.domain import training_memory
from pricing.schemas import (
    CostAnswer,
    CostQuery,
    Errors,
    FitAnswer,
    FitQuery,
    GpuCatalogue,
    GpusQuery,
    MemoryEstimate,
    MemoryQuery,
    PriceHistory,
    PricesQuery,
)

router = Router(tags=["memory"])
planner = Router(tags=["planner"])


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
        response["Cache-Control"] = api_caching.PURE_ANSWER
    else:
        model = planning.language_model_on_file(slug=query.model)
        architecture = planning.architecture_of(model)
        response["Cache-Control"] = api_caching.ON_FILE_ANSWER
    setup = query.training_setup()
    peak = training_memory.estimate_peak_memory(architecture, setup)
    return MemoryEstimate.of(peak, architecture, setup, model=query.model)


@planner.get(
    "gpus/",
    response={200: GpuCatalogue, 400: Errors, 404: Errors},
    url_name="gpus",
    summary="Every GPU with its specs and our price",
)
def gpus(request: HttpRequest, response: HttpResponse, query: Query[GpusQuery]) -> GpuCatalogue:
    """Every GPU on file with its specs, whether we rent it, and our price per GPU-hour with
    the day of its check, as of ``as_of`` (today by default)."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    return GpuCatalogue.of(planning.gpu_catalogue(at=query.as_of))


@planner.get(
    "fit/",
    response={200: FitAnswer, 400: Errors, 404: Errors},
    url_name="fit",
    summary="Which configurations we rent fit a fine-tuning run",
)
def fit(request: HttpRequest, response: HttpResponse, query: Query[FitQuery]) -> FitAnswer:
    """Each GPU we rent in 1, 2, 4 and 8 per host against the method's cited-rule planning
    figure for the model (the guides' fit tables: the advertised memory of all its GPUs) and
    against the run's peak-memory estimate sharded over its GPUs (each card's usable memory),
    with headroom and our price as of ``as_of``. An unknown ``model`` is a 404."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    plan = planning.run_fit(model=query.model, setup=query.training_setup(), at=query.as_of)
    return FitAnswer.of(plan)


@planner.get(
    "cost/",
    response={200: CostAnswer, 400: Errors, 404: Errors},
    url_name="cost",
    summary="What a fine-tuning run costs on each configuration that fits it",
)
def cost(request: HttpRequest, response: HttpResponse, query: Query[CostQuery]) -> CostAnswer:
    """The run on each configuration that fits it by the estimate (only ``gpu`` and ``count``
    if given), for ``hours`` assumed or for ``training_tokens`` x ``epochs`` at each
    configuration's speed (measured or derived; 100 million tokens by default): GPUs x hours x
    our price, and the smallest GPU-hour block that covers it. A ``gpu`` we do not rent is a
    404; a chosen configuration that does not fit gives no row."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    plan = planning.run_costs(
        model=query.model,
        setup=query.training_setup(),
        hours=query.hours,
        training_tokens=query.training_tokens,
        epochs=query.epochs,
        gpu=query.gpu,
        count=query.count,
        at=query.as_of,
    )
    return CostAnswer.of(plan)


@planner.get(
    "prices/{gpu}/",
    response={200: PriceHistory, 400: Errors, 404: Errors},
    url_name="prices",
    summary="A GPU's price history at one provider",
)
def prices(
    request: HttpRequest, response: HttpResponse, gpu: str, query: Query[PricesQuery]
) -> PriceHistory:
    """Every price per GPU-hour ``provider`` (ours by default) recorded for ``gpu`` up to
    ``as_of``, oldest first. An unknown GPU or provider is a 404."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    history = planning.price_history(gpu=gpu, provider=query.provider, at=query.as_of)
    return PriceHistory.of(history)


# HEAD answers like GET (the server drops the body); kept out of the OpenAPI description,
# which would otherwise carry each operation twice under one operationId.
router.add_api_operation("/", ["HEAD"], memory_estimate, include_in_schema=False)
for path, view in (("gpus/", gpus), ("fit/", fit), ("cost/", cost), ("prices/{gpu}/", prices)):
    planner.add_api_operation(path, ["HEAD"], view, include_in_schema=False)
