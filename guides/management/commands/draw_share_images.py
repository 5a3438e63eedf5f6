"""Draw the link-preview image of every published guide (or the ones named) again, now.

Publishing queues this for the published guide; run it by hand after installing fonts or
changing the site's name or logo.
"""

from django.core.management.base import BaseCommand, CommandError

from guides.editorial.share_images import draw_for_guide
from guides.models import Guide


class Command(BaseCommand):
    help = "Draw the share images of published guides (all, or the slugs given)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("slugs", nargs="*", help="guide slugs (default: every published one)")

    def handle(self, *args, slugs: list[str], **options) -> None:
        guides = Guide.objects.published().select_related("language_model").order_by("slug")
        if slugs:
            guides = guides.filter(slug__in=slugs)
            missing = sorted(set(slugs) - {guide.slug for guide in guides})
            if missing:
                raise CommandError(f"no published guide with the slug {', '.join(missing)}")
        for guide in guides:
            drawn = draw_for_guide(guide)
            languages = ", ".join(drawn) if drawn else "none (no font: see manage.py check)"
            self.stdout.write(f"{guide.slug}: {languages}")
