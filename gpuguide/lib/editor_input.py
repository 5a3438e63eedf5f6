"""What editors may type in the admin: visible text, and numbers in ASCII digits.

One place for the guides and pricing admins (``EditorInputMixin`` on every ModelAdmin and
inline of those apps; a test checks that none is missed):

- Text fields (CharField, TextField, and their per-language copies) refuse bidi controls and
  zero-width characters: invisible in the admin, they reorder or hide what readers see
  (a "Trojan Source" edit) and break search and comparison.
- Number fields take ASCII digits only: Django's own take "١٢", "１２" and "1_000" (Python's
  ``int()`` and ``Decimal()`` do), which the price-check service and the planner refuse too.
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

# Bidi embeddings, overrides and isolates, the LRM/RLM marks, and zero-width characters.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
WHOLE_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)
DECIMAL_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?", re.ASCII)


class VisibleTextValidator:
    """Refuses invisible and direction-changing characters, naming the field and the character."""

    def __init__(self, label) -> None:
        self.label = label

    def __call__(self, value) -> None:
        found = INVISIBLE.search(value) if isinstance(value, str) else None
        if found:
            raise ValidationError(
                _(
                    "“%(field)s” contains an invisible or text-direction character "
                    "(U+%(code)s), which can hide or reorder what readers see. Remove it."
                ),
                code="invisible_character",
                params={"field": self.label, "code": f"{ord(found.group()):04X}"},
            )

    def __eq__(self, other) -> bool:
        return isinstance(other, VisibleTextValidator) and other.label == self.label


class _AsciiDigits:
    """A number form field that refuses anything but ASCII digits before Django parses it."""

    pattern = DECIMAL_NUMBER
    message = _("Enter a number in digits 0–9, such as %(example)s.")
    example = "1.5"

    def to_python(self, value):
        if isinstance(value, str) and value.strip() and not self.pattern.fullmatch(value.strip()):
            raise ValidationError(self.message % {"example": self.example}, code="invalid")
        return super().to_python(value)


class AsciiIntegerField(_AsciiDigits, forms.IntegerField):
    pattern = WHOLE_NUMBER
    message = _("Enter a whole number in digits 0–9, such as %(example)s.")
    example = "42"


class AsciiDecimalField(_AsciiDigits, forms.DecimalField):
    pass


class AsciiFloatField(_AsciiDigits, forms.FloatField):
    pass


STRICT_NUMBER_FIELDS = (
    (models.DecimalField, AsciiDecimalField),
    (models.FloatField, AsciiFloatField),
    (models.IntegerField, AsciiIntegerField),  # every integer field, big, small and positive
)


class EditorInputMixin:
    """For ModelAdmin and InlineModelAdmin classes: visible text and ASCII numbers only."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if not db_field.choices:
            for model_field, form_class in STRICT_NUMBER_FIELDS:
                if isinstance(db_field, model_field):
                    kwargs.setdefault("form_class", form_class)
                    break
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if isinstance(db_field, (models.CharField, models.TextField)) and isinstance(
            field, forms.CharField
        ):
            field.validators.append(VisibleTextValidator(field.label or db_field.verbose_name))
        return field
