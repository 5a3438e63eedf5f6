"""Revisions of guides (django-reversion): working copies, preview, diff; the mechanics that
``publishing`` (the one way content changes) is built on (docs/editing.md).

The rows are the live content. An edit of a published guide is made to its ``Content`` (model
objects that need not be in the database), serialized (``snapshot``) and ``store``d as a
revision: the newest one, if not published, is the guide's working copy. A row an edit adds
gets its id at once, reserved in its table's sequence (``number_new_rows``), so that its
revisions, translations and the rows published from it agree on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import reversion
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.db import connection, models
from django.db.models import Exists, OuterRef, Q, prefetch_related_objects
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from reversion.models import Revision, Version
from reversion.revisions import _get_options

from gpuguide.lib.word_diff import marked_words
from guides.content.diff_pieces import diff_pieces
from guides.editorial import publishing_rules, signals
from guides.models import CHILD_ROWS, FaqEntry, Guide, GuideRevision, Section

# Bookkeeping, not content: a revision neither records nor restores them.
GUIDE_EXCLUDED = ("version", "updated_at", "status", "published_on", "source")

reversion.register(Guide, follow=tuple(CHILD_ROWS.values()), exclude=GUIDE_EXCLUDED)
for _model in CHILD_ROWS:
    reversion.register(_model)


def normalise_newlines(text: str) -> str:
    """Textareas send CRLF; the rows and revisions keep LF, so an untouched text is unchanged."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- reading revisions -------------------------------------------------------------------


def revisions_of(guide: Guide) -> list[GuideRevision]:
    return list(
        GuideRevision.objects.filter(guide=guide).select_related("revision__user", "published_by")
    )


def live_revision(guide: Guide) -> GuideRevision | None:
    return (
        GuideRevision.objects.filter(guide=guide, published_at__isnull=False)
        .order_by("-published_at", "-pk")
        .first()
    )


def online_revision(guide: Guide) -> GuideRevision | None:
    return live_revision(guide) if guide.status == Guide.Status.PUBLISHED else None


def working_copy(guide: Guide) -> GuideRevision | None:
    newest = GuideRevision.objects.filter(guide=guide).select_related("revision__user").first()
    if newest is None or newest.published_at is not None:
        return None
    live = live_revision(guide)
    if live is not None and live.pk > newest.pk:
        return None
    return newest


def _versions(revision: Revision) -> list[Version]:
    return list(revision.version_set.select_related("content_type").order_by("pk"))


# --- the rows a revision holds, for readers outside this module ---------------------------
# The one place that reads Version's private attributes (tests/test_architecture.py).

Row = tuple[type[models.Model], int, dict]  # model, pk, the row's values by attribute name
# The translated fields of a guide's text, in the order the translation view and files list them.
TRANSLATED: dict[type[models.Model], tuple[str, ...]] = {
    Guide: ("title", "question", "short_answer", "meta_description"),
    Section: ("heading", "body", "table_caption", "closing"),
    FaqEntry: ("question", "answer"),
}


def rows_of(versions: Iterable[Version]) -> list[Row]:
    return [(v._model, int(v.object_id), v.field_dict) for v in versions]


def text_rows(guide: Guide, sections: Iterable, faq_entries: Iterable) -> list[Row]:
    # A model object keeps its values by attribute name, as a version's field_dict does.
    return [(type(obj), obj.pk, vars(obj)) for obj in (guide, *sections, *faq_entries)]


@dataclass(frozen=True)
class TextField:
    """One translated field of a guide with its text in every language."""

    key: str  # "section.17.body"
    model: type[models.Model]
    pk: int
    number: int  # the row's place among the guide's sections or FAQ entries (0: the guide)
    name: str  # "body"
    where: str  # "Section 2"
    texts: dict[str, str]

    @property
    def model_field(self) -> models.Field:
        return self.model._meta.get_field(self.name)

    @property
    def label(self) -> str:
        return str(capfirst(self.model_field.verbose_name))

    @property
    def anchor(self) -> str:
        return "field-" + self.key.replace(".", "-")

    @property
    def one_line(self) -> bool:
        return not isinstance(self.model_field, models.TextField)

    def described(self, language: str) -> str:
        """“Section 2, Heading (German)”, as messages name the field."""
        return f"{self.where}, {self.label} ({publishing_rules.language_name(language)})"


