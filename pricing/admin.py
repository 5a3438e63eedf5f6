"""Admin for GPUs, providers, sources, methods and the append-only price checks."""

import copy
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import cached_property, partial

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin

from accounts import manual
from gpuguide.lib.deletion_safety import RefuseDeletingUsedMixin
from gpuguide.lib.editor_input import EditorInputMixin, VisibleTextValidator
from pricing import selectors, services
from pricing.domain import formatting, price_changes
from pricing.domain.formatting import trim
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
from pricing.permissions import may_change_price_checks, may_record_prices
from pricing.shared_data_admin import ConfirmSharedChangesMixin

GPU_ORDER = ["gpu__position", "gpu__memory_gb", "gpu__slug"]  # Gpu's own order, across a join


@admin.register(Source)
class SourceAdmin(RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin):
    list_display = ["title", "publisher", "read_on", "key"]
    list_filter = ["publisher", "read_on"]
    search_fields = ["title_en", "title_de", "title_ja", "publisher", "url", "key"]
    date_hierarchy = "read_on"
    prepopulated_fields = {"key": ["title_en"]}


@admin.register(Gpu)
class GpuAdmin(
    ConfirmSharedChangesMixin, RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin
):
    list_display = [
        "name",
        "slug",
        "memory_gb",
        "bandwidth_gb_s",
        "bf16_dense_tflops",
        "generation",
        "form_factor",
        "link",
        "link_gb_s",
        "rentable",
        "last_checked",
        "position",
    ]
    list_editable = ["position"]
    list_filter = ["rentable", "generation", "form_factor", "link", "vendor"]
    search_fields = ["name", "slug"]
    autocomplete_fields = [
        "spec_source",
        "link_source",
        "measured_memory_source",
        "host_memory_source",
    ]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        # Per GPU, one seek per provider in price_latest_per_gpu, the newest day wins: a Max
        # joined over every price read them all (1M rows).
        latest_at_provider = (
            Price.objects.current()
            .filter(provider=OuterRef("pk"), gpu=OuterRef(OuterRef("pk")))
            .order_by("-checked_on")
            .values("checked_on")[:1]
        )
        last_checked = (
            Provider.objects.order_by()
            .annotate(day=Subquery(latest_at_provider))
            .filter(day__isnull=False)
            .order_by("-day")
            .values("day")[:1]
        )
        return super().get_queryset(request).annotate(last_checked_on=Subquery(last_checked))

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
        # Subqueries in each provider's (provider, day) index, not a join grouped over every
        # check (3.7 times the list's time at 1M prices).
        checks = PriceCheck.objects.current().filter(provider=OuterRef("pk")).order_by()
        year_ago = timezone.localdate() - timedelta(days=selectors.HISTORY_DAYS)
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_checked_on=Subquery(checks.order_by("-checked_on").values("checked_on")[:1]),
                checks_in_year=Subquery(
                    checks.filter(checked_on__gt=year_ago)
                    .values("provider")
                    .annotate(total=Count("pk"))
                    .values("total")
                ),
            )
        )

    @admin.display(description=_("last price check"), ordering="last_checked_on")
    def last_check(self, provider: Provider):
        return provider.last_checked_on

    @admin.display(description=_("price checks in the past year"), ordering="checks_in_year")
    def check_count(self, provider: Provider) -> int:
        return provider.checks_in_year or 0

    @admin.display(description=_("new price check"))
    def record_check(self, provider: Provider) -> str:
        return format_html(
            '<a href="{}?provider={}" class="record-check">{}</a>',
            reverse("admin:pricing_pricecheck_add"),
            provider.pk,
            _("Record a check"),
        )

    def get_list_display(self, request):
        if not may_record_prices(request.user):
            return self.list_display
        return [self.list_display[0], "record_check", *self.list_display[1:]]  # in sight


class RawTextField(forms.CharField):
    """Typed text, unstripped, parsed by the price-check service: the admin then refuses what the
    CLI refuses, alike (Decimal and int would take "1_000", "١٢"; the CLI refuses " 1")."""

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


