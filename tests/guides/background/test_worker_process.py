"""A real ``manage.py db_worker`` through a real outage: its SQLite database's folder is moved
away for more than 6 s (the package's worker exited within 6 s of an outage), then put back;
the worker must still be running, say it is back, run the task held until then, and stop
cleanly on SIGTERM. At start it queues again a task left RUNNING past TASK_RUNNING_TIMEOUT by
a killed worker, and runs it.

One migrate and one worker start (about 12 s, most of it the outage): ``heavy``.
"""

import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from django_tasks_db.models import DBTaskResult

from tests.test_configuration import ROOT, manage, manage_environment

pytestmark = pytest.mark.heavy

OUTAGE_SECONDS = 6.5  # longer than the package's worker lasted
# Migrate, then queue two tasks: one held back a day (released by the test after the outage),
# one marked RUNNING two minutes ago, as a worker killed mid-run leaves it.
SETUP = """
from datetime import timedelta
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from guides.background.tasks import draw_share_images
call_command("migrate", verbosity=0)
held = draw_share_images.using(run_after=timezone.now() + timedelta(days=1)).enqueue(guide_id=0)
stuck = draw_share_images.enqueue(guide_id=0)
DBTaskResult.objects.filter(pk=stuck.id).update(
    status="RUNNING", started_at=timezone.now() - timedelta(minutes=2), worker_ids=["killed"]
)
print(held.id, stuck.id)
"""


class Output:
    """The worker's output lines as they come (a thread reads them)."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._reader.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, seconds: float) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in self.lines:
                if re.search(pattern, line):
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} in {seconds} s: {self.lines}")


TABLE = DBTaskResult._meta.db_table


def sql(database: Path, statement: str, *parameters: str) -> list[tuple]:
    """One statement on the worker's database, committed (ids as SQLite holds UUIDs: hex)."""
    with closing(sqlite3.connect(database)) as db, db:
        return db.execute(statement, parameters).fetchall()


def status(database: Path, task_id: str) -> str:
    return sql(database, f"SELECT status FROM {TABLE} WHERE id = ?", uuid.UUID(task_id).hex)[0][0]


def test_db_worker_outlives_a_database_outage_then_runs_the_queued_task(tmp_path):
    folder = tmp_path / "db"
    folder.mkdir()
    database = folder / "site.sqlite3"
    # CONN_MAX_AGE=0: an open SQLite connection keeps reading a moved file, so the worker must
    # open one per poll to see the outage (a restarted PostgreSQL drops its connection anyway).
    env = {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{database}", "TASK_RUNNING_TIMEOUT": "60",
           "CONN_MAX_AGE": "0"}  # fmt: skip
    setup = manage("shell", "-c", SETUP, **env)
    assert setup.returncode == 0, setup.stderr
    held, stuck = setup.stdout.split()[-2:]
    held_hex = uuid.UUID(held).hex

    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"]
        + ["--interval", "0.1"],
        cwd=ROOT,
        env=manage_environment(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = Output(worker)
    try:
        output.wait_for(f"Task {stuck} was RUNNING past TASK_RUNNING_TIMEOUT: .*queued again", 30)
        deadline = time.monotonic() + 5
        while status(database, stuck) != "SUCCESSFUL":  # run again (it was FAILED, never run)
            assert time.monotonic() < deadline, output.lines
            time.sleep(0.1)

        folder.rename(tmp_path / "away")  # the database is gone
        output.wait_for(r"Database unavailable .*attempt 1: trying again in 1 s", 5)
        down = time.monotonic()
        while time.monotonic() - down < OUTAGE_SECONDS:
            assert worker.poll() is None, output.lines
            time.sleep(0.1)
        assert worker.poll() is None, output.lines
        output.wait_for("attempt 3: trying again in 4 s", 1)

        (tmp_path / "away").rename(folder)  # back; release the held task
        sql(database, f"UPDATE {TABLE} SET run_after = ? WHERE id = ?", "2000-01-01", held_hex)
        output.wait_for("Database available again after 3 failed attempts", 5)
        deadline = time.monotonic() + 5
        while status(database, held) != "SUCCESSFUL":
            assert time.monotonic() < deadline, output.lines
            time.sleep(0.1)

        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=5) == 0, output.lines
        assert "Traceback" not in "\n".join(output.lines)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
