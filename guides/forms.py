from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _


class ModelSizeForm(forms.Form):
    """The /vram/ form: any model size, in billions of parameters."""

    params = forms.DecimalField(
        label=_("Model size (billions of parameters)"),
        min_value=Decimal("0.1"),
        max_value=Decimal("10000"),
        max_digits=7,
        decimal_places=2,
        error_messages={
            "invalid": _("Enter the model size as a number, such as 8, 70 or 405."),
            "required": _("Enter a model size, such as 70."),
        },
    )