def _checked(parse, **kwargs):
    try:
        return parse(**kwargs)
    except services.PriceCheckError as exc:
        raise _refusal(exc) from None


# Text boxes, never type=number: Chromium sent "1,90" as 190, so the service's refusal, "use a
# point", never came. inputmode still brings up a phone's number keys.
PRICE_INPUT_ATTRS = {"inputmode": "decimal", "autocomplete": "off", "size": 10}
COUNT_INPUT_ATTRS = {"inputmode": "numeric", "autocomplete": "off", "size": 3}


class PriceForm(forms.ModelForm):
    quoted_usd_per_hour = RawTextField(
        widget=forms.TextInput(attrs=PRICE_INPUT_ATTRS),
        **_model_label(Price, "quoted_usd_per_hour"),
    )
    gpus_in_quote = RawTextField(
        widget=forms.TextInput(attrs=COUNT_INPUT_ATTRS),
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
        return _checked(
            services.parse_price,
            gpu=gpu.slug if gpu else "?",
            value=self.cleaned_data["quoted_usd_per_hour"],
        )

    def clean_gpus_in_quote(self) -> int:
        return _checked(services.parse_gpus_in_quote, value=self.cleaned_data["gpus_in_quote"])


# The confirmations' check boxes: each one's value is what it confirms (the jumps' fingerprint,
# the day), so a box ticked for other prices or another day confirms nothing.
CONFIRM_JUMP_FIELD = "confirm_jump"
CONFIRM_OLD_DATE_FIELD = "confirm_old_date"
CONFIRM_JUMP = _("Yes, these prices are right")
CONFIRM_JUMP_LABEL = _("Yes, these prices are right: %(rows)s")
CONFIRM_OLD_DATE = _("Yes, the prices were read on %(day)s")
HOW_TO_CONFIRM = _("tick “%(confirm)s” below and save again")


def _shown_day(day: date) -> str:
    """A day as the admin's language writes it (German 28.10.2026)."""
    return formatting.medium_date(day, services.current_locale())


def _old_date_label(day: date) -> str:
    return str(CONFIRM_OLD_DATE % {"day": _shown_day(day)})


def posted_confirmations(data, day: date | None = None) -> services.Confirmations:
    """What the posted boxes confirm, with how to confirm the rest."""
    return services.Confirmations(
        jump_fingerprint=data.get(CONFIRM_JUMP_FIELD, ""),
        old_date=day is not None and data.get(CONFIRM_OLD_DATE_FIELD) == day.isoformat(),
        jump_how=str(HOW_TO_CONFIRM % {"confirm": CONFIRM_JUMP}),
        old_date_how="" if day is None else str(HOW_TO_CONFIRM % {"confirm": _old_date_label(day)}),
        locale=services.current_locale(),
        iso_dates=False,
    )


@dataclass
class NewCheck:
    """What a request's add form is for, read once per request: the check it corrects
    (``?corrects=<id>``), if any, and the provider: that check's, else ``?provider=<id>``, else
    ours."""

    provider: Provider | None
    correcting: PriceCheck | None = None
    refused: str = ""  # a save the service refused after the forms were valid
    recorded: PriceCheck | None = None  # what the save recorded (the success message)

    @classmethod
    def read(cls, request) -> "NewCheck":
        check_id = request.GET.get("corrects", "")
        if check_id.isdigit():
            correcting = PriceCheck.objects.select_related("provider").filter(pk=check_id).first()
            if correcting is not None:
                return cls(correcting.provider, correcting)
        provider_id = request.GET.get("provider", "")
        if provider_id.isdigit():
            return cls(Provider.objects.filter(pk=provider_id).first())
        try:
            return cls(selectors.house_provider())
        except Provider.DoesNotExist:
            return cls(None)

    @cached_property
    def last_prices(self) -> dict[str, price_changes.LastPrice]:
        """The provider's last prices (for a correction, those before the corrected check)."""
        if self.provider is None:
            return {}
        return services.last_prices(provider=self.provider, correcting=self.correcting)

    def last_prices_of(self, provider: Provider) -> dict[str, price_changes.LastPrice]:
        if provider == self.provider:
            return self.last_prices
        return services.last_prices(provider=provider, correcting=self.correcting)

    @cached_property
    def initial_rows(self) -> list[dict]:
        prices = (
            self.correcting.prices.select_related("gpu").order_by("gpu")
            if self.correcting is not None
            else self.last_prices.values()
        )
        return [
            {
                "gpu": price.gpu_id,
                "quoted_usd_per_hour": trim(price.quoted_usd_per_hour),
                "gpus_in_quote": price.gpus_in_quote,
            }
            for price in prices
        ]


def new_check(request) -> NewCheck:
    """The request's ``NewCheck`` (the change form's hooks are passed the request alone)."""
    if not hasattr(request, "new_price_check"):
        request.new_price_check = NewCheck.read(request)
    return request.new_price_check


class PriceFormSet(forms.BaseInlineFormSet):
    """The price rows, compared with the provider's last prices once the check's form has set
    ``self.instance``'s provider and day: a jump is refused until its box is ticked."""

    def __init__(self, *args, new: NewCheck | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.new = new
        self.last_prices: dict[str, price_changes.LastPrice] | None = None
        self.changes: tuple[price_changes.PriceChange, ...] = ()

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
        self._compare_with_the_last_prices(rows)

    def _compare_with_the_last_prices(self, rows: list[forms.Form]) -> None:
        check = self.instance
        if self.new is None or check.pk is not None or check.provider_id is None:
            return  # a recorded check, or no provider to compare with
        self.last_prices = self.new.last_prices_of(check.provider)
        priced = [
            f.cleaned_data
            for f in rows
            if "gpu" in f.cleaned_data and "quoted_usd_per_hour" in f.cleaned_data
        ]
        self.changes = services.price_changes_against(
            last=self.last_prices,
            prices={row["gpu"].slug: row["quoted_usd_per_hour"] for row in priced},
            gpus_in_quote={
                row["gpu"].slug: row.get("gpus_in_quote", services.MIN_GPUS_IN_QUOTE)
                for row in priced
            },
        )
        try:
            services.confirm_jumps(self.changes, posted_confirmations(self.data))
        except services.ConfirmationNeeded as exc:
            raise forms.ValidationError(str(exc), code="confirm_jump") from None


class PriceInline(EditorInputMixin, admin.TabularInline):
    model = Price
    form = PriceForm
    formset = PriceFormSet
    fields = ["gpu", "quoted_usd_per_hour", "gpus_in_quote"]
    # On a new check, beside each row: the provider's last price of that GPU and the change.
    comparison_fields = ["last_price", "price_change"]

    def get_fields(self, request, obj=None):
        return [*self.fields, *self.comparison_fields] if obj is None else self.fields

    def get_readonly_fields(self, request, obj=None):
        readonly = super().get_readonly_fields(request, obj)
        return [*readonly, *self.comparison_fields] if obj is None else readonly

    # Filled in by PriceCheckAdmin.render_change_form (the row's instance carries its texts).
    @admin.display(description=_("last price"))
    def last_price(self, price: Price) -> str:
        return getattr(price, "shown_last_price", "")

    @admin.display(description=_("change"))
    def price_change(self, price: Price) -> str:
        shown = getattr(price, "shown_change", "")
        if getattr(price, "is_jump", False):
            return format_html('<strong class="price-jump">{}</strong>', shown)
        return shown

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        # The GPU menu read once for all rows, not once per row (eight queries on a new check).
        gpu = formset.form.base_fields["gpu"]
        # Iterated, not list()ed: list() asks the choices' length first, a COUNT query.
        gpu.choices = [*iter(gpu.choices)]
        inner = getattr(gpu.widget, "widget", gpu.widget)  # inside the admin's "+" wrapper
        inner.choices = gpu.choices
        return formset

    def get_extra(self, request, obj=None, **kwargs) -> int:
        # On a new check: one row per last known price, plus two blank rows for new GPUs.
        return len(new_check(request).initial_rows) + 2 if obj is None else 0


RECORDED = _("Recorded the price check of %(provider)s on %(day)s: %(prices)s.")
CORRECTED = _(
    "Corrected the price check of %(provider)s on %(day)s: %(prices)s. The check it corrects "
    "stays in the history, marked as superseded."
)


def _with_links(message, **links: SafeString) -> SafeString:
    """A translated message with HTML in its placeholders: the message escaped, then filled."""
    return mark_safe(escape(str(message)) % links)  # the message escaped, the links safe


def _link(url_name: str, pk: int, text: str) -> SafeString:
    return format_html('<a href="{}">{}</a>', reverse(url_name, args=[pk]), text)


def _provider_link(provider: Provider) -> SafeString:
    return _link("admin:pricing_provider_change", provider.pk, provider.name)


def _check_link(check: PriceCheck) -> SafeString:
    return _link("admin:pricing_pricecheck_change", check.pk, _shown_day(check.checked_on))


def recorded_message(check: PriceCheck, correcting: PriceCheck | None) -> SafeString:
    """What a save recorded, by name: its provider, day and GPUs, each a link to its page."""
    locale = services.current_locale()
    prices = format_html_join(
        services.PRICES_SEPARATOR,
        "{} {}",
        (
            (
                _link("admin:pricing_gpu_change", price.gpu_id, price.gpu.name),
                services.shown_quote(price.quoted_usd_per_hour, price.gpus_in_quote, locale),
            )
            for price in check.prices.select_related("gpu").order_by(*GPU_ORDER)
        ),
    )
    return _with_links(
        RECORDED if correcting is None else CORRECTED,
        provider=_provider_link(check.provider),
        day=_check_link(check),
        prices=prices,
    )


ERROR_ROWS_FOR_ANOTHER_PROVIDER = _(
    "The price rows were filled in for %(filled)s, not %(chosen)s: choose %(filled)s again, "
    "or reload the form for %(chosen)s (its “Record a check” link in the provider "
    "list)."
)


class PriceCheckForm(forms.ModelForm):
    # A native date picker sends the service's YYYY-MM-DD in every language (the admin's
    # calendar would write 29.11.2026 in German).
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
    # Whose last prices filled the rows (the admin's, not the query string's): rows filled
    # for another provider are refused, never recorded under this one's name.
    prefilled_for = forms.ModelChoiceField(
        queryset=Provider.objects.all(), required=False, widget=forms.HiddenInput
    )

    # Set by the admin: the service refused the valid form's save (a recorder saved meanwhile).
    refused_with: str = ""
    # A correction keeps the corrected check's day: no other check on it, nothing to confirm.
    corrects = False

    class Meta:
        model = PriceCheck
        fields = ["provider", "checked_on", "source_url", "note"]

    # Days back of a check dated long ago (set by clean): the form then shows its box.
    old_days: int | None = None

    def clean_checked_on(self) -> date:
        day = _checked(services.parse_check_date, value=self.cleaned_data["checked_on"])
        # For PriceFormSet's comparison, even where a refusal below takes it out of cleaned_data.
        self.instance.checked_on = day
        return day

    def clean_source_url(self) -> str:
        return _checked(services.validate_source_url, value=self.cleaned_data["source_url"])

    def clean(self) -> dict:
        cleaned = super().clean()
        provider, checked_on = cleaned.get("provider"), cleaned.get("checked_on")
        filled = cleaned.get("prefilled_for")
        new_day = self.instance.pk is None and not self.corrects
        if self.instance.pk is None and provider and filled and filled != provider:
            self.add_error(
                "provider",
                forms.ValidationError(
                    ERROR_ROWS_FOR_ANOTHER_PROVIDER % {"filled": filled, "chosen": provider},
                    code="rows_for_another_provider",
                ),
            )
        if new_day and provider and checked_on:
            try:
                services.validate_new_check(provider=provider, checked_on=checked_on)
            except services.PriceCheckError as exc:
                self.add_error("checked_on", _refusal(exc))
        if new_day and checked_on and "checked_on" not in self.errors:
            confirmations = posted_confirmations(self.data, checked_on)
            try:
                self.old_days = services.confirm_old_date(checked_on, confirmations)
            except services.ConfirmationNeeded as exc:
                self.old_days = exc.old_days
                self.add_error("checked_on", forms.ValidationError(str(exc), code="confirm_day"))
        if self.refused_with and "checked_on" not in self.errors:
            self.add_error(None, forms.ValidationError(self.refused_with, code="price_check"))
        return cleaned


class PriceCheckCorrectionForm(PriceCheckForm):
    """A correction of one check: the same provider and day, the prices typed again, and why."""

    reason = forms.CharField(
        label=_("What was wrong"),
        help_text=_(
            "Kept with the corrected check, which stays in the history marked as superseded."
        ),
        widget=forms.Textarea(attrs={"rows": 2}),
        validators=[VisibleTextValidator(_("What was wrong"))],
    )
    corrects = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The corrected check's provider and day, whatever is posted.
        self.fields["provider"].disabled = True
        self.fields["checked_on"].disabled = True

    def _get_validation_exclusions(self):
        # The day's current check is the one being corrected: the service supersedes it in
        # the same transaction as it records the correction.
        return {*super()._get_validation_exclusions(), "checked_on"}


class SupersededFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("current", _("current")), ("superseded", _("superseded"))]

    def queryset(self, request, queryset):
        if self.value() == "current":
            return queryset.filter(superseded_at=None)
        if self.value() == "superseded":
            return queryset.exclude(superseded_at=None)
        return queryset


@admin.register(PriceCheck)
class PriceCheckAdmin(EditorInputMixin, admin.ModelAdmin):
    """Append-only: staff add checks and correct them (the mistaken check stays, superseded);
    only superusers change one. Saved by the service, as ``manage.py record_price_check``."""

    form = PriceCheckForm
    inlines = [PriceInline]
    # "superseded" beside the prices: in view at 1280 px, beside the filters.
    list_display = [
        "provider",
        "checked_on",
        "prices_shown",
        "superseded",
        "recorded_by",
        "recorded_at",
    ]
    list_filter = [SupersededFilter, "provider", "checked_on"]
    # The provider is fetched apart: joined, SQLite looped over the providers and sorted all
    # their checks instead of reading the day index in order.
    list_select_related = ["recorded_by", "superseded_by"]
    search_fields = ["provider__name", "note", "source_url"]
    # Served by the index price_check_newest_first (the model's order needs a join). No
    # date_hierarchy: its years are a DISTINCT over every check on each visit.
    ordering = ["-checked_on", "-pk"]
    fields = ["provider", "checked_on", "source_url", "note", "recorded_by", "recorded_at"]
    superseded_fields = ["superseded_at", "superseded_by", "superseded_reason", "correction"]
    readonly_fields = ["recorded_by", "recorded_at", *superseded_fields]

    # No "N total" beside a filtered count (one count per page view).
    show_full_result_count = False

    class Media:
        css = {"all": ["css/price-check.css"]}
        js = ["js/price-check-provider.js", "js/price-check-rows.js"]

    def get_urls(self):
        def view(function):
            return self.admin_site.admin_view(
                partial(function, site=self.admin_site, document="prices")
            )

        return [
            path("manual/", view(manual.manual), name="pricing_pricecheck_manual"),
            path(
                "manual/prices/<slug:name>.png",
                view(manual.screenshot),
                name="pricing_pricecheck_manual_screenshot",
            ),
            *super().get_urls(),
        ]

    def get_queryset(self, request):
        # The page's prices with their GPUs in one query, not one per row.
        prices = Price.objects.select_related("gpu").order_by(*GPU_ORDER)
        return (
            super()
            .get_queryset(request)
            .prefetch_related("provider", Prefetch("prices", queryset=prices))
        )

    @admin.display(description=_("prices"))
    def prices_shown(self, check: PriceCheck) -> str:
        return services.shown_prices(list(check.prices.all()), services.current_locale())

    @admin.display(description=_("superseded"), ordering="superseded_at")
    def superseded(self, check: PriceCheck) -> str:
        if check.superseded_at is None:
            return ""
        return _("Superseded by %(user)s") % {"user": check.superseded_by or "—"}

    def get_fields(self, request, obj=None):
        if obj is None and new_check(request).correcting is not None:
            return ["provider", "checked_on", "reason", "source_url", "note", "prefilled_for"]
        if obj is None:
            return [*self.fields, "prefilled_for"]
        if obj.superseded_at is not None:
            return [*self.fields, *self.superseded_fields]
        return self.fields

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change, **kwargs)
        new = new_check(request)
        if new.correcting is not None:
            kwargs["form"] = PriceCheckCorrectionForm
        form = super().get_form(request, obj, change, **kwargs)  # a new class per call
        form.refused_with = new.refused
        # Changed below: copies, not the declared fields the form classes share.
        form.base_fields = copy.deepcopy(form.base_fields)
        if new.correcting is not None:
            # Disabled: the corrected check's, on GET and POST alike.
            form.base_fields["provider"].initial = new.correcting.provider_id
            form.base_fields["checked_on"].initial = new.correcting.checked_on
        form.base_fields["provider"].help_text = _prefilled_note(new)
        return form

    def get_changeform_initial_data(self, request) -> dict:
        initial = super().get_changeform_initial_data(request)
        new = new_check(request)
        if new.correcting is not None:
            initial.update(
                provider=new.correcting.provider_id,
                checked_on=new.correcting.checked_on,
                source_url=new.correcting.source_url,
                note=new.correcting.note,
            )
        if new.provider is not None:
            initial.setdefault("provider", new.provider.pk)
        # Always ours, never the query string's: the provider the rows were filled for.
        initial["prefilled_for"] = new.provider.pk if new.provider is not None else None
        initial.setdefault("checked_on", timezone.localdate())
        return initial

    def get_formset_kwargs(self, request, obj, inline, prefix):
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, PriceInline) and obj is not None and obj.pk is None:
            new = new_check(request)
            kwargs.update(initial=new.initial_rows, new=new)
        return kwargs

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if add:
            form = context["adminform"].form
            formset = next(
                (
                    inline.formset
                    for inline in context["inline_admin_formsets"]
                    if isinstance(inline.formset, PriceFormSet)
                ),
                None,
            )
            if formset is not None:
                _show_comparisons(new_check(request), form, formset)
            context["price_confirmations"] = _confirmation_boxes(form, formset)
            locale = services.current_locale()
            context["price_rule"] = {
                "factor": formatting.number(price_changes.JUMP_FACTOR, locale),
                "days": formatting.number(price_changes.OLD_CHECK_DAYS, locale),
            }
        elif obj is not None and obj.superseded_at is None and self.has_add_permission(request):
            context["correct_url"] = f"{reverse('admin:pricing_pricecheck_add')}?corrects={obj.pk}"
        return super().render_change_form(request, context, add, change, form_url, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return may_change_price_checks(request.user)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Never: the pages quote the history (a deleted check left dashes in guides).
        return False

    def add_view(self, request, form_url="", extra_context=None):
        correcting = new_check(request).correcting if self.has_add_permission(request) else None
        if correcting is not None:
            if correcting.superseded_at is not None:
                self.message_user(
                    request,
                    _with_links(
                        services.ERROR_ALREADY_SUPERSEDED,
                        provider=_provider_link(correcting.provider),
                        day=_check_link(correcting),
                    ),
                    messages.ERROR,
                )
                return HttpResponseRedirect(
                    reverse("admin:pricing_pricecheck_change", args=[correcting.pk])
                )
            extra_context = {
                **(extra_context or {}),
                "title": _("Correct the price check of %(provider)s on %(day)s")
                % {"provider": correcting.provider, "day": _shown_day(correcting.checked_on)},
                "correcting": correcting,
            }
        try:
            return super().add_view(request, form_url, extra_context)
        except services.PriceCheckError as exc:
            # Another recorder saved the same day (or correction) in between: the transaction
            # has rolled back, the form comes back with what was typed.
            new_check(request).refused = str(exc)
            return super().add_view(request, form_url, extra_context)

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
        new = new_check(request)
        saved = {
            "prices": {row["gpu"].slug: row["quoted_usd_per_hour"] for row in rows},
            "gpus_in_quote": {row["gpu"].slug: row["gpus_in_quote"] for row in rows},
            "recorded_by": request.user,
            "source_url": data["source_url"],
            "note": data["note"],
            # Asked again as the service saves: a check recorded meanwhile may move the prices.
            "confirmations": posted_confirmations(request.POST, data["checked_on"]),
        }
        if new.correcting is not None:
            check = services.price_check_supersede(
                check=new.correcting, reason=data["reason"], **saved
            )
        else:
            check = services.price_check_record(
                provider_slug=data["provider"].slug, checked_on=data["checked_on"], **saved
            )
        # The admin logs the addition and redirects using the form's object.
        obj = form.instance
        obj.pk, obj.recorded_by, obj.recorded_at = check.pk, check.recorded_by, check.recorded_at
        prices_formset.new_objects = list(check.prices.all())
        prices_formset.changed_objects, prices_formset.deleted_objects = [], []
        new.recorded = check

    def log_addition(self, request, obj, message):
        return None  # the service wrote the History entries as it saved the check

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs) -> None:
        new = getattr(request, "new_price_check", None)
        if new is not None and new.recorded is not None and level == messages.SUCCESS:
            # Instead of Django's "… was added successfully": what was recorded, linked.
            message = recorded_message(new.recorded, new.correcting)
        super().message_user(request, message, level, *args, **kwargs)


