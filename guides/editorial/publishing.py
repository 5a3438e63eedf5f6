"""The one way a guide's content changes (docs/editing.md): a function per use case, each
checking, working in one transaction, writing an entry in the guide's History (LogEntry) and
announcing what it did (``signals``).

**A schedule cannot undo later work.** A revision scheduled before a later publication holds
older rows, so publishing or reverting cancels every other pending go-live of the guide, and
scheduling one cancels the guide's others: cancelled rather than refused, as whoever publishes
now decides what the page shows. An expiry stays with the page: a new live revision takes over
the expiry of the one it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from gpuguide.lib.zoned_time import zoned
from guides.editorial import families, revisions, signals
from guides.editorial.checks import guide_problems
from guides.models import Guide, GuideRevision, Review
from guides.pages import selectors
from guides.permissions import NotAllowed, may_publish, may_submit


class ScheduleRefused(ValueError):
    """A schedule that cannot be kept: the message says why, for the form."""


def _require_publisher(user) -> None:
    if not may_publish(user):
        raise NotAllowed(
            _("Only a reviewer publishes, schedules or reviews guides: submit it for review.")
        )


@dataclass
class Outcome:
    revision: GuideRevision | None  # the revision stored (a draft) or published
    problems: list = field(default_factory=list)  # the guide check's, where it failed
    published: bool = False
    cancelled: list[GuideRevision] = field(default_factory=list)  # go-lives this cancelled
    followed: list[families.Followed] = field(default_factory=list)  # clones it reached


# --- History -------------------------------------------------------------------------------


def _log(guide: Guide, user, message, *, added: bool = False, **words) -> None:
    """``message % words`` where words are given. Without a signed-in user (a command) there
    is no one to name, so none is written."""
    if user is None or not user.is_authenticated:
        return
    message = message % words if words else message
    LogEntry.objects.log_actions(
        user.pk, [guide], ADDITION if added else CHANGE, change_message=message, single_object=True
    )


def _cancel_go_lives(guide: Guide, cause: GuideRevision, *, user, because: str, but=None):
    """Clear the guide's pending go-lives (but ``but``'s) because of ``cause``, which
    ``because`` names as %(number)s."""
    because = because % {"number": cause.pk}
    pending = [r for r in revisions.pending_go_lives(guide) if but is None or r.pk != but.pk]
    if pending:
        GuideRevision.objects.filter(pk__in=[r.pk for r in pending]).update(go_live_at=None)
    for r in pending:
        message = _("Cancelled the go-live of revision %(number)s at %(when)s: %(because)s")
        _log(guide, user, message, number=r.pk, when=zoned(r.go_live_at), because=because)
    return pending


# --- saving a draft ------------------------------------------------------------------------


def save_draft(
    content: revisions.Content,
    *,
    user,
    comment: str,
    publish: bool = False,
    known=None,
    history=None,
    added: bool = False,
) -> Outcome:
    """Save ``content``, the guide and its rows as edited: a live guide's as its working copy
    (checked), any other's to its rows; published where ``publish`` asks and the check passes.
    ``history``: the History's message in place of the comment; ``added``: a new guide."""
    if publish:
        _require_publisher(user)
    guide = content.guide
    with transaction.atomic():
        working_copy = (
            guide.pk is not None
            and guide.status == Guide.Status.PUBLISHED
            and Guide.objects.select_for_update()
            .filter(pk=guide.pk, status=Guide.Status.PUBLISHED)
            .exists()
        )
        if working_copy:
            revisions.number_new_rows(content)
        else:
            guide.status = Guide.Status.DRAFT  # live only through publishing, checked once
            revisions.write(content)
        return _keep(content, working_copy=working_copy, user=user, comment=comment,
                     go_live=publish, known=known, history=history, added=added)  # fmt: skip


