"""The guide's add and change pages, as Wagtail's edit view: the guide form and its inline
formsets on what the form edits (a ``revisions.Content``: a live guide's working copy, else its
rows), validated, then the use cases of ``guides.editorial.publishing`` called in sequence. The
page is Django's change form, built with the ModelAdmin's own form factories."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.utils import flatten_fieldsets, unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.forms.formsets import all_valid
from django.shortcuts import redirect
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html
from django.utils.translation import gettext as _

from gpuguide.lib.zoned_time import zoned
from guides import permissions
from guides.admin import families, merging, presence
from guides.admin.prose import (
    draft_saved_message,
    preview_links,
    say_cancelled,
    schedule_notes,
    token_picker_data,
)
from guides.admin.translation_views import translation_links
from guides.content.tokens.registry import KnownSlugs
from guides.editorial import families as guide_families
from guides.editorial import publishing, revisions
from guides.editorial.checks import problems_list
from guides.models import Guide, GuideRevision, Review
from guides.pages import selectors


@dataclass
class GuideEdit:
    """One request's edit of a guide: what its form edits and the forms that edit it."""

    guide: Guide | None  # as stored (None: a guide being added)
    content: revisions.Content  # what the forms edit, and hold once validated
    working_copy: bool  # a live guide's edit, kept as a draft revision
    known: KnownSlugs  # the slugs tokens may name, read at most once (lazily)
    fieldsets: list
    form: object
    formsets: list
    inlines: list

    @cached_property
    def draft(self) -> GuideRevision | None:
        return revisions.working_copy(self.guide) if self.working_copy else None

    @property
    def scheduled_draft(self) -> GuideRevision | None:
        """The working copy, where it is scheduled to go live."""
        draft = self.draft
        return draft if draft is not None and draft.go_live_at is not None else None

    def all_forms(self) -> list:
        return [self.form, *(form for formset in self.formsets for form in formset.forms)]

    def is_valid(self) -> bool:
        valid = self.form.is_valid()  # and every formset's, to show every error at once
        return all_valid(self.formsets) and valid

    def edited(self) -> revisions.Content:
        """The content as the validated forms changed it; rows that no form shows (added by
        another editor meanwhile) stay."""
        for formset in self.formsets:
            formset.save(commit=False)  # new, changed, deleted rows, for the History; no write
            deleted = {row.pk for row in formset.deleted_objects}
            kept = [row for row in self.content.rows[formset.model] if row.pk not in deleted]
            self.content.rows[formset.model] = kept + formset.new_objects
        return self.content


