#!/usr/bin/env python3
"""The production stack on one machine: Varnish in front of two gunicorn instances, the task
worker, PostgreSQL and Redis (`make stack`; docs/operations.md, "Varnish in front").

    scripts/stack.py run      # start, serve until Ctrl-C (or SIGTERM), then stop everything
    scripts/stack.py start    # start and return; the processes keep running
    scripts/stack.py stop     # stop what `start` started
    scripts/stack.py status   # what runs, and where
    scripts/stack.py manage createsuperuser   # manage.py with the stack's settings

Varnish answers on --port (8080), the gunicorn instances on --app-ports (8001,8002), with
DEBUG off and the worker purging Varnish. PostgreSQL and Redis must answer at STACK_DATABASE_URL
(its role, not a superuser, and its database are created through STACK_ADMIN_DATABASE_URL when
missing) and STACK_CACHE_URL. Everything the stack writes is in --dir (.stack/; logs in logs/).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
DEFAULT_DATABASE_URL = "postgres://gpuguide_stack@127.0.0.1:5432/gpuguide_stack"
ADMIN_USER = "postgres"  # STACK_ADMIN_DATABASE_URL's default user: creates the role and database
DEFAULT_CACHE_URL = "redis://127.0.0.1:6379/13"
WORKERS = ("worker", "purger")  # the task workers, stopped last
STOP_WITHIN = 30.0  # seconds for a process to stop on SIGTERM before it is killed
START_WITHIN = 60.0  # seconds for every process to answer
# The app processes' environment: the stack's settings only, not the developer's .env; and
# the optional settings the developer set for the stack (metrics, logs as JSON).
KEEP_ENVIRONMENT = (
    "PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "TZ",
    "METRICS_TOKEN", "LOG_FORMAT", "PAGE_BROWSER_MAX_AGE", "API_RATE_LIMIT",
)  # fmt: skip

BACKENDS_VCL = """\
# Written by scripts/stack.py for this stack; included by deploy/varnish.vcl.
{backends}
sub vcl_init {{
    new app = directors.round_robin();
{adds}
    new compute = directors.round_robin();
{compute_adds}
}}

acl purgers {{
    "127.0.0.1";
}}
"""
# Each instance twice: as itself, and for the computing routes with half its workers at most
# (deploy/backends.example.vcl), so that the others always serve the pages and the admin.
BACKEND_VCL = """\
backend app{n} {{
    .host = "127.0.0.1";
    .port = "{port}";
    .probe = app_ready;
    .first_byte_timeout = 35s;
}}

