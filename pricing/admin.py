"""Admin for GPUs, providers, sources, methods and the append-only price checks."""

from django import forms
from django.contrib import admin
from django.db.models import Count, Max
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin

from pricing.formatting import trim
from pricing.models import (
    Fact,
    Gpu,
    HourBlock,
    LanguageModel,
    MemoryComponent,
    MemoryRule,
    Method,
    Price,
    PriceCheck,
    Provider,
    Source,
)
from pricing.selectors import gpu_listings_for_provider


@admin.register(Source)
class SourceAdmin(TabbedTranslationAdmin):
    list_display = ["title", "publisher", "read_on", "key"]
    list_filter = ["publisher", "read_on"]
    search_fields = ["title_en", "title_de", "title_ja", "publisher", "url", "key"]
    date_hierarchy = "read_on"
    prepopulated_fields = {"key": ["title_en"]}


@admin.register(Gpu)
class GpuAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "slug",
        "memory_gb",
        "bandwidth_gb_s",
        "bf16_dense_tflops",
        "form_factor",
        "rentable",
        "last_checked",
        "position",
    ]
    list_editable = ["position"]
    list_filter = ["rentable", "form_factor", "vendor"]
    search_fields = ["name", "slug"]
    autocomplete_fields = ["spec_source"]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(last_checked_on=Max("prices__price_check__checked_on"))
        )

    @admin.display(description=_("last price check"), ordering="last_checked_on")
    def last_checked(self, gpu: Gpu):
        return gpu.last_checked_on


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "is_house", "last_check", "check_count"]
    list_filter = ["is_house"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(last_checked_on=Max("checks__checked_on"), checks_total=Count("checks"))
        )

    @admin.display(description=_("last price check"), ordering="last_checked_on")
    def last_check(self, provider: Provider):
        return provider.last_checked_on

    @admin.display(description=_("price checks"), ordering="checks_total")
    def check_count(self, provider: Provider) -> int:
        return provider.checks_total


class PriceForm(forms.ModelForm):
    class Meta:
        model = Price
        fields = ["gpu", "quoted_usd_per_hour", "gpus_in_quote"]

    def has_changed(self) -> bool:
        # A row pre-filled with the last known price counts as entered: staff change only
        # what moved, and the unchanged rows must be recorded too.
        return bool(self.data.get(self.add_prefix("gpu"))) or super().has_changed()


class PriceFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        if not any(
            form.cleaned_data and not form.cleaned_data.get("DELETE") for form in self.forms
        ):
            raise forms.ValidationError(_("A price check needs at least one price."))


class PriceInline(admin.TabularInline):
    model = Price
    form = PriceForm
    formset = PriceFormSet
    fields = ["gpu", "quoted_usd_per_hour", "gpus_in_quote"]

    def get_extra(self, request, obj=None, **kwargs) -> int:
        # On a new check: one row per last known price, plus two blank rows for new GPUs.
        return len(_last_known_prices(request)) + 2 if obj is None else 0


def _chosen_provider(request) -> Provider | None:
    """The provider of a new check: ?provider=<id>, else our own."""
    provider_id = request.GET.get("provider", "")
    if provider_id.isdigit():
        return Provider.objects.filter(pk=provider_id).first()
    return Provider.objects.filter(is_house=True).first()


def _last_known_prices(request) -> list[dict]:
    """Initial price rows for a new check: each GPU's latest price at the chosen provider."""
    if not hasattr(request, "_last_known_prices"):
        provider = _chosen_provider(request)
        listings = gpu_listings_for_provider(provider=provider) if provider else []
        request._last_known_prices = [
            {
                "gpu": gpu.pk,
                "quoted_usd_per_hour": trim(gpu.quoted_usd_per_hour),
                "gpus_in_quote": gpu.gpus_in_quote,
            }
            for gpu in listings
            if gpu.quoted_usd_per_hour is not None
        ]
    return request._last_known_prices


