"""The public pages' reads of guide content: keyword-only, typed, a fixed number of queries
each, cached under the versions of what they read where a page asks often. (The write
side, in ``guides.editorial``, reads the rows it changes itself.)"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time

from django.core.cache import cache
from django.db.models import Count, Max, Prefetch, Q
from django.urls import reverse
from django.utils import timezone

from gpuguide.lib import cache_tags
from guides.content.tokens.registry import KnownSlugs
from guides.models import (
    CHILD_ROWS,
    ComparisonPair,
    FitConfiguration,
    Guide,
    GuideRevision,
    LegalPage,
    Operator,
    Recommendation,
    ShareImage,
)
from guides.pagecache import tags as guide_tags
from guides.pagecache.reads import READ_PREFIX, cached_under
from guides.pagecache.versions import seconds_until_tomorrow
from pricing.models import Fact, Gpu, Method, Provider


def published_guides(*prefetched: Prefetch) -> list[Guide]:
    """Smallest model first: the order a reader scans sizes in."""
    cache_tags.record(guide_tags.GUIDES)
    return list(
        Guide.objects.published()
        .select_related("language_model")
        .prefetch_related(*prefetched)
        .order_by("language_model__params_billion", "language_model__name")
    )


def published_serving_guide(*, model: str) -> Guide | None:
    """The published serving guide of the language model ``model`` (a slug), if there is one."""
    return (
        Guide.objects.published()
        .filter(kind=Guide.Kind.SERVING, language_model__slug=model)
        .order_by("pk")
        .first()
    )


def last_published_changes(guides: list[Guide]) -> dict[int, datetime]:
    """When each guide last changed for its readers, in one query: the publication of its
    newest edit, or, for a guide published once (each the seed makes: its one revision is the
    seeding, not a change), the day it was first published. A row's ``updated_at`` is no such
    date: seeding, a clone's refresh and a working copy all touch it."""
    published = (
        GuideRevision.objects.filter(guide__in=guides, published_at__isnull=False)
        .values("guide")
        .annotate(count=Count("pk"), newest=Max("published_at"))
    )
    edits = {row["guide"]: row["newest"] for row in published if row["count"] > 1}
    first = {
        guide.pk: timezone.make_aware(datetime.combine(guide.published_on, time.min))
        for guide in guides
        if guide.published_on
    }
    return {
        guide.pk: edits.get(guide.pk) or first.get(guide.pk) or guide.updated_at for guide in guides
    }


def guide_for_page(*, slug: str, include_drafts: bool = False) -> Guide:
    """The guide with everything its page lists, prefetched: from the cache, or with drafts
    (staff, the admin, cloning) from the database. Raises Guide.DoesNotExist."""
    if not include_drafts:
        return published_guide_for_page(slug=slug)
    guide = _guides_for_pages().get(slug=slug)
    cache_tags.record(guide_tags.guide(guide.pk))
    return guide


def published_guide_for_page(*, slug: str) -> Guide:
    """A published guide with its rows, cached under its own and the ``site`` version (which
    a price check replaces neither of). Its key is cached by slug too, checked against the
    cached guide, so a renamed or unpublished guide is looked up again. Raises
    Guide.DoesNotExist."""
    key_by_slug = f"{READ_PREFIX}guide-key:{slug}"
    pk = cache.get(key_by_slug)
    guide = _cached_guide(pk) if pk is not None else None
    if guide is None or guide.slug != slug or guide.status != Guide.Status.PUBLISHED:
        pk = Guide.objects.published().filter(slug=slug).values_list("pk", flat=True).first()
        if pk is None:
            raise Guide.DoesNotExist(f"no published guide {slug!r}")
        cache.set(key_by_slug, pk, seconds_until_tomorrow())
        guide = _cached_guide(pk)
        if guide is None or guide.slug != slug or guide.status != Guide.Status.PUBLISHED:
            raise Guide.DoesNotExist(f"no published guide {slug!r}")  # changed meanwhile
    return guide


def _cached_guide(pk: int) -> Guide | None:
    return cached_under(
        [guide_tags.guide(pk), cache_tags.SITE],
        f"guide:{pk}",
        lambda: _guides_for_pages().filter(pk=pk).first(),
        per_language=False,  # the instance holds every language's fields
    )


