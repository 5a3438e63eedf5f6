from django import template

from guides.dashboard import dashboard_warnings

register = template.Library()


@register.simple_tag(takes_context=True)
def stale_data_warnings(context) -> dict:
    """Warnings grouped by topic, for the admin index: only what this user can fix."""
    warnings = dashboard_warnings(user=context["request"].user)
    return {topic: found for topic, found in warnings.items() if found}
