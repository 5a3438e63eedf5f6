"""Admin for guides: translations side by side, ordered inlines, publishing rules, preview."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.db.models import DateField, Value
from django.http import HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin, TranslationStackedInline

from gpuguide.lib.editor_input import EditorInputMixin
from guides.admin import merging
from guides.admin.coediting import CoeditingAdminMixin
from guides.admin.families import FamilyAdminMixin, FamilyInlineMixin, say_followed
from guides.admin.prose import (
    ProseForm,
    ProseHelpMixin,
    ProseInlineMixin,
    draft_saved_message,
    preview_links,
    say_cancelled,
    schedule_notes,
    token_picker_data,
    token_reference,
    token_slugs_for,
)
from guides.admin.revision_views import RevisionAdminMixin
from guides.admin.translation_views import TranslationAdminMixin
from guides.editorial import publishing, publishing_rules, revisions
from guides.editorial.checks import problems_list
from guides.editorial.cloning import CloneRefused, clone_guide, guide_slug_for
from guides.models import (
    CHILD_ROWS,
    EDIT_CONFLICT,
    CostScenario,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideSource,
    Recommendation,
    Review,
    Section,
)
from guides.pages import selectors
from pricing import selectors as pricing_selectors
from pricing.models import LanguageModel, Provider


class RequiredTranslationsFormSet(forms.BaseInlineFormSet):
    """Publishing needs every required field of every row in every language."""

    required: list[str] = []

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
    """A section's or FAQ entry's form: merged field by field with a save made meanwhile."""


class RelatedRowForm(merging.MergingFormMixin, forms.ModelForm):
    """The other inlines' rows, merged the same way."""


class SectionFormSet(RequiredTranslationsFormSet):
    required = publishing_rules.SECTION_REQUIRED


class FaqFormSet(RequiredTranslationsFormSet):
    required = publishing_rules.FAQ_REQUIRED


class SectionInline(
    FamilyInlineMixin, EditorInputMixin, ProseInlineMixin, ProseHelpMixin, TranslationStackedInline
):
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


class FaqEntryInline(
    FamilyInlineMixin, EditorInputMixin, ProseInlineMixin, ProseHelpMixin, TranslationStackedInline
):
    model = FaqEntry
    form = RowForm
    formset = FaqFormSet
    extra = 0
    fields = ["position", "question", "answer"]


class RelatedRowsInline(EditorInputMixin, admin.TabularInline):
    """A tabular inline whose rows name related records (their __str__ shows above each row):
    those records come with the rows in one query instead of one query per row."""

    form = RelatedRowForm
    related = ()

    def get_queryset(self, request):
        return super().get_queryset(request).select_related(*self.related)


class GuideSourceInline(RelatedRowsInline):
    model = GuideSource
    extra = 0
    autocomplete_fields = ["source"]
    fields = ["position", "source"]
    related = ("source",)


class FitConfigurationInline(RelatedRowsInline):
    model = FitConfiguration
    extra = 0
    fields = ["position", "gpu", "count"]
    related = ("gpu",)


class RecommendationInline(RelatedRowsInline):
    """Recommendations are computed from the fit table; a row here overrides them for its
    method, and the dashboard says when an override stops being the cheapest that fits."""

    model = Recommendation
    verbose_name_plural = _("recommendation overrides (leave empty: they are computed)")
    extra = 0
    fields = ["position", "method", "gpu", "count"]
    related = ("method", "gpu")


class CostScenarioInline(RelatedRowsInline):
    model = CostScenario
    extra = 0
    fields = ["position", "method", "gpu", "count", "hours"]
    related = ("method", "gpu")


