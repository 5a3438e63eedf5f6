"""Who else has a guide's form open: "Ada has opened this guide (10:02)".

Kept in the default cache, never in the database: one entry per guide, a dict of the editors
who have its form open (when they opened it, when their tab last said so). The cache is the
shared Redis in production, so every app server sees every editor; in development it is each
process's own memory (locmem), which is enough for one ``runserver``.

Opening the change form records the editor; the form's script (``static/js/guide-presence.js``)
beats every ``BEAT_SECONDS`` to stay listed and says goodbye on leaving (``pagehide``, with
``navigator.sendBeacon``); a save removes the editor too. An editor not heard from for
``OPEN_FOR`` is no longer listed (a closed laptop sends no goodbye). Two beats may race on the
one entry; the loser is listed again by its next beat, a minute later.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from babel.dates import format_skeleton
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language, to_locale
from django.utils.translation import gettext as _

OPEN_FOR = timedelta(minutes=20)
BEAT_SECONDS = 60


@dataclass(frozen=True)
class Presence:
    user_id: int
    name: str
    opened: datetime


def short_time(when: datetime) -> str:
    """``10:02`` in the site's time zone, in the editor's language's format."""
    return format_skeleton("Hm", timezone.localtime(when), locale=to_locale(get_language() or "en"))


def display_name(user) -> str:
    return user.get_full_name() or user.get_username()


def _key(guide_id) -> str:
    return f"guide-open:{guide_id}"


def _fresh(entries: dict, now: datetime) -> dict:
    """The entries heard from within OPEN_FOR."""
    cutoff = (now - OPEN_FOR).timestamp()
    return {uid: entry for uid, entry in entries.items() if entry["seen"] >= cutoff}


def opened(guide_id, user) -> None:
    """``user`` has the guide's form open (on opening it, and on each beat). The time it was
    opened stays that of the first opening while the editor is still listed."""
    now = timezone.now()
    entries = _fresh(cache.get(_key(guide_id)) or {}, now)
    earlier = entries.get(str(user.pk))
    entries[str(user.pk)] = {
        "name": display_name(user),
        "opened": earlier["opened"] if earlier else now.timestamp(),
        "seen": now.timestamp(),
    }
    cache.set(_key(guide_id), entries, timeout=int(OPEN_FOR.total_seconds()))


def left(guide_id, user) -> None:
    """``user`` closed the form, went elsewhere, or saved."""
    entries = cache.get(_key(guide_id)) or {}
    if entries.pop(str(user.pk), None) is not None:
        cache.set(_key(guide_id), entries, timeout=int(OPEN_FOR.total_seconds()))


def others(guide_id, user) -> list[Presence]:
    """The other editors who have the guide open, first opened first (never ``user``)."""
    entries = _fresh(cache.get(_key(guide_id)) or {}, timezone.now())
    found = [
        Presence(int(uid), entry["name"], datetime.fromtimestamp(entry["opened"], tz=UTC))
        for uid, entry in entries.items()
        if uid != str(user.pk)
    ]
    return sorted(found, key=lambda presence: presence.opened)


def notices(guide_id, user) -> list[str]:
    """A line per other editor: "Ada has opened this guide (10:02)"."""
    return [
        _("%(name)s has opened this guide (%(time)s)")
        % {"name": presence.name, "time": short_time(presence.opened)}
        for presence in others(guide_id, user)
    ]
