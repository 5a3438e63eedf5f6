from django.contrib.auth.management import create_permissions
from django.db import migrations

# The roles as this migration created them, frozen here on purpose: a migration must not import
# live code (now accounts.roles), or a later edit there would change what this migration did. Later
# changes to the roles belong in accounts/roles.py (re-asserted by seed_content) plus, where an
# existing database must follow, a new migration.
CONTENT = [
    "guide", "section", "faqentry", "guidesource", "fitconfiguration", "recommendation",
    "costscenario",
]
EDITABLE_PRICING = ["source", "method", "memoryrule", "memorycomponent", "languagemodel", "fact"]
READABLE_PRICING = ["provider", "pricecheck", "price", "hourblock"]
ALL = ("add", "change", "delete", "view")

ROLES = {
    "Editors": (
        [("guides", m, a) for m in CONTENT for a in ALL]
        + [("pricing", m, a) for m in EDITABLE_PRICING for a in ALL]
        + [("pricing", "gpu", a) for a in ("add", "change", "view")]
        + [("pricing", m, "view") for m in READABLE_PRICING]
    ),
    "Price recorders": (
        [("pricing", m, a) for m in ("pricecheck", "price") for a in ("add", "view")]
        + [("pricing", m, "view") for m in ("gpu", "provider", "hourblock", "source")]
    ),
}
ADMINISTRATORS = "Administrators"
ADMINISTRATOR_APPS = ["guides", "pricing", "auth"]


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations; make sure they exist now.
    for app_label in ("guides", "pricing", "auth"):
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True  # historical app configs lack it; the helper needs it
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, grants in ROLES.items():
        group, _created = Group.objects.get_or_create(name=name)
        group.permissions.set(
            Permission.objects.get(content_type__app_label=app, codename=f"{action}_{model}")
            for app, model, action in grants
        )
    admins, _created = Group.objects.get_or_create(name=ADMINISTRATORS)
    admins.permissions.set(Permission.objects.filter(content_type__app_label__in=ADMINISTRATOR_APPS))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=[*ROLES, ADMINISTRATORS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0001_initial"),
        ("pricing", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
