"""A slug that may contain dots, for language models: ``llama-3.1-8b`` names the model as its
makers write it, and guides, content files and the API know the seeded models by these slugs."""

from django import forms
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

validate_model_slug = RegexValidator(
    r"\A[a-z0-9-]+(?:\.[a-z0-9-]+)*\Z",  # parts joined by single dots
    _(
        "Enter a valid slug: lowercase letters, digits, hyphens and dots, e.g. llama-3.1-8b "
        "(no dot at the start or end, no two dots in a row)."
    ),
    "invalid",
)


class ModelSlugFormField(forms.SlugField):
    default_validators = [validate_model_slug]


class ModelSlugField(models.SlugField):
    """A SlugField (indexed, at most 50 characters) whose model and form fields both accept
    dots between the parts."""

    default_validators = [validate_model_slug]

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": ModelSlugFormField, **kwargs})
