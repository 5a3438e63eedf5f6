"""python manage.py import_translation SLUG LANGUAGE FILE [--dry-run]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from guides.editorial import translating
from guides.models import Guide


class Command(BaseCommand):
    help = (
        "Read a translator's file (the seed's format or XLIFF 2.0) into a guide as one revision; "
        "refused whole if anything in it is wrong. --dry-run lists what would change."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the guide's slug")
        parser.add_argument("language", choices=translating.target_languages())
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="list the changes, save none")

    def handle(self, *args, slug, language, file, dry_run, **options):
        try:
            guide = Guide.objects.get(slug=slug)
        except Guide.DoesNotExist:
            raise CommandError(f"there is no guide “{slug}”") from None
        try:
            result = translating.translation_import(
                guide, language=language, data=file.read_bytes(), filename=file.name,
                dry_run=dry_run,
            )  # fmt: skip
        except (OSError, translating.TranslationFileError) as refused:
            raise CommandError(str(refused)) from None
        for change in result.changes:
            self.stdout.write(
                f"{change.field.described(language)}:\n- {change.old}\n+ {change.new}"
            )
        for field in result.english_changed:
            self.stdout.write(f"{field.described('en')}: the English changed since the export")
        if result.problems:
            raise CommandError("nothing imported:\n" + "\n".join(str(p) for p in result.problems))
        if result.saved is not None:
            self.stdout.write(f"saved as revision {result.saved.revision.pk}")
        elif not result.changes:
            self.stdout.write("nothing to change")
        else:
            count = len(result.changes)
            self.stdout.write(f"{count} field{'' if count == 1 else 's'} would change (dry run)")
