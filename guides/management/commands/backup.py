"""backup [--output PATH]: the whole database to one file (pg_dump custom format, or SQLite)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations

from gpuguide.lib import backups


class Command(BaseCommand):
    help = (
        "Write the whole database to one file: a pg_dump custom-format archive on PostgreSQL, a "
        "copy of the database on SQLite. Default: backups/gpuguide-<engine>-<UTC time>.<dump|"
        "sqlite3>. Restore it with `manage.py restore PATH`."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--output", "-o", default=None, help="where to write the backup")

    @no_translations
    def handle(self, *args, **options) -> None:
        try:
            engine = backups.vendor()
            path = Path(options["output"]) if options["output"] else backups.default_path(engine)
            backups.backup("default", path)
        except (backups.BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        size = path.stat().st_size
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {backups.describe_database()} to {path} ({size:,} bytes)."
            )
        )
