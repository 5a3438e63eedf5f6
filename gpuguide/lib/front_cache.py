"""A cache in front of the app servers (``FRONT_CACHE``): what it may keep, and its purges.

A public page carries its cache tags (``gpuguide.lib.cache_tags``) and how long it may be kept
in the headers the front cache reads: Varnish's ``xkey`` (deploy/varnish.vcl), Fastly's
``Surrogate-Key`` or Cloudflare's ``Cache-Tag``. After a write commits, the task worker purges
exactly the tags it touched: a ``PURGE`` to every Varnish, or the CDN's API.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection

from django.conf import settings
from django.http import HttpResponse

logger = logging.getLogger(__name__)

VARNISH, FASTLY, CLOUDFLARE = "varnish", "fastly", "cloudflare"
# Fastly takes at most 256 keys a request, Cloudflare 30 tags: larger purges go in batches.
BATCH = {VARNISH: 256, FASTLY: 256, CLOUDFLARE: 30}
TIMEOUT = 5.0  # seconds per purge request
RETRY_WAITS = (0.5, 2.0)  # seconds before the second and third attempt


class PurgeFailed(Exception):
    """A front cache did not confirm a purge, after retrying: its copies of the pages under
    these tags may be stale until they expire at midnight or the next purge of a tag."""


def enabled() -> bool:
    return bool(settings.FRONT_CACHE)


def mark_cacheable(response: HttpResponse, tags: Collection[str], max_age: int) -> None:
    """Let the front cache keep ``response`` for ``max_age`` seconds under ``tags``."""
    kind = settings.FRONT_CACHE
    if not kind:
        return
    tags = sorted(tags)
    if kind == CLOUDFLARE:
        response["Cache-Tag"] = ",".join(tags)
        response["CDN-Cache-Control"] = f"max-age={max_age}"
        return
    response["xkey" if kind == VARNISH else "Surrogate-Key"] = " ".join(tags)
    response["Surrogate-Control"] = f"max-age={max_age}"


def purge(tags: Collection[str], *, sleep: Callable[[float], None] = time.sleep) -> int:
    """Drop every page the front cache keeps under any of ``tags``; how many purge requests
    were confirmed. Raises ``PurgeFailed`` naming those that were not, after three tries each."""
    kind = settings.FRONT_CACHE
    if not kind or not tags:
        return 0
    tags = sorted(set(tags))
    batches = [tags[n : n + BATCH[kind]] for n in range(0, len(tags), BATCH[kind])]
    requests = [request for batch in batches for request in _purge_requests(kind, batch)]
    failures = []
    for request in requests:
        error = _send(request, sleep)
        if error:
            failures.append(f"{request.get_method()} {request.full_url}: {error}")
    if failures:
        raise PurgeFailed(f"purge of {', '.join(tags)} not confirmed: " + "; ".join(failures))
    return len(requests)


def _purge_requests(kind: str, tags: list[str]) -> list[urllib.request.Request]:
    if kind == VARNISH:
        keys = " ".join(tags)
        return [
            urllib.request.Request(url, method="PURGE", headers={"xkey-purge": keys})
            for url in settings.FRONT_CACHE_PURGE_URLS
        ]
    if kind == FASTLY:
        url = f"{settings.FASTLY_API_URL}/service/{settings.FASTLY_SERVICE_ID}/purge"
        headers = {"Fastly-Key": settings.FASTLY_API_TOKEN, "Surrogate-Key": " ".join(tags)}
        return [urllib.request.Request(url, method="POST", headers=headers)]
    url = f"{settings.CLOUDFLARE_API_URL}/zones/{settings.CLOUDFLARE_ZONE_ID}/purge_cache"
    headers = {
        "Authorization": f"Bearer {settings.CLOUDFLARE_API_TOKEN}",
        "Content-Type": "application/json",
    }
    body = json.dumps({"tags": tags}).encode()
    return [urllib.request.Request(url, data=body, method="POST", headers=headers)]


def _send(request: urllib.request.Request, sleep: Callable[[float], None]) -> str:
    """ "" once the front cache answered 2xx; else the last error, after three attempts."""
    error = ""
    for wait in (0.0, *RETRY_WAITS):
        if wait:
            sleep(wait)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310
                answer.read()
                return ""
        except urllib.error.HTTPError as refused:
            error = f"{refused.code} {refused.reason}"
        except (urllib.error.URLError, OSError) as unreachable:
            error = str(getattr(unreachable, "reason", unreachable))
        logger.warning("front cache purge %s failed: %s", request.full_url, error)
    return error
