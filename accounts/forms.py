from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django_otp import devices_for_user, user_has_device

TOKEN_REQUIRED = _("Enter the six-digit code from your authenticator app.")
TOKEN_INVALID = _("That code is not valid (or was already used). Try the next one.")


def _token_field() -> forms.CharField:
    return forms.CharField(
        label=_("Authentication code"),
        required=False,
        max_length=6,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "pattern": "[0-9]*"}
        ),
    )


def _accepting(devices, token: str | None):
    """The first of ``devices`` that accepts ``token`` (each throttles its failures), or the
    form's error."""
    token = (token or "").strip()
    if not token:
        raise forms.ValidationError(TOKEN_REQUIRED, code="token_required")
    with transaction.atomic():  # devices_for_user(for_verify=True) locks the devices' rows
        for device in devices:
            if device.verify_token(token):
                return device
    raise forms.ValidationError(TOKEN_INVALID, code="invalid_token")


class AdminLoginForm(AdminAuthenticationForm):
    """Password, then a code from the user's authenticator app if they have set one up (the
    device left on the user marks the session verified, through django-otp's login receiver)."""

    otp_token = _token_field()

    def clean(self):
        cleaned = super().clean()  # the password (and django-axes' lockout) first
        user = self.get_user()
        if user is not None and user_has_device(user):
            devices = devices_for_user(user, for_verify=True)
            user.otp_device = _accepting(devices, cleaned.get("otp_token"))
        return cleaned


class TokenForm(forms.Form):
    """The first code from a new device, which proves it was scanned correctly."""

    otp_token = _token_field()

    def __init__(self, *args, device, **kwargs):
        super().__init__(*args, **kwargs)
        self.device = device

    def clean_otp_token(self):
        _accepting([self.device], self.cleaned_data["otp_token"])
        return self.cleaned_data["otp_token"].strip()


class SignInLinkForm(forms.Form):
    """The button on a mailed sign-in link's page, and the code from the user's authenticator
    app if they have set one up (the link replaces the password, never the second factor)."""

    otp_token = _token_field()

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.device = None
        if not user_has_device(user):
            del self.fields["otp_token"]

    def clean(self):
        cleaned = super().clean()
        if "otp_token" in self.fields:
            devices = devices_for_user(self.user, for_verify=True)
            self.device = _accepting(devices, cleaned.get("otp_token"))
        return cleaned
