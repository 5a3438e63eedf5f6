"""The task queue's rows (guides/background/task_queue.py): tasks RUNNING past
TASK_RUNNING_TIMEOUT are failed with an error saying why, recent ones are left alone, and the
dashboard's summary of the last day counts what it should in one query."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from guides.background.task_queue import (
    STUCK_TASK,
    StuckTask,
    TaskTrouble,
    fail_stuck_tasks,
    queued,
    task_trouble,
)

TIMEOUT = 1800
STUCK_ERROR = (
    "guides.background.task_queue.StuckTask: RUNNING for more than TASK_RUNNING_TIMEOUT (1800 s): "
    "its worker stopped mid-run (killed, or its machine restarted); not run again"
)


@pytest.fixture(autouse=True)
def _timeout(settings):
    settings.TASK_RUNNING_TIMEOUT = TIMEOUT


def task_row(status=TaskResultStatus.READY, *, started=None, finished=None, **fields):
    """A row of the queue, its times given as how long ago."""
    now = timezone.now()
    return DBTaskResult.objects.create(
        status=status,
        args_kwargs={"args": [], "kwargs": {"tags": ["site"]}},
        task_path="guides.background.tasks.refresh_affected_pages",
        backend_name="default",
        started_at=None if started is None else now - started,
        finished_at=None if finished is None else now - finished,
        **fields,
    )


def test_a_task_running_past_the_timeout_is_failed_and_a_recent_one_is_left_alone(db):
    stuck = task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT + 1))
    recent = task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT - 60))
    ready = task_row()
    done = task_row(
        TaskResultStatus.SUCCESSFUL, started=timedelta(hours=3), finished=timedelta(hours=3)
    )
    assert fail_stuck_tasks() == [str(stuck.pk)]
    for row in (stuck, recent, ready, done):
        row.refresh_from_db()
    assert [row.status for row in (stuck, recent, ready, done)] == [
        TaskResultStatus.FAILED,
        TaskResultStatus.RUNNING,
        TaskResultStatus.READY,
        TaskResultStatus.SUCCESSFUL,
    ]
    assert stuck.exception_class_path == STUCK_TASK == "guides.background.task_queue.StuckTask"
    assert stuck.traceback == STUCK_ERROR
    assert timezone.now() - stuck.finished_at < timedelta(seconds=5)
    # the task framework reads the error back as a StuckTask
    (error,) = stuck.task_result.errors
    assert error.exception_class is StuckTask


def test_the_timeout_is_the_setting(db, settings):
    task = task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT + 1))
    settings.TASK_RUNNING_TIMEOUT = TIMEOUT + 60
    assert fail_stuck_tasks() == []
    task.refresh_from_db()
    assert task.status == TaskResultStatus.RUNNING


def test_nothing_stuck_costs_one_query(db):
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=10))
    with CaptureQueriesContext(connection) as queries:
        assert fail_stuck_tasks() == []
    assert len(queries) == 1


def test_the_summary_counts_the_last_day_and_names_the_latest_error_in_one_query(db):
    task_row(
        TaskResultStatus.FAILED,
        started=timedelta(hours=2),
        finished=timedelta(hours=2),
        exception_class_path="builtins.ValueError",
        traceback='Traceback (most recent call last):\n  File "x.py"\nValueError: boom\n',
    )
    task_row(
        TaskResultStatus.FAILED,
        started=timedelta(days=2),
        finished=timedelta(days=2),  # older than a day: not counted
        exception_class_path="builtins.KeyError",
        traceback="KeyError: 'old'\n",
    )
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT + 5))
    assert fail_stuck_tasks()  # failed now: the latest
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT + 5))  # not swept yet
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=5))
    with CaptureQueriesContext(connection) as queries:
        trouble = task_trouble()
    assert len(queries) == 1
    assert trouble == TaskTrouble(
        failed=2,
        stuck=1,
        running_too_long=1,
        latest_task="refresh_affected_pages",
        latest_at=trouble.latest_at,
        latest_error=STUCK_ERROR,
    )
    assert timezone.now() - trouble.latest_at < timedelta(seconds=5)


def test_the_summary_of_a_quiet_day_is_nothing(db):
    task_row(TaskResultStatus.SUCCESSFUL, started=timedelta(hours=1), finished=timedelta(hours=1))
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=5))
    assert task_trouble() == TaskTrouble(0, 0, 0)
    assert not task_trouble().any


def test_a_long_error_is_cut_to_300_characters(db):
    task_row(
        TaskResultStatus.FAILED,
        finished=timedelta(minutes=1),
        traceback="RuntimeError: " + "x" * 400,
    )
    error = task_trouble().latest_error
    assert len(error) == 300 and error.endswith("x…")


def test_the_latest_error_is_the_latest_failure_not_a_later_success(db):
    task_row(
        TaskResultStatus.FAILED,
        finished=timedelta(hours=2),
        traceback="Traceback (most recent call last):\nOSError: cannot open resource\n",
    )
    task_row(
        TaskResultStatus.SUCCESSFUL, started=timedelta(minutes=2), finished=timedelta(minutes=1)
    )
    trouble = task_trouble()
    assert (trouble.failed, trouble.latest_task, trouble.latest_error) == (
        1,
        "refresh_affected_pages",
        "OSError: cannot open resource",
    )


def test_only_purges_still_waiting_count_as_purges_waiting(db):
    now = timezone.now()
    failed_purge = task_row(
        TaskResultStatus.FAILED, finished=timedelta(minutes=5), queue_name="purges"
    )
    task_row(queue_name="purges")  # READY, due at once (run_after: the backend's "any time")
    task_row()  # READY on the default queue
    DBTaskResult.objects.exclude(pk=failed_purge.pk).update(enqueued_at=now - timedelta(minutes=2))
    trouble = task_trouble(now=now)
    assert (trouble.failed, trouble.waiting_too_long, trouble.purges_waiting) == (1, 2, 1)


def test_the_queue_s_oldest_wait_is_counted_from_the_given_now_and_never_below_zero(db):
    task_row()  # READY and due
    enqueued = DBTaskResult.objects.get().enqueued_at
    assert queued(now=enqueued + timedelta(seconds=90)) == (1, 90.0)
    assert queued(now=enqueued + timedelta(milliseconds=250)) == (1, 0.25)
    assert queued(now=enqueued - timedelta(seconds=5)) == (1, 0.0)  # another machine's clock


def test_a_failure_without_a_traceback_has_no_error_line(db):
    task_row(TaskResultStatus.FAILED, finished=timedelta(minutes=1), traceback="\n  \n")
    assert task_trouble().latest_error == ""


def test_an_error_of_exactly_300_characters_is_kept_whole(db):
    error = "RuntimeError: " + "x" * (300 - len("RuntimeError: "))
    task_row(TaskResultStatus.FAILED, finished=timedelta(minutes=1), traceback=error)
    assert task_trouble().latest_error == error