@admin.register(PriceCheck)
class PriceCheckAdmin(admin.ModelAdmin):
    """Append-only: staff add checks; only superusers may change or delete one."""

    inlines = [PriceInline]
    list_display = ["provider", "checked_on", "price_count", "recorded_by", "recorded_at"]
    list_filter = ["provider", "checked_on"]
    list_select_related = ["provider", "recorded_by"]
    search_fields = ["provider__name", "note", "source_url"]
    date_hierarchy = "checked_on"
    readonly_fields = ["recorded_by", "recorded_at"]
    fields = ["provider", "checked_on", "source_url", "note", "recorded_by", "recorded_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(prices_total=Count("prices"))

    @admin.display(description=_("prices"), ordering="prices_total")
    def price_count(self, check: PriceCheck) -> int:
        return check.prices_total

    def get_changeform_initial_data(self, request) -> dict:
        initial = super().get_changeform_initial_data(request)
        provider = _chosen_provider(request)
        if provider is not None:
            initial.setdefault("provider", provider.pk)
        initial.setdefault("checked_on", timezone.localdate())
        return initial

    def get_formset_kwargs(self, request, obj, inline, prefix):
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, PriceInline) and obj is not None and obj.pk is None:
            kwargs["initial"] = _last_known_prices(request)
        return kwargs

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser

    def save_model(self, request, obj: PriceCheck, form, change: bool) -> None:
        if not change:
            obj.recorded_by = request.user
        super().save_model(request, obj, form, change)


class MemoryComponentInline(admin.TabularInline):
    model = MemoryComponent
    extra = 0
    fields = ["part", "bytes_per_param", "position"]


@admin.register(MemoryRule)
class MemoryRuleAdmin(admin.ModelAdmin):
    inlines = [MemoryComponentInline]
    list_display = ["method", "source", "position", "bytes_or_ratio"]
    list_filter = ["method", "source__publisher"]
    list_select_related = ["method", "source"]
    search_fields = ["method__name", "source__title"]
    autocomplete_fields = ["source"]
    fieldsets = [
        (None, {"fields": ["method", "source", "position"]}),
        (
            _("Measured reference run (instead of components)"),
            {
                "fields": ["reference_memory_gb", "reference_params_billion", "round_up_to"],
                "description": _(
                    "For a rule taken from a real run, e.g. QLoRA: 48 GB for a 65B model, "
                    "rounded up to the next 0.05 GB per billion. Leave empty for a rule made "
                    "of bytes-per-parameter components."
                ),
            },
        ),
    ]

    @admin.display(description=_("bytes per parameter"))
    def bytes_or_ratio(self, rule: MemoryRule) -> str:
        if rule.reference_memory_gb:
            return f"{rule.reference_memory_gb} GB / {rule.reference_params_billion} B"
        return " + ".join(str(c.bytes_per_param.normalize()) for c in rule.components.all())


class MemoryRuleInline(admin.TabularInline):
    model = MemoryRule
    extra = 0
    fields = ["source", "position", "reference_memory_gb", "reference_params_billion"]
    show_change_link = True
    autocomplete_fields = ["source"]


@admin.register(Method)
class MethodAdmin(TabbedTranslationAdmin):
    inlines = [MemoryRuleInline]
    list_display = ["name", "slug", "planning_margin_percent", "weight_bytes_per_param", "position"]
    list_editable = ["position"]
    search_fields = ["name_en", "name_de", "name_ja", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(LanguageModel)
class LanguageModelAdmin(TabbedTranslationAdmin):
    list_display = ["name", "slug", "params_billion", "layers", "hidden_size", "gated"]
    list_filter = ["gated"]
    search_fields = ["name", "slug"]
    autocomplete_fields = ["source"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(HourBlock)
class HourBlockAdmin(admin.ModelAdmin):
    list_display = ["hours"]


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    list_display = ["key", "value", "kind", "description", "source"]
    list_filter = ["kind"]
    search_fields = ["key", "description"]
    autocomplete_fields = ["source"]
