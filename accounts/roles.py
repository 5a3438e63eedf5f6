"""The staff roles (groups), least privilege. ``seed_content`` asserts them as defined here;
a change that existing databases must follow without re-seeding needs a migration too.
"""

CONTENT = [
    "guide", "section", "faqentry", "guidesource", "fitconfiguration", "recommendation",
    "costscenario", "comparisonpair",
]  # fmt: skip
EDITABLE_PRICING = ["source", "method", "memoryrule", "memorycomponent", "languagemodel", "fact"]
READABLE_PRICING = ["provider", "pricecheck", "price", "hourblock"]

ALL = ("add", "change", "delete", "view")


def _grants(app: str, models: list[str], actions: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(app, f"{action}_{model}") for model in models for action in actions]


EDITORS = (
    _grants("guides", CONTENT, ALL)
    + _grants("pricing", EDITABLE_PRICING, ALL)
    + _grants("pricing", ["gpu"], ("add", "change", "view"))
    + _grants("pricing", READABLE_PRICING, ("view",))
)

# (app label, permission codename) of each role.
ROLES: dict[str, list[tuple[str, str]]] = {
    # Content, sources, specs and methods; prices only to read. Editors publish only where
    # settings.EDITORS_MAY_PUBLISH says so; otherwise they submit working copies for review.
    "Editors": EDITORS,
    # Editors who decide what goes online: they publish, schedule and review, and read the
    # site-wide History.
    "Reviewers": EDITORS + [("guides", "publish_guide"), ("admin", "view_logentry")],
    # One language each: the translation screen, its import and export, and nothing else.
    "Translators (German)": [("guides", "view_guide"), ("guides", "translate_guide_de")],
    "Translators (Japanese)": [("guides", "view_guide"), ("guides", "translate_guide_ja")],
    # New price checks only; a recorded check is never changed (admin enforces it too).
    "Price recorders": (
        _grants("pricing", ["pricecheck", "price"], ("add", "view"))
        + _grants("pricing", ["gpu", "provider", "hourblock", "source"], ("view",))
    ),
}
ADMINISTRATORS = "Administrators"
ADMINISTRATOR_APPS = ["guides", "pricing", "auth", "admin"]


def ensure_roles(group_model, permission_model) -> None:
    """Create the groups and set exactly their permissions (idempotent)."""
    for name, grants in ROLES.items():
        group, _created = group_model.objects.get_or_create(name=name)
        group.permissions.set(
            permission_model.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in grants
        )
    admins, _created = group_model.objects.get_or_create(name=ADMINISTRATORS)
    admins.permissions.set(
        permission_model.objects.filter(content_type__app_label__in=ADMINISTRATOR_APPS)
    )
