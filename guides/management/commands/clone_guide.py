"""python manage.py clone_guide SOURCE_SLUG --model MODEL_SLUG [--slug NEW_SLUG] [--publish]"""

from django.core.management.base import BaseCommand, CommandError

from guides.editorial.cloning import CloneRefused, clone_guide
from guides.models import Guide
from guides.pages import selectors
from pricing.models import LanguageModel


class Command(BaseCommand):
    help = "Make a guide for another language model from an existing guide, no prose edited."

    def add_arguments(self, parser):
        parser.add_argument("source", metavar="SOURCE_SLUG", help="the slug of the guide to copy")
        parser.add_argument(
            "--model",
            required=True,
            metavar="MODEL_SLUG",
            help="the new guide's model, e.g. llama-3.1-8b",
        )
        parser.add_argument("--slug", help="the new guide's slug (default: derived from the model)")
        parser.add_argument(
            "--publish", action="store_true", help="publish it (refused if it fails its checks)"
        )

    def handle(self, *args, source, model, slug, publish, **options):
        try:
            original = selectors.guide_for_page(slug=source, include_drafts=True)
        except Guide.DoesNotExist:
            raise CommandError(f"there is no guide “{source}”") from None
        try:
            language_model = LanguageModel.objects.get(slug=model)
        except LanguageModel.DoesNotExist:
            raise CommandError(f"there is no language model “{model}”") from None
        try:
            guide = clone_guide(original, language_model, slug=slug, publish=publish)
        except CloneRefused as refused:
            raise CommandError(f"not cloned: {refused}") from None
        state = "published" if publish else "saved as a draft"
        self.stdout.write(f"{guide.slug}: {guide.title} ({state})")
