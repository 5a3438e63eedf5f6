"""What the password-reset throttles count, kept in the database rather than the cache.

The shared cache (Redis) may be down, and a cache that is down reads as empty: a throttle
counted there counts nothing, and a mark "mailed moments ago" kept there is never found, or
(django-redis ignoring the error) never taken, so that no mail was sent at all (found
2026-12-06: with Redis down, 0 of 8 staff asking for a reset got a mail, and each was told it
was sent). Sign-in's own throttles read django-axes' rows, which are in the database already.
The mark "told of an attack" (``AttackMail``) is kept here for the same reason.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone


class ResetRequest(models.Model):
    """A password-reset request that was answered (refused ones are not kept), by address;
    kept an hour, the address limit's window."""

    address = models.GenericIPAddressField()
    asked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["address", "asked_at"])]

    def __str__(self) -> str:
        return f"{self.address} at {self.asked_at:%Y-%m-%d %H:%M:%S}"


class ResetMail(models.Model):
    """When an account was last sent a password-reset mail (one row per account)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    mailed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id} mailed at {self.mailed_at:%Y-%m-%d %H:%M:%S}"


class AttackMail(models.Model):
    """When an account was last told by mail that it is under attack (one row per account)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    mailed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id} told of an attack at {self.mailed_at:%Y-%m-%d %H:%M:%S}"
