"""Who may record and change price checks: pricing's who-may rules, here because ``pricing``
imports nothing of ``guides`` (the import contracts, .importlinter); ``guides.permissions``
offers them with the guides' rules, for the dashboard and the admin. Nobody deletes a check
(the pricing admin's ``has_delete_permission``): a mistake is superseded."""

RECORDER_PERMISSION = "pricing.add_pricecheck"  # the Price recorders group's


def may_record_prices(user) -> bool:
    """Active staff with the recorder role (the Price recorders group); superusers pass."""
    return user.is_active and user.is_staff and user.has_perm(RECORDER_PERMISSION)


def may_change_price_checks(user) -> bool:
    """A recorded check's fields, in place: superusers only (anyone else supersedes it)."""
    return user.is_superuser
