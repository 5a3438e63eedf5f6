"""Translating a guide (guides.editorial.translating): the bases, saving, export and import."""

import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from reversion.models import Revision

from guides.dashboard import stale_translation_warnings
from guides.editorial import revisions, translating
from guides.editorial.translating import TranslationFileError
from guides.models import Guide, GuideRevision, Section
from tests.conftest import GUIDE_SLUG


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.fixture
def translator(seeded) -> User:
    return User.objects.create_user("tomoko", is_staff=True)


def _field(guide: Guide, key_end: str, position: int = 1) -> translating.TextField:
    """The field of section ``position`` (or of the guide) whose key ends in ``key_end``."""
    fields = translating.text_fields(guide)
    if key_end.startswith("guide."):
        return next(f for f in fields if f.model is Guide and f.name == key_end[6:])
    return next(f for f in fields if f.where == f"Section {position}" and f.name == key_end)


def _english_edited(guide: Guide, section_position: int, body: str) -> None:
    """An editor's change of a section's English, kept as a revision like a guide form save."""
    revisions.ensure_baseline(guide)
    Section.objects.filter(guide=guide, position=section_position).update(body_en=body)
    revisions.store(revisions.snapshot(guide), guide=guide, user=None, comment="Draft saved")


# --- export, then import ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["md", "xliff"])
@pytest.mark.parametrize("language", ["de", "ja"])
def test_an_exported_file_imports_as_no_change(guide, fmt, language):
    export = translating.markdown_export if fmt == "md" else translating.xliff_export
    data = export(guide, language).encode()
    result = translating.translation_import(
        guide, language=language, data=data, filename=f"{GUIDE_SLUG}.{language}.md"
    )
    assert (result.format, result.changes, result.problems, result.english_changed) == (
        translating.FORMATS[fmt], [], [], []
    )  # fmt: skip


def test_the_markdown_export_is_the_seed_file(guide):
    seed = (translating.settings.BASE_DIR / "content/guides" / GUIDE_SLUG / "de.md").read_text()
    assert translating.markdown_export(guide, "de") == seed


def _xliff_with(guide: Guide, old: str, new: str, language: str = "de") -> bytes:
    text = translating.xliff_export(guide, language)
    assert text.count(old) == 1, old
    return text.replace(old, new).encode()


def test_a_dry_run_shows_the_change_and_saves_nothing(guide):
    heading = _field(guide, "heading")
    data = _xliff_with(guide, f">{heading.texts['de']}<", ">Neue Überschrift<")
    revisions_before = GuideRevision.objects.count()
    result = translating.translation_import(guide, language="de", data=data)
    assert [(c.field.key, c.old, c.new) for c in result.changes] == [
        (heading.key, heading.texts["de"], "Neue Überschrift")
    ]
    assert str(result.changes[0].marked[1]) == "<ins>Neue</ins> <ins>Überschrift</ins>"
    assert GuideRevision.objects.count() == revisions_before
    assert Section.objects.get(pk=heading.pk).heading_de == heading.texts["de"]


def test_an_applied_import_is_a_working_copy_revision_of_a_live_guide(guide, translator):
    heading = _field(guide, "heading")
    data = _xliff_with(guide, f">{heading.texts['de']}<", ">Neue Überschrift<")
    result = translating.translation_import(guide, language="de", data=data, user=translator,
                                            dry_run=False)  # fmt: skip
    assert result.saved.working_copy and result.saved.problems == []
    newest = GuideRevision.objects.filter(guide=guide).select_related("revision").first()
    assert (newest.revision.comment, newest.revision.user, newest.published_at) == (
        "Imported de from XLIFF", translator, None
    )  # fmt: skip
    assert _field(guide, "heading").texts["de"] == "Neue Überschrift"  # the working copy
    assert Section.objects.get(pk=heading.pk).heading_de == heading.texts["de"]  # live: as was
    assert Guide.objects.get(pk=guide.pk).version == guide.version + 1


