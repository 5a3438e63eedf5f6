"""What the privacy notice says the site processes, read from the settings and the code that
does it, so that the notice changes when they do (templates/guides/legal/privacy.html)."""

from datetime import timedelta

from django.conf import settings

from accounts.password_reset import ADDRESS_WINDOW
from accounts.throttling import KNOWN_BROWSER_COOKIE, KNOWN_BROWSER_DAYS
from gpuguide.lib.rate_limits import RATE_WINDOW_SECONDS

SECONDS_A_DAY = 24 * 3600


def facts() -> dict:
    return {
        "session_cookie": settings.SESSION_COOKIE_NAME,
        "session_days": settings.SESSION_COOKIE_AGE // SECONDS_A_DAY,
        "csrf_cookie": settings.CSRF_COOKIE_NAME,
        "known_browser_cookie": KNOWN_BROWSER_COOKIE,
        "known_browser_days": KNOWN_BROWSER_DAYS,
        "rate_window_seconds": RATE_WINDOW_SECONDS,
        "reset_address_hours": ADDRESS_WINDOW // timedelta(hours=1),
        "contact_email": settings.CONTACT_EMAIL,
    }
