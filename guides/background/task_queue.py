"""The task queue's rows (django_tasks_db): tasks left RUNNING by a dead worker are run once
more or failed (``sweep_stuck_tasks``), and recent failures are summed up for the dashboard.

Only a task safe to repeat (``RUN_AGAIN``) runs again, at most ``MAX_RUNS`` times: a task that
killed its worker would kill the next one too, and a review notice run twice would mail people
twice. Nothing is lost: what caused each task asks again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from traceback import format_exception_only

from django.conf import settings
from django.db.models import Count, F, Min, Q, Window
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

RECENT = timedelta(days=1)  # how far back the dashboard counts failures
# A due task still waiting for a worker after this long: no worker takes its queue (the purge
# worker of FRONT_CACHE takes only "purges", the task worker only "default").
WAITING_TOO_LONG = timedelta(minutes=1)
PURGES = "purges"
ERROR_CHARACTERS = 300  # of the latest error, on the dashboard


class StuckTask(Exception):
    """The error of a task failed by ``sweep_stuck_tasks``: its worker stopped mid-run."""


STUCK_TASK = f"{StuckTask.__module__}.{StuckTask.__qualname__}"
MAX_RUNS = 2  # a task safe to repeat runs at most this often when its worker stops mid-run
RUN_AGAIN = frozenset(
    f"guides.background.tasks.{name}"
    for name in (
        "refresh_affected_pages",
        "purge_front_cache",
        "draw_share_images",
        "draw_missing_share_image",
        "apply_scheduled_changes",
    )
)


def stuck_error(timeout: int, *, runs: int | None = None) -> str:
    """The error line a stuck task is failed with, as a traceback's last line reads: after
    ``runs`` runs, or (None) not run again because a second run is not safe."""
    why = (
        "not run again: a second run could repeat what it did"
        if runs is None
        else f"not run again after {runs} runs"
    )
    error = StuckTask(
        f"RUNNING for more than TASK_RUNNING_TIMEOUT ({timeout} s): its worker stopped "
        f"mid-run (killed, or its machine restarted); {why}"
    )
    return "".join(format_exception_only(error)).strip()


@dataclass(frozen=True)
class Swept:
    """The ids of the stuck tasks queued again and of those failed."""

    run_again: list[str]
    failed: list[str]


def sweep_stuck_tasks(now: datetime | None = None) -> Swept:
    """Queue again every task RUNNING for longer than ``TASK_RUNNING_TIMEOUT`` that is safe to
    repeat and has run fewer than ``MAX_RUNS`` times; mark the others FAILED. One query when
    none is stuck; a task that finished meanwhile keeps its result."""
    now = now or timezone.now()
    timeout = settings.TASK_RUNNING_TIMEOUT
    stuck = DBTaskResult.objects.running().filter(started_at__lt=now - timedelta(seconds=timeout))
    rows = list(stuck.values_list("pk", "task_path", "worker_ids"))
    if not rows:
        return Swept([], [])
    again = [pk for pk, path, runs in rows if path in RUN_AGAIN and len(runs) < MAX_RUNS]
    spent = [pk for pk, path, runs in rows if path in RUN_AGAIN and len(runs) >= MAX_RUNS]
    unsafe = [pk for pk, path, _runs in rows if path not in RUN_AGAIN]
    stuck.filter(pk__in=again).update(status=TaskResultStatus.READY)
    for ids, error in (
        (spent, stuck_error(timeout, runs=MAX_RUNS)),
        (unsafe, stuck_error(timeout)),
    ):
        stuck.filter(pk__in=ids).update(
            status=TaskResultStatus.FAILED,
            finished_at=now,
            exception_class_path=STUCK_TASK,
            traceback=error,
        )
    return Swept([str(pk) for pk in again], [str(pk) for pk in spent + unsafe])


@dataclass(frozen=True)
class TaskTrouble:
    """What went wrong in the queue lately; all zero and ``None`` when nothing did."""

    failed: int  # tasks failed in the last day
    stuck: int  # of those, failed by ``sweep_stuck_tasks``
    running_too_long: int  # RUNNING past the timeout now: no worker has failed them yet
    waiting_too_long: int = 0  # due for longer than WAITING_TOO_LONG, no worker took them
    purges_waiting: int = 0  # of those, purges of the front cache (queue "purges")
    latest_task: str = ""  # the latest failure's task name
    latest_at: datetime | None = None
    latest_error: str = ""  # its traceback's last line, shortened

    @property
    def any(self) -> bool:
        return bool(self.failed or self.running_too_long or self.waiting_too_long)


def task_trouble(now: datetime | None = None) -> TaskTrouble:
    """Failures of the last day, tasks RUNNING past the timeout and tasks due but waiting for
    a worker, in one query: the newest failure's row, with the counts over all matching rows
    beside it (window aggregates)."""
    now = now or timezone.now()
    failed = Q(status=TaskResultStatus.FAILED, finished_at__gte=now - RECENT)
    too_long = Q(
        status=TaskResultStatus.RUNNING,
        started_at__lt=now - timedelta(seconds=settings.TASK_RUNNING_TIMEOUT),
    )
    long_ago = now - WAITING_TOO_LONG
    waiting = Q(status=TaskResultStatus.READY) & (
        Q(run_after=get_date_max(), enqueued_at__lt=long_ago) | Q(run_after__lt=long_ago)
    )
    counts = {  # TaskTrouble's counts, each over the rows it names
        "failed": Q(status=TaskResultStatus.FAILED),
        "stuck": Q(exception_class_path=STUCK_TASK),
        "running_too_long": Q(status=TaskResultStatus.RUNNING),
        "waiting_too_long": Q(status=TaskResultStatus.READY),
        "purges_waiting": Q(status=TaskResultStatus.READY, queue_name=PURGES),
    }
    row = (
        DBTaskResult.objects.filter(failed | too_long | waiting)
        .annotate(**{name: Window(Count("pk", filter=rows)) for name, rows in counts.items()})
        .order_by(F("finished_at").desc(nulls_last=True))
        .values(*counts, "status", "task_path", "finished_at", "traceback")
        .first()
    )
    if row is None:
        return TaskTrouble(0, 0, 0)
    trouble = TaskTrouble(**{name: row[name] for name in counts})
    if row["status"] != TaskResultStatus.FAILED:
        return trouble
    lines = [line for line in row["traceback"].splitlines() if line.strip()]
    error = lines[-1].strip() if lines else ""
    if len(error) > ERROR_CHARACTERS:
        error = error[: ERROR_CHARACTERS - 1] + "…"
    return replace(
        trouble,
        latest_task=row["task_path"].rpartition(".")[2],
        latest_at=row["finished_at"],
        latest_error=error,
    )


def queued(now: datetime | None = None) -> tuple[int, float]:
    """How many tasks wait for a worker (READY and due), and how long (seconds) the oldest of
    them has waited since it was queued (0 when none): one query, for the metrics."""
    now = now or timezone.now()
    found = DBTaskResult.objects.ready().aggregate(depth=Count("pk"), oldest=Min("enqueued_at"))
    oldest = found["oldest"]
    return found["depth"], max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