def _prefilled_note(new: NewCheck) -> str:
    """Whose prices fill the rows (said without JavaScript too)."""
    if new.correcting is not None or new.provider is None:
        return ""
    return format_html(
        "{} {}",
        _("The price rows below hold the last known prices of %(provider)s.")
        % {"provider": new.provider},
        format_html(
            _(
                "Choosing another provider fills them with its prices (without "
                "JavaScript, use its “Record a check” link in the "
                '<a href="{}">provider list</a>).'
            ),
            reverse("admin:pricing_provider_changelist"),
        ),
    )


def _show_comparisons(new: NewCheck, form, formset: PriceFormSet) -> None:
    """Each row's last price and change, for PriceInline to show."""
    last = formset.last_prices
    if last is None:  # not compared on this request: the form as first shown, or refused
        provider = new.provider
        if form.is_bound and new.correcting is None:
            provider = form.cleaned_data.get("provider")
        if provider is None:
            return
        last = new.last_prices_of(provider)
    by_gpu = {price.gpu_id: price for price in last.values()}
    locale = services.current_locale()
    for row in formset.forms:
        if row.is_bound:  # as posted and accepted: a refused value is missing
            values = getattr(row, "cleaned_data", None) or {}
            gpu_id = values["gpu"].pk if values.get("gpu") else None
        else:  # as first shown
            values = {"gpus_in_quote": services.MIN_GPUS_IN_QUOTE, **row.initial}
            gpu_id = values.get("gpu")
        previous = by_gpu.get(gpu_id)
        if previous is None or values.get("DELETE"):
            continue
        row.instance.shown_last_price = services.shown_last_price(previous, locale)
        quoted, count = values.get("quoted_usd_per_hour"), values.get("gpus_in_quote")
        if quoted is None or count is None:
            continue
        change = price_changes.PriceChange(
            previous, quoted_usd_per_hour=Decimal(str(quoted)), gpus_in_quote=count
        )
        row.instance.shown_change = services.shown_change(change, locale)
        row.instance.is_jump = change.is_jump


