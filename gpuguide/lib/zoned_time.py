"""A moment as an editor reads it in the admin: the date and time in the site's time zone, in
the admin language's format, with the zone named, so that "09:00" is never a guess."""

from datetime import datetime

from django.utils import formats, timezone


def zoned(when: datetime) -> str:
    """``Dec. 3, 2026, 9 a.m. (Europe/Berlin)``; ``2026年12月3日9:00 (UTC)`` in Japanese."""
    local = formats.date_format(timezone.localtime(when), "DATETIME_FORMAT")
    return f"{local} ({timezone.get_current_timezone_name()})"
