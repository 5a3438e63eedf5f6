"""The mails a review sends: to the reviewers when a working copy is submitted, to its author
when it is approved, sent back or replaced. Written in the language the change was made in;
sent by ``guides.background.tasks`` through Django's mail backend (``EMAIL_URL``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guides import permissions
from guides.models import Review

# What a review's mail says in each state: to the reviewers while it is pending, to its author
# once it is decided.
WORDING = {
    Review.State.PENDING: (
        gettext_lazy("[%(site)s] Revision %(number)s of “%(guide)s” waits for your review"),
        gettext_lazy("%(author)s asks you to review revision %(number)s of “%(guide)s”."),
    ),
    Review.State.APPROVED: (
        gettext_lazy("[%(site)s] Revision %(number)s of “%(guide)s” is live"),
        gettext_lazy("%(reviewer)s approved revision %(number)s of “%(guide)s”: it is live now."),
    ),
    Review.State.SENT_BACK: (
        gettext_lazy("[%(site)s] Revision %(number)s of “%(guide)s” was sent back"),
        gettext_lazy("%(reviewer)s sent revision %(number)s of “%(guide)s” back to you."),
    ),
    Review.State.REPLACED: (
        gettext_lazy("[%(site)s] Your review request for “%(guide)s” was closed"),
        gettext_lazy(
            "Revision %(number)s of “%(guide)s” was not reviewed: a later revision was "
            "submitted for review instead."
        ),
    ),
    Review.State.OVERTAKEN: (
        gettext_lazy("[%(site)s] Your review request for “%(guide)s” was closed"),
        gettext_lazy(
            "Revision %(number)s of “%(guide)s” was not reviewed: %(reviewer)s published a "
            "later revision first."
        ),
    ),
}


@dataclass(frozen=True)
class Notice:
    subject: str
    body: str
    recipients: list[str]


def review_notice(review: Review, language: str) -> Notice | None:
    """What to send about ``review`` in its present state; None where nobody is to be told
    (no one with an address)."""
    with translation.override(language):
        path = reverse("admin:guides_guide_review", args=[review.guide_id, review.pk])
        facts = {
            "site": settings.SITE_NAME,
            "number": review.revision_id,
            "guide": review.guide.title,
            "author": review.submitted_by or "—",
            "reviewer": review.decided_by or "—",
            "url": settings.SITE_URL + path,  # the review's page in the admin
        }
        if review.state == Review.State.PENDING:
            reviewers = permissions.publishers()
            recipients = [u.email for u in reviewers if u.email and u != review.submitted_by]
            comment = review.comment
        else:
            author = review.submitted_by
            recipients = [author.email] if author is not None and author.email else []
            comment = review.decision_comment
        if not recipients:
            return None
        subject, body = WORDING[review.state]
        lines = [body % facts]
        if comment:
            lines += ["", _("Comment:"), comment]
        lines += ["", _("The review: %(url)s") % facts]
        return Notice(subject % facts, "\n".join(lines) + "\n", recipients)