def _confirmation_boxes(form, formset: PriceFormSet | None) -> list[dict]:
    """The boxes to tick before saving, each with what it confirms."""
    boxes = []
    day = form.instance.checked_on
    confirmations = posted_confirmations(form.data, day)
    if getattr(form, "old_days", None) is not None and day is not None:
        boxes.append(
            {
                "name": CONFIRM_OLD_DATE_FIELD,
                "value": day.isoformat(),
                "label": _old_date_label(day),
                "checked": confirmations.old_date,
            }
        )
    jumps = price_changes.jumps(formset.changes) if formset is not None else ()
    if jumps:
        fingerprint = price_changes.fingerprint(jumps)
        rows = services.jump_rows(jumps, locale=confirmations.locale)
        boxes.append(
            {
                "name": CONFIRM_JUMP_FIELD,
                "value": fingerprint,
                "label": CONFIRM_JUMP_LABEL % {"rows": rows},
                "checked": confirmations.jump_fingerprint == fingerprint,
            }
        )
    return boxes


class MemoryComponentInline(EditorInputMixin, admin.TabularInline):
    model = MemoryComponent
    extra = 0
    fields = ["part", "bytes_per_param", "position"]


@admin.register(MemoryRule)
class MemoryRuleAdmin(ConfirmSharedChangesMixin, EditorInputMixin, admin.ModelAdmin):
    inlines = [MemoryComponentInline]
    rows_inline = MemoryComponentInline
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
class MethodAdmin(
    ConfirmSharedChangesMixin, RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin
):
    inlines = [MemoryRuleInline]
    rows_inline = MemoryRuleInline
    list_display = ["name", "slug", "planning_margin_percent", "weight_bytes_per_param", "position"]
    list_editable = ["position"]
    search_fields = ["name_en", "name_de", "name_ja", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(LanguageModel)
class LanguageModelAdmin(
    ConfirmSharedChangesMixin, RefuseDeletingUsedMixin, EditorInputMixin, TabbedTranslationAdmin
):
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
    search_fields = ["name", "slug", "repository", "source__title_en", "source__publisher"]
    autocomplete_fields = ["source"]
    # No slug pre-filled from the name: the admin's slugify drops dots ("Llama 3.1 8B" would
    # become "llama-31-8b"), and the slug's help text says how to write it.
    fieldsets = [
        (None, {"fields": ["name", "slug", "params_billion", "source"]}),
        (_("Licence"), {"fields": ["repository", "gated", "licence_note"]}),
        (
            _("Architecture (config.json)"),
            {
                # config.json lists its keys alphabetically; these follow its order, so an
                # editor copies the values top to bottom.
                "fields": [
                    "head_dim",
                    "hidden_size",
                    "intermediate_size",
                    "max_position_embeddings",
                    "attention_heads",
                    "num_experts_per_tok",
                    "layers",
                    "kv_heads",
                    "num_local_experts",
                    "sliding_window",
                    "tie_word_embeddings",
                    "vocab_size",
                ],
                "description": _(
                    "Copy these from the model's config.json on Hugging Face. In the order "
                    "shown, its keys are head_dim, hidden_size, intermediate_size, "
                    "max_position_embeddings, num_attention_heads, num_experts_per_tok, "
                    "num_hidden_layers, num_key_value_heads, num_local_experts, "
                    "sliding_window, tie_word_embeddings and vocab_size; leave head_dim, the "
                    "two expert fields and the sliding window empty where the config has no "
                    "such key (or sets use_sliding_window to false). The training and serving "
                    "memory estimates are computed from them."
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
class FactAdmin(
    ConfirmSharedChangesMixin, RefuseDeletingUsedMixin, EditorInputMixin, admin.ModelAdmin
):
    list_display = ["key", "value", "kind", "description", "source"]
    list_filter = ["kind"]
    search_fields = ["key", "description"]
    autocomplete_fields = ["source"]
