"""Guide families (docs/editing.md, "Guide families"): a clone remembers its source
(``Guide.source``), and a field of its prose follows the source while it still holds the
source's published text, per field and language; sections and FAQ entries are matched by their
place. This module decides and writes the text; ``publishing`` stores and publishes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from guides.editorial import revisions
from guides.models import FaqEntry, Guide, GuideRevision, Section

SOURCE = settings.LANGUAGE_CODE  # the language the others are translated from

# The prose a clone copies from its source and may follow (its title is its own).
FOLLOWED = {**revisions.TRANSLATED, Guide: ("question", "short_answer", "meta_description")}


@dataclass(frozen=True)
class FieldRef:
    """``number``: the row's place among the guide's sections or FAQ entries (0: the guide)."""

    model: type[models.Model]
    number: int
    name: str
    language: str

    @property
    def attname(self) -> str:
        return f"{self.name}_{self.language}"

    def label(self) -> str:
        words = {
            "field": self.model._meta.get_field(self.name).verbose_name,
            "language": self.language,
            "number": self.number,
        }
        if self.model is Section:
            return _("section %(number)s %(field)s (%(language)s)") % words
        if self.model is FaqEntry:
            return _("FAQ entry %(number)s %(field)s (%(language)s)") % words
        return _("%(field)s (%(language)s)") % words


@dataclass(frozen=True)
class FieldChange:
    field: FieldRef
    old: str
    new: str
    # The source's English of the same field before the change: a translation follows only
    # where the clone's English still is that (else it translates the clone's own English).
    old_english: str = ""


@dataclass
class Followed:
    clone: Guide
    changes: list[FieldChange]
    published: bool  # False: a draft clone, or a live one whose check failed (a working copy)
    problems: list = field(default_factory=list)


def family_name(guide: Guide) -> str:
    return str(guide.language_model)


# --- reading the followed texts ---------------------------------------------------------------

Texts = list[tuple[FieldRef, tuple[type, int], str]]  # each text with the row it is in


def _texts(rows: list[revisions.Row]) -> Texts:
    return [
        (FieldRef(f.model, f.number, f.name, language), (f.model, f.pk), text)
        for f in revisions.text_fields(rows)
        if f.name in FOLLOWED[f.model]
        for language, text in f.texts.items()
    ]


def texts_now(guide: Guide) -> dict[FieldRef, str]:
    guide = Guide.objects.get(pk=guide.pk)
    rows = revisions.text_rows(guide, guide.sections.all(), guide.faq_entries.all())
    return {ref: text for ref, _row, text in _texts(rows)}


def texts_of(content: revisions.Content) -> dict[FieldRef, str]:
    rows = revisions.text_rows(content.guide, content.rows[Section], content.rows[FaqEntry])
    return {ref: text for ref, _row, text in _texts(rows)}


def published_texts(guide: Guide) -> dict[FieldRef, str]:
    """Those of the revision last published (its rows where it has none)."""
    live = revisions.live_revision(guide)
    if live is None:
        return texts_now(guide)
    return {ref: text for ref, _row, text in _texts(revisions.revision_rows(live.revision))}


# --- what a publication changes, and which clones take it -------------------------------------


def changes_between(before: GuideRevision, after: GuideRevision) -> list[FieldChange]:
    """Rows are matched by id: a section added in ``after`` has no text a clone followed."""
    new_texts = {
        (row, ref.attname): text
        for ref, row, text in _texts(revisions.revision_rows(after.revision))
    }
    old_texts = _texts(revisions.revision_rows(before.revision))
    old_by_row = {(row, ref.attname): text for ref, row, text in old_texts}
    changes = []
    for ref, row, old in old_texts:
        new = new_texts.get((row, ref.attname))
        if new is not None and new != old:
            english = old_by_row[(row, f"{ref.name}_{SOURCE}")]
            changes.append(FieldChange(ref, old, new, old_english=english))
    return changes


def clones_of(guide: Guide) -> list[Guide]:
    return list(
        Guide.objects.filter(source=guide).select_related("language_model").order_by("title", "pk")
    )


def changes_followed(clone: revisions.Content, changes: list[FieldChange]) -> list[FieldChange]:
    """The changes whose old text the clone still holds; a translation's only where the
    clone's English of that field is the source's too (else it translates other English)."""
    current = texts_of(clone)

    def english_follows(ref: FieldRef, english: str) -> bool:
        return current.get(FieldRef(ref.model, ref.number, ref.name, SOURCE)) == english

    return [
        change
        for change in changes
        if current.get(change.field) == change.old
        and (change.field.language == SOURCE or english_follows(change.field, change.old_english))
    ]


def reach(
    source: Guide, before: GuideRevision | None, after: GuideRevision
) -> list[tuple[revisions.Content, list[FieldChange]]]:
    """Each clone that publishing ``after`` over ``before`` reaches, with the changes it takes."""
    if before is None or before.pk == after.pk:
        return []  # a first publication changes nothing a clone could have followed
    changes = changes_between(before, after)
    reached = []
    for clone in clones_of(source) if changes else []:
        rows = revisions.rows_content(clone)
        if taken := changes_followed(rows, changes):
            reached.append((rows, taken))
    return reached


def write(clone: revisions.Content, changes: list[FieldChange]) -> None:
    rows = {
        Guide: [clone.guide],
        Section: sorted(clone.rows[Section], key=lambda row: (row.position, row.pk)),
        FaqEntry: sorted(clone.rows[FaqEntry], key=lambda row: (row.position, row.pk)),
    }
    for change in changes:
        ref = change.field
        setattr(rows[ref.model][max(ref.number - 1, 0)], ref.attname, change.new)


def history_message(source: Guide, revision: GuideRevision, changes: list[FieldChange]) -> str:
    return _("Followed %(source)s's revision %(number)s: %(fields)s") % {
        "source": family_name(source),
        "number": revision.pk,
        "fields": ", ".join(change.field.label() for change in changes),
    }


def carried_over_message(draft: GuideRevision) -> str:
    return _("Draft revision %(number)s carried over onto the followed text") % {"number": draft.pk}


# --- what the admin says -------------------------------------------------------------------


def follow_marks(clone: revisions.Content) -> dict[FieldRef, bool]:
    """For a clone's form: whether each prose field follows the source (True) or is its own."""
    if clone.guide.source_id is None:
        return {}
    followed = published_texts(clone.guide.source)
    return {ref: text == followed[ref] for ref, text in texts_of(clone).items() if ref in followed}


