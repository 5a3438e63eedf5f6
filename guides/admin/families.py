"""A guide family on the guide form (``guides.editorial.families`` decides what follows what):
a source's form names the clones its text reaches, before it is saved; a clone's form marks
each prose field as following the source or as its own; a publication's message names what
each clone took."""

from __future__ import annotations

from django.contrib import messages
from django.utils.html import format_html
from django.utils.translation import gettext as _

from guides.editorial import families
from guides.models import Guide

# The fieldset holding it (as "short_answer_en", ...) is the one the notices open.
TEXT_FIELDS = "short_answer"


def _marks(request, guide: Guide) -> dict:
    """The clone's follow marks, read once per request for the form and all its inlines."""
    if getattr(request, "_family_marks_of", None) != guide.pk:
        request._family_marks = families.follow_marks(guide)
        request._family_marks_of = guide.pk
    return request._family_marks


def mark_fields(fields: dict, marks: dict, model, number: int, source: str) -> None:
    """Prefix each marked field's help text with whether it follows ``source``."""
    for ref, follows in marks.items():
        if ref.model is not model or ref.number != number or ref.attname not in fields:
            continue
        mark = (
            _("Follows %(source)s: a change published there reaches this text.")
            if follows
            else _(
                "Its own text (differs from %(source)s): changes published there do not reach it."
            )
        ) % {"source": source}
        field = fields[ref.attname]
        field.help_text = f"{mark} {field.help_text}".strip()


def _notice(request, guide: Guide) -> str:
    if getattr(request, "_family_notice_of", None) != guide.pk:
        parts = []
        if guide.source_id is not None:
            parts.append(
                _(
                    "Cloned from %(source)s: a text marked “Follows” changes with it when a "
                    "change is published there; a text edited here becomes this guide's own."
                )
                % {"source": families.family_name(guide.source)}
            )
        if reach := families.reach_notice(guide):
            parts.append(reach)
        request._family_notice = " ".join(parts)
        request._family_notice_of = guide.pk
    return request._family_notice


class FamilyAdminMixin:
    """For GuideAdmin: the family notice above the text, the follow marks on a clone's form."""

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if obj is not None and obj.source_id is not None:
            source = families.family_name(obj.source)
            mark_fields(form.base_fields, _marks(request, obj), Guide, 0, source)
        return form

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        notice = _notice(request, obj) if obj is not None and obj.pk else ""
        if not notice:
            return fieldsets
        shown = []
        for name, options in fieldsets:
            if any(name.startswith(TEXT_FIELDS) for name in options.get("fields", ())):
                description = options.get("description", "")
                # The admin shows a fieldset's description as HTML (the token reference's list).
                notice_html = format_html('<p class="family-notice" role="status">{}</p>', notice)
                options = {**options, "description": f"{notice_html}{description}"}
            shown.append((name, options))
        return shown


class FamilyMarksFormSet:
    """An inline formset whose existing rows carry the follow marks (row ``i`` is the
    guide's ``i + 1``-th section or FAQ entry, as the clone's rows are matched)."""

    family_marks: dict = {}
    family_source = ""

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        if self.family_marks and i < self.initial_form_count():
            mark_fields(form.fields, self.family_marks, self.model, i + 1, self.family_source)
        return form


class FamilyInlineMixin:
    """For the section and FAQ inlines: each row's follow marks on a clone's form."""

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        if obj is None or obj.source_id is None:
            return formset
        attributes = {
            "family_marks": _marks(request, obj),
            "family_source": families.family_name(obj.source),
        }
        return type(formset.__name__, (FamilyMarksFormSet, formset), attributes)


def say_followed(model_admin, request, followed: list) -> None:
    """After a publication: which clones took which texts, and where it waits for a fix."""
    if reached := families.reached_message(followed):
        model_admin.message_user(request, reached, messages.SUCCESS)
    if unpublished := families.unpublished_message(followed):
        model_admin.message_user(request, unpublished, messages.WARNING)
