"""Is a guide right? Every token filled in every language, nothing typed, every advice true.
Run on publish, by ``clone_guide`` and by the dashboard for every published guide (a price
change can make a published sentence untrue)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from guides.content.page_figures import MissingFigure, PageFigures
from guides.content.presentation import config_label, estimated_gigabytes
from guides.content.prose_rules import (
    requirement_names_recommendation,
    typed_answer,
    typed_figures,
)
from guides.content.tokens import kinds  # registers every kind; what the answering ones say
from guides.content.tokens.registry import TOKEN_RE, KnownSlugs, TokenError, registry
from guides.models import Guide, Section
from guides.pages.assembly import guide_figures
from guides.pages.selectors import published_comparison_pairs, token_slugs
from pricing.domain import calculations as calc

SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s*")


@dataclass(frozen=True)
class Problem:
    where: str  # "FAQ entry 3, answer (German)"
    sentence: str  # the sentence as the editor wrote it, tokens and all
    message: str

    def __str__(self) -> str:
        said = f" — “{self.sentence}”" if self.sentence else ""
        return f"{self.where}: {self.message}{said}"


SHOWN_PROBLEMS = 10  # a message to the editor lists this many of a guide's problems


def problems_list(problems: list) -> SafeString:
    return render_to_string(
        "admin/guides/includes/problems.html", {"problems": problems[:SHOWN_PROBLEMS]}
    )


def _sentence_around(text: str, start: int, end: int) -> str:
    sentences = SENTENCE_END_RE.split(text)
    position = 0
    for sentence in sentences:
        found = text.find(sentence, position)
        if found <= start < found + len(sentence) or found < end <= found + len(sentence):
            return " ".join(sentence.split())
        position = found + len(sentence)
    return " ".join(text[start:end].split())


def _texts(guide: Guide):
    for name in (*Guide.prose_fields, *Guide.plain_text_fields):
        yield _("the guide"), guide, name
    for section in guide.sections.all():
        label = _("section %(position)s") % {"position": section.position}
        for name in section.prose_fields:
            yield label, section, name
    for entry in guide.faq_entries.all():
        label = _("FAQ entry %(position)s") % {"position": entry.position}
        for name in entry.prose_fields:
            yield label, entry, name


def text_problems(
    guide: Guide, figures: PageFigures, gpu_names: frozenset[str], published_pairs: set
) -> list[Problem]:
    problems, unlinked = [], []
    texts = list(_texts(guide))
    for code, language in settings.LANGUAGES:
        # where each problem is, said in the reader's language (before switching to the page's)
        places = [
            f"{label}, {instance._meta.get_field(name).verbose_name} ({_(language)})"
            for label, instance, name in texts
        ]
        unfilled, typed, contradicted, required = [], [], [], []
        with translation.override(code):
            for (_label, instance, name), where in zip(texts, places, strict=True):
                text = getattr(instance, f"{name}_{code}") or ""
                for match in TOKEN_RE.finditer(text):
                    words = match.group(1).split()
                    if words[:1] == ["compare_link"] and len(words) == 3:
                        if tuple(words[1:]) not in published_pairs:
                            unlinked.append((where, text, match, words[1:]))
                    try:
                        kind, args = registry.parse(match.group(1))
                        kind.render(figures, *args)
                    except (TokenError, MissingFigure, calc.RuleError) as exc:
                        unfilled.append((where, text, match, exc))
                        continue
                    before, after = text[: match.start()], text[match.end() :]
                    if requirement_names_recommendation(kind.name, before, after):
                        required.append((where, text, match))
                    typed_word = typed_answer(before)
                    if kind.name in kinds.ANSWERS and typed_word is not None:
                        said, start = typed_word
                        if said != kinds.ANSWERS[kind.name](figures, *args):
                            contradicted.append((where, text, start, match, said))
                typed.append((where, text))
        for where, text, match, reason in unfilled:
            message = _("%(token)s cannot be filled: %(reason)s")
            problems.append(_token_problem(where, text, match, message, reason=reason))
        for where, text, start, match, said in contradicted:
            message = (
                _("the text answers yes, but %(token)s answers no by the estimate")
                if said
                else _("the text answers no, but %(token)s answers yes by the estimate")
            )
            sentence = " ".join(text[start : match.end()].split())
            problems.append(Problem(where, sentence, message % {"token": match.group(0)}))
        for where, text, match in required:
            message = _(
                "%(token)s names what we recommend, not what the run needs: write "
                "[[needs METHOD]] for the smallest configuration that holds it"
            )
            problems.append(_token_problem(where, text, match, message))
        for where, text in typed:
            for figure in typed_figures(text, gpu_names):
                position = text.find(figure.text)
                sentence = _sentence_around(text, position, position + len(figure.text))
                problems.append(Problem(where, sentence, figure.message))
    for where, text, match, (a, b) in unlinked:
        message = _(
            "the comparison of %(a)s and %(b)s is not published (admin: GPU comparisons), so its "
            "link would lead nowhere"
        )
        problems.append(_token_problem(where, text, match, message, a=a, b=b))
    return problems


def _token_problem(where: str, text: str, match, message: str, **words) -> Problem:
    """A problem with the token ``match`` (``%(token)s`` in ``message``) in its sentence."""
    sentence = _sentence_around(text, match.start(), match.end())
    return Problem(where, sentence, message % {"token": match.group(0), **words})


def advice_problems(guide: Guide, figures: PageFigures) -> list[Problem]:
    """Configurations the editor set that do not hold the run by the estimate, or not rented."""
    rows = [(_("recommendation"), r) for r in guide.recommendations.all()]
    rows += [(_("cost scenario"), s) for s in guide.cost_scenarios.all()]
    problems = []
    for what, row in rows:
        configuration = figures.configuration(row.gpu.slug, row.count)
        label = config_label(row.count, row.gpu.name)
        where = f"{what} {row.position}: {row.method.short_name}, {label}"
        if configuration.usd_per_hour is None:
            problems.append(Problem(where, "", _("we do not rent this configuration")))
        try:
            plan = figures.plan(row.method.slug, configuration)
        except MissingFigure:
            continue  # no estimate for the method: its tokens report it
        if not plan.fits_by_estimate:
            problems.append(
                Problem(
                    where,
                    "",
                    _(
                        "by the estimate, the guide's run needs %(need)s per GPU here, more "
                        "than the %(usable)s each card can use"
                    )
                    % {
                        "need": estimated_gigabytes(plan.reserved_gb_per_gpu),
                        "usable": estimated_gigabytes(plan.usable_gb_per_gpu),
                    },
                )
            )
    return problems


def kind_problems(guide: Guide, figures: PageFigures) -> list[Problem]:
    problems = []
    for section in guide.sections.all():
        if not section.table or section.table == Section.Table.COMPARISON:
            continue
        if (section.table in Section.SERVING_TABLES) != guide.serves:
            kind = _("serving") if section.table in Section.SERVING_TABLES else _("fine-tuning")
            problems.append(
                Problem(
                    _("section %(position)s") % {"position": section.position},
                    section.get_table_display(),
                    _("this table belongs to a %(kind)s guide") % {"kind": kind},
                )
            )
    if guide.serves and not figures.serving:
        problems.append(
            Problem(
                _("model"),
                guide.language_model.name,
                _("the vLLM planner cannot plan for this model, so no serving figure can be shown"),
            )
        )
    return problems


def guide_problems(
    guide: Guide,
    *,
    at: date | None = None,
    known: KnownSlugs | None = None,
    gpu_names: frozenset[str] | None = None,
    figures: PageFigures | None = None,
    published_pairs: set[tuple[str, str]] | None = None,
) -> list[Problem]:
    """Everything wrong with a guide (from ``selectors.guide_for_page``); empty when it may be
    published. Checking many guides, pass what was read once: ``known`` or ``gpu_names``,
    ``figures`` and ``published_pairs``."""
    figures = figures or guide_figures(guide, at=at)
    gpu_names = gpu_names or (known or token_slugs()).gpu_names
    if published_pairs is None:
        published_pairs = set(published_comparison_pairs())
    return (
        kind_problems(guide, figures)
        + advice_problems(guide, figures)
        + text_problems(guide, figures, gpu_names, published_pairs)
    )
