"""Who may do what, in one place: the public views, the admin and publishing all ask here.

An Editor (``guides.change_guide``) edits every language, a Translator
(``guides.translate_guide_<language>``) only their own; a Reviewer (``guides.publish_guide``)
publishes, an Editor too where ``EDITORS_MAY_PUBLISH`` is set. Previews of what is not public
need edit rights and the second factor: being staff is not enough. Pricing's rules are
``pricing.permissions``' (pricing imports nothing of guides), offered here with the rest.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from accounts.two_factor import second_factor_ok
from pricing.permissions import may_record_prices  # noqa: F401 (offered here with the rest)


class NotAllowed(PermissionDenied):
    """The user may not do this; the message says why (the 403 page shows it)."""


def may_publish(user) -> bool:
    """Whether ``user`` publishes, schedules and reviews. None is the system itself (the seed,
    a command, the task worker carrying out a schedule that a publisher set)."""
    if user is None or user.has_perm("guides.publish_guide"):
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


def may_preview_guides(user, language: str) -> bool:
    """Draft guides and stored revisions, in ``language``."""
    return _verified_staff(user) and may_translate(user, language)


def may_preview(user, permission: str) -> bool:
    """An unpublished page whose rows ``permission`` (``app.change_model``) lets one change."""
    return _verified_staff(user) and user.has_perm(permission)


def _verified_staff(user) -> bool:
    return user.is_active and user.is_staff and second_factor_ok(user)


def may_see(user, permission: str) -> bool:
    """A dashboard topic reading data ``permission`` (``app.view_model``) lets one view; all
    of them without a user."""
    return user is None or user.has_perm(permission)


def may_see_guides(user) -> bool:
    return may_see(user, "guides.view_guide")


def may_see_tasks(user) -> bool:
    """The task queue's rows (superusers: the admin lists them read-only)."""
    return may_see(user, "django_tasks_database.view_dbtaskresult")
