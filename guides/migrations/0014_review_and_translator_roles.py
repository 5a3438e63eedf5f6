from django.contrib.auth.management import create_permissions
from django.db import migrations

# The roles this migration adds, frozen here (see 0002_roles): later changes belong in
# accounts/roles.py, re-asserted by seed_content, plus a migration where existing databases
# must follow.
CONTENT = [
    "guide", "section", "faqentry", "guidesource", "fitconfiguration", "recommendation",
    "costscenario", "comparisonpair",
]  # fmt: skip
EDITABLE_PRICING = ["source", "method", "memoryrule", "memorycomponent", "languagemodel", "fact"]
READABLE_PRICING = ["provider", "pricecheck", "price", "hourblock"]
ALL = ("add", "change", "delete", "view")


def _grants(app, models, actions):
    return [(app, f"{action}_{model}") for model in models for action in actions]


EDITORS = (
    _grants("guides", CONTENT, ALL)
    + _grants("pricing", EDITABLE_PRICING, ALL)
    + _grants("pricing", ["gpu"], ("add", "change", "view"))
    + _grants("pricing", READABLE_PRICING, ("view",))
)
ROLES = {
    "Reviewers": EDITORS + [("guides", "publish_guide"), ("admin", "view_logentry")],
    "Translators (German)": [("guides", "view_guide"), ("guides", "translate_guide_de")],
    "Translators (Japanese)": [("guides", "view_guide"), ("guides", "translate_guide_ja")],
}
ADMINISTRATOR_APPS = ["guides", "pricing", "auth", "admin"]


def add_roles(apps, schema_editor):
    for app_label in ("guides", "admin"):
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True  # historical app configs lack it; the helper needs it
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, grants in ROLES.items():
        group, _created = Group.objects.get_or_create(name=name)
        group.permissions.set(
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in grants
        )
    admins = Group.objects.filter(name="Administrators").first()
    if admins is not None:
        admins.permissions.set(
            Permission.objects.filter(content_type__app_label__in=ADMINISTRATOR_APPS)
        )


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=list(ROLES)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0013_reviews_and_roles"),
        ("admin", "0003_logentry_add_action_flag_choices"),
    ]
    operations = [migrations.RunPython(add_roles, remove_roles)]
