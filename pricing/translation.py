"""Fields editors translate (en, de, ja) with django-modeltranslation."""

from modeltranslation.translator import TranslationOptions, register

from pricing.models import LanguageModel, Method, Source


@register(Source)
class SourceTranslationOptions(TranslationOptions):
    fields = ("title",)


@register(Method)
class MethodTranslationOptions(TranslationOptions):
    fields = ("name", "short_name", "prose_name")


@register(LanguageModel)
class LanguageModelTranslationOptions(TranslationOptions):
    fields = ("licence_note",)
