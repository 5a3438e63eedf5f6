"""Admin delete pages that list where an object is used, and refuse to delete it.

An app that knows uses no foreign key protects (in text, say) registers a use index
(``register_uses``). A ModelAdmin with ``RefuseDeletingUsedMixin`` lists every use, then the
rows that protect the object by foreign key (at most ``SHOWN_PER_MODEL`` per model), and
offers no button, to superusers too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.contrib.admin.utils import NestedObjects
from django.db import router
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import ngettext

SHOWN_PER_MODEL = 10  # a priced GPU is protected by every price it ever had


_uses: list[Callable[[list, bool], list]] = []
_indexed_rows: set[type] = set()


def register_uses(uses: Callable[[list, bool], list], indexed_rows: Iterable[type]) -> None:
    """Add a use index (once, at import time): ``uses(objects, whether one object is deleted)``
    returns the lines listing their uses (Django's nested list), and ``indexed_rows`` are the
    models whose rows protect an object by foreign key and that those lines list already."""
    _uses.append(uses)
    _indexed_rows.update(indexed_rows)


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
        protected = [line for uses in _uses for line in uses(objs, len(objs) == 1)]
        protected += _summarised(
            [obj for obj in collector.protected if type(obj) not in _indexed_rows],
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
