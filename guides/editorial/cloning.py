"""A guide for another model, made from an existing one with no prose edited: its tokens say
every figure, so the copy is right as it stands. It takes the new model's card among its
sources and remembers its source (``families``); the recommendation overrides and cost
scenarios, which were about the old model, are not copied.
"""

from __future__ import annotations

import copy

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from guides.editorial import families, publishing
from guides.editorial.checks import guide_problems
from guides.models import (
    CHILD_ROWS,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideSource,
    Section,
)
from pricing.models import LanguageModel


class CloneRefused(Exception):
    """The clone cannot be made; the message says why in one line."""


def guide_slug_for(language_model: LanguageModel, kind: str = Guide.Kind.FINE_TUNING) -> str:
    """best-gpu-for-llama-3-1-8b-fine-tuning, best-gpu-for-serving-llama-3-1-8b."""
    model = language_model.slug.replace(".", "-")
    if kind == Guide.Kind.SERVING:
        return slugify(f"best-gpu-for-serving-{model}")
    return slugify(f"best-gpu-for-{model}-fine-tuning")


TITLES = {
    Guide.Kind.FINE_TUNING: gettext_noop("Which GPU is best for fine-tuning %(model)s?"),
    Guide.Kind.SERVING: gettext_noop("Which GPU is best for serving %(model)s?"),
}


def guide_title_for(
    language_model: LanguageModel, language: str, kind: str = Guide.Kind.FINE_TUNING
) -> str:
    """Refused where the message catalogue has none (a German page would show English)."""
    english = TITLES[kind] % {"model": language_model.name}
    with translation.override(language):
        title = _(TITLES[kind]) % {"model": language_model.name}
    if language != settings.LANGUAGE_CODE and title == english:
        raise CloneRefused(
            _("there is no %(language)s guide title to give the clone: run make translations")
            % {"language": language}
        )
    return title


def _check(source: Guide, language_model: LanguageModel, slug: str, source_checked: bool) -> None:
    if Guide.objects.filter(slug=slug).exists():
        raise CloneRefused(_("the slug “%(slug)s” is taken") % {"slug": slug})
    if source.language_model_id == language_model.pk:
        raise CloneRefused(
            _("the source guide is already about %(model)s") % {"model": language_model}
        )
    problems = [] if source_checked else guide_problems(source)
    if problems:
        raise CloneRefused(
            _("the source guide fails its own checks (%(count)s problems), first: %(first)s")
            % {"count": len(problems), "first": problems[0]}
        )


def clone_guide(
    source: Guide,
    language_model: LanguageModel,
    *,
    slug: str | None = None,
    publish: bool = False,
    source_checked: bool = False,
    user=None,
) -> Guide:
    """Raises CloneRefused. ``source`` from ``selectors.guide_for_page``; ``source_checked``:
    the caller has just found no ``guide_problems`` in it."""
    slug = slug or guide_slug_for(language_model, source.kind)
    _check(source, language_model, slug, source_checked)
    with transaction.atomic():
        guide = Guide(
            slug=slug,
            language_model=language_model,
            source=source,
            status=Guide.Status.DRAFT,
            kind=source.kind,
            **{name: getattr(source, name) for name in Guide.TRAINING_FIELDS},
            **{name: getattr(source, name) for name in Guide.SERVING_FIELDS},
        )
        for code, _name in settings.LANGUAGES:
            setattr(guide, f"title_{code}", guide_title_for(language_model, code, source.kind))
            for name in families.FOLLOWED[Guide]:  # the prose it may follow
                setattr(guide, f"{name}_{code}", getattr(source, f"{name}_{code}"))
        guide.title = guide.title_en
        guide.full_clean()
        guide.save()
        _copy_rows(source, guide)
        _copy_sources(source, guide, language_model)
        if publish:
            outcome = publishing.publish_rows(
                guide,
                user=user,
                comment=_("Made from “%(source)s”") % {"source": source.title_en},
            )
            if outcome.problems:
                transaction.set_rollback(True)
                raise CloneRefused(
                    _("the new guide would fail its checks, first: %(first)s")
                    % {"first": outcome.problems[0]}
                )
            guide.refresh_from_db()
    return guide


def _copy_rows(source: Guide, guide: Guide) -> None:
    for model in (Section, FaqEntry, FitConfiguration):
        rows = [copy.copy(row) for row in getattr(source, CHILD_ROWS[model]).all()]
        for row in rows:
            row.pk, row.guide = None, guide
        model.objects.bulk_create(rows)


def _copy_sources(source: Guide, guide: Guide, language_model: LanguageModel) -> None:
    old_card, new_card = source.language_model.source_id, language_model.source
    cited = [new_card if s.source_id == old_card else s.source for s in source.guide_sources.all()]
    cited = list(dict.fromkeys([*cited, new_card]))  # in order, each once
    GuideSource.objects.bulk_create(
        GuideSource(guide=guide, source=s, position=position)
        for position, s in enumerate(cited, start=1)
    )
