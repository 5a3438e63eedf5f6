"""Publish the revisions whose time has come and take expired guides offline.

Pages that show guides do this themselves before they are served; run this from cron (or a
task scheduler) as well so that the changes happen even while nobody visits.
"""

from django.core.management.base import BaseCommand

from guides.editorial import revisions


class Command(BaseCommand):
    help = "Publish revisions whose go-live time has passed; take expired guides offline."

    def handle(self, *args, **options) -> None:
        done = revisions.apply_due_changes()
        for line in done:
            self.stdout.write(line)
        if not done:
            self.stdout.write("Nothing was due.")
