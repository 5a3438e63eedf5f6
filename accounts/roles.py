"""Editor, price-recorder and administrator groups, with least privilege.

Migration guides 0002 created them from its own frozen copy of these grants (a migration never
imports live code); ``seed_content`` re-asserts the roles as defined here. When you change a
role, add a migration as well if existing databases must follow without re-seeding.
"""

CONTENT = [
    "guide", "section", "faqentry", "guidesource", "fitconfiguration", "recommendation",
    "costscenario", "comparisonpair",
]  # fmt: skip
EDITABLE_PRICING = ["source", "method", "memoryrule", "memorycomponent", "languagemodel", "fact"]
READABLE_PRICING = ["provider", "pricecheck", "price", "hourblock"]

ROLES: dict[str, list[tuple[str, str, str]]] = {
    # Content, sources, specs and methods; prices only to read.
    "Editors": (
        [("guides", m, a) for m in CONTENT for a in ("add", "change", "delete", "view")]
        + [("pricing", m, a) for m in EDITABLE_PRICING for a in ("add", "change", "delete", "view")]
        + [("pricing", "gpu", a) for a in ("add", "change", "view")]
        + [("pricing", m, "view") for m in READABLE_PRICING]
    ),
    # New price checks only; a recorded check is never changed (admin enforces it too).
    "Price recorders": (
        [("pricing", m, a) for m in ("pricecheck", "price") for a in ("add", "view")]
        + [("pricing", m, "view") for m in ("gpu", "provider", "hourblock", "source")]
    ),
}
ADMINISTRATORS = "Administrators"
ADMINISTRATOR_APPS = ["guides", "pricing", "auth"]


def ensure_roles(group_model, permission_model) -> None:
    """Create the groups and set exactly their permissions (idempotent)."""
    for name, grants in ROLES.items():
        group, _created = group_model.objects.get_or_create(name=name)
        group.permissions.set(
            permission_model.objects.get(content_type__app_label=app, codename=f"{action}_{model}")
            for app, model, action in grants
        )
    admins, _created = group_model.objects.get_or_create(name=ADMINISTRATORS)
    admins.permissions.set(
        permission_model.objects.filter(content_type__app_label__in=ADMINISTRATOR_APPS)
    )
