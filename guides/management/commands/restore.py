"""restore PATH [--yes]: replace the whole database with a file written by `manage.py backup`."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations
from django.db import DatabaseError

from gpuguide.lib import backups
from guides.pagecache.invalidation import renew_after_restore


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup written by `manage.py backup` on the same "
        "engine. Refuses to replace a database that holds data unless --yes is given. Cached "
        "pages are invalidated afterwards."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="a file written by `manage.py backup`")
        parser.add_argument(
            "--yes", action="store_true", help="replace the database even though it holds data"
        )

    @no_translations
    def handle(self, *args, **options) -> None:
        path = Path(options["path"])
        target = backups.describe_database()
        try:
            backups.check_restorable("default", path)
            held = backups.contents()
            if held.rows and not options["yes"]:
                raise CommandError(
                    f"{target} holds {held.describe()}; restoring {path} replaces all of it. "
                    "Run again with --yes (make restore FILE=... ARGS=--yes) to go ahead."
                )
            backups.restore("default", path)
            # Every cached page is stale now: tokens no cache has seen, and this process's
            # cache (the shared one, with CACHE_URL) emptied as well.
            renewed = renew_after_restore()
        except (backups.BackupError, DatabaseError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Restored {path} into {target}; cached pages invalidated ({renewed} "
                "version tokens renewed)."
            )
        )