def _guides_for_pages():
    return Guide.objects.select_related("language_model").prefetch_related(
        *(_prefetched(model) for model in CHILD_ROWS)
    )


def _prefetched(model) -> Prefetch:
    """A guide's rows of ``model`` (see CHILD_ROWS), each with the records it names (GPUs, its
    method, its source) in the same query."""
    named = [f.name for f in model._meta.concrete_fields if f.is_relation and f.name != "guide"]
    rows = model.objects.select_related(*named) if named else model.objects.all()
    return Prefetch(CHILD_ROWS[model], queryset=rows)


def guide_pks() -> list[int]:
    """Every guide's key, drafts included (the dashboard's cache reads their tags)."""
    return list(Guide.objects.order_by("pk").values_list("pk", flat=True))


def published_guides_for_checking() -> list[Guide]:
    """Every published guide with everything its page reads, prefetched (see guide_for_page)."""
    return list(_guides_for_pages().published())


@dataclass(frozen=True)
class ComparisonLink:
    """A published comparison page: its two GPUs' slugs and names."""

    first: str
    first_name: str
    second: str
    second_name: str

    @property
    def url(self) -> str:
        return reverse("guides:compare", kwargs={"first": self.first, "second": self.second})


def published_comparisons(*, gpu: str | None = None) -> list[ComparisonLink]:
    """Every comparison editors published (those of one GPU, either side, if given)."""
    pairs = ComparisonPair.objects.published()
    if gpu is not None:
        pairs = pairs.filter(Q(first__slug=gpu) | Q(second__slug=gpu))
    return [
        ComparisonLink(*row)
        for row in pairs.values_list("first__slug", "first__name", "second__slug", "second__name")
    ]


def published_comparison_pairs() -> list[tuple[str, str]]:
    """(GPU slug, GPU slug) of every published comparison page."""
    return [(link.first, link.second) for link in published_comparisons()]


def comparison_is_published(*, first: str, second: str) -> bool:
    return (
        ComparisonPair.objects.published().filter(first__slug=first, second__slug=second).exists()
    )


def share_image(*, slug: str, language: str) -> ShareImage | None:
    """The published guide's share image in ``language``, or None where none is drawn."""
    return ShareImage.objects.filter(
        guide__slug=slug, guide__status=Guide.Status.PUBLISHED, language=language
    ).first()


def published_guide(*, slug: str) -> Guide | None:
    return Guide.objects.published().select_related("language_model").filter(slug=slug).first()


def legal_page(*, kind: str, include_unreviewed: bool = False) -> LegalPage:
    """Raises LegalPage.DoesNotExist; one the company has not reviewed only for staff."""
    pages = (
        LegalPage.objects.all() if include_unreviewed else LegalPage.objects.filter(reviewed=True)
    )
    return pages.get(kind=kind)


def legal_page_kinds() -> list[str]:
    """The legal pages visitors may read: the operator's three once its details are complete,
    then those the company has reviewed."""
    drawn = [] if operator().missing_fields() else list(Operator.Page.values)
    return drawn + list(
        LegalPage.objects.filter(reviewed=True).order_by("kind").values_list("kind", flat=True)
    )


def operator() -> Operator:
    """The site's operator, complete or not (an empty one before anyone filled it in)."""
    return Operator.objects.first() or Operator()


def unreviewed_legal_pages() -> list[LegalPage]:
    return list(LegalPage.objects.filter(reviewed=False).order_by("kind"))


def published_guides_with_configurations() -> list[Guide]:
    """Published guides with the rows the home page's cards read, their fit tables and
    overrides: a page built from them is stale when the list changes or any of them does."""
    guides = published_guides(_prefetched(FitConfiguration), _prefetched(Recommendation))
    cache_tags.record(*(guide_tags.guide(guide.pk) for guide in guides))
    return guides


def token_slugs() -> KnownSlugs:
    """What token arguments may name, in four queries: loaded once per admin form."""
    gpus = list(Gpu.objects.values_list("slug", "name"))
    return KnownSlugs(
        methods=frozenset(Method.objects.values_list("slug", flat=True)),
        gpus=frozenset(slug for slug, _name in gpus),
        gpu_names=frozenset(name for _slug, name in gpus),
        providers=frozenset(Provider.objects.values_list("slug", flat=True)),
        facts=frozenset(Fact.objects.values_list("key", flat=True)),
    )
