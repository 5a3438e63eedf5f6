"""``manage.py db_worker``: django_tasks_db's command with ``guides.background.worker.Worker``,
which waits out database outages and fails tasks stuck RUNNING.

It takes the package's name and options: "guides" comes before "django_tasks_db" in
INSTALLED_APPS, and Django lets the first app with a command name win.
"""

from __future__ import annotations

import logging
from unittest import mock

from django_tasks_db.management.commands import db_worker

from guides.background import worker as resilient

LEVELS = {0: logging.CRITICAL, 1: logging.INFO}


class Command(db_worker.Command):
    help = (
        "Run the database task worker: it waits out database outages (1 s, doubling to 30 s) "
        "and marks tasks RUNNING past TASK_RUNNING_TIMEOUT as FAILED."
    )

    def configure_logging(self, verbosity: int) -> None:
        super().configure_logging(verbosity)
        resilient.logger.setLevel(LEVELS.get(verbosity, logging.DEBUG))

    def handle(self, **options) -> None:
        # The package's handle (options, reloader, signals) builds the Worker its module names.
        with mock.patch.object(db_worker, "Worker", resilient.Worker):
            super().handle(**options)