class GuideForm(merging.MergingFormMixin, ProseForm):
    # The version the editor started from, and a hash of each field's value then (the
    # guide's and its rows'): a save from an older version is merged field by field
    # (guides.admin.merging); without the hashes (an old tab) it is refused.
    edited_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    started_from = merging.StartedFromField(required=False)

    class Meta:
        model = Guide
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["edited_version"].initial = self.instance.version
        if self.instance.pk and not self.is_bound:
            self.fields["started_from"].initial = merging.started_hashes(
                self.instance, self.fields, {model: _row_fields(model) for model in CHILD_ROWS}
            )

    may_publish = True  # set per request by GuideAdmin.get_form

    def clean(self) -> dict:
        cleaned = super().clean()
        going_live = cleaned.get("status") == Guide.Status.PUBLISHED
        if going_live and self.instance.status != Guide.Status.PUBLISHED and not self.may_publish:
            self.add_error(
                "status",
                _("Only a reviewer publishes: save it as a draft and submit it for review."),
            )
        if self.instance.pk:
            # Lock the row: two saves of the same guide cannot both pass this check.
            current = Guide.objects.select_for_update().filter(pk=self.instance.pk)
            current = current.values_list("version", flat=True).first()
            stale = current is not None and cleaned.get("edited_version") != current
            merging.mark_saved_since_opened(self.instance, stale)
            if stale and merging.read_started(self.data) is None:
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


def _row_fields(model) -> list[str]:
    """Every field of a row that a form may edit (its link to the guide aside)."""
    return [f.name for f in model._meta.concrete_fields if not f.primary_key and f.name != "guide"]


