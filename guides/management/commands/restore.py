"""restore PATH [--yes]: replace the whole database with a file written by `manage.py backup`."""

from pathlib import Path

from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError, no_translations
from django.db import DatabaseError

from gpuguide.lib import backups, cache_tags, front_cache
from guides.background.tasks import purge_front_cache
from guides.pagecache.invalidation import renew_after_restore


def renew_with_the_rows() -> None:
    """What must land with the restored rows (``backups.restore_backup``'s ``within``), so
    that a restore stopped at any point after they are in leaves no page from before it
    current: every version new (no cached page is current), and the front cache's purge
    queued (the task worker sends it if this process does not live to)."""
    renew_after_restore()
    if front_cache.enabled():
        purge_front_cache.enqueue(tags=[cache_tags.SITE])  # every page reads `site`


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup written by `manage.py backup` on the same "
        "engine, after checking its signature, checksum, migrations and schema: its rows only, "
        "into the schema this code's migrations create. Refuses to "
        "replace a database that holds data unless --yes is given. Cached pages are "
        "invalidated and every session is cleared with the rows."
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
            with backups.opened("default", path) as backup:
                held = backups.contents()
                if held.rows and not options["yes"]:
                    raise CommandError(
                        f"{target} holds {held.describe()}; restoring {path} replaces all of "
                        "it. Run again with --yes (make restore FILE=... ARGS=--yes) to go ahead."
                    )
                cleared = backups.restore_backup("default", backup, within=renew_with_the_rows)
            cache.clear()  # the memory the old pages held (they are not current any more)
        except (backups.BackupError, DatabaseError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Restored {path} ({backup.describe()}) into {target}; cached pages "
                "invalidated (every version renewed)."
            )
        )
        self.stdout.write(
            f"Signed everyone out ({cleared} sessions cleared): each user signs in again with "
            "the password they had when the backup was taken; a password changed since then "
            "is the old one again, so ask those users to change it again."
        )
        try:
            if front_cache.purge([cache_tags.SITE]):
                self.stdout.write("The front cache's copies of every page were purged.")
        except front_cache.PurgeFailed as exc:
            self.stderr.write(
                f"{exc}. The task worker purges it again (the purge was queued with the "
                "restored rows); until then the front cache may serve pages from before the "
                "restore (by hand: curl -X PURGE -H 'xkey-purge: site' VARNISH_URL)."
            )
        if backup.behind:
            self.stdout.write(
                f"The backup predates {len(backup.behind)} migration(s) of this code: they "
                "ran on its rows before they replaced the database."
            )
