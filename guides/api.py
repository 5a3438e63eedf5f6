"""The guides' JSON endpoints: what each published guide recommends, exactly as its page says
it (``pages.assembly.guide_advice``, computed by the page's own figures)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema

from gpuguide.lib import api_caching
from guides.models import Guide
from guides.pages import assembly, serving_guide
from guides.pages import selectors as guide_selectors
from pricing import planning
from pricing.domain import calculations as calc
from pricing.domain import serving
from pricing.schemas import (
    AS_OF,
    HOURS_HIGH,
    HOURS_LOW,
    TIME_BASIS,
    USD_HIGH,
    USD_LOW,
    Day,
    Errors,
    RunSettings,
    StrictQuery,
    dollars,
    gigabytes,
    hours,
)
from pricing.serving_api import ServingChoice, tenth, with_range

router = Router(tags=["guides"])


class GuideQuery(StrictQuery):
    as_of: Day | None = Field(None, description=AS_OF)


class Titles(Schema):
    en: str
    de: str
    ja: str

    @classmethod
    def of(cls, guide: Guide) -> Titles:
        return cls(**{code: getattr(guide, f"title_{code}") for code, _name in settings.LANGUAGES})


KINDS = Literal[tuple(Guide.Kind.values)]


class GuideSummary(Schema):
    slug: str
    kind: KINDS = Field(description="What the guide advises on: fine-tuning or serving.")
    model: str = Field(description="The guide's language model, by slug.")
    titles: Titles


class GuideList(Schema):
    guides: list[GuideSummary]


class TableConfiguration(Schema):
    gpu: str
    count: int
    fits: dict[str, bool] = Field(
        description="Method slug -> whether the guide's run fits by the estimate (the page's ✓)."
    )


class RecommendedConfiguration(Schema):
    gpu: str
    count: int
    peak_gb_per_gpu: float = Field(description="The run's estimated peak, per GPU.")
    reserved_gb_per_gpu: float = Field(description="The peak with the allocator's margin.")
    usable_gb_per_gpu: float
    usd_per_hour: float | None = Field(description="The whole configuration per hour.")
    override: bool = Field(description="An editor chose it rather than the ranking.")
    tokens_per_s: float | None = Field(
        description="Training tokens per second over its GPUs; null where it no longer holds "
        "the run (an override)."
    )
    time_basis: Literal["measured", "derived"] | None = Field(description=TIME_BASIS)
    hours: float | None = Field(description="The training budget's wall-clock hours, to the tenth.")
    hours_low: float | None = Field(description=HOURS_LOW)
    hours_high: float | None = Field(description=HOURS_HIGH)
    usd_per_run: float | None = Field(description="What the budget's run costs at our price.")
    usd_per_run_low: float | None = Field(description=USD_LOW)
    usd_per_run_high: float | None = Field(description=USD_HIGH)

    @classmethod
    def of(
        cls, plan: calc.PlannedFit, run: calc.RunPlan | None, override: bool
    ) -> RecommendedConfiguration:
        return cls(
            gpu=plan.configuration.gpu.slug,
            count=plan.configuration.count,
            peak_gb_per_gpu=gigabytes(plan.peak_gb_per_gpu),
            reserved_gb_per_gpu=gigabytes(plan.reserved_gb_per_gpu),
            usable_gb_per_gpu=gigabytes(plan.usable_gb_per_gpu),
            usd_per_hour=dollars(plan.configuration.usd_per_hour),
            override=override,
            tokens_per_s=None if run is None else float(run.tokens_per_s),
            time_basis=None if run is None else run.time_basis,
            hours=None if run is None else hours(run.shown_hours),
            hours_low=None if run is None else hours(run.shown_hours_low),
            hours_high=None if run is None else hours(run.shown_hours_high),
            usd_per_run=None if run is None else dollars(run.usd_per_run),
            usd_per_run_low=None if run is None else dollars(run.usd_per_run_low),
            usd_per_run_high=None if run is None else dollars(run.usd_per_run_high),
        )


def _decided_by(advice: assembly.MethodAdvice) -> str | None:
    if advice.override or not advice.recommended:
        return None
    return calc.BY_COST if advice.close_call is None else advice.close_call.decided_by


class MethodRecommendation(Schema):
    method: str
    none_fits: bool = Field(description="Nothing we rent on one host holds the run.")
    recommended: list[RecommendedConfiguration] = Field(
        description="The recommendation (the cheapest run of the training budget, or where "
        "that is a close call the one chosen by decided_by), then the alternative (the fastest "
        "other run), as the page lists them; or the editor's choice."
    )
    close_call: bool = Field(
        description="The model cannot tell the cheapest runs apart: their costs differ by "
        "less than the error of their ratio. The page says they cost about the same."
    )
    decided_by: Literal["cost", "upfront", "gpus", "time"] | None = Field(
        description="What chose the recommendation: its cost, or in a close call the cheaper "
        "up-front GPU-hour block, the fewer GPUs or the shorter time; null for an editor's "
        "choice or where nothing fits."
    )


class GuideRun(RunSettings):
    training_tokens: int = Field(description="The training budget: tokens per epoch.")
    epochs: int


class GuideHeading(Schema):
    """What both kinds of guide answer first: which guide, about which model, as of when."""

    slug: str
    model: str
    model_repository: str = Field(
        description="The model's Hugging Face repository, as the tutorial's commands name it."
    )
    titles: Titles
    as_of: date

    @staticmethod
    def fields_of(guide: Guide, as_of: date) -> dict:
        return {
            "slug": guide.slug,
            "kind": guide.kind,
            "model": guide.language_model.slug,
            "model_repository": guide.language_model.repository,
            "titles": Titles.of(guide),
            "as_of": as_of,
        }


class GuideDetail(GuideHeading):
    kind: Literal["fine-tuning"]
    run: GuideRun
    configurations: list[TableConfiguration] = Field(description="The guide's fit table.")
    methods: list[MethodRecommendation] = Field(description="In the page's order.")

    @classmethod
    def of(cls, advice: assembly.GuideAdvice) -> GuideDetail:
        return cls(
            **cls.fields_of(advice.guide, advice.as_of),
            run=GuideRun(
                **RunSettings.of(advice.training).model_dump(),
                training_tokens=advice.training_tokens,
                epochs=advice.epochs,
            ),
            configurations=[
                TableConfiguration(
                    gpu=row.configuration.gpu.slug, count=row.configuration.count, fits=row.fits
                )
                for row in advice.configurations
            ],
            methods=[
                MethodRecommendation(
                    method=m.method,
                    none_fits=not m.recommended,
                    recommended=[
                        RecommendedConfiguration.of(
                            plan, m.runs.get(plan.configuration), m.override
                        )
                        for plan in m.recommended
                    ],
                    close_call=m.close_call is not None,
                    decided_by=_decided_by(m),
                )
                for m in advice.methods
            ],
        )


class ServingLoad(Schema):
    context: int = Field(description="--max-model-len: the longest request, in tokens.")
    prompt_tokens: int
    output_tokens: int
    tpot_target_ms: int = Field(description="The latency target cost per million is at.")


class PrecisionRecommendation(Schema):
    precision: str = Field(description="The weights' precision: bf16, fp8 or awq.")
    weights_gb: float = Field(description="The whole model's weights in it.")
    recommendation: ServingChoice | None = Field(
        description="The configuration whose million output tokens cost least at the target "
        "(or the close call's choice), as /api/v1/serving/ chooses it; null where none serves."
    )
    usd_per_hour: float | None
    usd_per_month: float | None
    users: int | None = Field(description="Users within the latency target at once.")
    usd_per_million_tokens: float | None
    usd_per_million_tokens_low: float | None
    usd_per_million_tokens_high: float | None
    ttft_ms: float | None = Field(description="Time to first token for one user.")
    ttft_ms_low: float | None
    ttft_ms_high: float | None
    tokens_per_s_per_user: float | None = Field(description="For one user.")
    tokens_per_s_per_user_low: float | None
    tokens_per_s_per_user_high: float | None
    command: str | None = Field(description="The recommended configuration's `vllm serve`.")

    @classmethod
    def of(cls, row: serving_guide.PrecisionRow) -> PrecisionRecommendation:
        chosen = row.choice.chosen if row.choice else None
        target = chosen.at_target if chosen else None
        one = chosen.at_concurrency if chosen else None
        return cls(
            precision=row.precision,
            weights_gb=gigabytes(row.weights_gb),
            recommendation=ServingChoice.of(row.choice),
            usd_per_hour=dollars(chosen.usd_per_hour) if chosen else None,
            usd_per_month=dollars(chosen.usd_per_month) if chosen else None,
            users=target.users if target else None,
            **with_range(
                "usd_per_million_tokens", target and target.usd_per_million_tokens, dollars
            ),
            **with_range("ttft_ms", one and one.ttft_ms, tenth),
            **with_range("tokens_per_s_per_user", one and one.tokens_per_s_per_user, tenth),
            command=serving.shell_line(chosen.command) if chosen else None,
        )


class ServingGuideDetail(GuideHeading):
    kind: Literal["serving"]
    vllm_version: str
    load: ServingLoad
    precisions: list[PrecisionRecommendation] = Field(description="In the page's order.")

    @classmethod
    def of(cls, advice: serving_guide.ServingAdvice) -> ServingGuideDetail:
        guide = advice.guide
        return cls(
            **cls.fields_of(guide, advice.as_of),
            vllm_version=serving.VLLM_VERSION,
            load=ServingLoad(
                context=guide.serving_context,
                prompt_tokens=guide.prompt_tokens,
                output_tokens=guide.output_tokens,
                tpot_target_ms=guide.tpot_target_ms,
            ),
            precisions=[PrecisionRecommendation.of(row) for row in advice.precisions],
        )


@router.get(
    "/",
    response={200: GuideList, 400: Errors},
    url_name="guides",
    summary="Every published guide",
)
def guides(request: HttpRequest, response: HttpResponse, query: Query[GuideQuery]) -> GuideList:
    """Every published guide: its slug, its language model and its title in each language.
    ``as_of`` is accepted as on every endpoint; the list is today's."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    return GuideList(
        guides=[
            GuideSummary(slug=g.slug, kind=g.kind, model=g.language_model.slug, titles=Titles.of(g))
            for g in guide_selectors.published_guides()
        ]
    )


