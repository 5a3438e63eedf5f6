"""Users and groups in the admin, and the site-wide History.

Administrators create and edit staff users and give them roles (``accounts.roles``); only
superusers make superusers, grant single permissions, change a superuser or change a group,
each of which would let an Administrator give more than their own role allows.
"""

from axes.utils import reset as axes_reset
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import LogEntry
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import Group, User
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.roles import ADMINISTRATORS, ROLES

SUPERUSER_ONLY_FIELDS = ("is_superuser", "user_permissions")
ROLE_GROUPS = [*ROLES, ADMINISTRATORS]

admin.site.unregister(User)
admin.site.unregister(Group)


class StaffUserCreationForm(UserCreationForm):
    """A new staff member in one step: name, password and at least one role."""

    groups = forms.ModelMultipleChoiceField(
        queryset=Group.objects.filter(name__in=ROLE_GROUPS).order_by("name"),
        widget=forms.CheckboxSelectMultiple,
        label=_("Roles"),
        help_text=_("What the new staff member may do; at least one. They can sign in at once."),
        error_messages={"required": _("Give the new staff member at least one role.")},
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "groups")

    def save(self, commit=True):
        self.instance.is_staff = True  # every role works in the admin
        return super().save(commit)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    # One step for a new editor: the add form asks for a role, and makes them staff.
    add_form = StaffUserCreationForm
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("username", "password1", "password2", "groups"),
            },
        ),
    )
    list_filter = ("is_staff", "is_superuser", "is_active", "groups")
    actions = ["unlock_sign_in"]

    @admin.action(description=_("Unlock sign-in (forget failed attempts)"), permissions=["change"])
    def unlock_sign_in(self, request, queryset) -> None:
        """Lift a lockout or slowdown at once, instead of waiting out the cool-off."""
        users = [user for user in queryset if _may_touch(request, user)]
        for user in users:
            axes_reset(username=user.get_username())
            self.log_change(request, user, "Sign-in unlocked: failed attempts forgotten.")
        self.message_user(
            request,
            ngettext(
                "Sign-in unlocked for %(count)d account.",
                "Sign-in unlocked for %(count)d accounts.",
                len(users),
            )
            % {"count": len(users)},
            messages.SUCCESS,
        )

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        return [
            (name, {**options, "fields": _without(options["fields"], SUPERUSER_ONLY_FIELDS)})
            for name, options in fieldsets
        ]

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and _may_touch(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and _may_touch(request, obj)

    def response_add(self, request, obj, post_url_continue=None):
        """Back to the list, as for any other model: Django's user admin would open the change
        form next, a second step that adding a staff member here no longer needs."""
        return admin.ModelAdmin.response_add(self, request, obj, post_url_continue)


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    """Administrators see the groups and assign them to users; only superusers change them."""

    def has_add_permission(self, request):
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


@admin.register(LogEntry)
class HistoryAdmin(admin.ModelAdmin):
    """Every entry of every object's History, filtered by who, what and when; read-only."""

    list_display = ["action_time", "user", "what", "action", "message"]
    list_filter = [
        "action_flag",
        ("user", admin.RelatedOnlyFieldListFilter),
        ("content_type", admin.RelatedOnlyFieldListFilter),
        "action_time",
    ]
    date_hierarchy = "action_time"
    search_fields = ["object_repr", "change_message", "user__username"]
    list_select_related = ["user", "content_type"]
    list_per_page = 50

    @admin.display(description=_("object"), ordering="object_repr")
    def what(self, entry: LogEntry) -> str:
        kind = capfirst(entry.content_type.name) if entry.content_type else ""
        url = entry.get_admin_url()
        if url and not entry.is_deletion():
            return format_html('{}: <a href="{}">{}</a>', kind, url, entry.object_repr)
        return format_html("{}: {}", kind, entry.object_repr)

    @admin.display(description=_("action"), ordering="action_flag")
    def action(self, entry: LogEntry) -> str:
        return entry.get_action_flag_display()

    @admin.display(description=_("change message"))
    def message(self, entry: LogEntry) -> str:
        return entry.get_change_message()

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _may_touch(request, obj) -> bool:
    return obj is None or request.user.is_superuser or not obj.is_superuser


def _without(fields, removed) -> tuple:
    return tuple(field for field in fields if field not in removed)
