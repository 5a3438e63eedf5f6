"""Admin delete pages that list where an object is used and refuse to delete it.

For the models of ``guides.editorial.where_used``: the delete page and the "delete selected" action
list every use (a guide's prose token or table row, live or in its working copy, with a link
to fix it) before the rows that protect the object by foreign key, and offer no button, for
every user, superusers included. ``guides.editorial.where_used.refuse_deleting_used``
refuses the same deletions made outside the admin.
"""

from django.contrib.admin.utils import NestedObjects
from django.db import router
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import ngettext

from guides.editorial import where_used
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
    """One link per use; for several objects, each object followed by its uses (nested)."""
    listed = []
    for obj, uses in used.items():
        links = [format_html('<a href="{}">{}</a>', use.url, use.label) for use in uses]
        listed += links if single else [str(obj), links]
    return listed


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
