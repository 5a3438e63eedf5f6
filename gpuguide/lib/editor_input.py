"""What editors may type in the admin (``EditorInputMixin`` on every ModelAdmin and inline of
the guides and pricing admins): text without bidi controls or zero-width characters (a "Trojan
Source" edit), one-line fields without line breaks, and numbers in ASCII digits only (Django's
own fields take "١٢", "１２" and "1_000", which the services refuse), read as the admin's
language writes a decimal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import formats
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

# Bidi embeddings, overrides and isolates, the LRM/RLM marks, and zero-width characters.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
# LF, VT, FF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR: what str.splitlines() splits on,
# less the ASCII file/group/record separators (control characters no keyboard types).
LINE_BREAK = re.compile("[\n\x0b\x0c\r\x85\u2028\u2029]")
WHOLE_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)
DECIMAL_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?", re.ASCII)


@dataclass
class VisibleTextValidator:
    """Refuses invisible and direction-changing characters, naming the field and the character."""

    label: object

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


@deconstructible(path="gpuguide.lib.editor_input.SingleLineValidator")
@dataclass
class SingleLineValidator:
    """Refuses line breaks in a one-line field; with a ``label`` (the admin's), names it."""

    label: object = None

    def __call__(self, value) -> None:
        found = LINE_BREAK.search(value) if isinstance(value, str) else None
        if found:
            raise ValidationError(
                _("This field must be one line: remove the line break (U+%(code)s).")
                if self.label is None
                else _("“%(field)s” must be one line: remove the line break (U+%(code)s)."),
                code="line_break",
                params={"field": self.label, "code": f"{ord(found.group()):04X}"},
            )


# For a one-line model field: ``models.CharField(..., validators=ONE_LINE)``.
ONE_LINE = (SingleLineValidator(),)


# A German "1.120": a thousands point (1120) or a decimal point (1.12)? Refused, not guessed.
AMBIGUOUS_POINT = re.compile(r"-?[0-9]{1,3}\.[0-9]{3}", re.ASCII)
DECIMAL_COMMA = re.compile(r"-?[0-9]+,[0-9]+", re.ASCII)


class _AsciiDigits:
    """A number form field that refuses anything but ASCII digits and reads a decimal as the
    admin's language writes it (German: "989,5", and "1.120" refused as ambiguous).

    A text box, never ``type=number``: a number box drops what it cannot read before the server
    sees it (a German "989,5" reached the server as 9895 and was saved).
    """

    pattern = DECIMAL_NUMBER
    message = _("Enter a number in digits 0–9, such as %(example)s.")
    example = "1.5"
    inputmode = "decimal"

    def __init__(self, **kwargs) -> None:
        given = kwargs.get("widget", forms.NumberInput)  # the admin's own is a NumberInput
        given_class = given if isinstance(given, type) else type(given)
        if issubclass(given_class, forms.NumberInput):
            attrs = {"inputmode": self.inputmode, "autocomplete": "off", "size": 12}
            kwargs["widget"] = forms.TextInput(attrs=attrs)
        super().__init__(localize=True, **kwargs)

    def to_python(self, value):
        if isinstance(value, str) and value.strip():
            value = self._as_point_decimal(value.strip())
        return super().to_python(value)

    def _as_point_decimal(self, typed: str) -> str:
        """The typed number with a decimal point, or a refusal that keeps the text."""
        comma_decimals = formats.get_format("DECIMAL_SEPARATOR") == ","
        example = formats.localize_input(Decimal(self.example)) if comma_decimals else self.example
        if comma_decimals and self.pattern is DECIMAL_NUMBER:
            if DECIMAL_COMMA.fullmatch(typed):
                return typed.replace(",", ".")
            if AMBIGUOUS_POINT.fullmatch(typed):
                raise ValidationError(
                    _(
                        "“%(typed)s” could mean %(thousands)s or %(decimal)s: write it without "
                        "a thousands separator, with a decimal comma for a fraction."
                    ),
                    code="ambiguous",
                    params={
                        "typed": typed,
                        "thousands": typed.replace(".", ""),
                        "decimal": typed.replace(".", ","),
                    },
                )
        elif self.pattern is DECIMAL_NUMBER and DECIMAL_COMMA.fullmatch(typed):
            raise ValidationError(
                _("Write decimals with a point: %(point)s."),
                code="decimal_comma",
                params={"point": typed.replace(",", ".")},
            )
        if not self.pattern.fullmatch(typed):
            raise ValidationError(self.message % {"example": example}, code="invalid")
        return typed


class AsciiIntegerField(_AsciiDigits, forms.IntegerField):
    pattern = WHOLE_NUMBER
    message = _("Enter a whole number in digits 0–9, such as %(example)s.")
    example = "42"
    inputmode = "numeric"


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
            label = field.label or db_field.verbose_name
            field.validators.append(VisibleTextValidator(label))
            if any(isinstance(v, SingleLineValidator) for v in db_field.validators):
                # The form's error names the field; the model's then is not run twice.
                field.validators.append(SingleLineValidator(label))
        return field
