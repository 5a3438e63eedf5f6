"""Who else has a guide's form open: "Ada has opened this guide (10:02)".

One entry per guide in the default cache (Redis in production, so every app server sees every
editor), never in the database. The form's script (``static/js/guide-coediting.js``) beats every
``BEAT_SECONDS`` and says goodbye on leaving; an editor not heard from for ``OPEN_FOR`` (a
closed laptop sends no goodbye) is no longer listed. A beat that loses a race is listed again
by its next one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from babel.dates import format_skeleton
from django.core.cache import cache
from django.http import JsonResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import get_language, to_locale
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

OPEN_FOR = timedelta(minutes=20)
BEAT_SECONDS = 60


def short_time(when: datetime) -> str:
    """``10:02`` in the site's time zone, in the editor's language's format."""
    return format_skeleton("Hm", timezone.localtime(when), locale=to_locale(get_language() or "en"))


def _key(guide_id) -> str:
    return f"guide-open:{guide_id}"


def _fresh(entries: dict, now: datetime) -> dict:
    cutoff = (now - OPEN_FOR).timestamp()
    return {uid: entry for uid, entry in entries.items() if entry["seen"] >= cutoff}


def opened(guide_id, user) -> None:
    """``user`` has the guide's form open (on opening it, and on each beat). The time it was
    opened stays that of the first opening while the editor is still listed."""
    now = timezone.now()
    entries = _fresh(cache.get(_key(guide_id)) or {}, now)
    earlier = entries.get(str(user.pk))
    entries[str(user.pk)] = {
        "name": user.get_full_name() or user.get_username(),
        "opened": earlier["opened"] if earlier else now.timestamp(),
        "seen": now.timestamp(),
    }
    cache.set(_key(guide_id), entries, timeout=int(OPEN_FOR.total_seconds()))


def left(guide_id, user) -> None:
    """``user`` closed the form, went elsewhere, or saved."""
    entries = cache.get(_key(guide_id)) or {}
    if entries.pop(str(user.pk), None) is not None:
        cache.set(_key(guide_id), entries, timeout=int(OPEN_FOR.total_seconds()))


def notices(guide_id, user) -> list[str]:
    """A line per other editor, first opened first: "Ada has opened this guide (10:02)"."""
    entries = _fresh(cache.get(_key(guide_id)) or {}, timezone.now())
    others = [entry for uid, entry in entries.items() if uid != str(user.pk)]
    return [
        _("%(name)s has opened this guide (%(time)s)")
        % {
            "name": entry["name"],
            "time": short_time(datetime.fromtimestamp(entry["opened"], tz=UTC)),
        }
        for entry in sorted(others, key=lambda entry: entry["opened"])
    ]


def presence_context(guide, user) -> dict:
    """What the change form needs to list who else has it open, and to keep its beat."""
    return {
        "others_editing": notices(guide.pk, user),
        "presence_url": reverse("admin:guides_guide_presence", args=[guide.pk]),
        "presence_beat_ms": BEAT_SECONDS * 1000,
    }


class CoeditingAdminMixin:
    """For GuideAdmin: serves the change form's beat, and with ``leave`` its goodbye."""

    def get_urls(self):
        view = self.admin_site.admin_view  # staff only, CSRF-checked
        return [
            path("<path:object_id>/open/", view(require_POST(self.presence_view)),
                 name="guides_guide_presence"),
            *super().get_urls(),
        ]  # fmt: skip

    def presence_view(self, request, object_id):
        guide = self._guide_for(request, object_id, change=True)
        if "leave" in request.POST:
            left(guide.pk, request.user)
        else:
            opened(guide.pk, request.user)
        return JsonResponse({"others": notices(guide.pk, request.user)})