class GuideEditView:
    """For GuideAdmin: its add and change pages (Django's ``changeform_view``)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        guide = None
        if object_id is None:
            if not self.has_add_permission(request):
                raise PermissionDenied
        else:
            guide = self.get_object(request, unquote(object_id))  # None for "abc" too
            if request.method == "POST":
                allowed = self.has_change_permission(request, guide)
            else:
                allowed = self.has_view_or_change_permission(request, guide)
            if not allowed:
                raise PermissionDenied
            if guide is None:
                return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if request.method != "POST":
            edit = self._edit(request, guide, data=None)
            if guide is not None and self.has_change_permission(request, guide):
                presence.opened(guide.pk, request.user)
            return self._page(request, edit, form_url, extra_context)
        data = _normalised(request.POST)
        with transaction.atomic():
            edit = self._edit(request, guide, data)
            if edit.is_valid():
                if not (unasked := _publishes_scheduled_text_unasked(request, edit)):
                    return self._save(request, edit)
                self.message_user(request, unasked, messages.ERROR)  # nothing saved
        return self._page(request, edit, form_url, extra_context)

    def _edit(self, request, guide: Guide | None, data) -> GuideEdit:
        stale = False
        if guide is not None and data is not None:
            # Two saves of one guide wait here for each other: each merges with what it reads.
            guide = Guide.objects.select_for_update().get(pk=guide.pk)
            # Saved by someone else since this form was opened: each form merges with that save.
            stale = data.get("edited_version") != str(guide.version)
        live = guide is not None and guide.status == Guide.Status.PUBLISHED
        # Taking a live guide offline (its status set to draft) is written to its rows.
        working_copy = live and (data is None or data.get("status") != Guide.Status.DRAFT)
        if guide is None:
            content = revisions.Content(Guide())
        elif working_copy:
            content = revisions.editing_content(guide)
        else:
            content = revisions.rows_content(guide)
        known = SimpleLazyObject(selectors.token_slugs)
        marks, source = {}, ""
        if guide is not None and guide.source_id is not None:
            marks, source = guide_families.follow_marks(content), families.source_name(guide)
        fieldsets = families.with_notice(self.get_fieldsets(request, guide), guide)
        Form = self.get_form(
            request, guide, change=guide is not None, fields=flatten_fieldsets(fieldsets)
        )
        families.mark_fields(Form.base_fields, marks, Guide, 0, source)
        initial = {}
        if guide is not None and data is None:
            initial["started_from"] = merging.started_hashes(content, Form.base_fields)
        files = request.FILES if data is not None else None
        form = Form(data, files, instance=content.guide, initial=initial, token_slugs=known,
                    may_publish=permissions.may_publish(request.user),
                    saved_since_opened=stale)  # fmt: skip
        formsets, inlines = [], []
        for inline in self.get_inline_instances(request, guide):
            FormSet = inline.get_formset(request, guide)
            formsets.append(
                FormSet(
                    data,
                    files,
                    instance=content.guide,
                    rows=content.rows[inline.model],
                    prefix=FormSet.get_default_prefix(),
                    form_kwargs={"saved_since_opened": stale, "token_slugs": known},
                    family_marks=marks,
                    family_source=source,
                )
            )
            inlines.append(inline)
        return GuideEdit(guide, content, working_copy, known, fieldsets, form, formsets, inlines)

    def _save(self, request, edit: GuideEdit):
        added = edit.guide is None
        if edit.working_copy:
            publish = "_publish" in request.POST and permissions.may_publish(request.user)
        else:
            # A guide goes live only through publishing: "published" on its form asks for it.
            publish = edit.form.instance.status == Guide.Status.PUBLISHED
        # Said before this save is stored: the newest revision is still the other editor's.
        merged = None if added else merging.merged_message(edit.guide.pk, edit.all_forms())
        content = edit.edited()
        outcome = publishing.save_draft(
            content,
            user=request.user,
            comment=_("Draft saved"),
            publish=publish,
            known=edit.known,
            history=self.construct_change_message(request, edit.form, edit.formsets, added),
            added=added,
        )
        if edit.working_copy:
            response = redirect("admin:guides_guide_change", content.guide.pk)
        elif added:
            response = self.response_add(request, content.guide)
        else:
            response = self.response_change(request, content.guide)
        if merged:
            self.message_user(request, merged, messages.INFO)
        self._say_outcome(request, edit, outcome, publish)
        if "_submit" in request.POST and not outcome.published:
            self._submit(request, outcome.revision, request.POST.get("review_comment", ""))
        if not added:
            presence.left(content.guide.pk, request.user)  # saved: no longer editing
        return response

    def _say_outcome(self, request, edit: GuideEdit, outcome, publish: bool) -> None:
        if outcome.published:
            self.message_user(
                request,
                _("Published: the live page now shows revision %(number)s.")
                % {"number": outcome.revision.pk},
                messages.SUCCESS,
            )
            if scheduled := edit.scheduled_draft:
                self.message_user(
                    request,
                    _(
                        "It holds the text of revision %(number)s, which was scheduled to go "
                        "live at %(when)s: that text is live now, and its schedule is cancelled."
                    )
                    % {"number": scheduled.pk, "when": zoned(scheduled.go_live_at)},
                    messages.WARNING,
                )
        elif edit.working_copy:
            self.message_user(
                request, *draft_saved_message(edit.guide, outcome.revision, outcome.problems)
            )
        elif publish:
            message = _("Saved as a draft, not published: it fails its checks. Fix these:")
            self.message_user(
                request,
                format_html("{}{}", message, problems_list(outcome.problems)),
                messages.ERROR,
            )
        say_cancelled(self, request, outcome.cancelled)
        families.say_followed(self, request, outcome.followed)

    def _page(self, request, edit: GuideEdit, form_url: str, extra_context):
        guide, form = edit.guide, edit.form
        added = guide is None
        original = None if added else edit.content.guide  # a working copy: its title
        may_change = added or self.has_change_permission(request, guide)
        admin_form = helpers.AdminForm(
            form,
            list(edit.fieldsets),
            self.get_prepopulated_fields(request, guide) if may_change else {},
            self.get_readonly_fields(request, guide)
            if may_change
            else flatten_fieldsets(edit.fieldsets),
            model_admin=self,
        )
        inline_formsets = self.get_inline_formsets(request, edit.formsets, edit.inlines, guide)
        media = self.media + admin_form.media
        for inline_formset in inline_formsets:
            media += inline_formset.media
        title = _("Add %s") if added else _("Change %s") if may_change else _("View %s")
        context = {
            **self.admin_site.each_context(request),
            "title": title % self.opts.verbose_name,
            "subtitle": str(original) if original else None,
            "adminform": admin_form,
            "object_id": None if added else guide.pk,
            "original": original,
            "is_popup": IS_POPUP_VAR in request.POST or IS_POPUP_VAR in request.GET,
            "to_field": None,
            "media": media,
            "inline_admin_formsets": inline_formsets,
            "errors": helpers.AdminErrorList(form, edit.formsets),
            "preserved_filters": self.get_preserved_filters(request),
            "working_copy_mode": edit.working_copy,
            "may_publish": permissions.may_publish(request.user),
            "may_submit": permissions.may_submit(request.user),
            "token_picker": token_picker_data(),
        }
        if not added:
            conflicts = [c for form in edit.all_forms() for c in getattr(form, "conflicts", [])]
            merging.move_started_on(form, conflicts)  # sent again, it starts from theirs
            context |= {
                "edit_conflicts": conflicts,
                # whose text is beside each conflicting field: the save this one met
                "conflicts_saved": merging.last_save(guide.pk) if conflicts else None,
                "pending_review": Review.objects.filter(
                    guide=guide, state=Review.State.PENDING
                ).first(),
                "schedule_notes": schedule_notes(guide),
                "translation_links": translation_links(guide, request.user),
                **presence.presence_context(guide, request.user),
            }
        if edit.working_copy:
            draft = edit.draft
            context |= {
                "working_copy": draft,
                "preview_links": preview_links(guide, draft) if draft else [],
                "scheduled_draft": edit.scheduled_draft,
            }
            if scheduled := edit.scheduled_draft:
                context["scheduled_note"] = _("Revision %(number)s goes live at %(when)s.") % {
                    "number": scheduled.pk,
                    "when": zoned(scheduled.go_live_at),
                }
        context |= extra_context or {}
        return self.render_change_form(
            request, context, add=added, change=not added, form_url=form_url, obj=original
        )


def _publishes_scheduled_text_unasked(request, edit: GuideEdit) -> str:
    """Why "Save and publish" must ask first, or "": publishing a working copy scheduled to go
    live later would take its text live early."""
    scheduled = edit.scheduled_draft
    if scheduled is None or "_publish" not in request.POST:
        return ""
    # The box beside the button (submit_line.html): a tick for another schedule confirms nothing.
    if request.POST.get("publish_scheduled_now") == str(scheduled.pk):
        return ""
    return _(
        "Not saved: this form edits revision %(number)s, scheduled to go live at %(when)s. "
        "Publishing now takes its text live now, early. Tick “Publish its text now” beside "
        "the buttons and publish again, or save a draft to keep the schedule."
    ) % {"number": scheduled.pk, "when": zoned(scheduled.go_live_at)}


def _normalised(data):
    """The submitted form with CRLF line endings made LF (see revisions.normalise_newlines)."""
    data = data.copy()
    for key, values in data.lists():
        data.setlist(key, [revisions.normalise_newlines(v) for v in values])
    return data
