"""The background tasks (django-tasks; `manage.py db_worker` runs them): re-renders of the pages
a write affected, front-cache purges, share images, review mails, schedules. The page cache and
the editorial code only announce what they want (their ``signals``); the receivers at the end
of this module queue the tasks.
"""

from __future__ import annotations

import io
import logging
from datetime import timedelta
from urllib.parse import SplitResult, unquote_to_bytes, urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.handlers.wsgi import WSGIRequest
from django.core.mail import send_mass_mail
from django.db import DatabaseError
from django.dispatch import receiver
from django.http import Http404
from django.urls import resolve, reverse
from django.utils import timezone, translation
from django_tasks import task

from gpuguide.lib import front_cache
from guides.background import signals as background_signals
from guides.background.task_queue import PURGES
from guides.editorial import notices, publishing, share_images
from guides.editorial import signals as editorial_signals
from guides.editorial.share_images import draw_for_guide
from guides.models import Guide, Review
from guides.pagecache import http
from guides.pagecache import signals as pagecache_signals
from guides.pagecache.versions import checked_once
from guides.pages import selectors as guide_selectors
from guides.pages import tutorial

logger = logging.getLogger(__name__)


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
                    (language, reverse("guides:tutorial", kwargs={"slug": guide.slug}))
                    for guide in guides
                    if tutorial.has_tutorial(guide)
                ),
                *(
                    (language, reverse("guides:compare", kwargs={"first": a, "second": b}))
                    for a, b in comparisons
                ),
            ]
    return paths


def _visitor_request(site: SplitResult, full_path: str) -> WSGIRequest:
    """A GET of ``full_path`` as an anonymous visitor at SITE_URL would send it."""
    path, _, query = full_path.partition("?")
    secure = site.scheme == "https"
    # PATH_INFO as WSGI servers give it: percent-decoded, bytes as latin-1 (Django's reading).
    path = unquote_to_bytes(path).decode("iso-8859-1")
    request = WSGIRequest(
        {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "HTTP_HOST": site.netloc,
            "SERVER_NAME": site.hostname or "",
            "SERVER_PORT": str(site.port or (443 if secure else 80)),
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": site.scheme,
            "wsgi.input": io.BytesIO(),
        }
    )
    request.user = AnonymousUser()
    return request


def render_as_visitor(paths: list[str]) -> int:
    """Render each path as an anonymous visitor at SITE_URL would ask for it, by calling its
    view in the page's language: the view's page cache stores the body (``http.refreshing``).
    Without the middleware, so a public page may read no session, messages or CSRF token.
    Returns how many pages were rendered; a database outage stops the round."""
    site = urlsplit(settings.SITE_URL)
    rendered = 0
    with http.refreshing():
        for position, full_path in enumerate(paths):
            request = _visitor_request(site, full_path)
            language = translation.get_language_from_path(request.path_info)
            try:
                # In the page's language first: the URL patterns match its prefix only.
                with translation.override(language or settings.LANGUAGE_CODE), checked_once():
                    request.LANGUAGE_CODE = translation.get_language()
                    match = request.resolver_match = resolve(request.path_info)
                    response = match.func(request, *match.args, **match.kwargs)
                    if hasattr(response, "render"):
                        response.render()
            except Http404:
                continue  # gone since it was listed (unpublished, renamed)
            except DatabaseError:
                left = len(paths) - position
                logger.warning("database unavailable: %d pages left to render again", left)
                break
            except Exception:
                logger.exception("could not render %s again", full_path)
                continue
            rendered += 1
    return rendered


@task()
def refresh_affected_pages(tags: list[str]) -> int:
    """After a write: render again every listed page that read data under ``tags``, or that
    is not cached at all, so that no visitor pays the first render."""
    stale = [
        path
        for language, path in canonical_paths()
        if not http.page_is_current(language, path, tags)
    ]
    rendered = render_as_visitor(stale)
    # Again, now that the pages are rendered: a visit whose render began before the write and
    # ended after the first purge may have left an older page in the front cache meanwhile.
    front_cache.purge(tags)
    return rendered


