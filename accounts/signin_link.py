"""A way in under attack: a one-time sign-in link by email, and a mail saying an account is
under attack.

An attack from rotating addresses slows an account in every browser but the one it last signed
in from (``throttling``); the link is the way into a new one. It goes through the password
reset's mail and throttles, lives 15 minutes and dies when used (the token hashes
``last_login``). Opening it signs nobody in (mail scanners fetch links): a button on its page
does, asking for the authenticator app's code where the user has one.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model, login
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.db.models import Count, Sum
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import path, reverse, reverse_lazy
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.http import base36_to_int, urlsafe_base64_decode
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.generic import FormView, TemplateView

from accounts import throttling
from accounts.forms import SignInLinkForm
from accounts.models import AttackMail
from accounts.password_reset import ACCOUNT_INTERVAL, ResetRequestView, _AdminLook, claim
from accounts.two_factor import must_set_up

LINK_LIFETIME = timedelta(minutes=15)
ATTACK_MAIL_INTERVAL = timedelta(hours=1)  # between two attack mails to one account
BACKEND = "django.contrib.auth.backends.ModelBackend"


def _minutes(interval: timedelta) -> int:
    return int(interval.total_seconds() // 60)


class SignInTokenGenerator(PasswordResetTokenGenerator):
    """Django's reset token, salted for sign-in and refused after ``LINK_LIFETIME``."""

    key_salt = "accounts.signin_link.SignInTokenGenerator"

    def check_token(self, user, token) -> bool:
        if not super().check_token(user, token):
            return False
        made = base36_to_int(token.split("-")[0])  # parsed by super() already
        return self._num_seconds(self._now()) - made <= LINK_LIFETIME.total_seconds()


signin_tokens = SignInTokenGenerator()


# --- Asking for a link ----------------------------------------------------------------------


class SignInLinkRequestView(ResetRequestView):
    """The reset's request page, throttles and mail, with a sign-in link in the mail."""

    template_name = "accounts/signin_link_form.html"
    email_template_name = "accounts/signin_link_email.html"
    subject_template_name = "accounts/signin_link_subject.html"
    token_generator = signin_tokens
    success_url = reverse_lazy("signin_link_sent")
    title = _("Email me a sign-in link")
    too_many = _("Too many sign-in link requests from your address: try again in an hour.")
    extra_context = {"minutes": _minutes(LINK_LIFETIME)}
    extra_email_context = {"minutes": _minutes(LINK_LIFETIME)}


class SignInLinkSentView(_AdminLook, TemplateView):
    template_name = "accounts/signin_link_sent.html"
    extra_context = {"title": _("Sign-in link sent"), "minutes": _minutes(ACCOUNT_INTERVAL)}


# --- Using it -------------------------------------------------------------------------------


def _staff_member(uidb64: str):
    """The active staff account ``uidb64`` names, or None."""
    users = get_user_model()._default_manager
    try:
        user = users.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError, users.model.DoesNotExist):
        return None
    return user if user.is_active and user.is_staff else None


@method_decorator(never_cache, name="dispatch")
class SignInLinkView(_AdminLook, FormView):
    """GET: what the link does and a button; POST: the token again, the code where the user has
    a device, then signed in."""

    template_name = "accounts/signin_link_confirm.html"
    form_class = SignInLinkForm
    extra_context = {"title": _("Sign in by email link")}

    def dispatch(self, request, *args, uidb64: str, token: str, **kwargs):
        self.user = _staff_member(uidb64)
        if self.user is None or not signin_tokens.check_token(self.user, token):
            context = {
                **admin.site.each_context(request),
                "title": _("Sign-in link not valid"),
                "minutes": _minutes(LINK_LIFETIME),
            }
            return render(request, "accounts/signin_link_invalid.html", context, status=400)
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "user": self.user}

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "username": self.user.get_username()}

    def form_valid(self, form):
        user = self.user
        if form.device is not None:
            user.otp_device = form.device  # django-otp's login receiver verifies the session
        login(self.request, user, backend=BACKEND)  # sets last_login: the link is now dead
        target = "admin:two_factor" if must_set_up(user) else "admin:index"
        response = HttpResponseRedirect(reverse(target))
        throttling.remember_browser(response, user.get_username())
        return response


# --- Telling an account it is under attack --------------------------------------------------


def mail_if_attacked(username: str, now: datetime | None = None) -> bool:
    """After a failed sign-in: mail the account's staff member if its recent failures (from every
    address) reach ``SIGNIN_SLOWDOWN_AFTER``, once per ``ATTACK_MAIL_INTERVAL``; whether sent."""
    now = now or timezone.now()
    attempts = throttling.recent_failures(now).filter(username=username)
    seen = attempts.aggregate(
        failures=Sum("failures_since_start"), addresses=Count("ip_address", distinct=True)
    )
    if (seen["failures"] or 0) < settings.SIGNIN_SLOWDOWN_AFTER:
        return False
    users = get_user_model()._default_manager
    user = users.filter(
        **{users.model.USERNAME_FIELD: username}, is_active=True, is_staff=True
    ).first()
    if user is None or not user.email or not claim(AttackMail, user, ATTACK_MAIL_INTERVAL, now):
        return False
    context = {
        "username": user.get_username(),
        "site_name": settings.SITE_NAME,
        "failures": seen["failures"],
        "addresses": seen["addresses"],
        "minutes": _minutes(settings.AXES_COOLOFF_TIME),
        "link_page": settings.SITE_URL + reverse("admin_signin_link"),
    }
    subject = gettext("Failed sign-ins to your account on %(site_name)s") % context
    body = render_to_string("accounts/attack_mail.html", context)
    send_mail(subject, body, None, [user.email])
    return True


# Under the admin's path, before the admin's own paths.
urlpatterns = [
    path("sign-in-link/", SignInLinkRequestView.as_view(), name="admin_signin_link"),
    path("sign-in-link/sent/", SignInLinkSentView.as_view(), name="signin_link_sent"),
    path("sign-in-link/<uidb64>/<token>/", SignInLinkView.as_view(), name="signin_link_confirm"),
]
