"""For GuideAdmin: editors who see each other. Who else has the form open (``presence``), the
beat that keeps them listed, and what a merged or conflicting save tells the editor
(``merging``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from guides.admin import merging, presence
from guides.models import Guide


class CoeditingAdminMixin:
    """Records who opens the change form, serves its beat, says what a merge did and shows
    both texts of a conflict (see ``presence`` and ``merging``)."""

    def get_urls(self):
        view = self.admin_site.admin_view  # staff only, CSRF-checked
        return [
            path("<path:object_id>/open/", view(require_POST(self.presence_view)),
                 name="guides_guide_presence"),
            *super().get_urls(),
        ]  # fmt: skip

    def presence_view(self, request, object_id):
        """The form's beat (and, with ``leave``, its goodbye); answers who else is there."""
        guide = self.get_object(request, unquote(object_id))
        if guide is None:
            raise Http404
        if not self.has_change_permission(request, guide):
            raise PermissionDenied
        if "leave" in request.POST:
            presence.left(guide.pk, request.user)
        else:
            presence.opened(guide.pk, request.user)
        return JsonResponse({"others": presence.notices(guide.pk, request.user)})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        response = super().changeform_view(request, object_id, form_url, extra_context)
        guide = getattr(response, "context_data", {}).get("original") if object_id else None
        if request.method == "POST" and response.status_code == 302 and object_id:
            presence.left(unquote(object_id), request.user)  # saved: no longer editing
            merged = getattr(request, "_merged_message", None)
            if merged:
                self.message_user(request, merged, messages.INFO)
        elif request.method == "GET" and guide is not None and self._may_edit(request, guide):
            presence.opened(guide.pk, request.user)
        return response

    def _may_edit(self, request, guide: Guide) -> bool:
        return self.has_change_permission(request, guide)

    def save_related(self, request, form, formsets, change: bool) -> None:
        # Said before this save is stored: the newest revision is still the other editor's.
        if change:
            forms_seen = merging.all_forms(form, formsets)
            request._merged_message = merging.merged_message(form.instance.pk, forms_seen)
        super().save_related(request, form, formsets, change)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk:
            context["others_editing"] = presence.notices(obj.pk, request.user)
            context["presence_url"] = reverse("admin:guides_guide_presence", args=[obj.pk])
            context["presence_beat_ms"] = presence.BEAT_SECONDS * 1000
            form = context["adminform"].form
            formsets = [inline.formset for inline in context.get("inline_admin_formsets", [])]
            conflicts = merging.conflicts_of(merging.all_forms(form, formsets))
            merging.move_started_on(form, conflicts)
            context["edit_conflicts"] = conflicts
        return super().render_change_form(request, context, add, change, form_url, obj)
