"""Editor, price-recorder and administrator groups with least privilege."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

CONTENT = ["guide", "section", "faqentry", "guidesource", "fitconfiguration", "recommendation",
           "costscenario"]  # fmt: skip
EDITABLE_PRICING = ["source", "method", "memoryrule", "memorycomponent", "languagemodel", "fact",
                    "gpu"]  # fmt: skip
READABLE_PRICING = ["provider", "pricecheck", "price", "hourblock"]

ROLES = {
    "Editors": (
        [("guides", m, a) for m in CONTENT for a in ("add", "change", "delete", "view")]
        + [("pricing", m, a) for m in EDITABLE_PRICING for a in ("add", "change", "view")]
        + [("pricing", m, "delete") for m in EDITABLE_PRICING if m != "gpu"]
        + [("pricing", m, "view") for m in READABLE_PRICING]
    ),
    "Price recorders": (
        [("pricing", "pricecheck", a) for a in ("add", "view")]
        + [("pricing", "price", a) for a in ("add", "view")]
        + [("pricing", m, "view") for m in ("gpu", "provider", "hourblock", "source")]
    ),
}


def create_roles(apps, schema_editor):
    # Permissions are normally created after migrations; make sure they exist now.
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
    admins, _created = Group.objects.get_or_create(name="Administrators")
    admins.permissions.set(
        Permission.objects.filter(content_type__app_label__in=["guides", "pricing", "auth"])
    )


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(
        name__in=[*ROLES, "Administrators"]
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0002_guide_version_translationstamp"),
        ("pricing", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("admin", "0003_logentry_add_action_flag_choices"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