def _keep(
    content: revisions.Content, *, working_copy: bool, user, comment, go_live, known, history,
    added: bool = False,
) -> Outcome:  # fmt: skip
    guide = content.guide
    problems = []
    if working_copy or go_live:
        problems = guide_problems(content.page_guide(), known=known)
    if working_copy:
        revisions.ensure_baseline(guide)  # the live rows, before the first draft
    revision = revisions.store(revisions.snapshot(content), guide=guide, user=user, comment=comment)
    Guide.objects.filter(pk=guide.pk).update(version=F("version") + 1)
    _log(guide, user, comment if history is None else history, added=added)
    if go_live and not problems:
        return publish(revision, user=user, checked=True)
    return Outcome(revision, problems)


# --- publishing ----------------------------------------------------------------------------


def publish_rows(guide: Guide, *, user, comment: str, known=None) -> Outcome:
    """Publish a guide whose rows are its draft (a clone, a seeded guide) as they stand."""
    _require_publisher(user)
    with transaction.atomic():
        content = revisions.rows_content(guide)
        return _keep(content, working_copy=False, user=user, comment=comment, go_live=True,
                     known=known, history=None)  # fmt: skip


def publish(
    revision: GuideRevision, *, user, known=None, checked: bool = False, scheduled: bool = False
) -> Outcome:
    """Make ``revision`` live once the guide check passes; else nothing changes and the
    outcome holds the problems. ``checked``: the caller has just checked these very rows.
    ``scheduled``: the task worker carries out the schedule, set by whom the History names."""
    who = revision.scheduled_by if scheduled else user
    _require_publisher(None if scheduled else user)
    with transaction.atomic():
        was_live = Guide.objects.filter(
            pk=revision.guide_id, status=Guide.Status.PUBLISHED
        ).exists()
        last_published = revisions.live_revision(revision.guide)  # what the clones followed
        guide = revisions.apply(revision)
        guide.status = Guide.Status.PUBLISHED
        guide.version = F("version") + 1
        guide.save()
        if not checked:
            problems = guide_problems(
                selectors.guide_for_page(slug=guide.slug, include_drafts=True), known=known
            )
            if problems:
                transaction.set_rollback(True)
                return Outcome(revision, problems)
        replaced = revisions.live_revision(guide) if was_live else None
        expire_at = revision.expire_at
        if replaced is not None and replaced.pk != revision.pk and replaced.expire_at:
            expire_at = expire_at or replaced.expire_at  # the expiry stays with the page
            GuideRevision.objects.filter(pk=replaced.pk).update(expire_at=None)
        GuideRevision.objects.filter(pk=revision.pk).update(
            published_at=timezone.now(), published_by=user, go_live_at=None, expire_at=expire_at
        )
        message = (
            _("Published revision %(number)s as scheduled")
            if scheduled
            else _("Published revision %(number)s")
        )
        _log(guide, who, message, number=revision.pk)
        because = _("revision %(number)s was published after it was scheduled")
        cancelled = _cancel_go_lives(guide, revision, user=who, because=because)
        _close_reviews(guide, published=revision, user=who)
        # Each clone that still held the texts changed takes them (``families``), published on
        # a live clone at once: the text was reviewed once, on the source.
        followed = []
        for rows, taken in families.reach(guide, last_published, revision):
            followed += _follow(rows, guide, revision, taken, user=who)
        signals.announce_published(guide)
    return Outcome(revision, [], True, cancelled, followed)


def revert(revision: GuideRevision, *, user, known=None) -> Outcome:
    """A new draft holding what ``revision`` held; the guide's pending go-lives are cancelled."""
    with transaction.atomic():
        content = revisions.revision_content(revision)
        comment = _("Reverted to revision %(number)s") % {"number": revision.pk}
        outcome = save_draft(content, user=user, comment=comment, known=known)
        because = _("the guide was reverted to revision %(number)s after it was scheduled")
        outcome.cancelled = _cancel_go_lives(content.guide, revision, user=user, because=because)
    return outcome


# --- families: a published change reaches the clones that follow it ----------------------