backend app{n}_compute {{
    .host = "127.0.0.1";
    .port = "{port}";
    .probe = app_ready;
    .first_byte_timeout = 35s;
    .max_connections = {compute};
}}
"""


class StackError(Exception):
    """Something the stack needs is missing or did not start: one line saying what."""


@dataclass
class Stack:
    folder: Path
    port: int
    app_ports: list[int]
    workers: int
    database_url: str
    cache_url: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def state_file(self) -> Path:
        return self.folder / "stack.json"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    def environment(self) -> dict[str, str]:
        env = {name: os.environ[name] for name in KEEP_ENVIRONMENT if name in os.environ}
        secret = self.folder / "secret-key"
        if not secret.exists():
            secret.write_text(secrets.token_urlsafe(50))
            secret.chmod(0o600)
        env.update(
            ENV_FILE="",
            DJANGO_SETTINGS_MODULE="gpuguide.settings",
            DEBUG="false",
            SECRET_KEY=secret.read_text(),
            DATABASE_URL=self.database_url,
            CONN_MAX_AGE="60",
            CACHE_URL=self.cache_url,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            SITE_URL=self.url,  # the worker's re-renders ask for pages as Varnish's visitors
            SECURE_SSL_REDIRECT="false",  # plain HTTP on loopback
            TRUSTED_PROXIES="127.0.0.1/32",  # Varnish: its X-Forwarded-For and X-Request-ID
            FRONT_CACHE="varnish",
            FRONT_CACHE_PURGE_URLS=self.url + "/",
            STATIC_ROOT=str(self.folder / "static"),
            GUNICORN_RUNTIME_DIR=str(self.folder),
            GUNICORN_WORKERS=str(self.workers),
            LOG_LEVEL=os.environ.get("STACK_LOG_LEVEL", "WARNING"),
        )
        return env


# --- starting -----------------------------------------------------------------------------


def start(stack: Stack) -> dict:
    """Prepare the database and start Varnish, the app servers and the worker; wait until
    each answers. Returns the state written to stack.json."""
    if stack.state_file.exists() and _running(json.loads(stack.state_file.read_text())):
        raise StackError(f"a stack already runs from {stack.folder}: scripts/stack.py stop")
    varnishd = _find_varnishd()
    stack.logs.mkdir(parents=True, exist_ok=True)
    env = stack.environment()
    _check_services(stack)
    _prepare_database(stack, env)

    backends, adds, compute_adds = [], [], []
    for n, port in enumerate(stack.app_ports, 1):
        backends.append(BACKEND_VCL.format(n=n, port=port, compute=max(1, stack.workers // 2)))
        adds.append(f"    app.add_backend(app{n});")
        compute_adds.append(f"    compute.add_backend(app{n}_compute);")
    vcl = BACKENDS_VCL.format(
        backends="\n".join(backends), adds="\n".join(adds), compute_adds="\n".join(compute_adds)
    )
    (stack.folder / "gpuguide-backends.vcl").write_text(vcl)
    processes: dict[str, int] = {}
    try:
        for n, port in enumerate(stack.app_ports, 1):
            metrics = stack.folder / f"metrics-app{n}"
            shutil.rmtree(metrics, ignore_errors=True)  # prometheus-client: empty at each start
            metrics.mkdir()
            app_env = {
                **env,
                "GUNICORN_BIND": f"127.0.0.1:{port}",
                "GUNICORN_NAME": f"gpuguide-stack-app{n}",
                "PROMETHEUS_MULTIPROC_DIR": str(metrics),
            }
            processes[f"app{n}"] = _spawn(
                [str(VENV_BIN / "gunicorn"), "-c", "deploy/gunicorn.conf.py", "gpuguide.wsgi"],
                app_env,
                stack.logs / f"app{n}.log",
            )
        # The re-renders, and the front cache's purges on a worker of their own
        # (guides.background.tasks).
        # The re-renders at a lower CPU priority (nice 10, as docs/operations.md's unit): after
        # a price check they render every guide in every language, which must not slow the
        # renders of the visitors who follow the purge (they doubled its staleness otherwise).
        for name, queue, interval, nice in (
            ("worker", "default", "0.5", ["nice", "-n", "10"]),
            ("purger", "purges", "0.1", []),
        ):
            processes[name] = _spawn(
                [*nice, sys.executable, "manage.py", "db_worker", "--no-reload",
                 "--no-startup-delay", "--queue-name", queue, "--interval", interval],
                env,
                stack.logs / f"{name}.log",
            )  # fmt: skip
        processes["varnish"] = _spawn(
            [varnishd, "-F", "-j", "none", "-a", f"127.0.0.1:{stack.port}",
             "-f", str(ROOT / "deploy" / "varnish.vcl"),
             "-p", f"vcl_path={stack.folder}:{ROOT / 'deploy'}",
             "-n", str(stack.folder / "varnish"), "-s", "malloc,256m"],
            {"PATH": os.environ.get("PATH", "")},
            stack.logs / "varnish.log",
        )  # fmt: skip
        state = {
            "url": stack.url,
            "app_urls": [f"http://127.0.0.1:{port}" for port in stack.app_ports],
            "database_url": stack.database_url,
            "cache_url": stack.cache_url,
            "processes": processes,
        }
        stack.state_file.write_text(json.dumps(state, indent=2))
        for name, base in [
            *((f"app{n}", url) for n, url in enumerate(state["app_urls"], 1)),
            ("varnish", stack.url),
        ]:
            _wait_until_answering(name, base + "/healthz", processes, stack.logs)
    except BaseException:
        stop_processes(processes)
        stack.state_file.unlink(missing_ok=True)
        raise
    return state


def _find_varnishd() -> str:
    found = shutil.which("varnishd") or shutil.which("varnishd", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise StackError(
            "varnishd is missing: apt-get install varnish varnish-modules (Varnish 7 and its "
            "xkey module)"
        )
    return found


def admin_url(database_url: str) -> str:
    """The same server as ``database_url``, as its administrator, on the ``postgres`` database."""
    parts = urlsplit(database_url)
    server = parts.hostname + (f":{parts.port}" if parts.port else "")
    return f"{parts.scheme}://{ADMIN_USER}@{server}/postgres"


def _create_role_and_database(admin, database_url: str) -> None:
    """The app's role, not a superuser (a restore, or anything the app is made to run, has no
    more power than the app's own tables), owning its database."""
    from psycopg import sql

    parts = urlsplit(database_url)
    role, name = parts.username, parts.path.lstrip("/")
    found = admin.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role]).fetchone()
    if found is None:
        password = sql.SQL(" PASSWORD {}").format(parts.password) if parts.password else sql.SQL("")
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN{}").format(sql.Identifier(role), password))
    elif found[0]:
        raise StackError(
            f"STACK_DATABASE_URL's role {role} is a superuser: the stack runs the app as a "
            "role that is not one (docs/operations.md, 'The database role')"
        )
    owner = admin.execute(
        "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [name]
    ).fetchone()
    if owner is None:
        admin.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(
                sql.Identifier(name), sql.Identifier(role)
            )
        )
    elif owner[0] != role:
        raise StackError(
            f"the database {name} belongs to {owner[0]}, not to {role} (an older `make stack` "
            f"made it as {ADMIN_USER}): drop it (dropdb {name}) and the stack makes it again"
        )


