"""Admin for GPUs, providers, sources, methods and the append-only price checks."""

from datetime import date
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Max, OuterRef, Subquery
from django.http import HttpResponseRedirect
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin

from gpuguide.editor_input import EditorInputMixin, VisibleTextValidator
from guides.reference_admin import RefuseDeletingUsedMixin
from pricing import selectors, services
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
    ThroughputMeasurement,
)


@admin.register(Source)
class SourceAdmin(RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin):
    list_display = ["title", "publisher", "read_on", "key"]
    list_filter = ["publisher", "read_on"]
    search_fields = ["title_en", "title_de", "title_ja", "publisher", "url", "key"]
    date_hierarchy = "read_on"
    prepopulated_fields = {"key": ["title_en"]}


@admin.register(Gpu)
class GpuAdmin(RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin):
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
        return super().get_queryset(request).annotate(last_checked_on=Max("prices__checked_on"))

    @admin.display(description=_("last price check"), ordering="last_checked_on")
    def last_checked(self, gpu: Gpu):
        return gpu.last_checked_on


@admin.register(Provider)
class ProviderAdmin(RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin):
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


class RawTextField(forms.CharField):
    """The typed text, for the price-check service to check and parse: the admin and the CLI
    then refuse the same inputs with the same messages (Decimal and int take "1_000", "١٢").
    Not stripped either: the CLI refuses " 1", so the admin does too."""

    def __init__(self, **kwargs) -> None:
        super().__init__(strip=False, **kwargs)

    def has_changed(self, initial, data) -> bool:
        # Initial values are Decimals, ints and dates; what comes back is their text.
        return str("" if initial is None else initial) != str(data or "")


def _model_label(model, name: str) -> dict:
    field = model._meta.get_field(name)
    return {"label": capfirst(field.verbose_name), "help_text": field.help_text}


def _refusal(exc: services.PriceCheckError) -> forms.ValidationError:
    return forms.ValidationError(str(exc), code="price_check")


class PriceForm(forms.ModelForm):
    quoted_usd_per_hour = RawTextField(
        widget=forms.NumberInput(
            attrs={
                "step": str(services.MIN_USD_PER_HOUR),
                "min": str(services.MIN_USD_PER_HOUR),
                "max": str(services.MAX_USD_PER_HOUR),
            }
        ),
        **_model_label(Price, "quoted_usd_per_hour"),
    )
    gpus_in_quote = RawTextField(
        widget=forms.NumberInput(
            attrs={"min": services.MIN_GPUS_IN_QUOTE, "max": services.MAX_GPUS_IN_QUOTE}
        ),
        **_model_label(Price, "gpus_in_quote"),
    )

    class Meta:
        model = Price
        fields = ["gpu", "quoted_usd_per_hour", "gpus_in_quote"]

    def has_changed(self) -> bool:
        # A row pre-filled with the last known price counts as entered: staff change only
        # what moved, and the unchanged rows must be recorded too.
        return bool(self.data.get(self.add_prefix("gpu"))) or super().has_changed()

    def clean_quoted_usd_per_hour(self) -> Decimal:
        gpu = self.cleaned_data.get("gpu")
        try:
            return services.parse_price(
                gpu=gpu.slug if gpu else "?", value=self.cleaned_data["quoted_usd_per_hour"]
            )
        except services.PriceCheckError as exc:
            raise _refusal(exc) from None

    def clean_gpus_in_quote(self) -> int:
        try:
            return services.parse_gpus_in_quote(value=self.cleaned_data["gpus_in_quote"])
        except services.PriceCheckError as exc:
            raise _refusal(exc) from None


class PriceFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        rows = [
            form
            for form in self.forms
            if form.cleaned_data
            and not form.cleaned_data.get("DELETE")
            and form.cleaned_data.get("gpu")
        ]
        slugs: list[str] = []
        for form in rows:
            slug = form.cleaned_data["gpu"].slug
            try:  # each row against the rows above it, so the error sits beside the repeat
                services.validate_gpu_slugs(gpu_slugs=[*slugs, slug])
            except services.PriceCheckError as exc:
                form.add_error("gpu", _refusal(exc))
                continue
            slugs.append(slug)
        if not any(
            form.cleaned_data and not form.cleaned_data.get("DELETE") for form in self.forms
        ):
            raise forms.ValidationError(str(services.ERROR_NO_PRICES), code="price_check")
        super().clean()


