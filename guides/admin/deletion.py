"""Where an object is used, as the admin's delete pages list it (each use of a prose token or
table row, live or in a working copy, with a link to fix it, and no delete button): the guides'
use index, registered with ``gpuguide.lib.deletion_safety``."""

from dataclasses import replace

from django.template.loader import render_to_string
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from gpuguide.lib.deletion_safety import register_uses
from guides.editorial import where_used
from guides.editorial.where_used import SEPARATOR, Use
from guides.models import CHILD_ROWS, ComparisonPair, Guide

# Rows that protect an object by foreign key and that the reference index already lists
# (with the guide they belong to, and in working copies too).
INDEXED_ROWS = {Guide, ComparisonPair, *CHILD_ROWS}


def _listed_uses(objs: list, single: bool) -> list:
    """For each object, how widely it is used ("Used in 5 guides × 3 languages") over one line
    per guide or comparison page that opens to the places: a GPU quoted by tokens would
    otherwise take a line per token per language, over a hundred, burying which guides to fix."""
    listed = []
    for obj, uses in where_used.uses_of(objs).items():
        by_owner: dict[tuple[str, str], list[Use]] = {}
        for use in uses:
            by_owner.setdefault((use.owner, use.url), []).append(use)
        summary = _summary(uses)
        listed.append(capfirst(summary) if single else f"{obj} — {summary}")
        listed.append([_owner_line(owner, url, found) for (owner, url), found in by_owner.items()])
    return listed


register_uses(_listed_uses, INDEXED_ROWS)


def _summary(uses: list) -> str:
    """“used in 5 guides × 3 languages and 1 GPU comparison”"""
    guides = len({use.owner for use in uses if use.in_guide})
    comparisons = len({use.owner for use in uses if not use.in_guide})
    languages = len({use.language for use in uses if use.language})
    in_guides = ngettext("%(count)d guide", "%(count)d guides", guides) % {"count": guides}
    if languages:
        in_guides = _("%(guides)s × %(languages)s") % {
            "guides": in_guides,
            "languages": ngettext("%(count)d language", "%(count)d languages", languages)
            % {"count": languages},
        }
    in_comparisons = ngettext(
        "%(count)d GPU comparison", "%(count)d GPU comparisons", comparisons
    ) % {"count": comparisons}
    if guides and comparisons:
        return _("used in %(guides)s and %(comparisons)s") % {
            "guides": in_guides,
            "comparisons": in_comparisons,
        }
    return _("used in %(places)s") % {"places": in_guides if guides else in_comparisons}


def _owner_line(owner: str, url: str, uses: list) -> str:
    """A guide's line, which opens to its places, each with the languages that quote it there:
    "Section 7 › [[spec h100 bf16]] (en, de, ja)"; a comparison page's, a link."""
    languages: dict[Use, list[str]] = {}
    for use in uses:
        languages.setdefault(replace(use, language=""), []).append(use.language)
    places = [
        {"where": SEPARATOR.join(place.where), "languages": _in_languages(place, codes)}
        for place, codes in languages.items()
        if any(use.where for use in uses)
    ]
    count = ngettext("%(count)d place", "%(count)d places", len(languages)) % {
        "count": len(languages)
    }
    context = {"owner": owner, "url": url, "places": places, "count": count}
    return render_to_string("admin/guides/includes/uses_in_owner.html", context)


def _in_languages(place: Use, codes: list[str]) -> str:
    shown = f" ({', '.join(code for code in codes if code)})" if any(codes) else ""
    return shown + (" " + _("(working copy)") if place.working_copy else "")
