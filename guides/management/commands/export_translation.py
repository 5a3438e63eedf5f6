"""python manage.py export_translation SLUG LANGUAGE [--format md|xliff] [--output FILE]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from guides.editorial import translating
from guides.models import Guide


class Command(BaseCommand):
    help = "Write one language's text of a guide for a translator: the seed's format or XLIFF 2.0."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the guide's slug")
        parser.add_argument("language", choices=translating.target_languages())
        parser.add_argument("--format", choices=list(translating.FORMATS), default="xliff")
        parser.add_argument("--output", type=Path, help="the file to write (default: stdout)")

    def handle(self, *args, slug, language, format, output, **options):
        try:
            guide = Guide.objects.get(slug=slug)
        except Guide.DoesNotExist:
            raise CommandError(f"there is no guide “{slug}”") from None
        export = translating.markdown_export if format == "md" else translating.xliff_export
        try:
            text = export(guide, language)
        except translating.TranslationFileError as refused:
            raise CommandError(str(refused)) from None
        if output is None:
            self.stdout.write(text, ending="")
        else:
            output.write_text(text, encoding="utf-8")
            self.stderr.write(f"{output}: {guide.slug}, {language}")
