"""Warnings for the admin index: data that has gone stale, recommendations gone wrong, and
background tasks that failed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from gpuguide.lib import cache_tags
from gpuguide.lib.zoned_time import zoned
from guides import permissions
from guides.background.task_queue import PURGES, task_trouble
from guides.content.presentation import config_label, word_list
from guides.editorial import revisions
from guides.editorial.checks import guide_problems
from guides.editorial.translating import language_name, stale_translations, translation_url
from guides.models import Operator, Review
from guides.pagecache import tags as guide_tags
from guides.pagecache import versions
from guides.pages import reference_data
from guides.pages import selectors as guide_selectors
from guides.pages.assembly import guide_figures, page_figures
from pricing import cache_tags as pricing_tags
from pricing import selectors
from pricing.domain import calculations as calc
from pricing.models import Provider

STALE_PRICES = gettext_lazy(
    "%(provider)s prices were last checked %(when)s (more than %(days)s days ago)."
)
NO_PRICES = gettext_lazy("%(provider)s has no price check yet.")
STALE_SOURCE = gettext_lazy(
    "“%(source)s” was last read on %(when)s; re-read it and update the date."
)
STALE_TRANSLATION = gettext_lazy(
    "“%(guide)s”: the %(language)s text is missing or older than the English it translates: "
    "%(fields)s."
)
STALE_RECOMMENDATION = gettext_lazy(
    "“%(guide)s”: for %(method)s, a run on %(best)s now costs less than on the recommended "
    "%(recommended)s, and it fits."
)
UNREVIEWED_LEGAL_PAGE = gettext_lazy(
    "Before launch: the %(page)s has not been reviewed by the company, so visitors get a 404 "
    "and the footer does not link it."
)
INCOMPLETE_OPERATOR = gettext_lazy(
    "Before launch: the operator's details lack %(fields)s, so visitors get a 404 for the "
    "imprint, the privacy notice and the commercial-transactions notice, and the footer does "
    "not link them."
)
GOES_LIVE = gettext_lazy(
    "“%(guide)s”: revision %(number)s goes live at %(when)s (scheduled by %(who)s)."
)
EXPIRES = gettext_lazy(
    "“%(guide)s”: revision %(number)s expires at %(when)s (scheduled by %(who)s)."
)
TASK_WORKER = "manage.py db_worker"


@dataclass(frozen=True)
class DashboardWarning:
    message: str
    url: str
    language: str | None = None  # a translation's: shown to who may translate that language


def _months_ago(today: date, months: int) -> date:
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    return today.replace(year=year, month=month + 1, day=min(today.day, 28))


def stale_price_warnings(today: date, *, may_record: bool = True) -> list[DashboardWarning]:
    """Providers whose prices are older than ``PRICE_STALE_AFTER_DAYS``; each warning links to
    recording a check, or, for who may only read prices, to the provider's checks."""
    limit = today - timedelta(days=settings.PRICE_STALE_AFTER_DAYS)
    latest = selectors.latest_check_dates(at=today)
    warnings = []
    for provider in selectors.providers():
        last = latest.get(provider.slug)
        if last is None or last < limit:
            if may_record:
                url = reverse("admin:pricing_pricecheck_add") + f"?provider={provider.pk}"
            else:
                url = reverse("admin:pricing_pricecheck_changelist")
                url += f"?provider__id__exact={provider.pk}"
            message = (
                NO_PRICES % {"provider": provider.name}
                if last is None
                else STALE_PRICES
                % {
                    "provider": provider.name,
                    "when": formats.date_format(last, "DATE_FORMAT"),
                    "days": settings.PRICE_STALE_AFTER_DAYS,
                }
            )
            warnings.append(DashboardWarning(message, url))
    return warnings


def stale_source_warnings(today: date) -> list[DashboardWarning]:
    limit = _months_ago(today, settings.SOURCE_STALE_AFTER_MONTHS)
    return [
        DashboardWarning(
            STALE_SOURCE
            % {"source": source.title, "when": formats.date_format(source.read_on, "DATE_FORMAT")},
            reverse("admin:pricing_source_change", args=[source.pk]),
        )
        for source in selectors.sources_read_before(day=limit)
    ]


def stale_translation_warnings() -> list[DashboardWarning]:
    """Per guide and language, the fields whose English changed since their translation was
    saved, linked to those fields in the translation view."""
    return [
        DashboardWarning(
            STALE_TRANSLATION
            % {
                "guide": guide.title,
                "language": language_name(code),
                "fields": "; ".join(f"{f.where}: {f.label}" for f in fields),
            },
            f"{translation_url(guide, code, changed_only=True)}#{fields[0].anchor}",
            language=code,
        )
        for guide, code, fields in stale_translations()
    ]


