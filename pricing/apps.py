from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PricingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pricing"
    verbose_name = _("GPUs and pricing")

    def ready(self) -> None:
        from pricing import cache_tags, signals  # noqa: F401 - they register tags and receivers
