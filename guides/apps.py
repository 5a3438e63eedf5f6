from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GuidesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "guides"
    verbose_name = _("Guides")

    def ready(self) -> None:
        # Imported here, not at the top: Django imports this module before the models exist.
        from django.apps import apps
        from django.db.models.signals import m2m_changed, post_delete, post_save

        from gpuguide.lib import deploy_checks  # noqa: F401 (registers `check --deploy`'s own)
        from gpuguide.lib.metrics import register_scrape_collector
        from guides import checks  # noqa: F401 (registers `check --database`'s own)

        # Imported for what they register: the token kinds; guides with django-reversion; the
        # fonts' check; the translation bases' and the task queue's signal receivers.
        from guides.background import tasks  # noqa: F401
        from guides.content.tokens import kinds, serving_kinds  # noqa: F401
        from guides.editorial import revisions, share_images, translating  # noqa: F401
        from guides.editorial.shared_changes import MOVED_BY, answer_shared_change
        from guides.editorial.where_used import INDEXED, refuse_deleting_used
        from guides.metrics import COLLECTOR
        from guides.pagecache.invalidation import note_sources_changed, note_write
        from pricing.signals import deletion_requested, shared_data_changing

        # The gauges /metrics reads from the database when scraped (task queue, price checks).
        register_scrape_collector(COLLECTOR)

        # Every write to content or prices makes the cached pages that read it stale.
        for app_label in ("guides", "pricing"):
            for model in apps.get_app_config(app_label).get_models():
                if model._meta.model_name in {"contentversion", "guiderevision", "shareimage"}:
                    continue
                post_save.connect(note_write, sender=model, weak=False)
                post_delete.connect(note_write, sender=model, weak=False)
        # Nothing that guides use can be deleted, from the admin or from the shell.
        for model in INDEXED:
            deletion_requested.connect(refuse_deleting_used, sender=model, weak=False)
        # An edit of shared data that moves published figures is saved only once confirmed.
        for model in MOVED_BY:
            shared_data_changing.connect(answer_shared_change, sender=model, weak=False)
        guide = apps.get_model("guides", "Guide")
        m2m_changed.connect(note_sources_changed, sender=guide.sources.through, weak=False)