class PriceInline(EditorInputMixin, admin.TabularInline):
    model = Price
    form = PriceForm
    formset = PriceFormSet
    fields = ["gpu", "quoted_usd_per_hour", "gpus_in_quote"]

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        # The GPU menu read once for all rows, not once per row (eight queries on a new check).
        gpu = formset.form.base_fields["gpu"]
        gpu.choices = list(gpu.choices)
        inner = getattr(gpu.widget, "widget", gpu.widget)  # inside the admin's "+" wrapper
        inner.choices = gpu.choices
        return formset

    def get_extra(self, request, obj=None, **kwargs) -> int:
        # On a new check: one row per last known price, plus two blank rows for new GPUs.
        return len(_last_known_prices(request)) + 2 if obj is None else 0


def _chosen_provider(request) -> Provider | None:
    """The provider of a new check: ?provider=<id>, else our own."""
    provider_id = request.GET.get("provider", "")
    if provider_id.isdigit():
        return Provider.objects.filter(pk=provider_id).first()
    try:
        return selectors.house_provider()
    except Provider.DoesNotExist:
        return None


def _last_known_prices(request) -> list[dict]:
    """Initial price rows for a new check: each GPU's latest price at the chosen provider."""
    if not hasattr(request, "_last_known_prices"):
        provider = _chosen_provider(request)
        listings = selectors.gpu_listings_for_provider(provider=provider) if provider else []
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


class PriceCheckForm(forms.ModelForm):
    # A native date picker sends YYYY-MM-DD in every language, which is the service's format
    # (the admin's calendar would write 29.11.2026 in German).
    checked_on = RawTextField(
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        **_model_label(PriceCheck, "checked_on"),
    )
    source_url = RawTextField(
        required=False,
        widget=forms.URLInput,
        # URLValidator lets bidi and zero-width characters through.
        validators=[VisibleTextValidator(_model_label(PriceCheck, "source_url")["label"])],
        **_model_label(PriceCheck, "source_url"),
    )

    class Meta:
        model = PriceCheck
        fields = ["provider", "checked_on", "source_url", "note"]

    def clean_checked_on(self) -> date:
        try:
            return services.parse_check_date(value=self.cleaned_data["checked_on"])
        except services.PriceCheckError as exc:
            raise _refusal(exc) from None

    def clean_source_url(self) -> str:
        try:
            return services.validate_source_url(value=self.cleaned_data["source_url"])
        except services.PriceCheckError as exc:
            raise _refusal(exc) from None

    def clean(self) -> dict:
        cleaned = super().clean()
        provider, checked_on = cleaned.get("provider"), cleaned.get("checked_on")
        if self.instance.pk is None and provider and checked_on:
            try:
                services.validate_new_check(provider=provider, checked_on=checked_on)
            except services.PriceCheckError as exc:
                self.add_error("checked_on", _refusal(exc))
        return cleaned


@admin.register(PriceCheck)
class PriceCheckAdmin(EditorInputMixin, admin.ModelAdmin):
    """Append-only: staff add checks; only superusers may change or delete one.

    A new check is validated by the service's rules in the forms and saved by the service's
    ``price_check_record``, the same path as ``manage.py record_price_check``.
    """

    form = PriceCheckForm
    inlines = [PriceInline]
    list_display = ["provider", "checked_on", "price_count", "recorded_by", "recorded_at"]
    list_filter = ["provider", "checked_on"]
    list_select_related = ["provider", "recorded_by"]
    search_fields = ["provider__name", "note", "source_url"]
    date_hierarchy = "checked_on"
    readonly_fields = ["recorded_by", "recorded_at"]
    fields = ["provider", "checked_on", "source_url", "note", "recorded_by", "recorded_at"]

    # Pages of 100 checks; no "N total" beside a filtered count (one count per page view).
    show_full_result_count = False

    def get_queryset(self, request):
        # A subquery per listed check rather than a join grouped over every price ever
        # recorded: the count and the date filters then read the checks alone.
        prices = (
            Price.objects.filter(price_check=OuterRef("pk"))
            .order_by()
            .values("price_check")
            .annotate(total=Count("pk"))
            .values("total")
        )
        return super().get_queryset(request).annotate(prices_total=Subquery(prices))

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

    def add_view(self, request, form_url="", extra_context=None):
        try:
            return super().add_view(request, form_url, extra_context)
        except services.PriceCheckError as exc:
            # Valid when checked, refused when saved: another recorder saved the same
            # provider and day in between. The add view's transaction has rolled back.
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def save_model(self, request, obj: PriceCheck, form, change: bool) -> None:
        if change:  # a superuser's correction
            super().save_model(request, obj, form, change)
        # A new check is saved whole, with its prices, in save_related.

    def save_related(self, request, form, formsets, change: bool) -> None:
        if change:
            super().save_related(request, form, formsets, change)
            return
        prices_formset = next(f for f in formsets if isinstance(f, PriceFormSet))
        rows = [
            f.cleaned_data
            for f in prices_formset.forms
            if f.cleaned_data and not f.cleaned_data.get("DELETE")
        ]
        data = form.cleaned_data
        check = services.price_check_record(
            provider_slug=data["provider"].slug,
            checked_on=data["checked_on"],
            prices={row["gpu"].slug: row["quoted_usd_per_hour"] for row in rows},
            gpus_in_quote={row["gpu"].slug: row["gpus_in_quote"] for row in rows},
            recorded_by=request.user,
            source_url=data["source_url"],
            note=data["note"],
        )
        # The admin logs the addition and redirects using the form's object.
        obj = form.instance
        obj.pk, obj.recorded_by, obj.recorded_at = check.pk, check.recorded_by, check.recorded_at
        prices_formset.new_objects = list(check.prices.all())
        prices_formset.changed_objects, prices_formset.deleted_objects = [], []


