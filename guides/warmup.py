"""Warm a fresh process before its first visitor (gunicorn's ``post_worker_init`` calls
``warm_up``, see deploy/gunicorn.conf.py).

A new worker pays on its first requests for everything Django and the site load lazily: the
URLconf with every view, the admin and the API (imported on the first URL resolved), each
language's translation catalogue (read from disk when it is first activated), every template
(compiled on its first use, then kept by the cached loader), Babel's locale data and the
Japanese phrase parser, the version tokens, and the reference reads every page makes
(providers, methods, hour blocks, facts, the legal pages) in the worker's own memory. Its
first index visit made 17 queries and took several times a warm render. ``warm_up`` loads all
of it beforehand: the URLconf, every language's catalogue, the public pages' templates, and
the index in each language rendered as the task worker renders pages after a write (in the
page cache's refresh mode: stored, so the first visitor is served from the cache, with the
reads primed on the way).

It must never keep a worker from starting: a database that is down, or anything else that
fails, is logged and skipped (the pages then render on their first visits, as without it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError
from django.template.loader import get_template
from django.urls import resolve, reverse
from django.utils import translation

from guides import tasks
from guides.pagecache import versions

logger = logging.getLogger(__name__)

# The folders (under the project's templates/) of the templates public pages use; the admin's
# and the accounts' are compiled when staff first need them.
PUBLIC_TEMPLATE_FOLDERS = ("", "includes", "guides", "guides/includes")


def warm_up() -> None:
    """Load what a fresh process's first visits would otherwise pay for (see the module's
    docstring). Never raises: a failing step is logged and the next one runs."""
    started = time.perf_counter()
    for step in (_load_urls, _load_catalogues, _compile_templates, _render_indexes):
        _run(step)
    # The connection it opened stays for the worker's requests (CONN_MAX_AGE closes it if
    # it has grown old by the first one): closing it here broke a caller's transaction.
    logger.info("warmed up in %.0f ms", (time.perf_counter() - started) * 1000)


def _run(step: Callable[[], None]) -> None:
    try:
        step()
    except DatabaseError as exc:
        logger.warning("warm-up: %s skipped, the database is unavailable (%s)", step.__name__, exc)
    except Exception:
        logger.exception("warm-up: %s failed", step.__name__)


def _load_urls() -> None:
    """The URLconf, and with it every view, the admin site and the API."""
    resolve(reverse("guides:index"))


def _load_catalogues() -> None:
    """Each language's translation catalogue (Django reads it on the first activation)."""
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Sources")


def _compile_templates() -> None:
    """The public pages' templates, into the cached loader (and their tag libraries)."""
    for template_dir in settings.TEMPLATES[0]["DIRS"]:
        for folder in PUBLIC_TEMPLATE_FOLDERS:
            for path in sorted((Path(template_dir) / folder).glob("*.html")):
                get_template(path.relative_to(template_dir).as_posix())


def _render_indexes() -> None:
    """The index in each language, rendered and stored as after a write (``guides.tasks``):
    it reads the version tokens, the reference data and the prices, and formats figures in
    every language."""
    if versions.current() is None:
        raise DatabaseError("the version tokens cannot be read")
    paths = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            paths.append(reverse("guides:index"))
    tasks.render_as_visitor(paths)  # logs what it could not render
