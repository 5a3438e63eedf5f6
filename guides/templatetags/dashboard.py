from django import template

from guides.dashboard import dashboard_warnings

register = template.Library()


@register.simple_tag
def stale_data_warnings() -> dict:
    """Warnings grouped by topic, for the admin index."""
    return dashboard_warnings()
