"""Fields editors translate (en, de, ja) with django-modeltranslation."""

from modeltranslation.translator import TranslationOptions, register

from guides.models import FaqEntry, Guide, LegalPage, Operator, Section


@register(Guide)
class GuideTranslationOptions(TranslationOptions):
    fields = ("title", "question", "short_answer", "meta_description")


@register(Section)
class SectionTranslationOptions(TranslationOptions):
    fields = ("heading", "body", "table_caption", "closing")


@register(FaqEntry)
class FaqEntryTranslationOptions(TranslationOptions):
    fields = ("question", "answer")


@register(LegalPage)
class LegalPageTranslationOptions(TranslationOptions):
    fields = ("title", "body")


@register(Operator)
class OperatorTranslationOptions(TranslationOptions):
    fields = Operator.TRANSLATED
