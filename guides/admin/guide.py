"""Admin for guides: translations side by side, ordered inlines, publishing rules, preview.
Its add and change pages are ``edit_view``'s."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import DateField, Value
from django.shortcuts import redirect
from django.utils.functional import lazy
from django.utils.html import format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin, TranslationStackedInline

from gpuguide.lib.editor_input import EditorInputMixin
from guides import permissions
from guides.admin import merging, prose
from guides.admin.edit_view import GuideEditView
from guides.admin.families import mark_fields
from guides.admin.presence import CoeditingAdminMixin
from guides.admin.prose import ProseForm, ProseHelpMixin, token_reference
from guides.admin.revision_views import RevisionAdminMixin
from guides.admin.translation_views import TranslationAdminMixin
from guides.editorial import publishing_rules
from guides.editorial.cloning import CloneRefused, clone_guide, guide_slug_for
from guides.models import (
    EDIT_CONFLICT,
    CostScenario,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideSource,
    Recommendation,
    Section,
)
from guides.pages import selectors
from pricing import selectors as pricing_selectors
from pricing.models import LanguageModel, Provider


class GuideRowsFormSet(forms.BaseInlineFormSet):
    """An inline of the guide form on ``rows``, the rows of what the form edits (a working copy's
    are in no table), in place of a query. On a clone's form each existing row carries its
    follow marks (row ``i`` is the guide's ``i + 1``-th section or FAQ entry). Publishing needs
    the ``required`` fields of every row in every language."""

    required: list[str] = []

    def __init__(self, data=None, files=None, *, instance, rows, prefix=None, form_kwargs=None,
                 family_marks=None, family_source="") -> None:  # fmt: skip
        super().__init__(data, files, instance=instance, prefix=prefix, form_kwargs=form_kwargs)
        self.rows = rows
        self.family_marks = family_marks or {}
        self.family_source = family_source

    def get_queryset(self):
        return self.rows

    def add_fields(self, form, index) -> None:
        super().add_fields(form, index)
        # A row's id is one of the rows' (Django's field would look for it in the table).
        pk = self._pk_field.name
        form.fields[pk] = forms.TypedChoiceField(
            choices=[(row.pk, row.pk) for row in self.rows],
            coerce=int,
            empty_value=None,
            required=False,
            widget=forms.HiddenInput,
            initial=form.fields[pk].initial,
        )

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        if self.family_marks and i < self.initial_form_count():
            mark_fields(form.fields, self.family_marks, self.model, i + 1, self.family_source)
        return form

    def clean(self) -> None:
        super().clean()
        if getattr(self.instance, "status", None) != Guide.Status.PUBLISHED:
            return
        for index, form in enumerate(self.forms, start=1):
            if not form.has_changed() and not form.instance.pk:
                continue
            if not getattr(form, "cleaned_data", None) or form.cleaned_data.get("DELETE"):
                continue
            missing = publishing_rules.missing_translations(form.cleaned_data, self.required)
            missing = [name for name in missing if name not in form.errors]  # said once, there
            if missing:
                label = f"{capfirst(self.model._meta.verbose_name)} {index}"
                raise forms.ValidationError(
                    publishing_rules.publish_error(label, self.model, missing)
                )


class RowForm(merging.MergingFormMixin, ProseForm):
    """A row's form: its tokens checked, merged field by field with a save made meanwhile."""


class SectionFormSet(GuideRowsFormSet):
    required = publishing_rules.SECTION_REQUIRED


class FaqFormSet(GuideRowsFormSet):
    required = publishing_rules.FAQ_REQUIRED


class SectionInline(EditorInputMixin, ProseHelpMixin, TranslationStackedInline):
    model = Section
    form = RowForm
    formset = SectionFormSet
    extra = 0
    fields = [
        "position",
        "heading",
        "body",
        "table",
        "table_caption",
        "compare_gpu",
        "compare_with_gpu",
        "closing",
    ]


class FaqEntryInline(EditorInputMixin, ProseHelpMixin, TranslationStackedInline):
    model = FaqEntry
    form = RowForm
    formset = FaqFormSet
    extra = 0
    fields = ["position", "question", "answer"]


class RelatedRowsInline(EditorInputMixin, admin.TabularInline):
    form = RowForm
    formset = GuideRowsFormSet
    extra = 0


class GuideSourceInline(RelatedRowsInline):
    model = GuideSource
    autocomplete_fields = ["source"]
    fields = ["position", "source"]


class FitConfigurationInline(RelatedRowsInline):
    model = FitConfiguration
    fields = ["position", "gpu", "count"]


class RecommendationInline(RelatedRowsInline):
    """Recommendations are computed from the fit table; a row here overrides them for its
    method, and the dashboard says when an override stops being the cheapest that fits."""

    model = Recommendation
    verbose_name_plural = _("recommendation overrides (leave empty: they are computed)")
    fields = ["position", "method", "gpu", "count"]


class CostScenarioInline(RelatedRowsInline):
    model = CostScenario
    fields = ["position", "method", "gpu", "count", "hours"]


class GuideForm(merging.MergingFormMixin, ProseForm):
    # What the editor started from: a save from an older version is merged (guides.admin.merging).
    edited_version = merging.BookkeepingField(required=False)
    started_from = merging.BookkeepingField(required=False)

    class Meta:
        model = Guide
        fields = "__all__"

    def __init__(self, *args, may_publish: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.may_publish = may_publish
        self.fields["edited_version"].initial = self.instance.version

    def clean(self) -> dict:
        cleaned = super().clean()
        going_live = cleaned.get("status") == Guide.Status.PUBLISHED
        if going_live and self.instance.status != Guide.Status.PUBLISHED and not self.may_publish:
            self.add_error(
                "status",
                _("Only a reviewer publishes: save it as a draft and submit it for review."),
            )
        if self.saved_since_opened and merging.read_started(self.data) is None:
            raise forms.ValidationError(EDIT_CONFLICT, code="edit_conflict")
        if cleaned.get("status") == Guide.Status.PUBLISHED:
            missing = publishing_rules.missing_translations(
                cleaned, publishing_rules.GUIDE_REQUIRED
            )
            missing = [name for name in missing if name not in self.errors]  # said once
            if missing:
                raise forms.ValidationError(
                    publishing_rules.publish_error(_("The guide"), Guide, missing)
                )
        return cleaned


# The token list above the guide's text (on an existing guide, see ``get_fieldsets``).
TOKEN_REFERENCE = lazy(token_reference, str)()


@admin.register(Guide)
class GuideAdmin(
    GuideEditView,
    CoeditingAdminMixin,
    RevisionAdminMixin,
    TranslationAdminMixin,
    EditorInputMixin,
    ProseHelpMixin,
    TabbedTranslationAdmin,
):
    form = GuideForm
    # One inline per model of guides.models.CHILD_ROWS, in its order (a test checks it).
    inlines = [
        SectionInline,
        FaqEntryInline,
        GuideSourceInline,
        FitConfigurationInline,
        RecommendationInline,
        CostScenarioInline,
    ]
    list_display = ["title", "status", "languages_complete", "updated_at", "last_price_check"]
    list_filter = ["status", "language_model"]
    # Every language's text of the guide, its sections and FAQ entries (Django adds DISTINCT).
    search_fields = ["slug"] + [
        f"{rows}{field}_{language}"
        for rows, fields in (
            ("", ("title", "question", "short_answer", "meta_description")),
            ("sections__", Section.prose_fields),
            ("faq_entries__", FaqEntry.prose_fields),
        )
        for field in fields
        for language in publishing_rules.LANGUAGES
    ]
    readonly_fields = ["preview_links", "updated_at", "published_on"]
    prepopulated_fields = {"slug": ["title_en"]}

    fieldsets = [
        (
            None,
            {
                "fields": [
                    "preview_links", "slug", "status", "language_model", "published_on",
                    "updated_at", "edited_version", "started_from",
                ]
            },
        ),
        (
            _("Text"),
            {
                "fields": ["title", "question", "short_answer", "meta_description"],
                "description": TOKEN_REFERENCE,
            },
        ),
        (
            _("Training assumptions"),
            {
                "fields": list(Guide.TRAINING_FIELDS),
                "description": _(
                    "The training run this guide's memory estimates assume: tokens per sequence, "
                    "sequences per GPU in each step, whether activations are recomputed, and "
                    "the rank of the LoRA adapters; and the training budget its run costs are "
                    "priced for: training tokens per epoch times epochs."
                ),
            },
        ),
        (
            _("Serving assumptions"),
            {
                "fields": ["kind", *Guide.SERVING_FIELDS],
                "description": _(
                    "A serving guide's load: vLLM's --max-model-len, each user's prompt and "
                    "answer in tokens, and the time per output token its cost per million "
                    "tokens is computed at. A fine-tuning guide ignores them."
                ),
            },
        ),
    ]  # fmt: skip

    class Media:
        css = {"all": ["css/admin-editor.css"]}
        js = ["js/guide-editor.js", "js/guide-coediting.js", "js/unsaved-changes.js"]

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return [
            # lazy: rendered with the form, never for a save that redirects
            (name, {**options, "description": lazy(token_reference, str)(obj)})
            if options.get("description") is TOKEN_REFERENCE
            else (name, options)
            for name, options in fieldsets
        ]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("language_model")
            .annotate(
                house_checked_on=Value(_house_check_date(), output_field=DateField(null=True))
            )
        )

    @admin.display(description=_("languages complete"))
    def languages_complete(self, guide: Guide) -> str:
        missing = {  # what it holds in each language is in its field values ("title_de")
            name.rsplit("_", 1)[1]
            for name in publishing_rules.missing_translations(
                vars(guide), publishing_rules.GUIDE_REQUIRED
            )
        }
        return " ".join(
            lang if lang not in missing else f"({lang}?)" for lang in publishing_rules.LANGUAGES
        )

    @admin.display(description=_("last price check"))
    def last_price_check(self, guide: Guide):
        return guide.house_checked_on

    @admin.display(description=_("preview"))
    def preview_links(self, guide: Guide) -> str:
        if not guide.pk:
            return _("Save the guide to preview it.")
        links = prose.preview_links(guide, None)
        return format_html_join(" · ", '<a href="{}" target="_blank" rel="noopener">{}</a>', links)

    change_form_template = "admin/guides/guide/change_form.html"

    actions = ["duplicate_for_another_model"]

    @admin.action(description=_("Duplicate for another model"), permissions=["add"])
    def duplicate_for_another_model(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(
                request, _("Select exactly one guide to duplicate."), messages.WARNING
            )
            return None
        source = selectors.guide_for_page(slug=queryset.get().slug, include_drafts=True)
        form = DuplicateGuideForm(
            request.POST if "duplicate" in request.POST else None,
            may_publish=permissions.may_publish(request.user),
        )
        if form.is_bound and form.is_valid():
            try:
                guide = clone_guide(
                    source,
                    form.cleaned_data["language_model"],
                    slug=form.cleaned_data["slug"] or None,
                    publish=form.cleaned_data.get("publish", False),
                    user=request.user,
                )
            except CloneRefused as refused:
                form.add_error(None, str(refused))
            else:
                self.message_user(
                    request,
                    _("“%(title)s” was made from “%(source)s”.")
                    % {"title": guide.title, "source": source.title},
                    messages.SUCCESS,
                )
                return redirect("admin:guides_guide_change", guide.pk)
        return self._render(
            request,
            "duplicate.html",
            {
                "title": _("Duplicate “%(title)s” for another model") % {"title": source.title},
                "source": source,
                "form": form,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "selected": source.pk,
                "slug_example": guide_slug_for(source.language_model, source.kind),
            },
        )


class DuplicateGuideForm(forms.Form):
    language_model = forms.ModelChoiceField(
        LanguageModel.objects.all(), label=_("Model of the new guide")
    )
    slug = forms.SlugField(
        label=_("Slug"),
        required=False,
        max_length=120,
        help_text=_("Leave empty to derive it from the model, without dots."),
    )
    publish = forms.BooleanField(
        label=_("Publish it"),
        required=False,
        help_text=_("Refused if the new guide fails its checks; otherwise it is a draft."),
    )

    def __init__(self, *args, may_publish: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not may_publish:  # a draft, to be submitted for review
            del self.fields["publish"]


def _house_check_date():
    """The day of our latest price check: the same for every guide in the list."""
    try:
        house = pricing_selectors.house_provider()
    except Provider.DoesNotExist:
        return None
    return pricing_selectors.latest_check_dates().get(house.slug)