def test_a_markdown_import_into_a_draft_guide_saves_its_rows_and_a_revision(guide):
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    guide.refresh_from_db()
    text = translating.markdown_export(guide, "ja").replace("title: ", "title: 新しい", 1)
    result = translating.translation_import(guide, language="ja", data=text.encode(),
                                            filename="ja.md", dry_run=False)  # fmt: skip
    assert not result.saved.working_copy
    assert Guide.objects.get(pk=guide.pk).title_ja.startswith("新しい")
    assert Revision.objects.filter(comment="Imported ja from Markdown").count() == 1


# --- refused imports: nothing saved, a message naming field and token --------------------------


def test_a_token_stated_twice_where_the_english_states_it_once_says_so():
    assert translating.token_differences("[[model]] fits.", "[[model]] passt, [[model]]!") == [
        "[[model]] appears 2× here and 1× in the English text"
    ]
    assert (
        translating.token_differences("[[model]] and [[params]]", "[[params]] und [[model]]") == []
    )


def test_tokens_must_be_the_english_ones_and_known(guide):
    text = translating.xliff_export(guide, "de")
    placeholder = re.search(r'<ph id="\d+" [^>]*equiv="\[\[memory qlora\]\]" />', text)
    data = text.replace(placeholder[0], "[[memory qlroa]]").encode()
    before = GuideRevision.objects.count()
    result = translating.translation_import(guide, language="de", data=data, dry_run=False)
    assert [str(p) for p in result.problems] == [
        "The guide, Short answer (German): [[memory qlroa]]: there is no method “qlroa”",
        "The guide, Short answer (German): [[memory qlroa]] is not in the English text",
        "The guide, Short answer (German): [[memory qlora]] from the English text is missing",
    ]
    assert result.saved is None and GuideRevision.objects.count() == before


def test_tokens_are_placeholders_a_tool_keeps_and_the_import_reads(guide):
    text = translating.xliff_export(guide, "de")
    assert (
        '<source xml:space="preserve">The best GPU for fine-tuning <ph id="1" canCopy="no" '
        'canDelete="no" disp="[[model]]" equiv="[[model]]" /> depends on the method.'
    ) in text
    assert (
        '<target xml:space="preserve">Die beste GPU zum Fine-Tuning von <ph id="1" canCopy="no" '
        'canDelete="no" disp="[[model]]" equiv="[[model]]" /> hängt'
    ) in text
    # A tool that keeps only the id: the token is the source's placeholder with that id.
    stripped = text.replace(
        'Fine-Tuning von <ph id="1" canCopy="no" canDelete="no" disp="[[model]]" '
        'equiv="[[model]]" />', 'Fine-Tuning von <ph id="1"/>', 1
    )  # fmt: skip
    result = translating.translation_import(guide, language="de", data=stripped.encode())
    assert (result.changes, result.problems) == ([], [])
    marked = text.replace("hängt", '<pc id="9">hängt</pc>', 1)
    with pytest.raises(
        TranslationFileError, match=r"holds inline markup the guides do not use \(pc\)"
    ):
        translating.translation_import(guide, language="de", data=marked.encode())


def test_a_typed_figure_is_refused_with_the_guide_forms_message(guide):
    heading = _field(guide, "heading")
    data = _xliff_with(guide, f">{heading.texts['de']}<", ">Etwa 48 GB<")
    result = translating.translation_import(guide, language="de", data=data)
    assert [p.message for p in result.problems] == [
        "“48 GB” is a typed figure: write [[memory METHOD]], [[spec GPU memory]] or "
        "[[vram CONFIG]] instead."
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda x: b"not xml at all <", "This file cannot be read: "),
        (lambda x: x.replace(b"<xliff", b"<xliff unclosed=", 1),
         "This is not a well-formed XML file (not well-formed (invalid token): line 2, column "),
        (lambda x: x.replace(b"?>", b'?><!DOCTYPE x [<!ENTITY a "b">]>', 1),
         "This file declares a DOCTYPE or entities, which are refused for safety."),
        (lambda x: x.replace(b'version="2.0"', b'version="1.2"', 1),
         "This is not an XLIFF 2.0 file."),
        (lambda x: x.replace(b'trgLang="de"', b'trgLang="ja"'),
         "This file is a translation into “ja”, not into German."),
        (lambda x: x.replace(b'srcLang="en"', b'srcLang="de"'),
         "This file translates from “de”; the guides are written in English (en)."),
        (lambda x: x.replace(GUIDE_SLUG.encode(), b"another-guide"),
         f"This file is for the guide “another-guide”, not for “{GUIDE_SLUG}”."),
        (lambda x: x.replace(b'<unit id="guide.', b'<unit id="nothing.', 1),
         "The unit “nothing."),
        (lambda x: x + b" " * translating.MAX_IMPORT_BYTES,
         "This file is larger than 1.0\xa0MB, the most a guide's text in one language may be."),
        (lambda x: x.decode().encode("utf-16"), "This file is not UTF-8 text."),
    ],
)  # fmt: skip
def test_a_file_that_cannot_be_read_is_refused_saying_why(guide, change, message):
    data = change(translating.xliff_export(guide, "de").encode())
    with pytest.raises(TranslationFileError) as refused:
        translating.translation_import(guide, language="de", data=data, dry_run=False)
    assert str(refused.value).startswith(message)


