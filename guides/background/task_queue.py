"""The task queue's rows (django_tasks_db): tasks left RUNNING by a dead worker are failed, and
recent failures are summed up for the admin's dashboard.

A worker killed mid-run (SIGKILL, out of memory, a machine restart) leaves its task RUNNING
for ever: nothing else ever touches that row. ``fail_stuck_tasks``, which the worker runs at
start and every minute (``guides.background.worker``), marks a task RUNNING for longer than
``TASK_RUNNING_TIMEOUT`` as FAILED, with a ``StuckTask`` error saying so.

Why FAILED and not queued again:

- A task that kills its worker (memory, a crash in a C library) would kill the next one too,
  and again after each restart: failing it stops the loop where an operator can see it.
- Nothing is lost. Every task is idempotent and asked for again by what caused it: the next
  write queues another re-render (meanwhile a stale page renders on a visitor's request after
  ``PAGE_CACHE_STALE_SECONDS``); a share image is drawn at the next publication, or by
  ``manage.py draw_share_images`` (until then the site-wide image is used).
- A task that is only slow, still running on another machine's worker, is not run twice; if it
  finishes, it records its own result over the FAILED one.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    """The error of a task failed by ``fail_stuck_tasks``: its worker stopped mid-run."""


STUCK_TASK = f"{StuckTask.__module__}.{StuckTask.__qualname__}"


def stuck_error(timeout: int) -> str:
    """The error line a stuck task is failed with, as a traceback's last line reads."""
    error = StuckTask(
        f"RUNNING for more than TASK_RUNNING_TIMEOUT ({timeout} s): its worker stopped "
        "mid-run (killed, or its machine restarted); not run again"
    )
    return "".join(format_exception_only(error)).strip()


def fail_stuck_tasks(now: datetime | None = None) -> list[str]:
    """Mark every task RUNNING for longer than ``TASK_RUNNING_TIMEOUT`` as FAILED; the ids
    failed. One query when none is stuck; a task that finished meanwhile keeps its result."""
    now = now or timezone.now()
    timeout = settings.TASK_RUNNING_TIMEOUT
    stuck = DBTaskResult.objects.running().filter(started_at__lt=now - timedelta(seconds=timeout))
    ids = list(stuck.values_list("pk", flat=True))
    if not ids:
        return []
    stuck.filter(pk__in=ids).update(
        status=TaskResultStatus.FAILED,
        finished_at=now,
        exception_class_path=STUCK_TASK,
        traceback=stuck_error(timeout),
    )
    return [str(pk) for pk in ids]


@dataclass(frozen=True)
class TaskTrouble:
    """What went wrong in the queue lately; all zero and ``None`` when nothing did."""

    failed: int  # tasks failed in the last day
    stuck: int  # of those, failed by ``fail_stuck_tasks``
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
    row = (
        DBTaskResult.objects.filter(failed | too_long | waiting)
        .annotate(
            n_failed=Window(Count("pk", filter=Q(status=TaskResultStatus.FAILED))),
            n_stuck=Window(Count("pk", filter=Q(exception_class_path=STUCK_TASK))),
            n_running=Window(Count("pk", filter=Q(status=TaskResultStatus.RUNNING))),
            n_waiting=Window(Count("pk", filter=Q(status=TaskResultStatus.READY))),
            n_purges=Window(
                Count("pk", filter=Q(status=TaskResultStatus.READY, queue_name=PURGES))
            ),
        )
        .order_by(F("finished_at").desc(nulls_last=True))
        .values(
            "n_failed",
            "n_stuck",
            "n_running",
            "n_waiting",
            "n_purges",
            "status",
            "task_path",
            "finished_at",
            "traceback",
        )  # fmt: skip
        .first()
    )
    if row is None:
        return TaskTrouble(0, 0, 0)
    trouble = TaskTrouble(
        row["n_failed"], row["n_stuck"], row["n_running"], row["n_waiting"], row["n_purges"]
    )
    if row["status"] != TaskResultStatus.FAILED:
        return trouble
    lines = [line for line in row["traceback"].splitlines() if line.strip()]
    error = lines[-1].strip() if lines else ""
    if len(error) > ERROR_CHARACTERS:
        error = error[: ERROR_CHARACTERS - 1] + "…"
    return TaskTrouble(
        trouble.failed,
        trouble.stuck,
        trouble.running_too_long,
        trouble.waiting_too_long,
        trouble.purges_waiting,
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
