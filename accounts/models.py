"""What the mail throttles count, kept in the database: a cache that is down reads as empty
(with Redis down, 0 of 8 staff asking for a reset got a mail, each told it was sent).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone


class ResetRequest(models.Model):
    """A password-reset request that was answered, by address; kept an hour."""

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