def test_a_markdown_file_named_for_another_language_or_guide_is_refused(guide):
    data = translating.markdown_export(guide, "de").encode()
    for filename, message in [
        ("ja.md", "This file is a translation into “ja”, not into German."),
        ("other.de.md", f"This file is for the guide “other”, not for “{GUIDE_SLUG}”."),
        (f"{GUIDE_SLUG}.ja (1).md", "This file is a translation into “ja”, not into German."),
        ("translation.md", "A Markdown file is known by its name: import it as downloaded, "
                           f"named “{GUIDE_SLUG}.de.md”, not “translation.md”."),
    ]:  # fmt: skip
        with pytest.raises(TranslationFileError) as refused:
            translating.translation_import(guide, language="de", data=data, filename=filename)
        assert str(refused.value) == message


def test_a_markdown_file_downloaded_twice_or_saved_on_windows_is_read(guide):
    data = translating.markdown_export(guide, "de").replace("\n", "\r\n").encode()
    result = translating.translation_import(
        guide, language="de", data=data, filename=f"{GUIDE_SLUG}.de (1).md"
    )
    assert not result.problems and not result.changes


def test_a_markdown_file_with_a_section_too_many_names_the_line(guide):
    data = translating.markdown_export(guide, "de").replace("\n## ", "\n## Noch eine\n\n## ", 1)
    with pytest.raises(TranslationFileError) as refused:
        translating.translation_import(guide, language="de", data=data.encode(),
                                       filename="de.md")  # fmt: skip
    assert str(refused.value) == (
        "This file cannot be read: de.md: 9 sections (##), but guide.json has 8"
    )


# --- hostile files: refused whole, with a clear message, nothing saved ------------------------

DEEP_MARKUP = "This file nests XML elements deeper than 32 levels, which is refused for safety"
DECLARATIONS = "This file declares a DOCTYPE or entities, which are refused for safety."
LAUGHS = (
    '<!DOCTYPE xliff [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    + "]>"
).replace("&lol0;", "&lol;")
EXTERNAL = '<!DOCTYPE xliff [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'


def _hostile(guide: Guide, attack: str) -> bytes:
    """The export with its first heading's German replaced: 1,000 nested <mrk>, or an entity
    (a billion laughs, or a local file) declared in a DOCTYPE."""
    heading = _field(guide, "heading")
    if attack == "nested":
        text = "<mrk id='m' translate='yes'>" * 1000 + "Neu" + "</mrk>" * 1000
        return _xliff_with(guide, f">{heading.texts['de']}<", f">{text}<")
    doctype, entity = {"laughs": (LAUGHS, "&lol9;"), "external": (EXTERNAL, "&secret;")}[attack]
    data = _xliff_with(guide, f">{heading.texts['de']}<", f">{entity}<")
    return data.replace(b"?>", b"?>" + doctype.encode(), 1)


@pytest.mark.parametrize(
    ("attack", "message"),
    [("nested", DEEP_MARKUP), ("laughs", DECLARATIONS), ("external", DECLARATIONS)],
)
def test_a_hostile_xliff_file_is_refused_and_nothing_is_imported(guide, attack, message):
    heading, revisions_before = _field(guide, "heading"), GuideRevision.objects.count()
    with pytest.raises(TranslationFileError) as refused:
        translating.translation_import(guide, language="de", data=_hostile(guide, attack),
                                       dry_run=False)  # fmt: skip
    assert str(refused.value).startswith(message)
    assert GuideRevision.objects.count() == revisions_before
    assert _field(guide, "heading").texts["de"] == heading.texts["de"]