def _follow(rows: revisions.Content, source: Guide, revision, changes, *, user):
    clone = rows.guide
    comment = families.history_message(source, revision, changes)
    working_copy = revisions.working_copy(clone)
    families.write(rows, changes)
    if clone.status != Guide.Status.PUBLISHED:
        save_draft(rows, user=user, comment=comment)
        return [families.Followed(clone, changes, published=False)]
    outcome = save_draft(rows, user=user, comment=comment, publish=True)
    if working_copy is not None:  # stored again on top of what went live, so it is not lost
        draft = revisions.revision_content(working_copy)
        families.write(draft, families.changes_followed(draft, changes))
        save_draft(draft, user=user, comment=families.carried_over_message(working_copy))
    followed = families.Followed(clone, changes, outcome.published, outcome.problems)
    return [followed, *outcome.followed]


# --- schedules -----------------------------------------------------------------------------


def schedule(
    revision: GuideRevision, *, go_live_at: datetime | None, expire_at: datetime | None, user
) -> list[GuideRevision]:
    """Set when ``revision`` goes live and expires (both None: cleared); the go-lives of the
    guide's other revisions it cancels are returned."""
    _require_publisher(user)
    if go_live_at is None and expire_at is None:
        unschedule(revision, user=user)
        return []
    guide = revision.guide
    live = revisions.online_revision(guide)
    if go_live_at is not None and live is not None and live.pk == revision.pk:
        raise ScheduleRefused(
            _("Revision %(number)s is live already: leave “Go live at” empty.")
            % {"number": revision.pk}
        )
    with transaction.atomic():
        cancelled = []
        if go_live_at is not None:
            because = _("revision %(number)s was scheduled in its place")
            cancelled = _cancel_go_lives(guide, revision, user=user, because=because, but=revision)
        GuideRevision.objects.filter(pk=revision.pk).update(
            go_live_at=go_live_at, expire_at=expire_at, scheduled_by=_user_or_none(user)
        )
        parts = []
        if go_live_at is not None:
            parts.append(_("goes live at %(when)s") % {"when": zoned(go_live_at)})
        if expire_at is not None:
            parts.append(_("expires at %(when)s") % {"when": zoned(expire_at)})
        message = _("Scheduled revision %(number)s: %(what)s")
        _log(guide, user, message, number=revision.pk, what="; ".join(parts))
        signals.announce_schedule([go_live_at, expire_at])
    return cancelled


def unschedule(revision: GuideRevision, *, user) -> None:
    _require_publisher(user)
    with transaction.atomic():
        GuideRevision.objects.filter(pk=revision.pk).update(go_live_at=None, expire_at=None)
        message = _("Cleared the schedule of revision %(number)s")
        _log(revision.guide, user, message, number=revision.pk)


def take_offline(guide: Guide, *, user, reason: str) -> None:
    with transaction.atomic():
        guide.status = Guide.Status.DRAFT
        guide.save(update_fields=["status", "updated_at"])
        GuideRevision.objects.filter(guide=guide, expire_at__isnull=False).update(expire_at=None)
        _log(guide, user, reason)


def apply_due_changes(now: datetime | None = None) -> list[str]:
    """Publish every revision whose time has come and take expired guides offline; what was
    done, a line each. One that fails its check has its schedule cleared, not to be retried."""
    now, scheduled = now or timezone.now(), revisions.schedules()
    done = []
    for revision in [r for r in scheduled.going_live if r.go_live_at <= now]:
        with transaction.atomic():
            # Another process may have carried it out since it was read: once is enough.
            locked = GuideRevision.objects.select_for_update().filter(
                pk=revision.pk, go_live_at=revision.go_live_at
            )
            if not locked.exists():
                continue
            outcome = publish(revision, user=None, scheduled=True)
            if outcome.problems:
                GuideRevision.objects.filter(pk=revision.pk).update(go_live_at=None)
                message = _(
                    "Revision %(number)s was not published as scheduled: it fails its checks"
                )
                _log(revision.guide, revision.scheduled_by, message, number=revision.pk)
        verb = "published" if outcome.published else "not published (it fails its checks)"
        done.append(f"{revision.guide.slug}: revision {revision.pk} {verb}")
    for revision in [r for r in scheduled.expiring if r.expire_at <= now]:
        take_offline(
            revision.guide,
            user=revision.scheduled_by,
            reason=_("Taken offline: revision %(number)s expired at %(when)s")
            % {"number": revision.pk, "when": zoned(revision.expire_at)},
        )
        done.append(f"{revision.guide.slug}: expired, taken offline")
    return done


