"""A forgotten password, reset by email: Django's views in the admin's look, for staff only.

The link is built from ``SITE_URL``, never the request's Host. Throttled twice: an address asks
at most ``ADDRESS_LIMIT`` times an hour (then 429), and an account gets at most one mail per
``ACCOUNT_INTERVAL``. Both count in the database (``accounts.models``), which a reset needs
anyway, so that with Redis down it still mails whom it should and refuses whom it should.
"""

import math
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import ResetMail, ResetRequest
from gpuguide.lib.client_address import client_ip

ADDRESS_LIMIT = 5  # requests from one address per ADDRESS_WINDOW
ADDRESS_WINDOW = timedelta(hours=1)
ACCOUNT_INTERVAL = timedelta(minutes=15)  # between two mails to one account


def address_wait(address: str, now: datetime | None = None) -> int:
    """Seconds before ``address`` may ask for a reset (0: now, and this request is counted; a
    refused one is not, so refusals do not lengthen the wait)."""
    now = now or timezone.now()
    ResetRequest.objects.filter(asked_at__lte=now - ADDRESS_WINDOW).delete()
    recent = ResetRequest.objects.filter(address=address, asked_at__gt=now - ADDRESS_WINDOW)
    times = list(recent.order_by("-asked_at").values_list("asked_at", flat=True)[:ADDRESS_LIMIT])
    if len(times) == ADDRESS_LIMIT:  # free again when the oldest of these leaves the window
        return max(1, math.ceil((times[-1] + ADDRESS_WINDOW - now).total_seconds()))
    ResetRequest.objects.create(address=address, asked_at=now)
    return 0


def claim(marks, user, interval: timedelta, now: datetime | None = None) -> bool:
    """Whether ``user`` may be mailed now, marking them mailed in ``marks`` if so: once per
    ``interval``. One statement decides, so of two requests at once only one mails."""
    now = now or timezone.now()
    earlier = marks.objects.filter(user=user, mailed_at__lte=now - interval)
    if earlier.update(mailed_at=now):
        return True
    _mail, created = marks.objects.get_or_create(user=user, defaults={"mailed_at": now})
    return created


class StaffPasswordResetForm(PasswordResetForm):
    """Mails only active staff, at most once per ``ACCOUNT_INTERVAL`` each (a reset or a
    sign-in link: one count for both)."""

    def get_users(self, email):
        for user in super().get_users(email):
            if user.is_staff and claim(ResetMail, user, ACCOUNT_INTERVAL):
                yield user

    def save(self, **kwargs):
        site = urlsplit(settings.SITE_URL)
        kwargs.update(domain_override=site.netloc, use_https=site.scheme == "https")
        extra = kwargs.get("extra_email_context") or {}
        kwargs["extra_email_context"] = {"site_name": settings.SITE_NAME, **extra}
        super().save(**kwargs)


class _AdminLook:
    """The admin's header and title on Django's password-reset pages."""

    def get_context_data(self, **kwargs):
        return {**admin.site.each_context(self.request), **super().get_context_data(**kwargs)}


class ResetRequestView(_AdminLook, auth_views.PasswordResetView):
    form_class = StaffPasswordResetForm
    too_many = _("Too many password-reset requests from your address: try again in an hour.")

    def post(self, request, *args, **kwargs):
        wait = address_wait(client_ip(request))
        if not wait:
            return super().post(request, *args, **kwargs)
        form = self.get_form()
        form.errors.setdefault("email", form.error_class()).append(self.too_many)  # nothing mailed
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(wait)
        return response


class ResetConfirmView(_AdminLook, auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


class ResetDoneView(_AdminLook, auth_views.PasswordResetDoneView):
    pass


class ResetCompleteView(_AdminLook, auth_views.PasswordResetCompleteView):
    pass


# Under the admin's path; the names are those Django's admin templates look for.
urlpatterns = [
    path("password-reset/", ResetRequestView.as_view(), name="admin_password_reset"),
    path("password-reset/sent/", ResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        ResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("password-reset/done/", ResetCompleteView.as_view(), name="password_reset_complete"),
]