def test_the_import_command_refuses_a_deeply_nested_file_saying_why(guide, tmp_path):
    path = tmp_path / f"{GUIDE_SLUG}.de.xlf"
    path.write_bytes(_hostile(guide, "nested"))
    with pytest.raises(CommandError, match=DEEP_MARKUP):
        call_command("import_translation", GUIDE_SLUG, "de", str(path), stdout=StringIO())


def test_markup_nested_within_the_limit_is_read_as_its_text(guide):
    heading = _field(guide, "heading")
    nested = "<mrk id='a'><mrk id='b'>Neue</mrk> Über</mrk>schrift"
    data = _xliff_with(guide, f">{heading.texts['de']}<", f">{nested}<")
    result = translating.translation_import(guide, language="de", data=data)
    assert [c.new for c in result.changes] == ["Neue Überschrift"]


def test_the_export_command_says_when_markdown_cannot_hold_a_text(guide):
    Section.objects.filter(guide=guide, position=2).update(body_de="Erst\n[table]")
    with pytest.raises(CommandError, match=r"cannot be written as Markdown .*export it as XLIFF"):
        call_command("export_translation", GUIDE_SLUG, "de", "--format", "md", stdout=StringIO())


@pytest.mark.parametrize("line_break", ["\n", "\r", "\u2028", "\x85"])
def test_a_one_line_field_refuses_any_line_break_in_an_import(guide, line_break):
    heading = _field(guide, "heading")
    data = _xliff_with(guide, f">{heading.texts['de']}<", f">Neue{line_break}Überschrift<")
    result = translating.translation_import(guide, language="de", data=data)
    assert [str(p) for p in result.problems] == ["Section 1, Heading (German): it must be one line"]


# --- which English a translation answers ------------------------------------------------------


def test_a_translation_is_stale_once_its_english_changes_and_not_after_it_is_saved(guide):
    body = _field(guide, "body", 2)
    assert translating.stale_fields(translating.text_fields(guide), "de",
                                    translating.bases_of(guide, "de")) == {}  # fmt: skip
    _english_edited(guide, 2, body.texts["en"] + " One more sentence.")
    fields = translating.text_fields(guide)
    stale = translating.stale_fields(fields, "de", translating.bases_of(guide, "de"))
    assert list(stale) == [body.key]
    assert str(stale[body.key].english_diff).endswith(".<ins> One more sentence.</ins>")
    assert list(translating.stale_fields(fields, "ja", translating.bases_of(guide, "ja"))) == [
        body.key
    ]

    translating.translation_save(guide, language="de", texts={body.key: body.texts["de"] + " Ja."},
                                 user=None, comment="t")  # fmt: skip
    assert translating.stale_fields(translating.text_fields(guide), "de",
                                    translating.bases_of(guide, "de")) == {}  # fmt: skip
    translating.translation_save(guide, language="ja", texts={}, confirmed=[body.key],
                                 user=None, comment="t")  # fmt: skip
    assert translating.bases_of(guide, "ja")[body.key].endswith("One more sentence.")


def test_the_dashboard_links_to_exactly_the_stale_fields(guide):
    body = _field(guide, "body", 2)
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    guide.refresh_from_db()
    assert stale_translation_warnings() == []
    _english_edited(guide, 2, "A new English text.")
    warnings = stale_translation_warnings()
    assert [w.message for w in warnings] == [
        f"“{guide.title}”: the {language} text is missing or older than the English it "
        "translates: Section 2: Text before the table."
        for language in ("German", "Japanese")
    ]
    assert warnings[0].url == (
        f"/en/admin/guides/guide/{guide.pk}/translate/de/?changed=1#{body.anchor}"
    )


