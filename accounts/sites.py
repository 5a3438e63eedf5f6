from django.contrib import admin
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from accounts import manual, signin_link, throttling, views
from accounts.forms import AdminLoginForm
from accounts.two_factor import must_set_up, second_factor_ok


class AdminSite(admin.AdminSite):
    """The admin, where a user with an authenticator app must also have entered its code, and
    an Administrator without one (``REQUIRE_2FA_FOR_ADMINISTRATORS``) must set it up first."""

    site_header = _("GPU Guide administration")
    site_title = _("GPU Guide admin")
    index_title = _("Guides, prices and sources")
    login_form = AdminLoginForm
    login_template = "admin/otp_login.html"

    def has_permission(self, request) -> bool:
        return super().has_permission(request) and second_factor_ok(request.user)

    def login(self, request, extra_context=None):
        user = request.user
        if request.method == "GET" and user.is_active and user.is_staff and must_set_up(user):
            return HttpResponseRedirect(reverse("admin:two_factor", current_app=self.name))
        posted = request.POST.get("username", "") if request.method == "POST" else ""
        username = throttling.account_name(posted)
        if username and (wait := throttling.signin_wait(request, username)):
            return throttling.slowed_response(request, wait)  # the password is not checked
        response = super().login(request, extra_context)
        if username and request.user.is_authenticated:  # signed in just now
            throttling.remember_browser(response, request.user.get_username())
        elif username:  # refused: a wrong password or code, or a locked pair
            signin_link.mail_if_attacked(username)
        return response

    def get_app_list(self, request, app_label=None):
        """Guides first: what editors open most; the other apps in their usual order."""
        apps = super().get_app_list(request, app_label)
        return sorted(apps, key=lambda app: app["app_label"] != "guides")

    def get_urls(self):
        return [
            path("two-factor/", views.two_factor_setup, {"site": self}, name="two_factor"),
            path("manual/", self.admin_view(manual.manual), {"site": self}, name="manual"),
            path(
                "manual/editing/<slug:name>.png",
                self.admin_view(manual.screenshot),
                name="manual_screenshot",
            ),
            *super().get_urls(),
        ]