def legal_page_warnings() -> list[DashboardWarning]:
    """The operator's details while incomplete, and each legal page the company has not
    reviewed: blockers before launch."""
    warnings = []
    if missing := guide_selectors.operator().missing_fields():
        warnings.append(
            DashboardWarning(
                INCOMPLETE_OPERATOR % {"fields": ", ".join(missing)},
                reverse("admin:guides_operator_change", args=[Operator.ONLY_PK]),
            )
        )
    return warnings + [
        DashboardWarning(
            UNREVIEWED_LEGAL_PAGE % {"page": page.get_kind_display()},
            reverse("admin:guides_legalpage_change", args=[page.pk]),
        )
        for page in guide_selectors.unreviewed_legal_pages()
    ]


def guide_check_warnings(today: date) -> list[DashboardWarning]:
    """Each published guide's problems as of today (a price change can make a sentence untrue),
    and each editor's recommendation that still fits but is no longer the cheapest."""
    guides = guide_selectors.published_guides_for_checking()
    if not guides:
        return []
    try:  # what every guide shares, read once: prices, methods, facts, measurements
        shared = page_figures(params_billion=Decimal(1), at=today)
    except Provider.DoesNotExist:
        return []  # nothing is priced before the house provider is set up
    throughputs = selectors.throughput_runs()
    # every GPU is listed at every provider (priced or not): their names, with no query
    gpu_names = frozenset(g.name for gpus in shared.listings.values() for g in gpus.values())
    pairs = set(guide_selectors.published_comparison_pairs())
    warnings = []
    for guide in guides:
        url = reverse("admin:guides_guide_change", args=[guide.pk])
        figures = guide_figures(guide, at=today, catalogue_figures=shared, throughputs=throughputs)
        problems = guide_problems(
            guide, gpu_names=gpu_names, figures=figures, published_pairs=pairs
        )
        warnings += [
            DashboardWarning(
                _("“%(guide)s” is published but no longer right: %(problem)s")
                % {"guide": guide.title, "problem": p},
                url,
            )
            for p in problems
        ]
        for method, override in figures.recommendations.items():
            runs = calc.ranked_runs(figures.runs(method))
            if not runs or runs[0].configuration == override[0]:
                continue
            # No warning where the model cannot tell the editor's run from the cheapest one.
            chosen = next((r for r in runs if r.configuration == override[0]), None)
            if chosen is not None and calc.cannot_tell_apart(runs[0], chosen):
                continue
            cheapest = runs[0].configuration
            warnings.append(
                DashboardWarning(
                    STALE_RECOMMENDATION
                    % {
                        "guide": guide.title,
                        "method": figures.method(method).name,
                        "best": config_label(cheapest.count, cheapest.gpu.name),
                        "recommended": config_label(override[0].count, override[0].gpu.name),
                    },
                    url,
                )
            )
    return warnings


@dataclass(frozen=True)
class Topic:
    key: str  # names its cached warnings
    title: str  # the heading above its warnings
    named: str  # how the "up to date" sentence names what it checked
    permission: str  # who may view that data sees the topic's warnings
    warnings: Callable[[], list[DashboardWarning]]


def _topics(today: date, *, may_record: bool) -> list[Topic]:
    return [
        Topic(
            "prices-record" if may_record else "prices-read",
            _("Prices"),
            _("prices"),
            "pricing.view_pricecheck",
            lambda: stale_price_warnings(today, may_record=may_record),
        ),
        Topic(
            "sources",
            _("Sources"),
            _("sources"),
            "pricing.view_source",
            lambda: stale_source_warnings(today),
        ),
        Topic(
            "translations",
            _("Translations"),
            _("translations"),
            "guides.view_guide",
            stale_translation_warnings,
        ),
        Topic(
            "legal",
            _("Legal pages"),
            _("legal pages"),
            "guides.view_legalpage",
            legal_page_warnings,
        ),
        Topic(
            "guides",
            _("Published guides"),
            _("published guides"),
            "guides.view_guide",
            lambda: guide_check_warnings(today),
        ),
    ]


def _checked(
    today: date | None, user, *, cached: bool = False
) -> list[tuple[Topic, list[DashboardWarning]]]:
    """Each topic whose data ``user`` may view (all without a user), with its warnings."""
    today = today or timezone.localdate()
    may_record = user is None or permissions.may_record_prices(user)
    topics = [
        topic
        for topic in _topics(today, may_record=may_record)
        if permissions.may_see(user, topic.permission)
    ]
    if not cached or not topics:
        found = [(topic, topic.warnings()) for topic in topics]
    else:
        current = versions.current_versions(_content_tags())
        found = [(topic, _cached_warnings(topic, today, current)) for topic in topics]
    return [(topic, _theirs(warnings, user)) for topic, warnings in found]


