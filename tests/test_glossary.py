"""One term per concept in each language, and Japanese punctuation in Japanese prose.

Read over what visitors and editors read in German and Japanese: the catalogues' translations
and the guides' own text (content/guides/*/de.md, ja.md), which seeding loads and clones copy.
Each variant below was found on the pages (issue 54) beside the term that stays.
"""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent

# (the variant a reader met, the term the site uses instead)
GLOSSARY = {
    "de": [
        (r"\bLeitf(aden|adens|äden)\b", "Ratgeber: the site's word for a guide"),
        (r"\beine Spitze von\b", "einen Spitzenwert von"),
        (r"gemessenen Läufen geprüft", "an Läufen geprüft, die wir … gemessen haben"),
        (r"den wir nicht anbieten", "mehrere Hosts vermieten wir nicht"),
        (r"Abstand zu unseren Preisen", "name what is compared"),
        (r"Abdeckender Block", "Block, der den Lauf abdeckt"),
    ],
    "ja": [
        (r"私たち", "当社: the site's one voice"),
        (r"短い実行", "試し実行"),
        (r"最安の実行", "name the configuration"),
    ],
}
CJK = r"[\u3040-\u30ff\u4e00-\u9fff）」』]"
ASCII_COLON_IN_PROSE = re.compile(rf"{CJK}:")


def translations(lang: str) -> list[tuple[str, str]]:
    """(where, text) for each translation in the catalogue and each guide text file."""
    with (ROOT / "locale" / lang / "LC_MESSAGES" / "django.po").open("rb") as po:
        catalogue = read_po(po)
    found = []
    for message in catalogue:
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            found += [(f"msgid {message.id!r}", text) for text in strings]
    for path in sorted((ROOT / "content" / "guides").glob(f"*/{lang}.md")):
        found.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_one_term_per_concept(lang):
    texts = translations(lang)
    assert len(texts) > 100  # the catalogue was read
    found = [
        f"{where}: {variant!r} (use {instead})"
        for variant, instead in GLOSSARY[lang]
        for where, text in texts
        if re.search(variant, text)
    ]
    assert found == []


def test_japanese_prose_takes_full_width_colons():
    """ "：" after Japanese text, as Japanese typesetting has it; an ASCII colon stays only
    after Latin text (a command-line option's name, "recorded-by: …")."""
    found = [
        f"{where}: {text[max(0, found.start() - 30) : found.end() + 10]!r}"
        for where, text in translations("ja")
        for found in ASCII_COLON_IN_PROSE.finditer(text)
    ]
    assert found == []
