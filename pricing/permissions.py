"""Who may record price checks: pricing's one who-may rule, here because ``pricing`` imports
nothing of ``guides`` (the import contracts, .importlinter); ``guides.permissions`` offers it
with the guides' rules, for the dashboard and the admin."""

RECORDER_PERMISSION = "pricing.add_pricecheck"  # the Price recorders group's


def may_record_prices(user) -> bool:
    """Active staff with the recorder role (the Price recorders group); superusers pass."""
    return user.is_active and user.is_staff and user.has_perm(RECORDER_PERMISSION)