def _check_services(stack: Stack) -> None:
    import psycopg
    import redis

    admin = os.environ.get("STACK_ADMIN_DATABASE_URL") or admin_url(stack.database_url)
    try:
        with psycopg.connect(admin, connect_timeout=5, autocommit=True) as connection:
            _create_role_and_database(connection, stack.database_url)
    except psycopg.Error as error:
        raise StackError(f"PostgreSQL at {admin}: {str(error).strip()}") from error
    try:
        redis.Redis.from_url(stack.cache_url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        raise StackError(f"Redis at {stack.cache_url}: {error}") from error


def _prepare_database(stack: Stack, env: dict[str, str]) -> None:
    for args in (
        ["migrate", "--no-input", "-v0"],
        ["seed_content", "-v0"],
        ["collectstatic", "--no-input", "-v0"],
    ):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            raise StackError(f"manage.py {args[0]} failed:\n{done.stderr.strip()[-3000:]}")


def _spawn(args: list[str], env: dict[str, str], log: Path) -> int:
    with open(log, "ab") as output:
        process = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    return process.pid


def _wait_until_answering(name: str, url: str, processes: dict[str, int], logs: Path) -> None:
    deadline = time.monotonic() + START_WITHIN
    while time.monotonic() < deadline:
        if not _alive(processes[name]):
            tail = (logs / f"{name}.log").read_text(errors="replace")[-3000:]
            raise StackError(f"{name} stopped while starting; its log ends:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:  # noqa: S310 (loopback)
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)  # polling a process that is starting: it sends no signal when ready
    raise StackError(f"{name} did not answer {url} within {START_WITHIN:.0f} s (see {logs})")


# --- stopping -----------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        waited, _status = os.waitpid(pid, os.WNOHANG)  # our child: reap it if it ended
        if waited == pid:
            return False
    except ChildProcessError:
        pass  # started by another invocation: only a signal tells
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _running(state: dict) -> list[str]:
    return [name for name, pid in state.get("processes", {}).items() if _alive(pid)]


def stop_processes(processes: dict[str, int]) -> list[str]:
    """Stop the task workers first (each finishes its task, whose purges need Varnish), then
    the app servers (gunicorn finishes the requests under way), then Varnish: SIGTERM to each
    process group, SIGKILL to what is still there after STOP_WITHIN. Returns what was killed."""
    killed = []
    apps = [name for name in processes if name not in (*WORKERS, "varnish")]
    for group in (WORKERS, apps, ("varnish",)):
        names = [name for name in group if name in processes]
        for name in names:
            try:
                os.killpg(processes[name], signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + STOP_WITHIN
        while time.monotonic() < deadline and any(_alive(processes[name]) for name in names):
            time.sleep(0.1)  # processes in other sessions: polled until they have exited
        for name in names:
            if _alive(processes[name]):
                killed.append(name)
                try:
                    os.killpg(processes[name], signal.SIGKILL)
                except ProcessLookupError:
                    pass
    return killed


def stop(stack: Stack) -> str:
    if not stack.state_file.exists():
        return f"no stack was started from {stack.folder}"
    state = json.loads(stack.state_file.read_text())
    killed = stop_processes(state["processes"])
    stack.state_file.unlink()
    if killed:
        return f"stopped; killed after {STOP_WITHIN:.0f} s: {', '.join(killed)}"
    return "stopped: " + ", ".join(state["processes"])


def describe(state: dict, folder: Path) -> str:
    apps = "  ".join(state["app_urls"])
    return (
        f"GPU Guide through Varnish:  {state['url']}/\n"
        f"gunicorn instances:          {apps}\n"
        f"PostgreSQL: {state['database_url']}   Redis: {state['cache_url']}\n"
        f"logs: {folder / 'logs'}/   an admin user: scripts/stack.py manage createsuperuser"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command", nargs="?", default="run", choices=("run", "start", "stop", "status", "manage")
    )
    parser.add_argument("--dir", type=Path, default=ROOT / ".stack", help="(default: .stack/)")
    parser.add_argument("--port", type=int, default=8080, help="Varnish's port (8080)")
    parser.add_argument(
        "--app-ports", default="8001,8002", help="the gunicorn instances' ports (8001,8002)"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers each (2)")
    args, manage_args = parser.parse_known_args(argv)
    if manage_args and args.command != "manage":
        parser.error(f"unrecognized arguments: {' '.join(manage_args)}")
    folder = args.dir.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    stack = Stack(
        folder=folder,
        port=args.port,
        app_ports=[int(port) for port in args.app_ports.split(",")],
        workers=args.workers,
        database_url=os.environ.get("STACK_DATABASE_URL", DEFAULT_DATABASE_URL),
        cache_url=os.environ.get("STACK_CACHE_URL", DEFAULT_CACHE_URL),
    )
    if args.command == "manage":
        command = [sys.executable, "manage.py", *manage_args]
        return subprocess.run(command, cwd=ROOT, env=stack.environment()).returncode
    try:
        if args.command == "stop":
            print(f"stack: {stop(stack)}")
            return 0
        if args.command == "status":
            if not stack.state_file.exists():
                print("stack: not started")
                return 1
            state = json.loads(stack.state_file.read_text())
            running = _running(state)
            print(describe(state, folder))
            print(f"running: {', '.join(running) or 'nothing'}")
            return 0 if len(running) == len(state["processes"]) else 1
        state = start(stack)
    except StackError as error:
        print(f"stack: {error}", file=sys.stderr)
        return 1
    print(describe(state, folder))
    if args.command == "start":
        print("Stop it with: scripts/stack.py stop (make stack-stop)")
        return 0
    return _serve_until_stopped(stack, state)


def _serve_until_stopped(stack: Stack, state: dict) -> int:
    """Until Ctrl-C or SIGTERM, or until one of the processes ends (then the others stop)."""
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    print("Ctrl-C stops the stack.")
    ended = ""
    try:
        pid, _status = os.wait()  # blocks until a child ends
        ended = next((name for name, p in state["processes"].items() if p == pid), str(pid))
    except KeyboardInterrupt:
        pass
    print(f"\nstack: {stop(stack)}")
    if ended:
        print(
            f"stack: {ended} ended on its own; see {stack.logs / (ended + '.log')}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
