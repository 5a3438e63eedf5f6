"""Background re-rendering of cached pages, on Django's task framework (the django-tasks
backport; its database backend in production, run by `manage.py db_worker`).

No visitor waits for these: after a write commits, the pages it affected are rendered again
here while visitors get the previous version. The page cache and the editorial code only
announce what they want (``guides.pagecache.signals``, ``guides.editorial.signals``); the
receivers at the end of this module queue the tasks.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.dispatch import receiver
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django_tasks import task

from guides.editorial import dashboard
from guides.editorial import signals as editorial_signals
from guides.editorial.share_images import draw_for_guide
from guides.models import Guide
from guides.pagecache import http
from guides.pagecache import signals as pagecache_signals
from guides.pages import selectors as guide_selectors


def canonical_paths() -> list[tuple[str, str]]:
    """(language, path) of every page the sitemap lists, without query parameters."""
    comparisons = guide_selectors.published_comparison_pairs()
    guides = guide_selectors.published_guides()
    paths = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            paths += [
                (language, reverse("guides:index")),
                (language, reverse("guides:gpus")),
                (language, reverse("guides:vram")),
                *((language, guide.get_absolute_url()) for guide in guides),
                *(
                    (language, reverse("guides:compare", kwargs={"first": a, "second": b}))
                    for a, b in comparisons
                ),
            ]
    return paths


def _render(paths: list[str]) -> int:
    """Render each path through the whole stack, as a visitor at SITE_URL would ask for it."""
    site = urlsplit(settings.SITE_URL)
    client = Client(HTTP_HOST=site.netloc, raise_request_exception=False)
    with http.refreshing():
        for path in paths:
            client.get(path, secure=site.scheme == "https")
    return len(paths)


@task()
def refresh_pages(paths: list[str]) -> int:
    """Render these pages again and store them (a stale page a visitor was just served)."""
    return _render(paths)


@task()
def refresh_affected_pages(tags: list[str]) -> int:
    """After a write: render again every listed page that read data under ``tags``, or that
    is not cached at all, so that no visitor pays the first render."""
    stale = [
        path
        for language, path in canonical_paths()
        if not http.page_is_current(language, path, tags)
    ]
    rendered = _render(stale)
    dashboard.warm_cache()  # the admin index's warnings, computed before the next visit
    return rendered


@task()
def draw_share_images(guide_id: int) -> list[str]:
    """A guide was published: draw its link-preview image in each language (the languages)."""
    guide = Guide.objects.select_related("language_model").filter(pk=guide_id).first()
    return [] if guide is None else draw_for_guide(guide)


# --- what the page cache and the editors ask for ------------------------------------------


@receiver(pagecache_signals.pages_stale, dispatch_uid="refresh_affected_pages")
def _queue_affected_pages(sender, tags: list[str], **_kwargs) -> None:
    refresh_affected_pages.enqueue(tags=tags)


@receiver(pagecache_signals.refresh_wanted, dispatch_uid="refresh_pages")
def _queue_page(sender, path: str, **_kwargs) -> None:
    refresh_pages.enqueue(paths=[path])


@receiver(editorial_signals.guide_published, dispatch_uid="draw_share_images")
def _queue_share_images(sender, guide_id: int, **_kwargs) -> None:
    draw_share_images.enqueue(guide_id=guide_id)