# On a queue of its own, with a worker of its own (`db_worker --queue-name purges`): a front
# cache serves the pages a write changed until they are purged, so a purge must not wait
# behind the re-renders of the previous write.
@task(queue_name=PURGES)
def purge_front_cache(tags: list[str]) -> int:
    """After a write: drop the front cache's copies of the pages under ``tags`` (how many
    purge requests were confirmed; a purge not confirmed fails the task, on the dashboard)."""
    return front_cache.purge(tags)


@task()
def draw_share_images(guide_id: int) -> list[str]:
    """A guide was published: draw its link-preview image in each language (the languages)."""
    guide = Guide.objects.select_related("language_model").filter(pk=guide_id).first()
    return [] if guide is None else draw_for_guide(guide)


@task()
def draw_missing_share_image(guide_id: int, language: str) -> bool:
    """A visitor asked for a share image not drawn yet: draw it (whether one was drawn; not
    for a guide unpublished since, nor an image drawn meanwhile, nor a language without font)."""
    guide = Guide.objects.published().select_related("language_model").filter(pk=guide_id).first()
    if guide is None or guide.share_images.filter(language=language).exists():
        return False
    return share_images.draw_image(guide, language) is not None


@task()
def send_review_notice(review_id: int, language: str) -> int:
    """A review was submitted or decided: mail whom it concerns, one mail each (their addresses
    are not shown to each other). Returns how many were sent."""
    reviews = Review.objects.select_related("guide", "submitted_by", "decided_by")
    review = reviews.filter(pk=review_id).first()
    notice = None if review is None else notices.review_notice(review, language)
    if notice is None:
        return 0
    mails = [(notice.subject, notice.body, None, [to]) for to in notice.recipients]
    return send_mass_mail(mails)


@task()
def apply_scheduled_changes() -> list[str]:
    """A scheduled time came: publish the revisions due and take expired guides offline (what
    is due when this runs; a schedule changed since leaves nothing to do)."""
    return publishing.apply_due_changes()


# --- what the page cache and the editors ask for ------------------------------------------


@receiver(pagecache_signals.pages_stale, dispatch_uid="refresh_affected_pages")
def _queue_affected_pages(sender, tags: list[str], **_kwargs) -> None:
    if not front_cache.enabled():
        refresh_affected_pages.enqueue(tags=tags)
        return
    # Behind a front cache the purge sends the next visitor of each page to the app at once,
    # and that visit renders it. The refresh, which renders every affected page in every
    # language, comes a little later, for the pages nobody asked for: at once, it took the CPU
    # those visits need (the time until every page showed a price check doubled). A second
    # purge a second on drops what a visit that began before the write stored after the first.
    now = timezone.now()
    purge_front_cache.enqueue(tags=tags)
    purge_front_cache.using(run_after=now + timedelta(seconds=1)).enqueue(tags=tags)
    later = now + timedelta(seconds=settings.REFRESH_AFTER_PURGE_SECONDS)
    refresh_affected_pages.using(run_after=later).enqueue(tags=tags)


@receiver(editorial_signals.guide_published, dispatch_uid="draw_share_images")
def _queue_share_images(sender, guide_id: int, **_kwargs) -> None:
    draw_share_images.enqueue(guide_id=guide_id)


@receiver(editorial_signals.schedule_set, dispatch_uid="apply_scheduled_changes")
def _queue_scheduled_changes(sender, times: list, **_kwargs) -> None:
    for when in times:
        apply_scheduled_changes.using(run_after=when).enqueue()


@receiver(editorial_signals.review_changed, dispatch_uid="send_review_notice")
def _queue_review_notice(sender, review_id: int, language: str, **_kwargs) -> None:
    send_review_notice.enqueue(review_id=review_id, language=language)


# Once per guide and language in this time, however many visitors ask meanwhile: the queue gets
# one task, not one per request (a task that finds the image drawn does nothing).
SHARE_IMAGE_ASKED_SECONDS = 10 * 60


@receiver(background_signals.share_image_missing, dispatch_uid="draw_missing_share_image")
def _queue_missing_share_image(sender, guide_id: int, language: str, **_kwargs) -> None:
    if cache.add(f"share-image-asked:{guide_id}:{language}", True, SHARE_IMAGE_ASKED_SECONDS):
        draw_missing_share_image.enqueue(guide_id=guide_id, language=language)