def _theirs(warnings: list[DashboardWarning], user) -> list[DashboardWarning]:
    """The warnings ``user`` can act on: a translator's own languages only."""
    return [
        warning
        for warning in warnings
        if user is None
        or warning.language is None
        or permissions.may_translate(user, warning.language)
    ]


CACHE_PREFIX = f"gpuguide:dashboard:{versions.CACHE_FORMAT}:"
CACHE_SECONDS = 24 * 60 * 60  # the key names the day; tomorrow's warnings are computed anew


def _content_tags() -> list[str]:
    """The tags of everything the warnings read: the shared data, the list of guides, each
    guide, and each provider's prices."""
    return [
        cache_tags.SITE,
        guide_tags.GUIDES,
        *(guide_tags.guide(pk) for pk in guide_selectors.guide_pks()),
        *(pricing_tags.prices(provider.pk) for provider in reference_data.providers()),
    ]


def _cached_warnings(
    topic: Topic, today: date, current: dict[str, str] | None
) -> list[DashboardWarning]:
    """The topic's warnings as computed under the current versions, today, in this language
    (the messages and links are translated); computed again after any write they read."""
    if current is None:  # the database is down: compute
        return topic.warnings()
    read_under = "|".join(f"{tag}={current[tag]}" for tag in sorted(current))
    limits = f"{settings.PRICE_STALE_AFTER_DAYS}:{settings.SOURCE_STALE_AFTER_MONTHS}"
    digest = hashlib.sha256(f"{today}:{limits}:{read_under}".encode()).hexdigest()
    key = f"{CACHE_PREFIX}{topic.key}:{get_language()}:{digest}"
    warnings = cache.get(key)
    if warnings is None:
        warnings = topic.warnings()
        cache.set(key, warnings, CACHE_SECONDS)
    return warnings


def _naming_command(message: str, command: str, **values) -> str:
    """A translated warning that names a shell command, as HTML: the command in ``<code>``,
    which the stylesheet keeps on one line (a browser breaks "--queue-name" at its hyphens)."""
    code = format_html('<code class="command">{}</code>', command)
    return mark_safe(conditional_escape(message) % {**values, "command": code})


def task_warnings(user=None, now=None) -> list[DashboardWarning]:
    """Background tasks failed in the last day, the latest error, and tasks running or waiting
    too long now; read on every visit (a task's row replaces no version)."""
    trouble = task_trouble(now)
    url = ""
    if permissions.may_see_tasks(user):
        url = reverse("admin:django_tasks_database_dbtaskresult_changelist")
    warnings = []
    if trouble.failed:
        failed = trouble.failed
        message = ngettext(
            "%(count)d background task failed in the last 24 hours.",
            "%(count)d background tasks failed in the last 24 hours.",
            failed,
        ) % {"count": failed}
        if trouble.stuck:
            stuck = ngettext(
                "%(count)d of them was stuck RUNNING: its worker stopped mid-run.",
                "%(count)d of them were stuck RUNNING: their worker stopped mid-run.",
                trouble.stuck,
            ) % {"count": trouble.stuck}
            # Two sentences in one line (Japanese joins them without a space).
            message = _("%(first)s %(second)s") % {"first": message, "second": stuck}
        warnings.append(DashboardWarning(message, url and f"{url}?status__exact=FAILED"))
    if trouble.latest_at is not None:
        message = _("The latest: %(task)s, failed at %(when)s: %(error)s") % {
            "task": trouble.latest_task,
            "when": zoned(trouble.latest_at),
            "error": trouble.latest_error,
        }
        warnings.append(DashboardWarning(message, url and f"{url}?status__exact=FAILED"))
    # Tasks that outlast the timeout, purges and other tasks that wait: is the worker running?
    waiting = trouble.waiting_too_long - trouble.purges_waiting
    for count, status, command, message in [
        (trouble.running_too_long, "RUNNING", TASK_WORKER, ngettext(
            "%(count)d background task has been RUNNING for more than %(seconds)d s: is "
            "the task worker (%(command)s) running?",
            "%(count)d background tasks have been RUNNING for more than %(seconds)d s: is "
            "the task worker (%(command)s) running?",
            trouble.running_too_long,
        )),
        (trouble.purges_waiting, "READY", f"{TASK_WORKER} --queue-name {PURGES}", ngettext(
            "%(count)d purge of the front cache has waited more than a minute: visitors "
            "may get pages from before the write. Is the purge worker (%(command)s) "
            "running?",
            "%(count)d purges of the front cache have waited more than a minute: visitors "
            "may get pages from before the write. Is the purge worker (%(command)s) "
            "running?",
            trouble.purges_waiting,
        )),
        (waiting, "READY", TASK_WORKER, ngettext(
            "%(count)d background task has waited more than a minute for a worker: is the "
            "task worker (%(command)s) running?",
            "%(count)d background tasks have waited more than a minute for a worker: is "
            "the task worker (%(command)s) running?",
            waiting,
        )),
    ]:  # fmt: skip
        if count > 0:
            message = _naming_command(
                message, command, count=count, seconds=settings.TASK_RUNNING_TIMEOUT
            )
            warnings.append(DashboardWarning(message, url and f"{url}?status__exact={status}"))
    return warnings