class MemoryComponentInline(EditorInputMixin, admin.TabularInline):
    model = MemoryComponent
    extra = 0
    fields = ["part", "bytes_per_param", "position"]


@admin.register(MemoryRule)
class MemoryRuleAdmin(EditorInputMixin, admin.ModelAdmin):
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


class MemoryRuleInline(EditorInputMixin, admin.TabularInline):
    model = MemoryRule
    extra = 0
    fields = ["source", "position", "reference_memory_gb", "reference_params_billion"]
    show_change_link = True
    autocomplete_fields = ["source"]


@admin.register(Method)
class MethodAdmin(RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin):
    inlines = [MemoryRuleInline]
    list_display = ["name", "slug", "planning_margin_percent", "weight_bytes_per_param", "position"]
    list_editable = ["position"]
    search_fields = ["name_en", "name_de", "name_ja", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(LanguageModel)
class LanguageModelAdmin(RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin):
    list_display = [
        "name",
        "slug",
        "params_billion",
        "layers",
        "hidden_size",
        "attention_heads",
        "kv_heads",
        "intermediate_size",
        "vocab_size",
        "tie_word_embeddings",
        "gated",
        "source",
    ]
    list_filter = ["gated", "tie_word_embeddings", "source__publisher"]
    list_select_related = ["source"]
    search_fields = ["name", "slug", "source__title_en", "source__publisher"]
    autocomplete_fields = ["source"]
    # No slug pre-filled from the name: the admin's slugify drops dots ("Llama 3.1 8B" would
    # become "llama-31-8b"), and the slug's help text says how to write it.
    fieldsets = [
        (None, {"fields": ["name", "slug", "params_billion", "source"]}),
        (_("Licence"), {"fields": ["gated", "licence_note"]}),
        (
            _("Architecture (config.json)"),
            {
                # config.json lists its keys alphabetically; these follow its order, so an
                # editor copies the values top to bottom.
                "fields": [
                    "hidden_size",
                    "intermediate_size",
                    "attention_heads",
                    "layers",
                    "kv_heads",
                    "tie_word_embeddings",
                    "vocab_size",
                ],
                "description": _(
                    "Copy these from the model's config.json on Hugging Face. In the order "
                    "shown, its keys are hidden_size, intermediate_size, num_attention_heads, "
                    "num_hidden_layers, num_key_value_heads, tie_word_embeddings and "
                    "vocab_size. The training memory estimates are computed from them."
                ),
            },
        ),
    ]


@admin.register(HourBlock)
class HourBlockAdmin(RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin):
    list_display = ["hours"]


@admin.register(ThroughputMeasurement)
class ThroughputMeasurementAdmin(EditorInputMixin, admin.ModelAdmin):
    list_display = [
        "language_model",
        "method",
        "gpu",
        "seq_len",
        "batch_size",
        "gradient_checkpointing",
        "tokens_per_s",
        "measured_on",
    ]
    list_filter = ["gpu", "language_model", "method"]
    list_select_related = ["gpu", "language_model", "method"]


@admin.register(Fact)
class FactAdmin(RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin):
    list_display = ["key", "value", "kind", "description", "source"]
    list_filter = ["kind"]
    search_fields = ["key", "description"]
    autocomplete_fields = ["source"]
