"""Admin for the public face's own pages: which comparisons are published, the legal pages,
the operator's details."""

from django.contrib import admin
from django.shortcuts import redirect
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin

from gpuguide.lib.editor_input import EditorInputMixin
from guides.models import ComparisonPair, LegalPage, Operator


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


@admin.register(Operator)
class OperatorAdmin(EditorInputMixin, TabbedTranslationAdmin):
    """The company's details, one record: the imprint, the privacy notice and the
    commercial-transactions notice are drawn from them (docs/operations.md, "Before launch")."""

    list_display = ["__str__", "updated_at"]
    fieldsets = [
        (
            _("Company"),
            {
                "fields": [
                    "legal_name",
                    "legal_form",
                    "street_address",
                    "postcode",
                    "city",
                    "country",
                    "email",
                    "phone",
                    "representatives",
                    "content_responsible",
                ]
            },
        ),
        (
            _("Register and tax"),
            {"fields": ["register_court", "register_number", "vat_id", "supervisory_authority"]},
        ),
        (
            _("Selling the rentals"),
            {"fields": ["prices", "payment_methods", "payment_timing", "delivery", "cancellation"]},
        ),
        (
            _("Data protection"),
            {
                "fields": [
                    "privacy_contact",
                    "privacy_authority",
                    "hosting_provider",
                    "hosting_location",
                    "log_retention_days",
                ]
            },
        ),
    ]

    # One record, edited in place (empty until first saved): no list, no "add", no delete.
    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        return redirect("admin:guides_operator_change", Operator.ONLY_PK)

    def get_object(self, request, object_id, from_field=None):
        if str(object_id) != str(Operator.ONLY_PK):
            return None
        return Operator.objects.first() or Operator()