def following_clones(guide: Guide) -> list[Guide]:
    followed = published_texts(guide)
    return [
        clone
        for clone in clones_of(guide)
        if any(followed.get(ref) == text for ref, text in texts_now(clone).items())
    ]


def reach_notice(guide: Guide) -> str:
    clones = following_clones(guide)
    if not clones:
        return ""
    return ngettext(
        "A published change of its text reaches %(count)s clone that still follows it: "
        "%(clones)s (each field where the clone's text is still this guide's).",
        "A published change of its text reaches %(count)s clones that still follow it: "
        "%(clones)s (each field where the clone's text is still this guide's).",
        len(clones),
    ) % {"count": len(clones), "clones": ", ".join(family_name(c) for c in clones)}


def reached_message(followed: list[Followed]) -> str:
    if not followed:
        return ""
    listed = "; ".join(
        f"{family_name(f.clone)}: {', '.join(c.field.label() for c in f.changes)}" for f in followed
    )
    return ngettext(
        "The change reached %(count)s clone: %(listed)s.",
        "The change reached %(count)s clones: %(listed)s.",
        len(followed),
    ) % {"count": len(followed), "listed": listed}


def unpublished_message(followed: list[Followed]) -> str:
    failed = [f for f in followed if f.problems]
    if not failed:
        return ""
    return _(
        "Not published on %(clones)s: it fails the check there; the followed text waits in "
        "its working copy."
    ) % {"clones": ", ".join(family_name(f.clone) for f in failed)}
