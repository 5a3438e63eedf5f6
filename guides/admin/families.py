"""A guide family on the guide form (``guides.editorial.families`` decides what follows what):
the clones a source's text reaches, each clone field's follow mark, what a publication took."""

from __future__ import annotations

from django.contrib import messages
from django.utils.html import format_html
from django.utils.translation import gettext as _

from guides.editorial import families
from guides.models import Guide


def source_name(clone: Guide) -> str:
    return families.family_name(clone.source)


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


def with_notice(fieldsets: list, guide: Guide | None) -> list:
    """The guide form's fieldsets, the family notice above the text where there is one."""
    if guide is None:
        return fieldsets
    parts = []
    if guide.source_id is not None:
        parts.append(
            _(
                "Cloned from %(source)s: a text marked “Follows” changes with it when a "
                "change is published there; a text edited here becomes this guide's own."
            )
            % {"source": source_name(guide)}
        )
    if reach := families.reach_notice(guide):
        parts.append(reach)
    if not parts:
        return fieldsets
    notice = " ".join(parts)
    shown = []
    for name, options in fieldsets:
        if any(name.startswith("short_answer") for name in options.get("fields", ())):
            description = options.get("description", "")
            # The admin shows a fieldset's description as HTML (the token reference's list).
            notice_html = format_html('<p class="family-notice" role="status">{}</p>', notice)
            options = {**options, "description": f"{notice_html}{description}"}
        shown.append((name, options))
    return shown


def say_followed(model_admin, request, followed: list) -> None:
    """After a publication: which clones took which texts, and where it waits for a fix."""
    if reached := families.reached_message(followed):
        model_admin.message_user(request, reached, messages.SUCCESS)
    if unpublished := families.unpublished_message(followed):
        model_admin.message_user(request, unpublished, messages.WARNING)
