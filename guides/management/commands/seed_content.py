from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand

from guides.caching import bump_content_version
from guides.roles import ensure_roles
from guides.seed import load_guides
from pricing.seed import load_pricing


class Command(BaseCommand):
    help = (
        "Load the published guide's content and pricing data. Creates only what is missing: "
        "running it again changes nothing and never overwrites an editor's edits."
    )

    def handle(self, *args, **options) -> None:
        created = load_pricing() + load_guides()
        ensure_roles(Group, Permission)
        bump_content_version()  # bulk inserts send no save signals
        if created:
            self.stdout.write(self.style.SUCCESS(f"Seed content loaded: {created} rows created."))
        else:
            self.stdout.write("Seed content already present: nothing to do.")
