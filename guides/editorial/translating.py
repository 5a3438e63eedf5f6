"""Translating a guide (docs/editing.md, "Translating a guide"): each translated field beside
its English, and files for translators (the seed's format, or XLIFF 2.0) out and back in.

A translation's basis (``TranslationBasis``) is the English it answers, updated as each
revision is stored; a field is *stale* while its basis differs from its English now. Saving
goes the guide form's way (``publishing.save_draft``); an import is checked whole and saves
nothing when anything is wrong.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from gpuguide.lib import bounded_xml
from gpuguide.lib.editor_input import LINE_BREAK, VisibleTextValidator
from gpuguide.lib.word_diff import inline_diff, marked_words
from guides.content.diff_pieces import diff_pieces
from guides.content.prose_rules import typed_figures
from guides.content.tokens.registry import TOKEN_RE, KnownSlugs, token_errors
from guides.editorial import content_files, publishing, publishing_rules, revisions, signals
from guides.editorial.publishing_rules import language_name
from guides.editorial.revisions import TextField
from guides.models import (
    EDIT_CONFLICT,
    FaqEntry,
    Guide,
    GuideRevision,
    Section,
    TranslationBasis,
)
from guides.pagecache import invalidation
from guides.pagecache import tags as guide_tags
from guides.pages import selectors

SOURCE = settings.LANGUAGE_CODE
REQUIRED = {
    Guide: publishing_rules.GUIDE_REQUIRED,
    Section: publishing_rules.SECTION_REQUIRED,
    FaqEntry: publishing_rules.FAQ_REQUIRED,
}
XLIFF_NS = "urn:oasis:names:tc:xliff:document:2.0"
MAX_IMPORT_BYTES = 1024 * 1024  # a guide's text in one language is a few dozen kilobytes
# An export nests 6 elements (xliff, file, unit, segment, target, ph); tools add <group>s and
# nested <mrk>s, never dozens: deeper is refused before _segment_text recurses into it.
MAX_XLIFF_DEPTH = 32


def target_languages() -> list[str]:
    return [code for code in publishing_rules.LANGUAGES if code != SOURCE]


def translation_url(guide: Guide, language: str, *, changed_only: bool = False) -> str:
    url = reverse("admin:guides_guide_translate", args=[guide.pk, language])
    return url + "?changed=1" if changed_only else url


# --- the fields -----------------------------------------------------------------------------


def working_copy_of(guide: Guide) -> GuideRevision | None:
    return revisions.working_copy(guide) if guide.status == Guide.Status.PUBLISHED else None


def text_fields(guide: Guide) -> list[TextField]:
    """As editors edit it: a live guide's working copy, where it has one, else its rows."""
    draft = working_copy_of(guide)
    if draft is not None:
        return revisions.text_fields(revisions.revision_rows(draft.revision))
    return revisions.text_fields(
        revisions.text_rows(guide, guide.sections.all(), guide.faq_entries.all())
    )


# --- bases: which English each translation answers --------------------------------------------


def _texts_by_key(rows: list[revisions.Row]) -> dict[str, dict[str, str]]:
    return {f.key: f.texts for f in revisions.text_fields(rows)}


@receiver(signals.revision_stored, dispatch_uid="translation_bases")
def bases_update(sender, guide: Guide, previous, versions: list, **_kwargs) -> None:
    before = _texts_by_key(revisions.revision_rows(previous)) if previous is not None else {}
    _record_bases(guide, before, _texts_by_key(revisions.rows_of(versions)))


