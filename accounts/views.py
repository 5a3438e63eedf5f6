"""Setting up a second factor: scan a QR code into an authenticator app, confirm one code."""

from base64 import b32encode

import qrcode
import qrcode.image.svg
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django_otp import login as otp_login
from django_otp import user_has_device
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.forms import TokenForm


def qr_svg(text: str) -> str:
    """``text`` as an inline SVG QR code (drawn here: no request leaves the server)."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    return image.to_string(encoding="unicode")


@never_cache
@csrf_protect
def two_factor_setup(request, site):
    user = request.user
    if not (user.is_active and user.is_staff):
        return redirect_to_login(request.get_full_path(), "admin:login")
    context = {**site.each_context(request), "title": _("Two-factor sign-in")}
    if user_has_device(user):
        if not user.is_verified():
            return redirect_to_login(request.get_full_path(), "admin:login")
        return TemplateResponse(request, "admin/two_factor.html", context | {"enabled": True})
    device, _created = TOTPDevice.objects.get_or_create(
        user=user, confirmed=False, defaults={"name": "authenticator"}
    )
    form = TokenForm(request.POST or None, device=device)
    if request.method == "POST" and form.is_valid():
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        otp_login(request, device)  # this session has just proved the code
        messages.success(
            request, _("Two-factor sign-in is on: enter a code each time you sign in.")
        )
        return redirect("admin:index")
    return TemplateResponse(
        request,
        "admin/two_factor.html",
        context
        | {
            "form": form,
            "qr_code": mark_safe(qr_svg(device.config_url)),  # noqa: S308 (our own SVG)
            "secret": b32encode(device.bin_key).decode(),
        },
    )
