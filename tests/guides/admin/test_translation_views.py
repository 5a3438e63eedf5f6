"""The guide admin's translation view, export and import (guides.admin.translation_views)."""

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from guides.editorial import revisions, translating
from guides.models import Guide, GuideRevision, Section
from tests.admin_pages import initial_page
from tests.conftest import GUIDE_SLUG


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def _url(guide: Guide, language: str = "de", rest: str = "") -> str:
    return f"/en/admin/guides/guide/{guide.pk}/translate/{language}/{rest}"


def _form_data(response) -> dict:
    form = response.context["form"]
    texts = {name: f.initial for name, f in form.fields.items() if f.initial is not None}
    return {**texts, "version": form.initial["version"]}


def _body(guide: Guide) -> translating.TextField:
    return next(f for f in translating.text_fields(guide) if f.where == "Section 2" and
                f.name == "body")  # fmt: skip


def test_the_guide_form_links_to_the_translation_views(client, editor, guide):
    client.force_login(editor)
    page, _fieldsets = initial_page(client, f"/en/admin/guides/guide/{guide.pk}/change/")
    assert f'<a href="{_url(guide)}">Translate into German</a>' in page
    assert f'<a href="{_url(guide, "ja")}">Translate into Japanese</a>' in page


def test_the_english_beside_the_german_and_a_changed_english_marked_with_its_diff(
    client, editor, guide
):
    body = _body(guide)
    revisions.ensure_baseline(guide)
    Section.objects.filter(pk=body.pk).update(body_en=body.texts["en"] + " <b>New</b>.")
    revisions.store(revisions.snapshot(guide), guide=guide, user=None, comment="Draft saved")
    client.force_login(editor)
    page = client.get(_url(guide, rest="?changed=1")).content.decode()
    assert page.count('<tr id="field-') == 1  # only the field whose English changed
    assert f'<tr id="{body.anchor}" class="stale">' in page
    assert "The English changed since the German text was saved:" in page
    # escaped, the added words marked
    assert ".<ins> &lt;b&gt;New&lt;/b&gt;.</ins></div>" in page
    assert 'name="confirm:section.' in page
    everything = client.get(_url(guide)).content.decode()
    assert everything.count('<tr id="field-') == len(translating.text_fields(guide))
    assert f'<div class="source-text">{guide.title_en}</div>' in everything


def test_saving_one_field_makes_a_draft_revision_like_the_guide_form(client, editor, guide):
    client.force_login(editor)
    data = _form_data(client.get(_url(guide)))
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    data[heading.key] = "Welche GPU für welches Verfahren?"
    response = client.post(_url(guide), data, follow=True)
    newest = GuideRevision.objects.filter(guide=guide).select_related("revision").first()
    assert newest.revision.comment == "Translation (de) saved"
    assert newest.revision.user == editor
    message = str(list(response.context["messages"])[0])
    assert message.startswith(
        f"Saved as draft revision {newest.pk}; the live page is unchanged until you publish it."
    )
    assert Section.objects.get(pk=heading.pk).heading_de == heading.texts["de"]  # live as was
    assert response.context["form"][heading.key].value() == "Welche GPU für welches Verfahren?"


def test_a_bad_token_is_refused_on_its_field_and_nothing_is_saved(client, editor, guide):
    client.force_login(editor)
    data = _form_data(client.get(_url(guide)))
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    data[heading.key] = "Welche GPU für [[memory qlroa]]?"
    before = GuideRevision.objects.count()
    response = client.post(_url(guide), data)
    assert response.status_code == 200
    assert "Nothing was saved. Please correct the errors below." in response.content.decode()
    assert response.context["form"].errors[heading.key] == [
        "[[memory qlroa]]: there is no method “qlroa”",
        "[[memory qlroa]] is not in the English text",
    ]
    assert GuideRevision.objects.count() == before


@pytest.mark.parametrize("language", ["en", "fr"])
def test_only_german_and_japanese_are_translated_into(client, editor, guide, language):
    client.force_login(editor)
    assert client.get(_url(guide, language)).status_code == 404


def test_price_recorders_may_not_translate(client, recorder, guide):
    client.force_login(recorder)
    assert client.get(_url(guide)).status_code == 403


