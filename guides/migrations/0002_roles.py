from django.contrib.auth.management import create_permissions
from django.db import migrations

from guides.roles import ADMINISTRATORS, ROLES, ensure_roles


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations; make sure they exist now.
    for app_label in ("guides", "pricing", "auth"):
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True  # historical app configs lack it; the helper needs it
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    ensure_roles(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=[*ROLES, ADMINISTRATORS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0001_initial"),
        ("pricing", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
