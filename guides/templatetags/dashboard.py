from django import template

from guides.dashboard import Dashboard, dashboard_for

register = template.Library()


@register.simple_tag(takes_context=True)
def admin_dashboard(context) -> Dashboard:
    """The admin index's warnings for the signed-in user, and what was found in order."""
    return dashboard_for(context["request"].user)
