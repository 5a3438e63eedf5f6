"""A forgotten password, reset by email: Django's views in the admin's look, for staff only.

The link in the mail is built from ``SITE_URL`` (never the request's Host header, which the
visitor chooses). Throttled twice: an address asks at most ``ADDRESS_LIMIT`` times an hour
(then 429), and an account gets at most one mail per ``ACCOUNT_INTERVAL`` whoever asks, so the
form cannot be used to flood a mailbox. The page after asking is the same whether an account
matched or not. A new password also forgets the account's failed sign-ins.
"""

from urllib.parse import urlsplit

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.core.cache import cache
from django.urls import path
from django.utils.translation import gettext_lazy as _

from gpuguide.lib import rate_limits
from gpuguide.lib.client_address import client_ip

ADDRESS_LIMIT = 5  # requests an hour from one address
ACCOUNT_INTERVAL = 15 * 60  # seconds between two mails to one account
TOO_MANY = _("Too many password-reset requests from your address: try again in an hour.")


class StaffPasswordResetForm(PasswordResetForm):
    """Mails only active staff, at most once per ``ACCOUNT_INTERVAL`` each."""

    def get_users(self, email):
        for user in super().get_users(email):
            if user.is_staff and cache.add(_mailed_key(user.pk), True, ACCOUNT_INTERVAL):
                yield user

    def save(self, **kwargs):
        site = urlsplit(settings.SITE_URL)
        kwargs.update(domain_override=site.netloc, use_https=site.scheme == "https")
        kwargs["extra_email_context"] = {"site_name": settings.SITE_NAME}
        super().save(**kwargs)


def _mailed_key(user_pk) -> str:
    return f"password-reset-mailed:{user_pk}"


class _AdminLook:
    """The admin's header and title on Django's password-reset pages."""

    def get_context_data(self, **kwargs):
        return {**admin.site.each_context(self.request), **super().get_context_data(**kwargs)}


class ResetRequestView(_AdminLook, auth_views.PasswordResetView):
    form_class = StaffPasswordResetForm

    def post(self, request, *args, **kwargs):
        asked = rate_limits.count("password-reset", client_ip(request), window=3600)
        if asked.number <= ADDRESS_LIMIT:
            return super().post(request, *args, **kwargs)
        form = self.get_form()
        form.errors.setdefault("email", form.error_class()).append(TOO_MANY)  # nothing mailed
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(asked.window_left)
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
