"""Who may record and change price checks (``guides.permissions`` offers them with the guides'
rules: pricing imports nothing of guides). Nobody deletes a check: a mistake is superseded."""

RECORDER_PERMISSION = "pricing.add_pricecheck"  # the Price recorders group's


def may_record_prices(user) -> bool:
    """Active staff with the recorder role (the Price recorders group); superusers pass."""
    return user.is_active and user.is_staff and user.has_perm(RECORDER_PERMISSION)


def may_change_price_checks(user) -> bool:
    """A recorded check's fields, in place: superusers only (anyone else supersedes it)."""
    return user.is_superuser
