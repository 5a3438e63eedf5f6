"""docs/glossary.md is enforced: every seeded guide page uses its terms and none it rules out;
neither does any translation in the catalogues or the guides' own text files, whose Japanese
takes the full-width colon."""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

from guides.models import Guide
from tests.conftest import GUIDE_SLUG
from tests.guides.test_views import page_text

GLOSSARY = Path(settings.BASE_DIR) / "docs" / "glossary.md"
COLUMNS = {"en": 1, "de": 2, "ja": 3}


def glossary_rows() -> list[list[str]]:
    lines = [line for line in GLOSSARY.read_text().splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def ruled_out(lang: str) -> list[str]:
    return [
        term.split(":", 1)[1].strip()
        for row in glossary_rows()
        for term in row[4].split(";")
        if term.strip().startswith(f"{lang}:")
    ]


def required(lang: str) -> list[str]:
    return [row[COLUMNS[lang]] for row in glossary_rows() if row[COLUMNS[lang]] != "—"]


def test_the_glossary_has_terms_to_check():
    assert len(glossary_rows()) >= 10
    assert "Full Fine-Tuning" in ruled_out("de") and "系列長" in ruled_out("ja")


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_every_seeded_guide_keeps_to_the_glossary(client, seeded, lang):
    for slug in Guide.objects.published().values_list("slug", flat=True):
        text = page_text(client.get(f"/{lang}/guides/{slug}/")).casefold()
        found = [term for term in ruled_out(lang) if term.casefold() in text]
        assert found == [], (slug, found)


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_seed_guide_uses_each_term(client, seeded, lang):
    text = page_text(client.get(f"/{lang}/guides/{GUIDE_SLUG}/")).casefold()
    missing = [term for term in required(lang) if term.casefold() not in text]
    assert missing == []


def test_a_ruled_out_term_would_be_caught(client, seeded):
    """The check reads the page: the seed's old German wording fails it."""
    Guide.objects.filter(slug=GUIDE_SLUG).update(
        short_answer_de="Full Fine-Tuning braucht [[memory full-adamw]] vor den Activations."
    )
    text = page_text(client.get(f"/de/guides/{GUIDE_SLUG}/")).casefold()
    assert [t for t in ruled_out("de") if t.casefold() in text] == [
        "Full Fine-Tuning",
        "Activations",
    ]
    assert re.search("vollständiges fine-tuning", text)  # still in the sections


def translations(lang: str) -> list[tuple[str, str]]:
    """(where, text) for each translation in the catalogue and each guide text file: what
    seeding and the templates put on pages, before any is rendered."""
    base = Path(settings.BASE_DIR)
    with (base / "locale" / lang / "LC_MESSAGES" / "django.po").open("rb") as po:
        catalogue = read_po(po)
    found = []
    for message in catalogue:
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            found += [(f"msgid {message.id!r}", text) for text in strings]
    for path in sorted((base / "content" / "guides").glob(f"*/{lang}.md")):
        found.append((str(path.relative_to(base)), path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_no_translation_uses_a_ruled_out_term(lang):
    texts = translations(lang)
    assert len(texts) > 100  # the catalogue was read
    found = [
        f"{where}: {term!r}"
        for term in ruled_out(lang)
        for where, text in texts
        if term.casefold() in text.casefold()
    ]
    assert found == []


AFTER_JAPANESE = r"[\u3040-\u30ff\u4e00-\u9fff）」』]"


def test_japanese_prose_takes_full_width_colons():
    """ "：" after Japanese text, as Japanese typesetting has it; an ASCII colon stays only
    after Latin text (an option's name: "recorded-by: …")."""
    found = [
        f"{where}: {text[max(0, colon.start() - 30) : colon.end() + 10]!r}"
        for where, text in translations("ja")
        for colon in re.finditer(f"{AFTER_JAPANESE}:", text)
    ]
    assert found == []