def _record_bases(
    guide: Guide,
    before: dict[str, dict[str, str]],
    after: dict[str, dict[str, str]],
    confirmed: Iterable[tuple[str, str]] = (),
) -> None:
    """``confirmed``: (language, key) of translations that still fit their English."""
    confirmed = set(confirmed)
    existing = {(b.language, b.field_key): b for b in guide.translation_bases.all()}
    new, changed = [], []
    now = timezone.now()
    for key, texts in after.items():
        for lang in target_languages():
            basis = existing.get((lang, key))
            english = english_answered(
                texts, before.get(key), lang, confirmed=(lang, key) in confirmed,
                has_basis=basis is not None,
            )  # fmt: skip
            if english is None:
                continue
            if basis is None:
                new.append(
                    TranslationBasis(
                        guide=guide, language=lang, field_key=key, english=english, saved_at=now
                    )
                )
            elif basis.english != english:
                basis.english, basis.saved_at = english, now
                changed.append(basis)
    TranslationBasis.objects.bulk_create(new)
    TranslationBasis.objects.bulk_update(changed, ["english", "saved_at"])


def english_answered(
    texts: dict[str, str], old: dict[str, str] | None, lang: str, *, confirmed: bool,
    has_basis: bool,
) -> str | None:  # fmt: skip
    """The English that ``lang``'s text now answers, where this save says; else None."""
    if confirmed:
        return texts[SOURCE]
    if not texts[lang]:
        return None  # not translated: it answers nothing
    if old is None or old[lang] != texts[lang]:
        return texts[SOURCE]  # translated now (or a new row)
    if not has_basis and old[SOURCE] != texts[SOURCE]:
        return old[SOURCE]  # the English moved on, the translation did not
    return None


@dataclass(frozen=True)
class StaleField:
    field: TextField
    english_then: str
    untranslated: bool = False

    @property
    def english_diff(self) -> SafeString:
        return inline_diff(self.english_then, self.field.texts[SOURCE], diff_pieces)


def stale_fields(
    fields: list[TextField], language: str, bases: dict[str, str]
) -> dict[str, StaleField]:
    """By key: a translation that answers an English now changed, and an English text with
    no translation at all."""
    found = {}
    for f in fields:
        if not f.texts[language].strip():
            if f.texts[SOURCE].strip():
                found[f.key] = StaleField(f, "", untranslated=True)
        elif f.key in bases and bases[f.key] != f.texts[SOURCE]:
            found[f.key] = StaleField(f, bases[f.key])
    return found


def bases_of(guide: Guide, language: str) -> dict[str, str]:
    return dict(
        TranslationBasis.objects.filter(guide=guide, language=language).values_list(
            "field_key", "english"
        )
    )


