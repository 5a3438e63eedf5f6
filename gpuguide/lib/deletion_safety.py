"""Admin delete pages that list where an object is used, and refuse to delete it.

An app that knows where its objects are used (in text, say, where no foreign key protects
them) registers a use index (``register_uses``): for the objects about to be deleted, the lines
the delete page lists as their uses, and the models whose protecting rows it lists already.
A ModelAdmin with ``RefuseDeletingUsedMixin`` then lists every use, before the rows that
protect the object by foreign key (linked, at most ``SHOWN_PER_MODEL`` per model), on its
delete page and its "delete selected" confirmation, and offers no button, for every user,
superusers included. Refusing the same deletions outside the admin is the apps' own affair.

Nothing here names an app: the index is registered by whoever has one (the guides' admin).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.contrib.admin.utils import NestedObjects
from django.db import router
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import ngettext

SHOWN_PER_MODEL = 10  # a priced GPU is protected by every price it ever had


@dataclass(frozen=True)
class UseIndex:
    # (objects, whether one object is deleted) -> the lines listing their uses (Django's nested
    # list: a string, then a list of the lines under it)
    uses: Callable[[list, bool], list]
    # the models whose rows protect an object by foreign key and that ``uses`` lists already
    indexed_rows: frozenset[type]


_indexes: list[UseIndex] = []


def register_uses(uses: Callable[[list, bool], list], indexed_rows: Iterable[type]) -> None:
    """Add a use index (once per index: at import time of the module that defines it)."""
    _indexes.append(UseIndex(uses, frozenset(indexed_rows)))


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
        protected = [line for index in _indexes for line in index.uses(objs, len(objs) == 1)]
        indexed = frozenset().union(*(index.indexed_rows for index in _indexes))
        protected += _summarised(
            [obj for obj in collector.protected if type(obj) not in indexed],
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
