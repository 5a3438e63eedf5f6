"""What an edit to shared data (a GPU's specs, a language model, a method, a memory rule, a
fact) would move on the published guides, before it is saved
(``pricing.signals.shared_data_changing``). Each guide's figures are computed twice through the
``PageFigures`` its page uses, over the stored records and with the edited record held in memory
(never saved). A figure moves by more than ``MOVE_FACTOR`` either way, or a verdict changes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal

from django.utils.translation import gettext as _

from guides.content import presentation
from guides.content.page_figures import MissingFigure, PageFigures
from guides.editorial.where_used import uses_of
from guides.models import Guide
from guides.pages import selectors
from guides.pages.assembly import guide_figures, page_figures
from pricing import selectors as pricing_selectors
from pricing.domain import calculations as calc
from pricing.models import Fact, Gpu, LanguageModel, MemoryRule, Method
from pricing.signals import MOVE_FACTOR


@dataclass(frozen=True)
class MovedFigure:
    guide: str  # the guide's title, in the admin's language
    figure: str  # what moves, e.g. "QLoRA: cost of the recommended run"
    before: str
    after: str


def moved_by_gpu(before: Gpu, after: Gpu) -> list[MovedFigure]:
    specs = pricing_selectors.gpu_specs(after)

    def edited(base: PageFigures) -> PageFigures:
        listings = {
            provider: {
                slug: replace(listing, **specs) if slug == before.slug else listing
                for slug, listing in by_gpu.items()
            }
            for provider, by_gpu in base.listings.items()
        }
        return replace(base, listings=listings)

    return _moved(selectors.published_guides_for_checking(), edit_base=edited)


def moved_by_model(before: LanguageModel, after: LanguageModel) -> list[MovedFigure]:
    guides = [
        g for g in selectors.published_guides_for_checking() if g.language_model_id == before.pk
    ]

    def edited(guide: Guide) -> Guide:
        edited_guide = copy.copy(guide)
        edited_guide.language_model = after
        return edited_guide

    return _moved(guides, edit_guide=edited)


def moved_by_fact(before: Fact, after: Fact) -> list[MovedFigure]:
    """Its ``[[fact KEY]]`` uses: no computed figure reads a fact, only that token."""
    if not _moves(before.value, after.value):
        return []
    old, new = presentation.number(before.value), presentation.number(after.value)
    uses = uses_of([before]).get(before, [])
    return [MovedFigure(use.owner, use.place, old, new) for use in uses if not use.working_copy]


def moved_by_method(before: Method, after: Method, rules=None) -> list[MovedFigure]:
    """``rules``: the edited MemoryRule rows, unsaved (their components as stored)."""
    if after.planning_margin_percent is None:  # refused by the form already
        return []

    def edited(base: PageFigures) -> PageFigures:
        listing = base.methods[before.slug]
        edited_rules = listing.rule.rules if rules is None else tuple(map(_rule, rules))
        rule = calc.MethodRule(
            slug=before.slug,
            rules=edited_rules,
            planning_margin=after.planning_margin_percent / 100,
            weight_bytes_per_param=after.weight_bytes_per_param,
        )
        return replace(base, methods={**base.methods, before.slug: replace(listing, rule=rule)})

    return _moved(selectors.published_guides_for_checking(), edit_base=edited)


def moved_by_rule(before: MemoryRule, after: MemoryRule, components=None) -> list[MovedFigure]:
    """``components``: the edited rows, unsaved."""
    method = before.method
    index = [rule.pk for rule in method.rules.all()].index(before.pk)

    def edited(base: PageFigures) -> PageFigures:
        listing = base.methods[method.slug]
        rules = list(listing.rule.rules)
        rules[index] = _rule(after, components)
        rule = replace(listing.rule, rules=tuple(rules))
        return replace(base, methods={**base.methods, method.slug: replace(listing, rule=rule)})

    return _moved(selectors.published_guides_for_checking(), edit_base=edited)


def _rule(row: MemoryRule, components=None) -> calc.MemoryRule:
    """A rule as the maths reads it, from a (possibly unsaved) row and its component rows."""
    if components is None:
        components = list(row.components.all()) if row.pk else []
    return calc.MemoryRule(
        source=row.source.key if row.source_id else "",
        components=tuple(
            calc.MemoryComponent(c.part, c.bytes_per_param)
            for c in sorted(components, key=lambda c: c.position or 0)
            if c.bytes_per_param is not None
        ),
        reference_memory_gb=row.reference_memory_gb,
        reference_params_billion=row.reference_params_billion,
        round_up_to=row.round_up_to,
    )


def _moved(
    guides: list[Guide],
    *,
    edit_base: Callable[[PageFigures], PageFigures] = lambda base: base,
    edit_guide: Callable[[Guide], Guide] = lambda guide: guide,
) -> list[MovedFigure]:
    moved: list[MovedFigure] = []
    for guide in guides:
        base = page_figures(params_billion=guide.language_model.params_billion)
        edited = edit_guide(guide)
        now = _figures(guide, guide_figures(guide, catalogue_figures=base))
        then = _figures(edited, guide_figures(edited, catalogue_figures=edit_base(base)))
        for name, (value, shown) in now.items():
            new_value, new_shown = then.get(name, (None, "—"))
            if _moves(value, new_value):
                moved.append(MovedFigure(guide.title, name, shown, new_shown))
    return moved


def _moves(before: object, after: object) -> bool:
    if isinstance(before, Decimal) and isinstance(after, Decimal) and before > 0 and after > 0:
        return not 1 / MOVE_FACTOR <= after / before <= MOVE_FACTOR
    return before != after


def _figures(guide: Guide, figures: PageFigures) -> dict[str, tuple[object, str]]:
    """Each figure of a guide's page that shared data moves: name -> (value, as shown)."""
    if guide.serves:
        return _serving_figures(figures)
    found: dict[str, tuple[object, str]] = {}
    for slug, method in figures.methods.items():
        name = method.short_name or method.name
        try:
            peak = figures.peak(slug).peak_gb
        except MissingFigure:
            continue
        rule_gb = figures.memory(slug)
        found[_("%(method)s: memory by the cited rules") % {"method": name}] = (
            rule_gb,
            presentation.gigabytes(rule_gb),
        )
        found[_("%(method)s: peak memory on one GPU") % {"method": name}] = (
            peak,
            presentation.gigabytes(peak.quantize(Decimal("0.1"))),
        )
        try:
            recommended = figures.recommended(slug)
        except MissingFigure:  # nothing on one host holds it: the page says so
            recommended = []
        labels = ", ".join(presentation.config_label(c.count, c.gpu.name) for c in recommended)
        found[_("%(method)s: recommendation") % {"method": name}] = (labels, labels or "—")
        for run in figures.runs(slug, recommended[:1]):
            found[_("%(method)s: hours of the recommended run") % {"method": name}] = (
                run.hours,
                presentation.number(run.shown_hours),
            )
            if run.usd_per_run is not None:
                found[_("%(method)s: cost of the recommended run") % {"method": name}] = (
                    run.usd_per_run,
                    presentation.usd(run.usd_per_run),
                )
        for configuration in figures.table_configurations():
            label = presentation.config_label(configuration.count, configuration.gpu.name)
            fits = figures.fits(slug, configuration)
            verdict = _("%(method)s on %(configuration)s")
            found[verdict % {"method": name, "configuration": label}] = (
                fits,
                _("fits") if fits else _("does not fit"),
            )
    return found