@admin.register(Guide)
class GuideAdmin(
    CoeditingAdminMixin,
    FamilyAdminMixin,
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
    # Every language's text of the guide, its sections and its FAQ entries. The joins repeat a
    # guide once per row; Django sees the related lookups and lists each guide once (DISTINCT).
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
                "description": lazy(token_reference, str)(),
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
    ]  # fmt: skip

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.token_slugs = token_slugs_for(request)  # a new class on every call
        form.may_publish = publishing.may_publish(request.user)
        return form

    class Media:
        css = {"all": ["css/admin-editor.css"]}
        js = ["js/guide-editor.js", "js/guide-coediting.js"]

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        context["working_copy_mode"] = getattr(request, "_working_copy", False)
        context["may_publish"] = publishing.may_publish(request.user)
        context["may_submit"] = publishing.may_submit(request.user)
        context["pending_review"] = (
            Review.objects.filter(guide=obj, state=Review.State.PENDING).first()
            if obj is not None and obj.pk
            else None
        )
        context["token_picker"] = token_picker_data()
        context["schedule_notes"] = schedule_notes(obj) if obj is not None and obj.pk else []
        return super().render_change_form(request, context, add, change, form_url, obj)

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
        values = {
            f"{f}_{lang}": getattr(guide, f"{f}_{lang}")
            for f in publishing_rules.GUIDE_REQUIRED
            for lang in publishing_rules.LANGUAGES
        }
        missing = {
            name.rsplit("_", 1)[1]
            for name in publishing_rules.missing_translations(
                values, publishing_rules.GUIDE_REQUIRED
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
        links = []
        for code, name in settings.LANGUAGES:
            with translation.override(code):
                links.append((reverse("guides:detail", kwargs={"slug": guide.slug}), name))
        return format_html_join(" · ", '<a href="{}" target="_blank" rel="noopener">{}</a>', links)

    # --- saving: every save is guides.editorial.publishing.edit (a live guide's a working copy)

    change_form_template = "admin/guides/guide/change_form.html"

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST":
            request.POST = _normalised(request.POST)
        guide = self.get_object(request, unquote(object_id)) if object_id else None  # or "abc"
        live = guide is not None and guide.status == Guide.Status.PUBLISHED
        # Taking a live guide offline (status set to draft) is written to the rows at once.
        request._working_copy = live and request.POST.get("status") != "draft"
        if request._working_copy:
            extra_context = {**(extra_context or {}), **self._revision_context(guide)}
        request._publish_wanted = False
        with publishing.edit(
            guide, user=request.user, known=token_slugs_for(request), live=request._working_copy
        ) as request._edit:
            response = super().changeform_view(request, object_id, form_url, extra_context)
            if hasattr(response, "render"):
                response.render()  # inside: the form shows the working copy
        outcome = request._edit.outcome
        if outcome is None:
            return response  # shown, or refused with its errors: nothing was saved
        self._say_outcome(request, guide, outcome)
        if "_submit" in request.POST and not outcome.published:
            self._submit(request, outcome.revision, request.POST.get("review_comment", ""))
        if request._working_copy:
            return redirect("admin:guides_guide_change", guide.pk)
        return response

    def _revision_context(self, guide: Guide) -> dict:
        draft = revisions.working_copy(guide)
        return {
            "working_copy": draft,
            "live_revision": revisions.live_revision(guide),
            "preview_links": preview_links(guide, draft) if draft else [],
            "revisions_url": reverse("admin:guides_guide_revisions", args=[guide.pk]),
        }

    def _say_outcome(self, request, guide: Guide | None, outcome) -> None:
        if outcome.published:
            self.message_user(
                request,
                _("Published: the live page now shows revision %(number)s.")
                % {"number": outcome.revision.pk},
                messages.SUCCESS,
            )
        elif request._working_copy:
            self.message_user(
                request, *draft_saved_message(guide, outcome.revision, outcome.problems)
            )
        elif request._publish_wanted:
            message = _("Saved as a draft, not published: it fails its checks. Fix these:")
            self.message_user(
                request,
                format_html("{}{}", message, problems_list(outcome.problems)),
                messages.ERROR,
            )
        say_cancelled(self, request, outcome.cancelled)
        say_followed(self, request, outcome.followed)

    def log_change(self, request, obj, message):
        if getattr(request, "_edit", None) is None:
            return super().log_change(request, obj, message)
        request._edit.describe(message)  # written to the History with the revision
        return None

    def log_addition(self, request, obj, message):
        if getattr(request, "_edit", None) is None:
            return super().log_addition(request, obj, message)
        request._edit.describe(message, added=True)
        return None

    def response_change(self, request, obj):
        if getattr(request, "_working_copy", False):
            return HttpResponseRedirect(request.path)  # replaced once the draft is stored
        return super().response_change(request, obj)

    def save_model(self, request, obj: Guide, form, change: bool) -> None:
        # A guide goes live only through publishing (checked once, announced, in the
        # History): a draft's rows stay a draft, and "published" in its form asks for that.
        if request._working_copy:
            wanted = "_publish" in request.POST
            request._publish_wanted = wanted and publishing.may_publish(request.user)
        else:
            request._publish_wanted = obj.status == Guide.Status.PUBLISHED
            obj.status = Guide.Status.DRAFT
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        request._edit.keep(form.instance, comment=_("Draft saved"), publish=request._publish_wanted)

    # --- duplicating a guide for another model ----------------------------------------------

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
            may_publish=publishing.may_publish(request.user),
        )
        if form.is_bound and form.is_valid():
            try:
                guide = clone_guide(
                    source,
                    form.cleaned_data["language_model"],
                    slug=form.cleaned_data["slug"] or None,
                    publish=form.cleaned_data["publish"],
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
        return TemplateResponse(
            request,
            "admin/guides/guide/duplicate.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Duplicate “%(title)s” for another model") % {"title": source.title},
                "source": source,
                "form": form,
                "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "selected": source.pk,
                "slug_example": guide_slug_for(source.language_model),
            },
        )


def _normalised(data):
    """The submitted form with CRLF line endings made LF (see revisions.normalise_newlines)."""
    data = data.copy()
    for key, values in data.lists():
        data.setlist(key, [revisions.normalise_newlines(v) for v in values])
    return data


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

    def clean(self) -> dict:
        cleaned = super().clean()
        cleaned.setdefault("publish", False)
        return cleaned


def _house_check_date():
    """The day of our latest price check: the same for every guide in the list."""
    try:
        house = pricing_selectors.house_provider()
    except Provider.DoesNotExist:
        return None
    return pricing_selectors.latest_check_dates().get(house.slug)
