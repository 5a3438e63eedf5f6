"""The task worker behind ``manage.py db_worker``: django_tasks_db's, made to wait out database
outages (1 s, doubling to 30 s, each attempt logged; the package's worker exits on any database
error but "locked") and to sweep the tasks a dead worker left RUNNING
(``task_queue.sweep_stuck_tasks``, at start and every minute). SIGTERM and SIGINT still stop it
between tasks, or after the running one.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable

from django.db import (
    DatabaseError,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connections,
)
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from guides.background.task_queue import MAX_RUNS, sweep_stuck_tasks

logger = logging.getLogger(__name__)

# What an unreachable, restarting or missing database raises (psycopg and sqlite3 alike).
DATABASE_DOWN = (OperationalError, InterfaceError)
FIRST_WAIT = 1.0  # seconds before the first retry
LONGEST_WAIT = 30.0  # the doubling stops here
SWEEP_EVERY = 60.0  # seconds between looks for stuck tasks


def describe(error: BaseException) -> str:
    """An error on one line: psycopg's messages span several."""
    first = str(error).strip().splitlines()[:1]
    return f"{type(error).__name__}: {first[0]}" if first else type(error).__name__


class Worker(db_worker.Worker):
    """django_tasks_db's worker, its loop rewritten around a wait for the database.

    ``sleep`` and ``clock`` are ``time.sleep`` and ``time.monotonic`` unless a test gives
    others."""

    def __init__(
        self,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        **options,
    ):
        super().__init__(**options)
        self.sleep = sleep
        self.clock = clock
        self.next_sweep = clock()  # the first poll sweeps
        self.failed_attempts = 0  # of the outage under way
        self.outage_began = 0.0
        self.wait = FIRST_WAIT

    def run(self) -> None:
        logger.info(
            "Starting worker worker_id=%s queues=%s", self.worker_id, ",".join(self.queue_names)
        )
        if self.startup_delay and self.interval:
            self.sleep(random.random())  # noqa: S311 (no thundering herd of workers)
        while self.running:
            try:
                task_result, retrieved = self.next_task()
                if task_result is not None:
                    # Its result may be lost to an outage starting now: the sweep fails it later.
                    self.run_task(task_result)
                close_old_connections()
            except DATABASE_DOWN as error:
                self.database_down(error)
                continue
            self.database_up()
            if self.batch and retrieved and task_result is None:
                logger.info("No more tasks to run for worker_id=%s - exiting.", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                logger.info("Ran the maximum of %d tasks - exiting.", self._run_tasks)
                return
            if self.running and task_result is None:
                self.sleep(self.interval)

    def next_task(self) -> tuple[DBTaskResult | None, bool]:
        """Sweep if it is time, then claim the next ready task: (the task or None, whether the
        queue was read at all; not when another worker held SQLite's lock)."""
        close_old_connections()  # dropped or expired connections, after waking up
        if self.clock() >= self.next_sweep:
            swept = sweep_stuck_tasks()
            for pk in swept.run_again:
                logger.warning(
                    "Task %s was RUNNING past TASK_RUNNING_TIMEOUT: its worker stopped; "
                    "queued again (at most %d runs)",
                    pk,
                    MAX_RUNS,
                )
            for pk in swept.failed:
                logger.warning("Task %s was RUNNING past TASK_RUNNING_TIMEOUT: marked FAILED", pk)
            self.next_sweep = self.clock() + SWEEP_EVERY
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        with exclusive_transaction(tasks.db):
            try:
                task_result = tasks.get_locked()
                if task_result is not None:
                    task_result.claim(self.worker_id)  # so that no other worker runs it
            except OperationalError as error:
                if is_locked_database_exception(error):
                    return None, False  # it unlocks soon
                raise
        return task_result, True

    def database_down(self, error: BaseException) -> None:
        """One failed attempt: log it with the wait, drop the broken connections, wait."""
        if not self.failed_attempts:
            self.outage_began = self.clock()
            self.wait = FIRST_WAIT
        self.failed_attempts += 1
        logger.warning(
            "Database unavailable (%s), attempt %d: trying again in %g s",
            describe(error),
            self.failed_attempts,
            self.wait,
        )
        self.drop_connections()
        if self.running:  # a SIGTERM during the task: stop now
            self.sleep(self.wait)
        self.wait = min(self.wait * 2, LONGEST_WAIT)

    def drop_connections(self) -> None:
        """Close the broken connections, so that the next attempt opens new ones."""
        for connection in connections.all(initialized_only=True):
            try:
                connection.close()
            except DatabaseError:
                pass  # already gone

    def database_up(self) -> None:
        if self.failed_attempts:
            logger.info(
                "Database available again after %d failed attempts (%.0f s): taking tasks",
                self.failed_attempts,
                self.clock() - self.outage_began,
            )
            self.failed_attempts = 0
