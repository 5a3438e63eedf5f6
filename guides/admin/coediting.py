"""For GuideAdmin: editors who see each other. Who else has the form open (``presence``) and
the beat that keeps them listed; the edit view (``edit_view``) opens and leaves, and says what
a merged or conflicting save did (``merging``)."""

from __future__ import annotations

from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from guides.admin import presence
from guides.models import Guide


class CoeditingAdminMixin:
    """Serves the change form's beat (see ``presence``)."""

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


def presence_context(guide: Guide, user) -> dict:
    """What the change form needs to list who else has it open, and to keep its beat."""
    return {
        "others_editing": presence.notices(guide.pk, user),
        "presence_url": reverse("admin:guides_guide_presence", args=[guide.pk]),
        "presence_beat_ms": presence.BEAT_SECONDS * 1000,
    }
