"""Admin for the public face's own pages: which comparisons are published, the legal pages."""

from django.contrib import admin
from modeltranslation.admin import TabbedTranslationAdmin

from gpuguide.lib.editor_input import EditorInputMixin
from guides.models import ComparisonPair, LegalPage


@admin.register(ComparisonPair)
class ComparisonPairAdmin(EditorInputMixin, admin.ModelAdmin):
    """Which comparison pages exist: a pair's page answers only while it is published."""

    list_display = ["__str__", "published"]
    list_editable = ["published"]
    list_filter = ["published"]
    list_select_related = ["first", "second"]


@admin.register(LegalPage)
class LegalPageAdmin(EditorInputMixin, TabbedTranslationAdmin):
    list_display = ["__str__", "title", "reviewed", "updated_at"]
    list_filter = ["reviewed"]
    fields = ["kind", "title", "body", "reviewed"]
