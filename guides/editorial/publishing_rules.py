"""What publishing a guide needs: its required fields filled in every language, and the message
that names the ones still empty (the guide form and the translation view both say it)."""

from __future__ import annotations

from django.conf import settings
from django.utils.text import capfirst
from django.utils.translation import gettext as _

LANGUAGES = [code for code, _name in settings.LANGUAGES]
# Fields that must be filled in every language before a guide may be published.
GUIDE_REQUIRED = ["title", "short_answer", "meta_description"]
SECTION_REQUIRED = ["heading"]
FAQ_REQUIRED = ["question", "answer"]


def missing_translations(values: dict[str, str], fields: list[str]) -> list[str]:
    """The ``field_lang`` names among ``fields`` x languages whose value is blank."""
    return [
        f"{field}_{lang}"
        for field in fields
        for lang in LANGUAGES
        if not (values.get(f"{field}_{lang}") or "").strip()
    ]


def language_name(code: str) -> str:
    return _(dict(settings.LANGUAGES)[code])


def field_label(model, name: str) -> str:
    """The label an editor sees: “Answer (German)” for ``answer_de``."""
    field = model._meta.get_field(name)
    translated = getattr(field, "translated_field", None)
    if translated is None:
        return str(capfirst(field.verbose_name))
    return f"{capfirst(translated.verbose_name)} ({language_name(field.language)})"


def publish_error(label: str, model, missing: list[str]) -> str:
    return _("%(what)s cannot be published while these are empty: %(fields)s") % {
        "what": label,
        "fields": ", ".join(field_label(model, name) for name in missing),
    }
