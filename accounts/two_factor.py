"""Who must, and who may, sign in with a second factor (TOTP from an authenticator app)."""

from django.conf import settings
from django_otp import user_has_device

from accounts.roles import ADMINISTRATORS


def must_set_up(user) -> bool:
    """An Administrator (or superuser) without a device, where the setting requires one."""
    return (
        settings.REQUIRE_2FA_FOR_ADMINISTRATORS
        and (user.is_superuser or user.groups.filter(name=ADMINISTRATORS).exists())
        and not user_has_device(user)
    )


def second_factor_ok(user) -> bool:
    """Signed in with a code if the user has a device; set up if the setting requires it."""
    if user_has_device(user):
        return user.is_verified()
    return not must_set_up(user)