def text_fields(rows: list[Row]) -> list[TextField]:
    """The translated fields of these rows (the others' are left out), in the guide's order."""
    fields = []
    for model, names in TRANSLATED.items():
        ordered = sorted(
            ((pk, values) for row_model, pk, values in rows if row_model is model),
            key=lambda row: (row[1].get("position") or 0, row[0]),
        )
        for number, (pk, values) in enumerate(ordered, start=0 if model is Guide else 1):
            where = place(model, values)
            for name in names:
                texts = {
                    lang: normalise_newlines(values.get(f"{name}_{lang}") or "")
                    for lang in publishing_rules.LANGUAGES
                }
                key = f"{model._meta.model_name}.{pk}.{name}"
                fields.append(TextField(key, model, pk, number, name, where, texts))
    return fields


def revision_rows(revision: Revision) -> list[Row]:
    return rows_of(_versions(revision))


def rows_by_revision(revision_ids: Iterable[int]) -> dict[int, list[Row]]:
    found: dict[int, list[Row]] = {pk: [] for pk in revision_ids}
    versions = Version.objects.filter(revision_id__in=found).select_related("content_type")
    for version in versions.order_by("pk"):
        found[version.revision_id] += rows_of([version])
    return found


# --- a guide's content as objects ---------------------------------------------------------


def _named(model: type[models.Model]) -> list[str]:
    """The records a row names (its GPUs, method, source), its guide aside."""
    return [f.name for f in model._meta.concrete_fields if f.is_relation and f.name != "guide"]


@dataclass
class Content:
    """A guide and its rows (by model of ``CHILD_ROWS``) as model objects, which need not be
    in the database: what an edit changes, a revision holds and ``write`` writes."""

    guide: Guide
    rows: dict[type[models.Model], list[models.Model]] = field(
        default_factory=lambda: {model: [] for model in CHILD_ROWS}
    )

    def page_guide(self) -> Guide:
        """The guide as ``selectors.guide_for_page`` reads it: its rows behind its related
        managers, each with the records it names."""
        cache = {}
        for model, related_name in CHILD_ROWS.items():
            rows = sorted(self.rows[model], key=lambda row: (row.position, row.pk or 0))
            prefetch_related_objects(rows, *_named(model))
            # What Django's own prefetch leaves there: a queryset holding the rows. Never read
            # from the database (none()): the rows may not be there.
            prefetched = model._default_manager.none()
            prefetched._result_cache, prefetched._prefetch_done = rows, True
            cache[related_name] = prefetched
        self.guide._prefetched_objects_cache = cache
        return self.guide


def rows_content(guide: Guide) -> Content:
    guide = Guide.objects.select_related("language_model").get(pk=guide.pk)
    rows = {
        model: list(model._default_manager.filter(guide=guide).select_related(*_named(model)))
        for model in CHILD_ROWS
    }
    return Content(guide, rows)


def revision_content(guide_revision: GuideRevision, guide: Guide | None = None) -> Content:
    """What the revision holds, on the guide as it stands for ``GUIDE_EXCLUDED``."""
    guide = guide or Guide.objects.select_related("language_model").get(pk=guide_revision.guide_id)
    rows: dict[type[models.Model], list[models.Model]] = {model: [] for model in CHILD_ROWS}
    for version in _versions(guide_revision.revision):
        if version._model is Guide:
            for attname, value in version.field_dict.items():
                if attname not in GUIDE_EXCLUDED:  # revisions stored before it was excluded
                    setattr(guide, attname, value)
        elif version._model in rows:
            row = version._object_version.object
            row._state.adding, row._state.db = False, version.db  # a row of the guide's
            rows[version._model].append(row)
    for model, found in rows.items():
        found.sort(key=lambda row: (row.position, row.pk))
        prefetch_related_objects(found, *_named(model))
    return Content(guide, rows)


