"""The German and Japanese catalogues against the code, both ways, without GNU gettext.

`make messages` (Django's ``makemessages``) drops every catalogue entry it no longer finds in
the code or the templates: a heading looked up by a helper xgettext did not know as a keyword
lost its translations that way once. So every entry must be found where ``makemessages`` looks,
with the keywords it gives xgettext, and every message the code marks must be translated.
Python is read by Babel's extractor, templates by Django's own template parser.
"""

import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract
from babel.messages.pofile import read_po
from django.template import engines
from django.templatetags.i18n import BlockTranslateNode, TranslateNode

ROOT = Path(__file__).resolve().parent.parent
CODE = ("accounts", "gpuguide", "guides", "pricing")
LANGUAGES = ("de", "ja")
# The Python keywords Django's makemessages gives xgettext, beside xgettext's own (Babel's
# defaults): django/core/management/commands/makemessages.py.
DJANGO_KEYWORDS = {
    "gettext_noop": None,
    "gettext_lazy": None,
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext_lazy": ((1, "c"), 2, 3),
}
TRANSLATED_LITERAL = re.compile(r"""_\((['"])(.*?)\1\)""")  # _("...") in a variable or filter


def _python_messages(path: Path) -> set[str]:
    keywords = {**DEFAULT_KEYWORDS, **DJANGO_KEYWORDS}
    with path.open("rb") as source:
        found = extract("python", source, keywords=keywords)
        return {m if isinstance(m, str) else m[0] for _line, m, _notes, _context in found}


def _template_messages(nodelist) -> set[str]:
    found = set()
    for node in nodelist:
        if isinstance(node, TranslateNode):
            found.add(node.filter_expression.var.literal)  # a Variable of the quoted message
        elif isinstance(node, BlockTranslateNode):
            found.add(node.render_token_list(node.singular)[0])  # the plural is not a msgid
        elif expression := getattr(node, "filter_expression", None):
            found.update(text for _quote, text in TRANSLATED_LITERAL.findall(expression.token))
        for name in getattr(node, "child_nodelists", ()):
            found |= _template_messages(getattr(node, name, None) or [])
    return found


@cache
def messages_in_the_code() -> frozenset[str]:
    found = set()
    for folder in CODE:
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" not in path.parts:
                found |= _python_messages(path)
    engine = engines["django"].engine
    for path in (ROOT / "templates").rglob("*.html"):
        found |= _template_messages(engine.from_string(path.read_text()).nodelist)
    return frozenset(found - {""})


def catalogue(language: str) -> dict[str, bool]:
    """Each entry's msgid -> whether it is translated (every form, and not fuzzy)."""
    with (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").open("rb") as po:
        messages = [m for m in read_po(po) if m.id]
    return {
        m.id if isinstance(m.id, str) else m.id[0]: (
            not m.fuzzy and all(m.string if isinstance(m.string, tuple) else (m.string,))
        )
        for m in messages
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_make_messages_would_keep_every_translation(language):
    lost = [msgid for msgid in catalogue(language) if msgid not in messages_in_the_code()]
    assert lost == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_the_code_marks_is_translated(language):
    translated = {msgid for msgid, done in catalogue(language).items() if done}
    assert sorted(messages_in_the_code() - translated) == []
