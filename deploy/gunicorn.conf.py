"""gunicorn's configuration for GPU Guide: `gunicorn -c deploy/gunicorn.conf.py gpuguide.wsgi`.

Every value can be set from the environment (the GUNICORN_* variables below), so that one file
serves the systemd unit of docs/operations.md, `make stack` and the stack's CI test. Django's
own settings come from the environment and .env as always.
"""

import os
import tempfile
from pathlib import Path

bind = [os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")]
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
# The planner and the API may hold only some of these at once, so that the rest always serve the
# pages and the admin: COMPUTE_CONCURRENCY threads a process (below `threads`), and Varnish's
# `.max_connections` for them, about half of workers x threads (deploy/backends.example.vcl).
# A worker silent this long is killed and replaced; Varnish's first_byte_timeout (35 s in
# deploy/backends.example.vcl) waits a little longer, so that it sees gunicorn's answer.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5  # behind Varnish or nginx, which reuse connections
# A planner configuration pasted as a query string runs long: 8190 is gunicorn's ceiling (its
# default, 4094, cut such URLs with a 400 before Django saw them).
limit_request_line = 8190
# The heartbeat files in memory, not on a disk that may stall (gunicorn's advice).
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108

# One control socket per instance (`gunicornc -s PATH`): by default gunicorn puts every
# instance's at the same path ($HOME/.gunicorn/gunicorn.ctl), where the last one started wins.
_runtime = Path(os.environ.get("GUNICORN_RUNTIME_DIR", tempfile.gettempdir()))
control_socket = str(_runtime / f"gunicorn-{bind[0].replace(':', '-').replace('/', '_')}.ctl")
pidfile = os.environ.get("GUNICORN_PIDFILE") or None

accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None  # "-": standard output
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
proc_name = os.environ.get("GUNICORN_NAME", f"gpuguide-{bind[0]}")


def child_exit(server, worker):
    """A worker's metrics files are summed by /metrics until it is marked dead
    (docs/operations.md, "Metrics and logs": PROMETHEUS_MULTIPROC_DIR)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