@router.get(
    "{slug}/",
    response={200: GuideDetail | ServingGuideDetail, 400: Errors, 404: Errors},
    url_name="guide",
    summary="What a published guide recommends",
)
def guide(
    request: HttpRequest, response: HttpResponse, slug: str, query: Query[GuideQuery]
) -> GuideDetail | ServingGuideDetail:
    """A serving guide (``kind`` "serving"): its load and, per weight precision, the
    recommendation with its cost per million output tokens, speed and command, as its page
    says. A fine-tuning guide: its stated run, its fit table (the estimate's mark per method
    for each configuration) and, per method in the page's order, the recommendation and the
    alternative with their estimated peak per GPU and our price as of ``as_of``: what the page
    says. An unknown or unpublished guide is a 404."""
    response["Cache-Control"] = api_caching.for_day(query.as_of)
    try:
        found = guide_selectors.published_guide_for_page(slug=slug)
    except Guide.DoesNotExist:
        raise planning.NotOnFile("slug", f"no published guide {slug!r}") from None
    if found.serves:
        return ServingGuideDetail.of(serving_guide.serving_advice(found, at=query.as_of))
    return GuideDetail.of(assembly.guide_advice(found, at=query.as_of))


router.add_api_operation("/", ["HEAD"], guides, include_in_schema=False)
router.add_api_operation("{slug}/", ["HEAD"], guide, include_in_schema=False)