def test_a_saved_translation_refused_whole_when_one_text_is_wrong(guide):
    heading, body = _field(guide, "heading"), _field(guide, "body", 2)
    revisions_before = GuideRevision.objects.filter(guide=guide).count()
    with pytest.raises(translating.TranslationRefused) as refused:
        translating.translation_save(
            guide, language="de", user=None, comment="t",
            texts={heading.key: "Gut", body.key: body.texts["de"] + " [[nonsense]]"},
        )  # fmt: skip
    assert [str(p) for p in refused.value.problems] == [
        "Section 2, Text before the table (German): [[nonsense]]: unknown token kind “nonsense”",
        "Section 2, Text before the table (German): [[nonsense]] is not in the English text",
    ]
    assert GuideRevision.objects.filter(guide=guide).count() == revisions_before  # none stored


def test_a_translation_from_an_older_version_of_the_guide_is_refused(guide):
    heading = _field(guide, "heading")
    with pytest.raises(translating.TranslationConflict):
        translating.translation_save(guide, language="de", texts={heading.key: "Gut"},
                                     version=guide.version - 1, user=None, comment="t")  # fmt: skip


def test_the_commands_export_and_import_through_the_same_service(guide, tmp_path):
    path = tmp_path / "de.xlf"
    call_command("export_translation", GUIDE_SLUG, "de", "--output", str(path), stderr=StringIO())
    heading = _field(guide, "heading")
    path.write_text(path.read_text().replace(f">{heading.texts['de']}<", ">Neu<"))
    out = StringIO()
    call_command("import_translation", GUIDE_SLUG, "de", str(path), "--dry-run", stdout=out)
    assert out.getvalue() == (
        f"Section 1, Heading (German):\n- {heading.texts['de']}\n+ Neu\n"
        "1 field would change (dry run)\n"
    )
    path.write_text(path.read_text().replace(">Neu<", ">Neu [[nonsense]]<"))
    with pytest.raises(CommandError, match="nothing imported:\nSection 1, Heading"):
        call_command("import_translation", GUIDE_SLUG, "de", str(path), stdout=StringIO())


@pytest.mark.parametrize(
    ("old", "new", "confirmed", "has_basis", "answered"),
    [
        (None, {"en": "E2", "de": "D"}, False, False, "E2"),  # a new row, translated
        (None, {"en": "E2", "de": ""}, False, False, None),  # a new row, not translated
        ({"en": "E1", "de": "D1"}, {"en": "E2", "de": "D2"}, False, True, "E2"),  # translated now
        ({"en": "E1", "de": "D"}, {"en": "E2", "de": "D"}, False, False, "E1"),  # English moved
        ({"en": "E1", "de": "D"}, {"en": "E2", "de": "D"}, False, True, None),  # basis kept
        ({"en": "E1", "de": "D"}, {"en": "E1", "de": "D"}, False, False, None),  # no change
        ({"en": "E1", "de": "D"}, {"en": "E2", "de": "D"}, True, True, "E2"),  # still fits
        ({"en": "E1", "de": "D"}, {"en": "E1", "de": ""}, False, True, None),  # emptied
    ],
)
def test_which_english_a_saved_translation_answers(old, new, confirmed, has_basis, answered):
    assert (
        translating.english_answered(new, old, "de", confirmed=confirmed, has_basis=has_basis)
        == answered
    )


def test_english_added_where_the_translation_is_empty_is_named_not_translated(guide, client):
    """A question written in English only, on a live guide: the German and Japanese pages
    would show none, and nothing recorded an English change (the translation had no basis)."""
    Guide.objects.filter(pk=guide.pk).update(question_en="Which GPU should I rent?")
    guide.refresh_from_db()
    question = _field(guide, "guide.question")
    stale = translating.stale_fields(translating.text_fields(guide), "de", {})
    assert list(stale) == [question.key] and stale[question.key].untranslated
    assert [w.message for w in stale_translation_warnings()] == [
        f"“{guide.title}”: the {language} text is missing or older than the English it "
        "translates: The guide: Question."
        for language in ("German", "Japanese")
    ]
    client.force_login(User.objects.create_superuser("root"))
    page = client.get(f"/en/admin/guides/guide/{guide.pk}/translate/de/?changed=1")
    row = re.search(rf'<tr id="{question.anchor}".*?</tr>', page.content.decode(), re.S)[0]
    assert "Not translated" in row and "English changed" not in row
    assert "still fits" not in row  # there is nothing to confirm: translate it
