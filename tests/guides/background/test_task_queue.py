"""The task queue's rows (guides/background/task_queue.py): tasks RUNNING past
TASK_RUNNING_TIMEOUT are queued again once where that is safe and failed otherwise, with an error
saying why, recent ones are left alone, and the dashboard's summary of the last day counts what
it should in one query."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks import TaskResultStatus
from django_tasks.base import Task
from django_tasks_db.models import DBTaskResult

from guides.background import tasks
from guides.background.task_queue import (
    RUN_AGAIN,
    STUCK_TASK,
    StuckTask,
    Swept,
    TaskTrouble,
    queued,
    sweep_stuck_tasks,
    task_trouble,
)

TIMEOUT = 1800
STUCK = (
    "guides.background.task_queue.StuckTask: RUNNING for more than TASK_RUNNING_TIMEOUT (1800 s): "
    "its worker stopped mid-run (killed, or its machine restarted); "
)
AFTER_TWO_RUNS = STUCK + "not run again after 2 runs"
NOT_SAFE_AGAIN = STUCK + "not run again: a second run could repeat what it did"
REFRESH = "guides.background.tasks.refresh_affected_pages"
NOTICE = "guides.background.tasks.send_review_notice"


@pytest.fixture(autouse=True)
def _timeout(settings):
    settings.TASK_RUNNING_TIMEOUT = TIMEOUT


def task_row(
    status=TaskResultStatus.READY, *, started=None, finished=None, runs=1, path=REFRESH, **fields
):
    """A row of the queue, its times given as how long ago, claimed by ``runs`` workers."""
    now = timezone.now()
    return DBTaskResult.objects.create(
        status=status,
        args_kwargs={"args": [], "kwargs": {"tags": ["site"]}},
        task_path=path,
        backend_name="default",
        started_at=None if started is None else now - started,
        finished_at=None if finished is None else now - finished,
        worker_ids=[f"worker-{n}" for n in range(runs)] if started else [],
        **fields,
    )


def stuck_row(**fields) -> DBTaskResult:
    return task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT + 1), **fields)


def test_a_stuck_task_safe_to_repeat_is_queued_again_once_then_failed(db):
    first_run = stuck_row(runs=1)
    second_run = stuck_row(runs=2)
    recent = task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=TIMEOUT - 60))
    ready = task_row()
    done = task_row(
        TaskResultStatus.SUCCESSFUL, started=timedelta(hours=3), finished=timedelta(hours=3)
    )
    assert sweep_stuck_tasks() == Swept(run_again=[str(first_run.pk)], failed=[str(second_run.pk)])
    for row in (first_run, second_run, recent, ready, done):
        row.refresh_from_db()
    assert [row.status for row in (first_run, second_run, recent, ready, done)] == [
        TaskResultStatus.READY,
        TaskResultStatus.FAILED,
        TaskResultStatus.RUNNING,
        TaskResultStatus.READY,
        TaskResultStatus.SUCCESSFUL,
    ]
    assert first_run in DBTaskResult.objects.ready()  # the next worker takes it
    assert (first_run.traceback, first_run.finished_at) == ("", None)
    assert second_run.exception_class_path == STUCK_TASK
    assert STUCK_TASK == "guides.background.task_queue.StuckTask"
    assert second_run.traceback == AFTER_TWO_RUNS
    assert timezone.now() - second_run.finished_at < timedelta(seconds=5)
    # the task framework reads the error back as a StuckTask
    (error,) = second_run.task_result.errors
    assert error.exception_class is StuckTask


def test_a_stuck_task_not_safe_to_repeat_is_failed_at_once(db):
    notice = stuck_row(runs=1, path=NOTICE)
    assert sweep_stuck_tasks() == Swept(run_again=[], failed=[str(notice.pk)])
    notice.refresh_from_db()
    assert (notice.status, notice.traceback) == (TaskResultStatus.FAILED, NOT_SAFE_AGAIN)


def test_every_task_is_named_safe_to_repeat_but_the_mail():
    """A task added later is failed when stuck until it is named in RUN_AGAIN."""
    defined = {
        f"{value.func.__module__}.{value.func.__qualname__}"
        for value in vars(tasks).values()
        if isinstance(value, Task)
    }
    assert defined - RUN_AGAIN == {NOTICE}
    assert RUN_AGAIN <= defined
    assert all(isinstance(import_string(path), Task) for path in RUN_AGAIN)


def test_the_timeout_is_the_setting(db, settings):
    task = stuck_row()
    settings.TASK_RUNNING_TIMEOUT = TIMEOUT + 60
    assert sweep_stuck_tasks() == Swept([], [])
    task.refresh_from_db()
    assert task.status == TaskResultStatus.RUNNING


def test_nothing_stuck_costs_one_query(db):
    task_row(TaskResultStatus.RUNNING, started=timedelta(seconds=10))
    with CaptureQueriesContext(connection) as queries:
        assert sweep_stuck_tasks() == Swept([], [])
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
    stuck_row(runs=2)
    assert sweep_stuck_tasks().failed  # failed now: the latest
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
        latest_error=AFTER_TWO_RUNS,
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
