"""Language model slugs: lowercase letters, digits and hyphens in parts joined by single dots
(``llama-3.1-8b``), the same rule for the model field and its form field."""

import pytest
from django.core.exceptions import ValidationError

from pricing.fields import ModelSlugField, validate_model_slug
from pricing.models import LanguageModel


@pytest.mark.parametrize(
    "slug", ["llama-3.1-8b", "qwen-2.5-72b", "mistral-7b", "gpt2", "a.b.c", "x-.-y"]
)
def test_a_model_slug_may_have_dots(slug):
    validate_model_slug(slug)
    assert ModelSlugField().formfield().clean(slug) == slug


@pytest.mark.parametrize(
    "slug", [".llama", "llama.", "llama..3", "Llama-3.1", "llama 3.1", "llama_3.1", "läma", ""]
)
def test_a_model_slug_refuses_other_characters_and_stray_dots(slug):
    with pytest.raises(ValidationError):
        validate_model_slug(slug)
    with pytest.raises(ValidationError):
        ModelSlugField().formfield().clean(slug)


def test_the_model_field_and_its_form_field_share_the_rule():
    field = LanguageModel._meta.get_field("slug")
    assert isinstance(field, ModelSlugField)
    assert validate_model_slug in field.validators
    assert validate_model_slug in field.formfield().validators
    assert field.max_length == 50  # the API's MODEL_SLUG_MAX_LENGTH
