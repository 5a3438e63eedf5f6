"""The task worker (guides/background/worker.py): it waits out a database outage with a
doubling wait instead of exiting, sweeps for stuck tasks at start and every minute, and is the one
``manage.py db_worker`` runs. A real process through a real outage:
tests/guides/background/test_worker_process.py.
"""

import logging
import signal
from datetime import timedelta
from unittest import mock

import pytest
from django.core.management import get_commands, load_command_class
from django.db import OperationalError
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet

from guides.background import worker as resilient
from guides.management.commands.db_worker import Command

OUTAGE = OperationalError("unable to open database file")


@pytest.fixture(autouse=True)
def _connections_kept():
    """The worker closes connections (expired ones before each poll, broken ones in an
    outage); closing the test's own would end its transaction on PostgreSQL."""
    with mock.patch.object(resilient, "close_old_connections"):
        with mock.patch.object(resilient.Worker, "drop_connections"):
            yield


def queued_task() -> DBTaskResult:
    """A share-image task for a guide that does not exist: it runs at once and returns []."""
    return DBTaskResult.objects.create(
        args_kwargs={"args": [], "kwargs": {"guide_id": 0}},
        task_path="guides.background.tasks.draw_share_images",
        backend_name="default",
    )


class FakeClock:
    """``sleep`` records each wait and moves ``now`` on by it, so no test waits."""

    def __init__(self):
        self.now = 1000.0
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def make_worker(clock: FakeClock, **options) -> resilient.Worker:
    defaults = {
        "queue_names": ["default"],
        "interval": 0.5,
        "batch": False,
        "backend_name": "default",
        "startup_delay": False,
        "max_tasks": None,
        "worker_id": "worker-under-test",
        "excluded_queue_names": [],
    }
    return resilient.Worker(sleep=clock.sleep, clock=clock, **{**defaults, **options})


def claims_failing(times: int):
    """``get_locked`` (the worker's query for the next task) raising ``OUTAGE`` ``times``
    times, then reading the database as usual."""
    real = DBTaskResultQuerySet.get_locked
    calls = {"n": 0}

    def get_locked(queryset):
        calls["n"] += 1
        if calls["n"] <= times:
            raise OUTAGE
        return real(queryset)

    return mock.patch.object(DBTaskResultQuerySet, "get_locked", get_locked)


def test_manage_py_db_worker_is_ours():
    """ "guides" is listed before "django_tasks_db", so its command of the same name wins."""
    assert get_commands()["db_worker"] == "guides"
    assert isinstance(load_command_class("guides", "db_worker"), Command)


def test_an_outage_is_waited_out_with_a_doubling_wait_then_the_queued_task_runs(db, caplog):
    task = queued_task()
    clock = FakeClock()
    worker = make_worker(clock, max_tasks=1)  # returns once it has run one task
    caplog.set_level(logging.INFO, logger="guides.background.worker")
    with claims_failing(7):
        worker.run()
    assert clock.waits == [1, 2, 4, 8, 16, 30, 30]  # then it claimed the task: no more waits
    task.refresh_from_db()
    assert task.status == TaskResultStatus.SUCCESSFUL
    assert task.worker_ids == ["worker-under-test"]
    messages = [r.getMessage() for r in caplog.records if r.name == "guides.background.worker"]
    failed = [m for m in messages if m.startswith("Database unavailable")]
    assert failed == [
        f"Database unavailable (OperationalError: unable to open database file), attempt {n}: "
        f"trying again in {wait} s"
        for n, wait in enumerate([1, 2, 4, 8, 16, 30, 30], start=1)
    ]
    assert "Database available again after 7 failed attempts (91 s): taking tasks" in messages


def test_a_second_outage_starts_again_at_one_second(db):
    clock = FakeClock()
    worker = make_worker(clock)
    for _ in range(3):
        worker.database_down(OUTAGE)
    worker.database_up()
    worker.database_down(OUTAGE)
    assert clock.waits == [1, 2, 4, 1]


def test_a_lost_connection_during_the_task_is_waited_out_too(db):
    """The task ran, but its result could not be saved: the worker waits instead of dying (the
    row stays RUNNING; the sweep fails it after TASK_RUNNING_TIMEOUT)."""
    task = queued_task()
    clock = FakeClock()
    worker = make_worker(clock, batch=True)  # returns once the queue is empty
    with mock.patch.object(DBTaskResult, "set_successful", side_effect=OUTAGE):
        with mock.patch.object(DBTaskResult, "set_failed", side_effect=OUTAGE):
            worker.run()
    assert clock.waits == [1]
    task.refresh_from_db()
    assert task.status == TaskResultStatus.RUNNING


def test_a_healthy_database_logs_no_outage_and_a_batch_run_ends_on_an_empty_queue(db, caplog):
    clock = FakeClock()
    worker = make_worker(clock, batch=True)
    worker.run()
    assert clock.waits == []  # batch: an empty queue ends the run before any wait
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_stuck_tasks_are_swept_at_start_and_then_once_a_minute(db, settings):
    settings.TASK_RUNNING_TIMEOUT = 600
    now = timezone.now()

    def stuck() -> DBTaskResult:  # on its second run: failed, not queued again
        task = queued_task()
        DBTaskResult.objects.filter(pk=task.pk).update(
            status=TaskResultStatus.RUNNING,
            started_at=now - timedelta(seconds=601),
            worker_ids=["killed-1", "killed-2"],
        )
        return task

    clock = FakeClock()
    worker = make_worker(clock)
    first = stuck()
    worker.next_task()
    assert DBTaskResult.objects.get(pk=first.pk).status == TaskResultStatus.FAILED
    second = stuck()
    clock.now += 59
    worker.next_task()
    assert DBTaskResult.objects.get(pk=second.pk).status == TaskResultStatus.RUNNING
    clock.now += 1
    worker.next_task()
    assert DBTaskResult.objects.get(pk=second.pk).status == TaskResultStatus.FAILED


def test_a_task_whose_worker_was_killed_is_run_again_by_the_next_worker(db, settings, caplog):
    """Its worker was killed mid-run (kill -9, out of memory): the row was left RUNNING. Once
    past the timeout, the next worker's sweep queues it again and that worker runs it."""
    settings.TASK_RUNNING_TIMEOUT = 600
    task = queued_task()
    DBTaskResult.objects.filter(pk=task.pk).update(
        status=TaskResultStatus.RUNNING,
        started_at=timezone.now() - timedelta(seconds=601),
        worker_ids=["killed-worker"],
    )
    caplog.set_level(logging.WARNING, logger="guides.background.worker")
    make_worker(FakeClock(), max_tasks=1).run()
    task.refresh_from_db()
    assert task.status == TaskResultStatus.SUCCESSFUL
    assert task.worker_ids == ["killed-worker", "worker-under-test"]
    assert [r.getMessage() for r in caplog.records] == [
        f"Task {task.pk} was RUNNING past TASK_RUNNING_TIMEOUT: its worker stopped; "
        "queued again (at most 2 runs)"
    ]


def test_sigterm_between_tasks_still_stops_the_worker_at_once():
    worker = make_worker(FakeClock())
    with pytest.raises(SystemExit) as stopped:
        worker.shutdown(signal.SIGTERM, None)
    assert stopped.value.code == 0
    assert worker.running is False


def test_sigterm_during_a_task_lets_it_finish():
    worker = make_worker(FakeClock())
    worker.running_task = True
    worker.shutdown(signal.SIGTERM, None)  # no exit: the loop ends after the task
    assert worker.running is False
