"""Users and groups in the admin: only superusers can make superusers or grant permissions.

Administrators (the group that manages accounts) create and edit staff users and put them in
the existing groups (the roles of ``guides.roles``); they cannot tick "superuser status", grant
single permissions, change a superuser's account, or change what a group may do: each of those
would let them give someone, themselves included, more than their own role allows.
"""

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group, User
from django.utils.translation import gettext_lazy as _

from guides.roles import ADMINISTRATORS, ROLES

SUPERUSER_ONLY_FIELDS = ("is_superuser", "user_permissions")
ROLE_GROUPS = [*ROLES, ADMINISTRATORS]

admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    # One step for a new editor: the add form offers the roles, and anyone given one is staff.
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("username", "usable_password", "password1", "password2", "groups"),
            },
        ),
    )
    list_filter = ("is_staff", "is_superuser", "is_active", "groups")

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        return [
            (name, {**options, "fields": _without(options["fields"], SUPERUSER_ONLY_FIELDS)})
            for name, options in fieldsets
        ]

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if obj is None and "groups" in form.base_fields:
            form.base_fields["groups"].help_text = _(
                "A user in any of these groups can sign in to the admin (staff status is set)."
            )
        return form

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and _may_touch(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and _may_touch(request, obj)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user = form.instance
        if not change and not user.is_staff and user.groups.filter(name__in=ROLE_GROUPS).exists():
            user.is_staff = True
            user.save(update_fields=["is_staff"])


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    """Administrators see the groups and assign them to users; only superusers change them."""

    def has_add_permission(self, request):
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


def _may_touch(request, obj) -> bool:
    return obj is None or request.user.is_superuser or not obj.is_superuser


def _without(fields, removed) -> tuple:
    return tuple(field for field in fields if field not in removed)
