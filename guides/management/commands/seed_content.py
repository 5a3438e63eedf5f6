from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.roles import ensure_roles
from guides.editorial.content_files import ContentFileError
from guides.editorial.seeding import (
    CONTENT_DIR,
    EXAMPLE_OPERATOR_FILE,
    load_content,
    load_example_operator,
)
from guides.editorial.share_images import draw_missing
from guides.pagecache.invalidation import invalidate_everything


class Command(BaseCommand):
    help = (
        "Load the content files (content/reference.json, content/guides/*/) and the roles. "
        "Creates only what is missing: running it again changes nothing and never overwrites "
        "an editor's edits. A bad token or file stops it with the file and line; nothing is "
        "saved then. Then draws the share images published guides lack (where a font exists)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--content-dir",
            default=None,
            help="Folder with reference.json and guides/ (default: the project's content/).",
        )

    def handle(self, *args, **options) -> None:
        try:
            with transaction.atomic():
                created = load_content(options["content_dir"])
                if settings.DEBUG:  # development only: the company fills in the real one
                    created += load_example_operator(
                        Path(options["content_dir"] or CONTENT_DIR) / EXAMPLE_OPERATOR_FILE
                    )
                ensure_roles(Group, Permission)
                if created:
                    invalidate_everything()  # bulk inserts send no save signals
        except ContentFileError as exc:
            raise CommandError(str(exc)) from exc
        # Now, not by the task worker: bulk inserts publish nothing, so no task would draw them,
        # and a fresh `make run` would link every guide to the site-wide English image. After
        # the transaction, so that the database is not held while Pillow draws.
        drawn = draw_missing()
        if created:
            self.stdout.write(self.style.SUCCESS(f"Seed content loaded: {created} rows created."))
        elif not drawn:
            self.stdout.write("Seed content already present: nothing to do.")
        if drawn:
            self.stdout.write(f"Share images drawn: {drawn} (published guides × languages).")
