"""Who sees what is not public yet at its public URL: draft guides, a guide's stored revisions
(``?revision=N``), comparisons not yet published and legal pages not yet reviewed.

Only whoever may edit it (a draft guide: Editors, Reviewers and the translators of the page's
language), signed in with their second factor where they have or must have one. Being staff is
not enough: a Price recorder, staff without a role or an Administrator who has not set up
two-factor sign-in yet see the public site as a visitor does.
"""

from accounts.two_factor import second_factor_ok
from guides.editorial.publishing import may_translate


def may_preview_guides(user, language: str) -> bool:
    """Draft guides and revisions, in ``language``."""
    return _verified_staff(user) and may_translate(user, language)


def may_preview(user, permission: str) -> bool:
    """An unpublished page whose rows ``permission`` (``app.change_model``) lets one change."""
    return _verified_staff(user) and user.has_perm(permission)


def _verified_staff(user) -> bool:
    return user.is_active and user.is_staff and second_factor_ok(user)
