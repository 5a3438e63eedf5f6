"""The guide admin's translation pages: English beside German or Japanese, field by field,
and translators' files out and back in (the work is done by guides.editorial.translating)."""

from __future__ import annotations

import base64
import binascii

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guides import permissions
from guides.admin.prose import draft_saved_message
from guides.editorial import translating
from guides.editorial.translating import TextField, translation_url
from guides.models import Guide

CONFIRM_PREFIX = "confirm:"


class TranslationForm(forms.Form):
    """One target text per field (named by its key), and for each field whose English changed
    a box to say the translation still fits; ``version`` as in the guide form."""

    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, fields: list[TextField], language: str, stale, version: int,
                 **kwargs) -> None:  # fmt: skip
        super().__init__(*args, initial={"version": version}, **kwargs)
        self.text_fields = fields
        for f in fields:
            attrs = {"lang": language, "aria-describedby": f"{f.anchor}-source"}
            widget = (
                forms.TextInput(attrs={**attrs, "size": 80})
                if f.one_line
                else forms.Textarea(attrs={**attrs, "rows": max(3, len(f.texts["en"]) // 50 + 1)})
            )
            self.fields[f.key] = forms.CharField(
                label=f"{f.where}: {f.label}", required=False, strip=False, widget=widget,
                initial=f.texts[language],
            )  # fmt: skip
            if f.key in stale and not stale[f.key].untranslated:
                self.fields[CONFIRM_PREFIX + f.key] = forms.BooleanField(
                    label=_("The translation still fits the new English"), required=False
                )

    def texts(self) -> dict[str, str]:
        return {f.key: self.cleaned_data[f.key] for f in self.text_fields}

    def confirmed(self) -> list[str]:
        return [f.key for f in self.text_fields if self.cleaned_data.get(CONFIRM_PREFIX + f.key)]


class TranslationImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("File to import (Markdown or XLIFF)"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ".md,.xlf,.xliff,.xml"}),
    )
    # After a dry run, the file it checked travels back with "Apply" (base64: bytes as sent).
    content = forms.CharField(widget=forms.HiddenInput, required=False)
    filename = forms.CharField(widget=forms.HiddenInput, required=False)

    def clean(self) -> dict:
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload:
            cleaned["data"] = upload.read(translating.MAX_IMPORT_BYTES + 1)
            cleaned["filename"] = upload.name
        elif cleaned.get("content"):
            try:
                cleaned["data"] = base64.b64decode(cleaned["content"], validate=True)
            except (binascii.Error, ValueError):
                raise forms.ValidationError(_("Choose the file again.")) from None
        else:
            raise forms.ValidationError(_("Choose a file to import."))
        return cleaned


def translation_links(guide: Guide, user, but: str = "") -> list[tuple[str, str]]:
    """(URL, language name) of the guide's translation view in each language ``user`` may
    translate into, ``but`` one."""
    return [
        (translation_url(guide, code), translating.language_name(code))
        for code in translating.target_languages()
        if code != but and permissions.may_translate(user, code)
    ]


class TranslationAdminMixin:
    """For GuideAdmin: the translation view, the export and the import."""

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<path:object_id>/translate/<str:language>/", view(self.translation_view),
                 name="guides_guide_translate"),
            path("<path:object_id>/translate/<str:language>/export/<str:fmt>/",
                 view(self.translation_export_view), name="guides_guide_translation_export"),
            path("<path:object_id>/translate/<str:language>/import/",
                 view(self.translation_import_view), name="guides_guide_translation_import"),
            *super().get_urls(),
        ]  # fmt: skip

    def _guide_to_translate(self, request, object_id, language: str) -> Guide:
        """The guide, where ``request.user`` may see it and translate it into ``language``."""
        guide = self._guide_for(request, object_id)
        if language not in translating.target_languages():
            raise Http404(_("Translations are into German or Japanese."))
        if not permissions.may_translate(request.user, language):
            raise permissions.NotAllowed(
                _("You may not translate this guide into %(language)s.")
                % {"language": translating.language_name(language)}
            )
        return guide

    def _translation_context(self, request, guide: Guide, language: str) -> dict:
        return {
            "guide": guide,
            "language": language,
            "language_name": translating.language_name(language),
            "other_languages": translation_links(guide, request.user, but=language),
            "exports": [
                (
                    reverse(
                        "admin:guides_guide_translation_export", args=[guide.pk, language, fmt]
                    ),
                    name,
                )
                for fmt, name in translating.FORMATS.items()
            ],
            "import_url": reverse(
                "admin:guides_guide_translation_import", args=[guide.pk, language]
            ),
            "can_change": permissions.may_translate(request.user, language),
            "working_copy": translating.working_copy_of(guide),
            "import_form": TranslationImportForm(),
        }

    def translation_view(self, request, object_id, language):
        guide = self._guide_to_translate(request, object_id, language)
        fields = translating.text_fields(guide)
        stale = translating.stale_fields(fields, language, translating.bases_of(guide, language))
        changed_only = "changed" in request.GET
        shown = [f for f in fields if f.key in stale] if changed_only else fields
        form = TranslationForm(
            request.POST if request.method == "POST" else None,
            fields=shown, language=language, stale=stale, version=guide.version,
        )  # fmt: skip
        if form.is_bound and form.is_valid():
            try:
                saved = translating.translation_save(
                    guide, language=language, texts=form.texts(), confirmed=form.confirmed(),
                    version=form.cleaned_data["version"], user=request.user,
                    comment=_("Translation (%(language)s) saved") % {"language": language},
                )  # fmt: skip
            except translating.TranslationRefused as refused:
                for problem in refused.problems:
                    form.add_error(problem.field.key, problem.message)
            except translating.TranslationConflict as conflict:
                form.add_error(None, str(conflict))
            else:
                self._say_saved(request, guide, saved, confirmed=bool(form.confirmed()))
                return redirect(request.get_full_path())
        rows = [
            {
                "field": f,
                "target": form[f.key],
                "stale": stale.get(f.key),
                "confirm": (
                    form[CONFIRM_PREFIX + f.key]
                    if f.key in stale and not stale[f.key].untranslated
                    else None
                ),
            }
            for f in shown
        ]
        return self._render(
            request,
            "translate.html",
            {
                **self._translation_context(request, guide, language),
                "title": _("Translate “%(title)s” into %(language)s")
                % {"title": guide.title, "language": translating.language_name(language)},
                "form": form,
                "rows": rows,
                "stale_count": len(stale),
                "changed_only": changed_only,
                "all_url": translation_url(guide, language),
                "changed_url": translation_url(guide, language, changed_only=True),
            },
        )

    def _say_saved(self, request, guide: Guide, saved, *, confirmed: bool = False) -> None:
        if saved.revision is None and confirmed:
            said = _("Marked as still fitting the new English."), messages.SUCCESS
        elif saved.revision is None:
            said = _("Nothing was changed."), messages.INFO
        elif not saved.working_copy:
            number = saved.revision.pk
            said = _("Saved as revision %(number)s.") % {"number": number}, messages.SUCCESS
        else:
            said = draft_saved_message(guide, saved.revision, saved.problems)
        self.message_user(request, *said)

    def translation_export_view(self, request, object_id, language, fmt):
        guide = self._guide_to_translate(request, object_id, language)
        if fmt == "md":
            try:
                body, content_type = translating.markdown_export(guide, language), "text/markdown"
            except translating.TranslationFileError as refused:
                self.message_user(request, str(refused), messages.ERROR)
                return redirect(translation_url(guide, language))
        elif fmt == "xliff":
            body, content_type = translating.xliff_export(guide, language), "application/xliff+xml"
        else:
            raise Http404
        response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
        name = translating.export_filename(guide, language, fmt)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    def translation_import_view(self, request, object_id, language):
        guide = self._guide_to_translate(request, object_id, language)
        if request.method != "POST":
            return redirect(translation_url(guide, language))
        form = TranslationImportForm(request.POST, request.FILES)
        result = None
        if form.is_valid():
            apply = "apply" in request.POST
            try:
                result = translating.translation_import(
                    guide, language=language, data=form.cleaned_data["data"],
                    filename=form.cleaned_data.get("filename") or "", user=request.user,
                    dry_run=not apply,
                )  # fmt: skip
            except translating.TranslationFileError as refused:
                form.add_error("file", str(refused))
            except translating.TranslationConflict as conflict:
                form.add_error(None, str(conflict))
            else:
                if result.saved is not None:
                    self._say_saved(request, guide, result.saved)
                    return redirect(translation_url(guide, language))
                form = TranslationImportForm(
                    initial={
                        "content": base64.b64encode(form.cleaned_data["data"]).decode(),
                        "filename": form.cleaned_data.get("filename") or "",
                    }
                )
        return self._render(
            request,
            "translation_import.html",
            {
                **self._translation_context(request, guide, language),
                "title": _("Import a %(language)s translation of “%(title)s”")
                % {"title": guide.title, "language": translating.language_name(language)},
                "form": form,
                "result": result,
                "back_url": translation_url(guide, language),
            },
        )