def stale_translations() -> list[tuple[Guide, str, list[TextField]]]:
    """(guide, language, stale fields), for the dashboard: four queries."""
    bases: dict[int, dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for guide_id, language, key, english in TranslationBasis.objects.values_list(
        "guide_id", "language", "field_key", "english"
    ):
        bases[guide_id][language][key] = english
    # Guides with a basis, and live guides (a text not translated at all has no basis).
    checked = Guide.objects.filter(
        Q(pk__in=TranslationBasis.objects.values("guide_id")) | Q(status=Guide.Status.PUBLISHED)
    ).prefetch_related("sections", "faq_entries")
    found = []
    for guide in checked:
        fields = revisions.text_fields(
            revisions.text_rows(guide, guide.sections.all(), guide.faq_entries.all())
        )
        for lang in target_languages():
            stale = stale_fields(fields, lang, bases[guide.pk][lang])
            if stale:
                found.append((guide, lang, [f for f in fields if f.key in stale]))
    return found


# --- checking and saving a translation ------------------------------------------------------


@dataclass(frozen=True)
class FieldProblem:
    field: TextField
    language: str
    message: str

    def __str__(self) -> str:
        return f"{self.field.described(self.language)}: {self.message}"


class TranslationRefused(Exception):
    def __init__(self, problems: list[FieldProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


class TranslationConflict(Exception):
    """The guide was saved by someone else since the translator opened it."""


def token_differences(english: str, text: str) -> list[str]:
    wanted = Counter(m.group(0) for m in TOKEN_RE.finditer(english))
    found = Counter(m.group(0) for m in TOKEN_RE.finditer(text))
    return (
        [
            _("%(token)s is not in the English text") % {"token": token}
            for token in found if not wanted[token]
        ] + [
            _("%(token)s from the English text is missing") % {"token": token}
            for token in wanted if not found[token]
        ] + [
            _("%(token)s appears %(found)s× here and %(wanted)s× in the English text")
            % {"token": token, "found": found[token], "wanted": wanted[token]}
            for token in wanted if found[token] and found[token] != wanted[token]
        ]
    )  # fmt: skip


def translation_problems(
    fields: dict[str, TextField],
    language: str,
    changes: dict[str, str],
    known: KnownSlugs,
    *,
    published: bool,
) -> list[FieldProblem]:
    problems = []
    for key, text in changes.items():
        field = fields[key]
        messages = []
        try:
            VisibleTextValidator(field.described(language))(text)
        except ValidationError as exc:
            messages += exc.messages
        if field.one_line and LINE_BREAK.search(text):
            messages.append(_("it must be one line"))
        limit = field.model_field.max_length
        if limit and len(text) > limit:
            messages.append(
                _("it has %(length)s characters; at most %(limit)s fit")
                % {"length": len(text), "limit": limit}
            )
        if published and not text.strip() and field.name in REQUIRED[field.model]:
            messages.append(_("a published guide needs it in every language"))
        messages += token_errors(text, known)
        messages += [typed.message for typed in typed_figures(text, known.gpu_names)]
        if text.strip():
            messages += token_differences(field.texts[SOURCE], text)
        problems += [FieldProblem(field, language, m) for m in messages]
    return problems


@dataclass(frozen=True)
class SavedTranslation:
    revision: GuideRevision | None  # None when no text changed
    working_copy: bool  # a draft revision of a live guide: the live page is unchanged
    problems: list = field(default_factory=list)  # the working copy's guide check


def changed_texts(fields: dict[str, TextField], language: str, texts: dict[str, str]) -> dict:
    texts = {k: revisions.normalise_newlines(v) for k, v in texts.items()}
    return {k: v for k, v in texts.items() if v != fields[k].texts[language]}


def translation_save(
    guide: Guide,
    *,
    language: str,
    texts: dict[str, str],
    user,
    comment: str,
    confirmed: Iterable[str] = (),
    version: int | None = None,
    known: KnownSlugs | None = None,
) -> SavedTranslation:
    """Save ``texts`` (by field key), or none of them (TranslationRefused, TranslationConflict).
    ``confirmed`` keys: translations that still fit their changed English."""
    if language not in target_languages():
        raise ValueError(f"not a target language: {language}")
    known = known or selectors.token_slugs()
    fields = {f.key: f for f in text_fields(guide)}
    unknown = set(texts) - set(fields)
    if unknown:
        raise ValueError(f"not fields of {guide.slug}: {', '.join(sorted(unknown))}")
    changes = changed_texts(fields, language, texts)
    published = guide.status == Guide.Status.PUBLISHED
    problems = translation_problems(fields, language, changes, known, published=published)
    if problems:
        raise TranslationRefused(problems)
    with transaction.atomic():
        current = Guide.objects.select_for_update().get(pk=guide.pk)
        if version is not None and current.version != version:
            raise TranslationConflict(str(EDIT_CONFLICT))
        saved = SavedTranslation(None, False)
        if changes:
            content = revisions.editing_content(current)
            rows = {(Guide, current.pk): content.guide}
            rows |= {(type(row), row.pk): row for found in content.rows.values() for row in found}
            for key, text in changes.items():
                f = fields[key]
                setattr(rows[f.model, f.pk], f"{f.name}_{language}", text)
            outcome = publishing.save_draft(content, user=user, comment=comment, known=known)
            saved = SavedTranslation(outcome.revision, published, outcome.problems)
        keys = [k for k in confirmed if k in fields and k not in changes]
        if keys:
            now = {k: fields[k].texts for k in keys}
            _record_bases(current, now, now, confirmed=[(language, k) for k in keys])
            # No revision stored, so nothing else invalidates the admin's stale warnings.
            invalidation.invalidate({guide_tags.guide(guide.pk)})
    return saved


# --- files for translators: the seed's format and XLIFF 2.0 ---------------------------------


class TranslationFileError(ValueError):
    """A file that cannot be imported at all: the message says why, for the upload form."""


FORMATS = {"md": "Markdown", "xliff": "XLIFF"}


def _content(guide: Guide) -> content_files.GuideContent:
    return content_files.guide_content(revisions.editing_content(guide).page_guide())


def export_filename(guide: Guide, language: str, fmt: str) -> str:
    return f"{guide.slug}.{language}.{'md' if fmt == 'md' else 'xlf'}"


def markdown_export(guide: Guide, language: str) -> str:
    """In the seed's per-language format; TranslationFileError for a text it cannot hold."""
    try:
        return content_files.language_text(
            _content(guide), language, Path(f"{language}.md"), fold_line_breaks=True
        )
    except content_files.ContentFileError as exc:
        raise TranslationFileError(
            _("This guide cannot be written as Markdown (%(problem)s): export it as XLIFF.")
            % {"problem": exc}
        ) from None


def xliff_export(guide: Guide, language: str) -> str:
    """One unit per field (its key as id); each token a ``<ph>`` that tools keep."""
    root = ET.Element(
        "xliff", {"xmlns": XLIFF_NS, "version": "2.0", "srcLang": SOURCE, "trgLang": language}
    )
    file = ET.SubElement(root, "file", {"id": "f1", "original": guide.slug})
    texts = []
    for f in text_fields(guide):
        unit = ET.SubElement(file, "unit", {"id": f.key})
        notes = ET.SubElement(unit, "notes")
        ET.SubElement(notes, "note", {"category": "location"}).text = f"{f.where}: {f.label}"
        target = f.texts[language]
        segment = ET.SubElement(unit, "segment", {"state": "translated" if target else "initial"})
        source = ET.SubElement(segment, "source", {"xml:space": "preserve"})
        texts.append((source, f.texts[SOURCE], f.texts[SOURCE]))
        if target:
            element = ET.SubElement(segment, "target", {"xml:space": "preserve"})
            texts.append((element, target, f.texts[SOURCE]))
    ET.indent(root)  # before the texts go in: indenting would change their spaces
    for element, text, english in texts:
        _fill(element, text, english)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _fill(element: ET.Element, text: str, source: str) -> None:
    """Each token a <ph/> with the id of the same token in ``source``, else a new one."""
    unused: dict[str, list[str]] = defaultdict(list)  # each token's ids in the source, in order
    for number, match in enumerate(TOKEN_RE.finditer(source), start=1):
        unused[match.group(0)].append(str(number))
    pieces = TOKEN_RE.split(text)  # the text before each token, the token's inside, …, the rest
    element.text = pieces[0]
    for number, (inside, after) in enumerate(zip(pieces[1::2], pieces[2::2], strict=True), 1):
        token = f"[[{inside}]]"
        free = unused.get(token) or [f"x{number}"]
        ET.SubElement(element, "ph", {
            "id": free.pop(0), "canCopy": "no", "canDelete": "no", "disp": token, "equiv": token,
        }).tail = after  # fmt: skip


# "<slug>.<lang>.md" as downloaded, "<lang>.md" as in the seed; " (1)": the number a browser
# adds when the same file is downloaded again.
MARKDOWN_NAME_RE = re.compile(r"(?:(?P<slug>.+)\.)?(?P<language>[^.]+?)(?: ?\(\d+\))?\.md")


def _markdown_targets(guide: Guide, language: str, text: str, filename: str, fields):
    """A Markdown file names its guide and language only in its name: any other name is
    refused, so that a renamed file cannot put one language's text into another."""
    name = Path(filename or f"{language}.md").name
    named = MARKDOWN_NAME_RE.fullmatch(name)
    if named is None or named["language"] not in publishing_rules.LANGUAGES:
        raise TranslationFileError(
            _(
                "A Markdown file is known by its name: import it as downloaded, named "
                "“%(expected)s”, not “%(name)s”."
            )
            % {"expected": export_filename(guide, language, "md"), "name": name}
        )
    if named["language"] != language:
        raise TranslationFileError(_wrong_language(named["language"], language))
    if named["slug"] is not None and named["slug"] != guide.slug:
        raise TranslationFileError(_wrong_guide(named["slug"], guide))
    text = revisions.normalise_newlines(text)  # saved on Windows: CRLF line ends
    content = _content(guide)
    try:
        words = content_files.parse_language(text, Path(name), content.sections)
    except content_files.ContentFileError as exc:
        raise TranslationFileError(
            _("This file cannot be read: %(problem)s") % {"problem": exc}
        ) from None
    faq = [f for f in fields if f.model is FaqEntry and f.name == "question"]
    if len(words.faq) != len(faq):
        raise TranslationFileError(
            _("This file has %(found)s FAQ entries; the guide has %(expected)s.")
            % {"found": len(words.faq), "expected": len(faq)}
        )
    # The fields come row by row in the file's order: the guide, its sections, its FAQ entries.
    in_order = dict.fromkeys((f.model, f.pk) for f in fields)
    rows = dict(zip(in_order, [words, *words.sections, *words.faq], strict=True))
    return {f.key: getattr(rows[f.model, f.pk], f.name) or "" for f in fields}, []


def _wrong_language(found: str, language: str) -> str:
    return _("This file is a translation into “%(found)s”, not into %(language)s.") % {
        "found": found,
        "language": language_name(language),
    }


def _wrong_guide(found: str, guide: Guide) -> str:
    return _("This file is for the guide “%(found)s”, not for “%(slug)s”.") % {
        "found": found,
        "slug": guide.slug,
    }


def _xliff_root(text: str) -> ET.Element:
    try:
        return bounded_xml.fromstring(text, max_depth=MAX_XLIFF_DEPTH)
    except bounded_xml.ParseError as exc:
        raise TranslationFileError(
            _("This is not a well-formed XML file (%(problem)s).") % {"problem": exc}
        ) from None
    except bounded_xml.XMLDeclarationsRefused:
        raise TranslationFileError(
            _("This file declares a DOCTYPE or entities, which are refused for safety.")
        ) from None
    except bounded_xml.XMLTooDeep:
        raise TranslationFileError(
            _(
                "This file nests XML elements deeper than %(limit)s levels, which is refused "
                "for safety; an exported file nests 6."
            )
            % {"limit": MAX_XLIFF_DEPTH}
        ) from None


def _xliff_targets(guide: Guide, language: str, text: str, fields):
    root = _xliff_root(text)
    ns = f"{{{XLIFF_NS}}}"
    if root.tag != f"{ns}xliff" or root.get("version") != "2.0":
        raise TranslationFileError(_("This is not an XLIFF 2.0 file."))
    if root.get("srcLang") != SOURCE:
        raise TranslationFileError(
            _("This file translates from “%(found)s”; the guides are written in English (en).")
            % {"found": root.get("srcLang", "")}
        )
    if root.get("trgLang") != language:
        raise TranslationFileError(_wrong_language(root.get("trgLang", ""), language))
    files = root.findall(f"{ns}file")
    if len(files) != 1 or files[0].get("original") != guide.slug:
        found = files[0].get("original", "") if files else ""
        raise TranslationFileError(_wrong_guide(found, guide))
    by_key = {f.key: f for f in fields}
    targets, english_changed = {}, []
    for unit in files[0].iter(f"{ns}unit"):
        key = unit.get("id", "")
        if key not in by_key:
            raise TranslationFileError(
                _("The unit “%(id)s” names no text of this guide (was the file exported from "
                  "another version of it?).") % {"id": key}
            )  # fmt: skip
        if key in targets:
            raise TranslationFileError(_("The unit “%(id)s” appears twice.") % {"id": key})
        segments = unit.findall(f"{ns}segment")
        if len(segments) != 1:
            raise TranslationFileError(
                _("The unit “%(id)s” must have exactly one segment.") % {"id": key}
            )
        source, target = segments[0].find(f"{ns}source"), segments[0].find(f"{ns}target")
        if target is None:
            continue  # not translated: the text stays as it is
        placeholders = {
            ph.get("id"): ph.get("equiv", "") for ph in (source if source is not None else ())
        }
        targets[key] = _segment_text(target, key, placeholders)
        if source is not None and _segment_text(source, key, {}) != by_key[key].texts[SOURCE]:
            english_changed.append(key)
    return targets, english_changed


def _segment_text(element: ET.Element, key: str, placeholders: dict[str, str]) -> str:
    """Each <ph/> its token (``equiv``, else the source's by id), each <mrk> its text."""
    ns = f"{{{XLIFF_NS}}}"
    parts = [element.text or ""]
    for child in element:
        if child.tag == f"{ns}ph":
            parts.append(child.get("equiv") or placeholders.get(child.get("id"), ""))
        elif child.tag == f"{ns}mrk":
            parts.append(_segment_text(child, key, placeholders))
        else:
            raise TranslationFileError(
                _("The unit “%(id)s” holds inline markup the guides do not use (%(tag)s): keep "
                  "text and the <ph/> placeholders only.")
                % {"id": key, "tag": child.tag.removeprefix(ns)}
            )  # fmt: skip
        parts.append(child.tail or "")
    return "".join(parts)


@dataclass(frozen=True)
class FieldChange:
    field: TextField
    old: str
    new: str

    @property
    def marked(self) -> tuple[SafeString, SafeString]:
        return marked_words(self.old, self.new, diff_pieces)


@dataclass
class ImportResult:
    language: str
    format: str  # "Markdown" or "XLIFF"
    changes: list[FieldChange]
    english_changed: list[TextField]  # the file's English is not the guide's English now
    problems: list[FieldProblem]
    saved: SavedTranslation | None = None


def translation_import(
    guide: Guide,
    *,
    language: str,
    data: bytes,
    filename: str = "",
    user=None,
    dry_run: bool = True,
    known: KnownSlugs | None = None,
) -> ImportResult:
    """Read a translator's file (TranslationFileError where it cannot be read); unless
    ``dry_run`` or the result holds problems, save its changes as one revision."""
    if language not in target_languages():
        raise TranslationFileError(_("Translations are imported into German or Japanese."))
    if len(data) > MAX_IMPORT_BYTES:
        raise TranslationFileError(
            _("This file is larger than %(limit)s, the most a guide's text in one language may be.")
            % {"limit": filesizeformat(MAX_IMPORT_BYTES)}
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TranslationFileError(_("This file is not UTF-8 text.")) from None
    known = known or selectors.token_slugs()
    fields = text_fields(guide)
    fmt = "xliff" if data.lstrip()[:1] == b"<" else "md"  # XML, else the seed's format
    if fmt == "xliff":
        targets, english_changed = _xliff_targets(guide, language, text, fields)
    else:
        targets, english_changed = _markdown_targets(guide, language, text, filename, fields)
    by_key = {f.key: f for f in fields}
    changes = changed_texts(by_key, language, targets)
    result = ImportResult(
        language=language,
        format=FORMATS[fmt],
        changes=[
            FieldChange(f, f.texts[language], changes[f.key]) for f in fields if f.key in changes
        ],  # fmt: skip
        english_changed=[by_key[k] for k in english_changed],
        problems=translation_problems(
            by_key, language, changes, known, published=guide.status == Guide.Status.PUBLISHED
        ),
    )
    if dry_run or result.problems or not result.changes:
        return result
    result.saved = translation_save(
        guide,
        language=language,
        texts=changes,
        user=user,
        comment=_("Imported %(language)s from %(format)s")
        % {"language": language, "format": result.format},
        known=known,
    )
    return result
