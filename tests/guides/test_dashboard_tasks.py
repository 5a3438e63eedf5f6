"""The dashboard says when background tasks failed or were stuck in the last day, with the
latest error, and when tasks are RUNNING past the timeout now; its warnings are cached under
versions, but a task's row replaces none, so this part is read on every visit."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone, translation
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from guides.background.task_queue import sweep_stuck_tasks
from guides.dashboard import _naming_command, dashboard_for

ADMIN = "/en/admin/"
TASKS = "/en/admin/django_tasks_database/dbtaskresult/"
TIMEOUT = 1800
FAILED_AT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _timeout(settings):
    settings.TASK_RUNNING_TIMEOUT = TIMEOUT


@pytest.fixture
def superuser(seeded) -> User:
    return User.objects.create_superuser("root", password="pw-for-tests-only")


def task_row(status, *, started, finished=None, traceback="", worker_ids=()) -> DBTaskResult:
    return DBTaskResult.objects.create(
        status=status,
        args_kwargs={"args": [], "kwargs": {"guide_id": 1}},
        task_path="guides.background.tasks.draw_share_images",
        backend_name="default",
        started_at=started,
        finished_at=finished,
        exception_class_path="builtins.OSError" if traceback else "",
        traceback=traceback,
        worker_ids=list(worker_ids),
    )


def a_failed_and_a_stuck_task() -> None:
    """One task failed at 10:00 (OSError), one stuck since 09:00 and failed now by the sweep,
    and one RUNNING past the timeout that no worker has swept."""
    task_row(
        TaskResultStatus.FAILED,
        started=FAILED_AT - timedelta(seconds=3),
        finished=FAILED_AT,
        traceback="Traceback (most recent call last):\nOSError: cannot open resource\n",
    )
    task_row(
        TaskResultStatus.RUNNING,
        started=datetime(2026, 11, 29, 9, 0, tzinfo=UTC),
        worker_ids=["killed-1", "killed-2"],  # its second run: failed, not queued again
    )
    sweep_stuck_tasks(now=FAILED_AT + timedelta(hours=1))
    task_row(TaskResultStatus.RUNNING, started=timezone.now() - timedelta(seconds=TIMEOUT + 1))


def task_warnings(user) -> list[tuple[str, str]]:
    found = dashboard_for(user).warnings.get("Background tasks", [])
    return [(w.message, w.url) for w in found]


def test_the_dashboard_counts_the_failed_and_stuck_tasks_and_names_the_latest_error(superuser):
    a_failed_and_a_stuck_task()
    assert task_warnings(superuser) == [
        (
            "2 background tasks failed in the last 24 hours. 1 of them was stuck RUNNING: its "
            "worker stopped mid-run.",
            f"{TASKS}?status__exact=FAILED",
        ),
        (
            "The latest: draw_share_images, failed at Nov. 29, 2026, 11 a.m. (UTC): "
            "guides.background.task_queue.StuckTask: RUNNING for more than TASK_RUNNING_TIMEOUT "
            "(1800 s): its worker stopped mid-run (killed, or its machine restarted); "
            "not run again after 2 runs",
            f"{TASKS}?status__exact=FAILED",
        ),
        (
            "1 background task has been RUNNING for more than 1800 s: is the task worker "
            '(<code class="command">manage.py db_worker</code>) running?',
            f"{TASKS}?status__exact=RUNNING",
        ),
    ]


def test_one_failure_in_the_singular_and_nothing_on_a_quiet_day(superuser):
    assert task_warnings(superuser) == []
    task_row(
        TaskResultStatus.FAILED,
        started=FAILED_AT,
        finished=FAILED_AT,
        traceback="OSError: cannot open resource",
    )
    assert [message for message, _url in task_warnings(superuser)] == [
        "1 background task failed in the last 24 hours.",
        "The latest: draw_share_images, failed at Nov. 29, 2026, 10 a.m. (UTC): "
        "OSError: cannot open resource",
    ]


def test_who_may_not_view_the_tasks_is_told_without_a_link(editor):
    a_failed_and_a_stuck_task()
    assert [url for _message, url in task_warnings(editor)] == ["", "", ""]


def test_the_admin_index_shows_it_and_a_new_failure_is_not_hidden_by_the_cache(client, superuser):
    client.force_login(superuser)
    first = client.get(ADMIN).content.decode()  # the warnings are cached from here on
    assert "Background tasks" not in first
    a_failed_and_a_stuck_task()  # no content write: no version changes
    body = client.get(ADMIN).content.decode()
    assert "<h3>Background tasks</h3>" in body
    assert (
        f'<a href="{TASKS}?status__exact=FAILED">2 background tasks failed in the last 24 '
        "hours. 1 of them was stuck RUNNING: its worker stopped mid-run.</a>"
    ) in body
    assert client.get(f"{TASKS}?status__exact=FAILED").status_code == 200


def test_in_german_and_japanese(superuser):
    a_failed_and_a_stuck_task()
    with translation.override("de"):
        assert [m for m, _url in task_warnings_in(superuser, "Hintergrundaufgaben")][0] == (
            "2 Hintergrundaufgaben sind in den letzten 24 Stunden fehlgeschlagen. 1 davon hing "
            "im Zustand RUNNING: ihr Worker hat mitten im Lauf aufgehört."
        )
    with translation.override("ja"):
        assert [m for m, _url in task_warnings_in(superuser, "バックグラウンドタスク")][0] == (
            "過去24時間に2件のバックグラウンドタスクが失敗しました。うち1件はRUNNINGのまま"
            "止まっていました（ワーカーが実行中に停止）。"
        )


def task_warnings_in(user, heading: str) -> list[tuple[str, str]]:
    return [(w.message, w.url) for w in dashboard_for(user).warnings[heading]]


def queued_row(queue: str, *, enqueued_ago: timedelta, run_after=None) -> DBTaskResult:
    from django_tasks_db.models import get_date_max

    row = DBTaskResult.objects.create(
        status=TaskResultStatus.READY,
        args_kwargs={"args": [], "kwargs": {"tags": ["prices:1"]}},
        task_path="guides.background.tasks.purge_front_cache",
        queue_name=queue,
        backend_name="default",
        run_after=run_after or get_date_max(),
    )
    DBTaskResult.objects.filter(pk=row.pk).update(enqueued_at=timezone.now() - enqueued_ago)
    return row


def test_purges_and_tasks_no_worker_takes_are_named_after_a_minute(superuser):
    """A front cache keeps serving the pages a purge would drop: a purge worker that is not
    running must show. A task queued just now, or due later, is not waiting."""
    queued_row("purges", enqueued_ago=timedelta(seconds=20))
    queued_row("default", enqueued_ago=timedelta(seconds=5))
    queued_row(
        "default", enqueued_ago=timedelta(hours=1), run_after=timezone.now() + timedelta(hours=1)
    )
    assert task_warnings(superuser) == []
    queued_row("purges", enqueued_ago=timedelta(seconds=61))
    queued_row("purges", enqueued_ago=timedelta(minutes=5))
    queued_row("default", enqueued_ago=timedelta(minutes=2))
    assert task_warnings(superuser) == [
        (
            "2 purges of the front cache have waited more than a minute: visitors may get pages "
            "from before the write. Is the purge worker "
            '(<code class="command">manage.py db_worker --queue-name purges</code>) running?',
            f"{TASKS}?status__exact=READY",
        ),
        (
            "1 background task has waited more than a minute for a worker: is the task worker "
            '(<code class="command">manage.py db_worker</code>) running?',
            f"{TASKS}?status__exact=READY",
        ),
    ]


def test_a_waiting_purge_in_german(superuser):
    queued_row("purges", enqueued_ago=timedelta(minutes=2))
    with translation.override("de"):
        assert task_warnings_in(superuser, "Hintergrundaufgaben")[0][0] == (
            "1 Löschauftrag für den Front-Cache wartet seit mehr als einer Minute: Besucher "
            "bekommen womöglich Seiten von vor der Änderung. Läuft der Lösch-Worker "
            '(<code class="command">manage.py db_worker --queue-name purges</code>)?'
        )


def test_the_command_is_code_on_the_admin_index_and_the_message_around_it_escaped(
    client, superuser
):
    """The worker's command is shown as code, kept on one line by the dashboard's stylesheet;
    the translated text around it, and the command, are still escaped."""
    queued_row("purges", enqueued_ago=timedelta(minutes=2))
    client.force_login(superuser)
    body = client.get(ADMIN).content.decode()
    assert (
        "Is the purge worker "
        '(<code class="command">manage.py db_worker --queue-name purges</code>) running?'
    ) in body
    assert _naming_command("<b>%(count)d</b> (%(command)s)", "a & b", count=2) == (
        '&lt;b&gt;2&lt;/b&gt; (<code class="command">a &amp; b</code>)'
    )
