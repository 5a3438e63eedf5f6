from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AccountsConfig(AppConfig):
    default = True
    name = "accounts"
    verbose_name = "Accounts and sign-in"


class AccountsAdminConfig(admin_apps.AdminConfig):
    """Django's admin with our site (sign-in with a second factor) as ``admin.site``."""

    default = False
    default_site = "accounts.sites.AdminSite"