def _user_or_none(user):
    return user if user is not None and user.is_authenticated else None


# --- review before publish ------------------------------------------------------------------


def submit_for_review(revision: GuideRevision, *, user, comment: str) -> Review:
    """Ask the reviewers to publish ``revision``, replacing a pending review of the guide."""
    if not may_submit(user):
        raise NotAllowed(_("You may not edit this guide, so you cannot submit it for review."))
    guide = revision.guide
    with transaction.atomic():
        # One submission of a guide at a time (the constraint on Review holds it too).
        list(Guide.objects.select_for_update().filter(pk=guide.pk).values_list("pk", flat=True))
        replaced = Review.objects.filter(guide=guide, state=Review.State.PENDING)
        for earlier in replaced:
            message = _("Review of revision %(number)s replaced by a later submission")
            _log(guide, user, message, number=earlier.revision_id)
        replaced.update(state=Review.State.REPLACED, decided_at=timezone.now())
        review = Review.objects.create(
            guide=guide, revision=revision, submitted_by=user, comment=comment
        )
        message = _("Submitted revision %(number)s for review") % {"number": revision.pk}
        _log(guide, user, f"{message}: {comment}" if comment else message)
        signals.announce_review(review)
    return review


def approve(review: Review, *, user, comment: str = "", known=None) -> Outcome:
    _require_publisher(user)
    _require_pending(review)
    with transaction.atomic():
        outcome = publish(review.revision, user=user, known=known)
        if outcome.published:
            _decide(review, Review.State.APPROVED, user=user, comment=comment,
                    message=_("Approved revision %(number)s"))  # fmt: skip
    return outcome


def send_back(review: Review, *, user, comment: str) -> None:
    _require_publisher(user)
    _require_pending(review)
    if not comment.strip():
        raise ValueError(_("Say what needs changing: the comment is sent to the author."))
    with transaction.atomic():
        _decide(review, Review.State.SENT_BACK, user=user, comment=comment,
                message=_("Sent revision %(number)s back"))  # fmt: skip
        signals.announce_review(review)


def _decide(review: Review, state: str, *, user, comment: str, message: str) -> None:
    Review.objects.filter(pk=review.pk).update(
        state=state, decided_by=user, decided_at=timezone.now(), decision_comment=comment
    )
    said = message % {"number": review.revision_id}
    _log(review.guide, user, f"{said}: {comment}" if comment else said)


def _require_pending(review: Review) -> None:
    if not Review.objects.filter(pk=review.pk, state=Review.State.PENDING).exists():
        raise NotAllowed(_("This review was already decided or replaced."))


def _close_reviews(guide: Guide, *, published: GuideRevision, user) -> None:
    """A publication answers the guide's pending review: approved where it published that
    revision; closed as overtaken otherwise (approving the older one later would undo this
    one). Not "replaced by a later submission": nobody submitted anything."""
    for review in Review.objects.filter(guide=guide, state=Review.State.PENDING):
        same = review.revision_id == published.pk
        Review.objects.filter(pk=review.pk).update(
            state=Review.State.APPROVED if same else Review.State.OVERTAKEN,
            decided_by=_user_or_none(user),
            decided_at=timezone.now(),
        )
        if not same:
            message = _(
                "Review of revision %(number)s closed: revision %(published)s was published"
            )
            _log(guide, user, message, number=review.revision_id, published=published.pk)
        signals.announce_review(review)