def test_the_export_downloads_the_seed_format(client, editor, guide, settings):
    client.force_login(editor)
    response = client.get(_url(guide, rest="export/md/"))
    assert response["Content-Disposition"] == f'attachment; filename="{GUIDE_SLUG}.de.md"'
    seed = settings.BASE_DIR / "content/guides" / GUIDE_SLUG / "de.md"
    assert response.content.decode() == seed.read_text()
    xliff = client.get(_url(guide, "ja", "export/xliff/"))
    assert xliff["Content-Type"] == "application/xliff+xml; charset=utf-8"
    assert b'srcLang="en" trgLang="ja"' in xliff.content


def test_an_import_is_checked_in_a_dry_run_then_applied(client, editor, guide):
    client.force_login(editor)
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    xliff = translating.xliff_export(guide, "de").replace(
        f">{heading.texts['de']}<", ">Welche GPU wofür?<"
    )
    upload = SimpleUploadedFile("guide.de.xlf", xliff.encode())
    before = GuideRevision.objects.count()
    dry = client.post(_url(guide, rest="import/"), {"file": upload})
    assert [c.new for c in dry.context["result"].changes] == ["Welche GPU wofür?"]
    assert "Dry run: importing this XLIFF file would change 1 field." in dry.content.decode()
    assert GuideRevision.objects.count() == before
    content = dry.context["form"]["content"].value()
    assert base64.b64decode(content) == xliff.encode()
    applied = client.post(_url(guide, rest="import/"), {"content": content, "apply": "1"})
    assert applied.status_code == 302 and applied["Location"] == _url(guide)
    newest = GuideRevision.objects.filter(guide=guide).select_related("revision").first()
    assert newest.revision.comment == "Imported de from XLIFF"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<xliff", "This is not a well-formed XML file (unclosed token: line 1, column 0)."),
        (b"", "The submitted file is empty."),
    ],
)
def test_a_bad_file_answers_the_form_with_its_error(client, editor, guide, data, message):
    client.force_login(editor)
    response = client.post(_url(guide, rest="import/"),
                           {"file": SimpleUploadedFile("x.xlf", data)})  # fmt: skip
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [message]


def test_a_deeply_nested_file_is_refused_on_the_form_and_nothing_is_imported(client, editor, guide):
    client.force_login(editor)
    heading = next(f for f in translating.text_fields(guide) if f.name == "heading")
    nested = "<mrk id='m'>" * 1000 + "Neu" + "</mrk>" * 1000
    xliff = translating.xliff_export(guide, "de").replace(f">{heading.texts['de']}<", f">{nested}<")
    before = GuideRevision.objects.count()
    upload = SimpleUploadedFile("guide.de.xlf", xliff.encode())
    response = client.post(_url(guide, rest="import/"), {"file": upload})
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [
        "This file nests XML elements deeper than 32 levels, which is refused for safety; "
        "an exported file nests 6."
    ]
    assert GuideRevision.objects.count() == before


def test_the_markdown_export_of_a_title_saved_with_a_line_break_is_one_line(client, editor, guide):
    # Saved before one-line fields refused line breaks (or past the model's validation).
    Guide.objects.filter(pk=guide.pk).update(title_de="Welche GPU\r\nfür Llama?\n")
    client.force_login(editor)
    response = client.get(_url(guide, rest="export/md/"))
    assert response.status_code == 200
    assert "\ntitle: Welche GPU für Llama?\n" in response.content.decode()


def test_a_text_markdown_cannot_hold_sends_the_translator_to_xliff(client, editor, guide):
    Section.objects.filter(guide=guide, position=2).update(body_de="Erst\n## keine Überschrift")
    client.force_login(editor)
    response = client.get(_url(guide, rest="export/md/"), follow=True)
    assert response.redirect_chain == [(_url(guide), 302)]
    assert [str(m) for m in response.context["messages"]] == [
        "This guide cannot be written as Markdown (de.md: the section 2 text has a line that "
        "reads as structure: '## keine Überschrift'): export it as XLIFF."
    ]
    assert client.get(_url(guide, rest="export/xliff/")).status_code == 200


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", ["„", "“ übersetzen: Japanisch", "Übersetzung speichern", "XLIFF herunterladen"]),
     ("ja", ["」を日本語に翻訳", "翻訳を保存", "XLIFFをダウンロード"])],
)  # fmt: skip
def test_the_translation_view_speaks_german_and_japanese(client, editor, guide, language, words):
    client.force_login(editor)
    page = client.get(f"/{language}/admin/guides/guide/{guide.pk}/translate/ja/").content.decode()
    for word in words:
        assert word in page
