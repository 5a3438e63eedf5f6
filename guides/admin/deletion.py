"""Admin delete pages that list where an object is used and refuse to delete it.

For the models of ``guides.editorial.where_used``: the delete page and the "delete selected" action
list every use (a guide's prose token or table row, live or in its working copy, with a link
to fix it) before the rows that protect the object by foreign key, and offer no button, for
every user, superusers included. ``guides.editorial.where_used.refuse_deleting_used``
refuses the same deletions made outside the admin.
"""

from dataclasses import replace

from django.contrib.admin.utils import NestedObjects
from django.db import router
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from guides.editorial import where_used
from guides.editorial.where_used import SEPARATOR, Use
from guides.models import CHILD_ROWS, ComparisonPair, Guide

# Rows that protect an object by foreign key and that the reference index already lists
# (with the guide they belong to, and in working copies too).
INDEXED_ROWS = {Guide, ComparisonPair, *CHILD_ROWS}
SHOWN_PER_MODEL = 10  # a priced GPU is protected by every price it ever had


class RefuseDeletingUsedMixin:
    delete_confirmation_template = "admin/in_use_delete_confirmation.html"
    delete_selected_confirmation_template = "admin/in_use_delete_selected_confirmation.html"

    def get_deleted_objects(self, objs, request):
        """Django's, with the uses of ``objs`` as what protects them, before the other rows."""
        objs = list(objs)
        if not objs:
            return [], {}, set(), []
        collector = NestedObjects(using=router.db_for_write(self.model), origin=objs)
        collector.collect(objs)
        perms_needed = set()

        def linked(obj):
            site, model = self.admin_site, type(obj)
            if site.is_registered(model) and not site.get_model_admin(model).has_delete_permission(
                request, obj
            ):
                perms_needed.add(obj._meta.verbose_name)
            return _linked(obj, self.admin_site.name)

        to_delete = collector.nested(linked)
        protected = _uses(where_used.uses_of(objs), single=len(objs) == 1)
        protected += _summarised(
            [obj for obj in collector.protected if type(obj) not in INDEXED_ROWS],
            self.admin_site.name,
        )
        counts = {m._meta.verbose_name_plural: len(v) for m, v in collector.model_objs.items()}
        return to_delete, counts, perms_needed, protected


def _linked(obj, site_name: str) -> str:
    opts = obj._meta
    try:
        url = reverse(f"{site_name}:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    except NoReverseMatch:
        return f"{capfirst(opts.verbose_name)}: {obj}"
    return format_html('{}: <a href="{}">{}</a>', capfirst(opts.verbose_name), url, obj)


def _uses(used: dict, *, single: bool) -> list:
    """For each object, how widely it is used ("Used in 5 guides × 3 languages") over one line
    per guide or comparison page that opens to the places: a GPU quoted by tokens would
    otherwise take a line per token per language, over a hundred, burying which guides to fix."""
    listed = []
    for obj, uses in used.items():
        by_owner: dict[tuple[str, str], list[Use]] = {}
        for use in uses:
            by_owner.setdefault((use.owner, use.url), []).append(use)
        summary = _summary(uses)
        listed.append(capfirst(summary) if single else f"{obj} — {summary}")
        listed.append([_owner_line(owner, url, found) for (owner, url), found in by_owner.items()])
    return listed


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


def _summarised(objs: list, site_name: str) -> list:
    """Each protecting row, linked, but at most SHOWN_PER_MODEL per model and a count."""
    by_model: dict = {}
    for obj in objs:
        by_model.setdefault(type(obj), []).append(obj)
    listed = []
    for rows in by_model.values():
        listed += [_linked(obj, site_name) for obj in rows[:SHOWN_PER_MODEL]]
        more = len(rows) - SHOWN_PER_MODEL
        if more > 0:
            listed.append(
                ngettext("… and %(count)d more", "… and %(count)d more", more) % {"count": more}
            )
    return listed