def editing_content(guide: Guide) -> Content:
    draft = working_copy(guide) if guide.status == Guide.Status.PUBLISHED else None
    return revision_content(draft) if draft is not None else rows_content(guide)


def number_new_rows(content: Content) -> None:
    """Ids for the rows an edit added, reserved: a working copy's row is not in the database
    until it is published, and no row inserted meanwhile may take its id."""
    for model, rows in content.rows.items():
        new = [row for row in rows if row.pk is None]
        for row, pk in zip(new, _reserve_ids(model, len(new)), strict=True):
            row.pk, row.guide_id = pk, content.guide.pk


def _reserve_ids(model: type[models.Model], count: int) -> list[int]:
    if not count:
        return []
    table, column = model._meta.db_table, model._meta.pk.column
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [table, column, count],
            )
            return [pk for (pk,) in cursor.fetchall()]
        # SQLite: an AUTOINCREMENT table's next id is above both its largest id and the
        # counter it keeps in sqlite_sequence, which is moved past the ids reserved here.
        quote = connection.ops.quote_name
        cursor.execute(f"SELECT MAX({quote(column)}) FROM {quote(table)}")
        largest = cursor.fetchone()[0] or 0
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        counter = cursor.fetchone()
        start = max(largest, counter[0] if counter else 0)
        cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
        cursor.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, start + count]
        )
    return list(range(start + 1, start + count + 1))


def write(content: Content) -> Guide:
    guide = content.guide
    guide.save()
    for model in CHILD_ROWS:
        model._default_manager.filter(guide=guide).delete()
    for model, rows in content.rows.items():
        # A row of a revision stored before ids were reserved may have lost its id to another
        # guide's row: it gets a new one.
        taken = set(
            model._default_manager.filter(
                pk__in=[r.pk for r in rows if r.pk is not None]
            ).values_list("pk", flat=True)
        )
        for row in rows:
            row.guide = guide
            if row.pk in taken:
                row.pk = None
        model._default_manager.bulk_create(rows)
    return guide


def apply(guide_revision: GuideRevision) -> Guide:
    guide = Guide.objects.select_for_update().get(pk=guide_revision.guide_id)
    return write(revision_content(guide_revision, guide))


def snapshot(source: Guide | Content) -> list[Version]:
    """Unsaved Versions of the guide and its rows, as reversion serializes them (its own
    ``create_revision`` keeps only the objects in the database: not a working copy's new rows)."""
    content = source if isinstance(source, Content) else rows_content(source)
    objects: list[models.Model] = [content.guide]
    for model in CHILD_ROWS:
        objects += sorted(content.rows[model], key=lambda row: (row.position, row.pk))
    versions = []
    for obj in objects:
        options = _get_options(type(obj))
        versions.append(
            Version(
                content_type=ContentType.objects.get_for_model(type(obj)),
                object_id=str(obj.pk),
                db="default",
                format=options.format,
                serialized_data=serializers.serialize(
                    options.format, (obj,), fields=options.fields
                ),
                object_repr=str(obj),
            )
        )
    return versions


def store(
    versions: list[Version], *, guide: Guide, user, comment: str, published: bool = False
) -> GuideRevision:
    user = user if user is not None and user.is_authenticated else None
    previous = GuideRevision.objects.filter(guide=guide).select_related("revision").first()
    revision = Revision.objects.create(user=user, comment=comment, date_created=timezone.now())
    for version in versions:
        version.revision = revision
    Version.objects.bulk_create(versions)
    # Before this revision becomes the newest (translating's bases read the one before).
    signals.revision_stored.send(
        sender=GuideRevision,
        guide=guide,
        previous=previous.revision if previous else None,
        versions=versions,
    )
    return GuideRevision.objects.create(
        revision=revision,
        guide=guide,
        published_at=timezone.now() if published else None,
        published_by=user if published else None,
    )


def ensure_baseline(guide: Guide) -> None:
    """A live guide with no revision yet gets one of its live rows, so that its first draft
    can be compared with it and reverted to it."""
    if not GuideRevision.objects.filter(guide=guide).exists():
        store(
            snapshot(guide),
            guide=guide,
            user=None,
            comment=_("Live content when revisions began"),
            published=True,
        )


