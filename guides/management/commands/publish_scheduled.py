"""Publish the revisions whose time has come and take expired guides offline.

The task worker (``manage.py db_worker``) does this at each scheduled time; run this from cron
as well (every few minutes), so that what was due while no worker ran still happens.
"""

from django.core.management.base import BaseCommand

from guides.editorial import publishing


class Command(BaseCommand):
    help = "Publish revisions whose go-live time has passed; take expired guides offline."

    def handle(self, *args, **options) -> None:
        done = publishing.apply_due_changes()
        for line in done:
            self.stdout.write(line)
        if not done:
            self.stdout.write("Nothing was due.")
