"""``manage.py db_worker``: django_tasks_db's command with ``guides.background.worker.Worker``,
which waits out database outages and fails tasks stuck RUNNING.

It takes the package's name and options: "guides" comes before "django_tasks_db" in
INSTALLED_APPS, and Django lets the first app with a command name win.
"""

from __future__ import annotations

import logging
import os

from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
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

    # The package's handle, with our Worker.
    def handle(
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        reload: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        **options,
    ) -> None:
        self.configure_logging(verbosity)
        if reload and batch:
            resilient.logger.warning("--reload and --batch cannot be combined: not reloading")
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = resilient.Worker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only in the reloaded child
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