# --- schedules, read (``guides.editorial.publishing`` sets and carries them out) ----------


@dataclass(frozen=True)
class Schedules:
    going_live: list[GuideRevision]  # revisions due to go live at a time, soonest first
    expiring: list[GuideRevision]  # live revisions of published guides that expire, soonest first


def schedules(guide: Guide | None = None) -> Schedules:
    published_since = GuideRevision.objects.filter(guide=OuterRef("guide")).filter(
        Q(published_at__gt=OuterRef("published_at"))
        | Q(published_at=OuterRef("published_at"), pk__gt=OuterRef("pk"))
    )
    live_with_expiry = Q(
        expire_at__isnull=False, published_at__isnull=False, guide__status=Guide.Status.PUBLISHED
    )
    rows = GuideRevision.objects.filter(Q(go_live_at__isnull=False) | live_with_expiry)
    rows = rows.annotate(replaced=Exists(published_since))
    if guide is not None:
        rows = rows.filter(guide=guide)
    rows = list(rows.select_related("guide", "scheduled_by").order_by("pk"))
    going_live = [r for r in rows if r.go_live_at is not None]
    expiring = [
        r
        for r in rows
        if r.expire_at is not None
        and r.published_at is not None
        and r.guide.status == Guide.Status.PUBLISHED
        and not r.replaced  # the live one: an expiry of a revision replaced since is spent
    ]
    return Schedules(
        sorted(going_live, key=lambda r: r.go_live_at), sorted(expiring, key=lambda r: r.expire_at)
    )


def pending_go_lives(guide: Guide | None = None) -> list[GuideRevision]:
    return schedules(guide).going_live


# --- comparing two revisions -------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    where: str  # "FAQ entry 3"
    field: str  # "Answer (German)"
    old: SafeString  # the old text, removed words marked <del>
    new: SafeString  # the new text, added words marked <ins>


def columns(model: type[models.Model]) -> list[models.Field]:
    """The columns, each translated text per language (``heading_de``), not also ``heading``."""
    fields = model._meta.concrete_fields
    translated = {f.translated_field.name for f in fields if getattr(f, "translated_field", None)}
    return [f for f in fields if f.name not in translated]


def _display(field: models.Field, value) -> str:
    if value is None or value == "":
        return ""
    if field.is_relation:
        related = field.related_model._default_manager.filter(pk=value).first()
        return str(related) if related is not None else str(value)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str):
        return normalise_newlines(value)
    return str(value)


def _rows(revision: Revision) -> dict[tuple[type, str], dict]:
    return {(v._model, v.object_id): v.field_dict for v in _versions(revision)}


def place(model: type[models.Model], values: dict) -> str:
    if model is Guide:
        return _("The guide")
    return f"{capfirst(model._meta.verbose_name)} {values.get('position', '')}"


def compare(old: GuideRevision | None, new: GuideRevision) -> list[Change]:
    """Every field that differs, per language; with no ``old``, every field ``new`` fills."""
    before, after = ({} if old is None else _rows(old.revision)), _rows(new.revision)
    changes: list[Change] = []
    both = {**before, **after}  # a row's values after the change, or before where it was deleted
    for model in (Guide, *CHILD_ROWS):
        excluded = GUIDE_EXCLUDED if model is Guide else ()
        keys = [key for key in both if key[0] is model]
        for key in sorted(keys, key=lambda key: (both[key].get("position", 0), int(key[1]))):
            a, b = before.get(key, {}), after.get(key, {})
            where = place(model, both[key])
            for shown in columns(model):
                if shown.primary_key or shown.name == "guide" or shown.name in excluded:
                    continue
                old_text = _display(shown, a.get(shown.attname))
                new_text = _display(shown, b.get(shown.attname))
                if old_text != new_text:
                    changes.append(
                        Change(
                            where,
                            publishing_rules.field_label(model, shown.name),
                            *marked_words(old_text, new_text, diff_pieces),
                        )
                    )
    return changes
