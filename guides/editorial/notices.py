"""The mails a review sends: to the reviewers when a working copy is submitted, to its author
when it is approved, sent back or replaced. Written in the language the change was made in;
sent by ``guides.tasks`` through Django's mail backend (``EMAIL_URL``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from guides.editorial import publishing
from guides.models import Review


@dataclass(frozen=True)
class Notice:
    subject: str
    body: str
    recipients: list[str]


def review_url(review: Review) -> str:
    """The review's page in the admin, at the site's address."""
    path = reverse("admin:guides_guide_review", args=[review.guide_id, review.pk])
    return settings.SITE_URL + path


def review_notice(review: Review, language: str) -> Notice | None:
    """What to send about ``review`` in its present state; None where nobody is to be told
    (no one with an address)."""
    with translation.override(language):
        facts = {
            "site": settings.SITE_NAME,
            "number": review.revision_id,
            "guide": review.guide.title,
            "author": review.submitted_by or "—",
            "reviewer": review.decided_by or "—",
            "url": review_url(review),
        }
        if review.state == Review.State.PENDING:
            recipients = [
                user.email
                for user in publishing.publishers()
                if user.email and user != review.submitted_by
            ]
            subject = _("[%(site)s] Revision %(number)s of “%(guide)s” waits for your review")
            body = _("%(author)s asks you to review revision %(number)s of “%(guide)s”.")
            comment = review.comment
        else:
            author = review.submitted_by
            recipients = [author.email] if author is not None and author.email else []
            subject = {
                Review.State.APPROVED: _("[%(site)s] Revision %(number)s of “%(guide)s” is live"),
                Review.State.SENT_BACK: _(
                    "[%(site)s] Revision %(number)s of “%(guide)s” was sent back"
                ),
                Review.State.REPLACED: _(
                    "[%(site)s] Your review request for “%(guide)s” was closed"
                ),
            }[review.state]
            body = {
                Review.State.APPROVED: _(
                    "%(reviewer)s approved revision %(number)s of “%(guide)s”: it is live now."
                ),
                Review.State.SENT_BACK: _(
                    "%(reviewer)s sent revision %(number)s of “%(guide)s” back to you."
                ),
                Review.State.REPLACED: _(
                    "Revision %(number)s of “%(guide)s” was not reviewed: a later revision was "
                    "submitted or published first."
                ),
            }[review.state]
            comment = review.decision_comment
        if not recipients:
            return None
        lines = [body % facts]
        if comment:
            lines += ["", _("Comment:"), comment]
        lines += ["", _("The review: %(url)s") % facts]
        return Notice(subject % facts, "\n".join(lines) + "\n", recipients)