def scheduled_changes() -> list[DashboardWarning]:
    """Every pending go-live and expiry, soonest first; read on every visit (a schedule set
    replaces no version)."""
    scheduled = revisions.schedules()
    changes = [(r.go_live_at, r, GOES_LIVE) for r in scheduled.going_live]
    changes += [(r.expire_at, r, EXPIRES) for r in scheduled.expiring]
    return [
        DashboardWarning(
            message
            % {
                "guide": revision.guide.title,
                "number": revision.pk,
                "when": zoned(when),
                "who": revision.scheduled_by or "—",
            },
            reverse("admin:guides_guide_revisions", args=[revision.guide_id]),
        )
        for when, revision, message in sorted(changes, key=lambda change: change[0])
    ]


RECENT_DECISIONS = timedelta(days=14)


def _said(comment: str) -> str:
    return f": “{comment}”" if comment else ""


def review_lists(user, now=None) -> tuple[list[DashboardWarning], list[DashboardWarning]]:
    """What waits for ``user``'s review (where they may publish), and their own submissions,
    pending or decided in the last two weeks; read on every visit (two queries at most)."""
    now = now or timezone.now()
    reviews = Review.objects.select_related("guide", "submitted_by")

    def link(review) -> str:
        return reverse("admin:guides_guide_review", args=[review.guide_id, review.pk])

    waiting = []
    if permissions.may_publish(user):
        for review in reviews.filter(state=Review.State.PENDING).order_by("submitted_at"):
            message = _(
                "“%(guide)s”: revision %(number)s from %(who)s, submitted %(when)s%(comment)s"
            ) % {
                "guide": review.guide.title,
                "number": review.revision_id,
                "who": review.submitted_by or "—",
                "when": zoned(review.submitted_at),
                "comment": _said(review.comment),
            }
            waiting.append(DashboardWarning(message, link(review)))
    yours = []
    mine = reviews.filter(submitted_by=user).filter(
        Q(state=Review.State.PENDING) | Q(decided_at__gte=now - RECENT_DECISIONS)
    )
    for review in mine.order_by("-submitted_at")[:20]:
        message = _("“%(guide)s”: revision %(number)s is %(state)s%(comment)s") % {
            "guide": review.guide.title,
            "number": review.revision_id,
            "state": review.get_state_display(),
            "comment": _said(review.decision_comment),
        }
        yours.append(DashboardWarning(message, link(review)))
    return waiting, yours


@dataclass(frozen=True)
class Dashboard:
    warnings: dict[str, list[DashboardWarning]]  # only the topics with warnings
    up_to_date: str  # what was checked and found in order; "" where nothing was
    scheduled: list[DashboardWarning]  # go-lives and expiries to come
    waiting_for_review: list[DashboardWarning]  # for who may publish
    submitted: list[DashboardWarning]  # the user's own submissions, pending or just decided


def dashboard_for(user, today: date | None = None) -> Dashboard:
    """What the admin index tells ``user``: the warnings it may see, and a sentence naming
    only the topics that were checked for it and found in order, never any other."""
    checked = _checked(today, user, cached=True)
    warnings = {topic.title: found for topic, found in checked if found}
    if tasks := task_warnings(user):  # outside the cache: see task_warnings
        warnings[_("Background tasks")] = tasks
    fine = word_list(topic.named for topic, found in checked if not found)
    if not fine:
        sentence = ""
    elif warnings:
        sentence = _("Checked and up to date: %(topics)s.") % {"topics": fine}
    else:
        sentence = _("Nothing is stale: %(topics)s are up to date.") % {"topics": fine}
    sees_guides = permissions.may_see_guides(user)
    scheduled = scheduled_changes() if sees_guides else []
    waiting, submitted = review_lists(user) if sees_guides else ([], [])
    return Dashboard(warnings, sentence, scheduled, waiting, submitted)
