"""backup [--output PATH]: the whole database to one signed file (see gpuguide/lib/backups.py)."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, no_translations

from gpuguide.lib import backups


class Command(BaseCommand):
    help = (
        "Write the whole database to one signed file: a tar of manifest.json and a pg_dump "
        "custom-format archive (PostgreSQL) or a copy of the database (SQLite). Default: "
        "backups/gpuguide-<engine>-<UTC time>.tar, keeping the newest BACKUP_KEEP there. "
        "Restore it with `manage.py restore PATH`."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--output", "-o", default=None, help="where to write the backup")

    @no_translations
    def handle(self, *args, **options) -> None:
        try:
            engine = backups.vendor()
            path = Path(options["output"]) if options["output"] else backups.default_path(engine)
            manifest = backups.backup("default", path)
            # Only the default folder is pruned: a file written elsewhere is the operator's.
            pruned = [] if options["output"] else backups.prune(engine, settings.BACKUP_KEEP)
        except (backups.BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(manifest["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {backups.describe_database()} to {path} "
                f"({path.stat().st_size:,} bytes, {rows:,} rows in {len(manifest['rows'])} "
                f"tables; signed with {manifest['signed_with']})."
            )
        )
        if pruned:
            self.stdout.write(
                f"Removed {len(pruned)} older backup(s) beyond BACKUP_KEEP="
                f"{settings.BACKUP_KEEP}: {', '.join(path.name for path in pruned)}"
            )
