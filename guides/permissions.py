"""Who may do what, in one place: the public views (drafts and unpublished pages they show to
their editors), the admin (buttons, pages, the dashboard's topics) and publishing (each use
case checks before it writes) all ask here.

- **Edit**: an Editor (``guides.change_guide``) edits every language; a Translator
  (``guides.translate_guide_<language>``) only their own (``may_translate``).
- **Submit for review**: whoever may edit any of a guide (``may_submit``).
- **Publish, schedule, review**: a Reviewer (``guides.publish_guide``), an Editor too where
  ``EDITORS_MAY_PUBLISH`` is set; ``None`` is the system itself (the seed, a command, the task
  worker carrying out a schedule a publisher set) (``may_publish``, ``publishers``).
- **Preview** what is not public yet: only whoever may edit it, signed in with their second
  factor where they have or must have one (``may_preview_guides``, ``may_preview``). Being
  staff is not enough: a Price recorder, staff without a role or an Administrator who has not
  set up two-factor sign-in see the public site as a visitor does.
- **Record prices, change a recorded check**: pricing's rules (``pricing.permissions``:
  pricing imports nothing of guides), offered here with the rest.
- **See a dashboard topic / the task queue**: the view permission of the data it reads (every
  topic where no user is given: the dashboard's functions called on their own).

A refusal raises ``NotAllowed`` (a ``PermissionDenied``: the 403 page shows its message).
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from accounts.two_factor import second_factor_ok
from pricing.permissions import RECORDER_PERMISSION, may_change_price_checks, may_record_prices

__all__ = [
    "RECORDER_PERMISSION",
    "NotAllowed",
    "may_change_price_checks",
    "may_preview",
    "may_preview_guides",
    "may_publish",
    "may_record_prices",
    "may_see",
    "may_see_guides",
    "may_see_tasks",
    "may_submit",
    "may_translate",
    "publishers",
]

TASKS_PERMISSION = "django_tasks_database.view_dbtaskresult"


class NotAllowed(PermissionDenied):
    """The user may not do this; the message says why (the 403 page shows it)."""


# --- editing and publishing ----------------------------------------------------------------


def may_publish(user) -> bool:
    """Whether ``user`` publishes, schedules and reviews. None is the system itself (the seed,
    a command, the task worker carrying out a schedule that a publisher set)."""
    if user is None:
        return True
    if user.has_perm("guides.publish_guide"):
        return True
    return settings.EDITORS_MAY_PUBLISH and user.has_perm("guides.change_guide")


def may_translate(user, language: str) -> bool:
    """Whether ``user`` edits ``language``'s text (an Editor: every language)."""
    return user.has_perm("guides.change_guide") or user.has_perm(
        f"guides.translate_guide_{language}"
    )


def may_submit(user) -> bool:
    """Whether ``user`` may submit a working copy for review (whoever may edit any of it)."""
    return user.has_perm("guides.change_guide") or any(
        user.has_perm(f"guides.translate_guide_{code}") for code, _name in settings.LANGUAGES
    )


def publishers():
    """The active users who may publish (whom a submission for review is sent to)."""
    codenames = ["publish_guide"] + (["change_guide"] if settings.EDITORS_MAY_PUBLISH else [])
    granted = (
        Q(is_superuser=True)
        | Q(groups__permissions__codename__in=codenames)
        | Q(user_permissions__codename__in=codenames)
    )
    return get_user_model().objects.filter(granted, is_active=True).distinct().order_by("pk")


# --- previews: what is not public yet ------------------------------------------------------


def may_preview_guides(user, language: str) -> bool:
    """Draft guides and stored revisions, in ``language``."""
    return _verified_staff(user) and may_translate(user, language)


def may_preview(user, permission: str) -> bool:
    """An unpublished page whose rows ``permission`` (``app.change_model``) lets one change."""
    return _verified_staff(user) and user.has_perm(permission)


def _verified_staff(user) -> bool:
    return user.is_active and user.is_staff and second_factor_ok(user)


# --- what the admin's dashboard shows --------------------------------------------------------


def may_see(user, permission: str) -> bool:
    """A dashboard topic reading data ``permission`` (``app.view_model``) lets one view; all
    of them without a user."""
    return user is None or user.has_perm(permission)


def may_see_guides(user) -> bool:
    return may_see(user, "guides.view_guide")


def may_see_tasks(user) -> bool:
    """The task queue's rows (superusers: the admin lists them read-only)."""
    return may_see(user, TASKS_PERMISSION)
