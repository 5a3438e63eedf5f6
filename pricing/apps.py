from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PricingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pricing"
    verbose_name = _("GPUs and pricing")

    def ready(self) -> None:
        # Imported here, not at the top: Django imports this module before the models exist.
        from django.db.models.signals import post_save, pre_save

        from pricing import cache_tags, signals  # noqa: F401 - cache_tags registers its tags
        from pricing.models import Price, PriceCheck

        pre_save.connect(signals.fill_price_from_check, sender=Price, weak=False)
        post_save.connect(signals.copy_check_to_prices, sender=PriceCheck, weak=False)