def _serving_figures(figures: PageFigures) -> dict[str, tuple[object, str]]:
    found: dict[str, tuple[object, str]] = {}
    for precision, plan in figures.serving.items():
        name = precision.upper()
        choice = plan.recommendation
        chosen = choice.chosen if choice else None
        label = presentation.config_label(chosen.count, chosen.gpu.name) if chosen else ""
        found[_("%(method)s: recommendation") % {"method": name}] = (label, label or "—")
        if chosen and chosen.at_target.usd_per_million_tokens:
            cost = chosen.at_target.usd_per_million_tokens[0]
            found[_("%(precision)s: cost per million output tokens") % {"precision": name}] = (
                cost,
                presentation.usd(cost),
            )
            users = Decimal(chosen.at_target.users)
            found[_("%(precision)s: users within the latency target") % {"precision": name}] = (
                users,
                presentation.number(users),
            )
        for row in plan.rows:
            label = presentation.config_label(row.count, row.gpu.name)
            verdict = _("%(method)s on %(configuration)s")
            found[verdict % {"method": name, "configuration": label}] = (
                row.starts,
                _("starts") if row.starts else _("does not start"),
            )
    return found


MOVED_BY = {
    Gpu: moved_by_gpu,
    LanguageModel: moved_by_model,
    Fact: moved_by_fact,
    Method: moved_by_method,
    MemoryRule: moved_by_rule,
}


ROWS_OF = {Method, MemoryRule}  # edited with their rows: a method's rules, a rule's components


def answer_shared_change(sender, before, after, children=None, **kwargs) -> list[MovedFigure]:
    """``pricing.signals.shared_data_changing`` (``children``: the edited rows). An edit the
    maths cannot describe is the form's to refuse: nothing moves."""
    try:
        if sender in ROWS_OF:
            return MOVED_BY[sender](before, after, children)
        return MOVED_BY[sender](before, after)
    except calc.RuleError:
        return []
