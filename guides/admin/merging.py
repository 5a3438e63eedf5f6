"""Two editors saving the same guide: field-by-field merge, and true conflicts shown side by side.

A hidden field ``started_from`` holds a short hash of every field's value as the form was
rendered (``guide:<field>``, ``<model>:<pk>:<field>``): hashes keep the form small, and a
version number names no revision to read back. On save each field compares what it started
from, what the editor sends (mine) and what the guide holds now (theirs): changed only by them,
theirs is kept; only by me, mine is applied; by both, differently, it is a conflict, refused on
that field with their text beside it, and ``started_from`` moves on so that saving again
resolves it. A form without ``started_from`` (an old tab) refuses a stale save.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django import forms
from django.db import models
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from guides.admin.presence import short_time
from guides.editorial import revisions
from guides.models import Guide, GuideRevision

STARTED_FROM = "started_from"


def value_hash(value) -> str:
    """A short, stable hash of a model value (a Decimal read back as 1.5 or 1.50 is the same)."""
    if value is None:
        value = ""
    elif isinstance(value, Decimal):
        value = format(value.normalize(), "f")
    elif isinstance(value, bool):
        value = "1" if value else "0"
    return hashlib.sha256(str(value).encode()).hexdigest()[:12]


def row_prefix(instance: models.Model) -> str:
    return "guide" if isinstance(instance, Guide) else f"{instance._meta.model_name}:{instance.pk}"


def merged_fields(instance: models.Model, names) -> list[models.Field]:
    """The model fields of ``instance`` that a form with these field names edits."""
    return [f for f in instance._meta.concrete_fields if f.name in names and not f.primary_key]


def model_values(instance: models.Model, fields: list[models.Field]) -> dict[str, object]:
    return {f.name: f.value_from_object(instance) for f in fields}


def row_hashes(instance: models.Model, names) -> dict[str, str]:
    prefix = row_prefix(instance)
    values = model_values(instance, merged_fields(instance, names))
    return {f"{prefix}:{name}": value_hash(value) for name, value in values.items()}


def started_hashes(content: revisions.Content, guide_fields) -> str:
    """The hidden field's value for the guide form on ``content``: its fields' and its rows'."""
    hashes = row_hashes(content.guide, guide_fields)
    for rows in content.rows.values():
        for row in rows:
            hashes.update(row_hashes(row, [f.name for f in row._meta.fields if f.name != "guide"]))
    return json.dumps(hashes, separators=(",", ":"), sort_keys=True)


def read_started(data) -> dict[str, str] | None:
    """The hashes a submitted form started from; None where it sent none (an old tab)."""
    try:
        parsed = json.loads(data.get(STARTED_FROM) or "null")
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


class BookkeepingField(forms.CharField):
    """The version and hashes a form started from: never "changed", so that the History lists
    only what the editor changed."""

    widget = forms.HiddenInput

    def has_changed(self, initial, data) -> bool:
        return False


@dataclass
class FieldMerge:
    mine: list[str] = field(default_factory=list)  # changed here only (or both, the same way)
    theirs: list[str] = field(default_factory=list)  # changed by someone else only
    conflicts: list[str] = field(default_factory=list)  # both, differently


def compare_fields(started: dict[str, str], prefix: str, current: dict, mine: dict) -> FieldMerge:
    """Sort each field into mine, theirs or conflict (unchanged fields into none)."""
    merge = FieldMerge()
    for name, current_value in current.items():
        now, sent = value_hash(current_value), value_hash(mine.get(name))
        was = started.get(f"{prefix}:{name}", now)  # a field it did not know: as it is now
        if sent != was and now != was and sent != now:
            merge.conflicts.append(name)
        elif sent != was:
            merge.mine.append(name)
        elif now != was:
            merge.theirs.append(name)
    return merge


@dataclass(frozen=True)
class LastSave:
    who: str
    when: datetime


def last_save(guide_id) -> LastSave | None:
    """Who stored the guide's newest revision, and when (the save this one merges with)."""
    newest = (
        GuideRevision.objects.filter(guide_id=guide_id).select_related("revision__user").first()
    )
    if newest is None:
        return None
    user = newest.revision.user
    who = (user.get_full_name() or user.get_username()) if user else _("someone")
    return LastSave(who, newest.revision.date_created)


@dataclass(frozen=True)
class Conflict:
    field_id: str  # the HTML id of the editor's field
    label: str  # "FAQ entry 2: Answer (German)"
    theirs: str  # the text saved meanwhile
    key: str  # its key in started_from
    theirs_hash: str


class MergingFormMixin:
    """For the guide form and its rows' forms: merge a save made since the form was opened
    (``saved_since_opened``); ``merge`` holds what was sorted where, after validation."""

    merge: FieldMerge | None = None

    def __init__(self, *args, saved_since_opened: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.saved_since_opened = saved_since_opened
        # What the database holds now, before the form's values are written to the instance.
        self._fields_merged = merged_fields(self.instance, self.fields)
        self._current = model_values(self.instance, self._fields_merged)
        self.conflicts: list[Conflict] = []

    def _post_clean(self) -> None:
        super()._post_clean()  # the form's values are now on the instance
        started = read_started(self.data)
        if started is None or self.instance.pk is None or not self.saved_since_opened:
            return  # no start known, a new row, or nothing saved since: the form is the edit
        prefix = row_prefix(self.instance)
        mine = model_values(self.instance, self._fields_merged)
        self.merge = compare_fields(started, prefix, self._current, mine)
        for name in self.merge.theirs:  # keep the other editor's value
            model_field = self.instance._meta.get_field(name)
            setattr(self.instance, model_field.attname, self._current[name])
        for name in self.merge.conflicts:
            self._refuse(name, prefix)

    @property
    def changed_data(self) -> list[str]:
        """What this editor changed (the History's list): not a field kept as the other's."""
        theirs = set(self.merge.theirs) if self.merge else set()
        return [name for name in super().changed_data if name not in theirs]

    def _refuse(self, name: str, prefix: str) -> None:
        theirs = self._current[name]
        saved = last_save(getattr(self.instance, "guide_id", self.instance.pk))
        self.conflicts.append(
            Conflict(
                field_id=self[name].auto_id,
                label=self._conflict_label(name),
                theirs="" if theirs is None else str(theirs),
                key=f"{prefix}:{name}",
                theirs_hash=value_hash(theirs),
            )
        )
        self.add_error(
            name,
            _(
                "%(who)s changed this field too (saved at %(when)s). Their text is beside it: "
                "keep yours, or use theirs, then save again."
            )
            % {
                "who": saved.who if saved else _("Someone"),
                "when": short_time(saved.when) if saved else "—",
            },
        )

    def _conflict_label(self, name: str) -> str:
        label = str(self.fields[name].label or name)
        if isinstance(self.instance, Guide):
            return label
        where = capfirst(self.instance._meta.verbose_name)
        return f"{where} {getattr(self.instance, 'position', '')}: {label}"


def _area(model: type[models.Model], name: str) -> str:
    """What an editor calls what was changed: "the short answer", "the FAQ entries"."""
    if model is Guide:
        field = model._meta.get_field(name)  # "short_answer_de": "short answer"
        verbose = getattr(field, "translated_field", field).verbose_name
    else:
        verbose = model._meta.verbose_name_plural
    return _("the %(what)s") % {"what": verbose}


def changed_areas(forms_seen, which: str) -> list[str]:
    """What ``which`` ("mine" or "theirs") changed, in the order of the form, each once."""
    areas: list[str] = []
    for form in forms_seen:
        for name in getattr(getattr(form, "merge", None), which, []):
            area = _area(type(form.instance), name)
            if area not in areas:
                areas.append(area)
    return areas


def merged_message(guide_id, forms_seen) -> str | None:
    """The message of a merged save ("Merged with Ada's save of 10:04: Ada changed the FAQ
    entries; you changed the short answer."); None where nobody else had changed anything."""
    theirs = changed_areas(forms_seen, "theirs")
    if not theirs:
        return None
    saved = last_save(guide_id)
    who = saved.who if saved else _("someone")
    mine = changed_areas(forms_seen, "mine")
    return _(
        "Merged with %(who)s's save of %(when)s: %(who)s changed %(theirs)s; you changed %(mine)s."
    ) % {
        "who": who,
        "when": short_time(saved.when) if saved else "—",
        "theirs": ", ".join(theirs),
        "mine": ", ".join(mine) or _("nothing else"),
    }


def move_started_on(form, conflicts: list[Conflict]) -> None:
    """The refused form will be sent again: each conflicting field now starts from the other
    editor's text, so that what the editor sends next is taken as chosen."""
    started = read_started(form.data)
    if started is None or not conflicts:
        return
    for conflict in conflicts:
        started[conflict.key] = conflict.theirs_hash
    data = form.data.copy()
    data[form.add_prefix(STARTED_FROM)] = json.dumps(started, separators=(",", ":"))
    form.data = data
