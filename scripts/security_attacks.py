"""The attacks of "Hardening II" and "Hardening III", each one figure (run by security_check.py).

Each function runs in process, in security_check.py's throwaway seeded SQLite database, through
Django's test client with the test settings, and returns ``(attack, figure, goal)`` rows for
docs/security.md. A row whose figure misses its goal fails the run. The capacity attack alone
serves from runserver in a process of its own, on that database: a load must not share the
interpreter of the requests it slows, nor the attackers' work that of the server.
"""

from __future__ import annotations

import os
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from ipaddress import ip_network
from pathlib import Path
from unittest import mock

from django.core import mail
from django.core.cache import cache
from django.core.checks import run_checks
from django.db import connection
from django.test import Client
from django.test.utils import override_settings

GUIDE = "best-gpu-for-llama-70b-fine-tuning"
PASSWORD = "a-staff-password-42"
LOGIN = "/en/admin/login/?next=/en/admin/"


@dataclass(frozen=True)
class Finding:
    attack: str
    figure: str
    held: bool  # the figure meets its goal


def _client() -> Client:
    return Client(raise_request_exception=False)


def _staff(name: str, group: str | None) -> None:
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
    if group:
        user.groups.add(Group.objects.get(name=group))


def _sign_in(client, username: str, password: str, **meta) -> int:
    data = {"username": username, "password": password}
    return client.post(LOGIN, data, **meta).status_code


# Sign-in --------------------------------------------------------------------------------------


def lockout_through_a_proxy() -> Finding:
    """Behind a proxy on another host (10.0.0.5, trusted): five clients fail once each, then a
    sixth signs in with the right password."""
    with override_settings(TRUSTED_PROXIES=(ip_network("10.0.0.5/32"),)):
        client = _client()
        for n in range(5):
            _sign_in(client, "sec-editor", "wrong", REMOTE_ADDR="10.0.0.5",
                     HTTP_X_FORWARDED_FOR=f"198.51.100.{n + 1}")  # fmt: skip
        status = _sign_in(client, "sec-editor", PASSWORD, REMOTE_ADDR="10.0.0.5",
                          HTTP_X_FORWARDED_FOR="198.51.100.77")  # fmt: skip
    return Finding(
        "5 failures from 5 clients behind a trusted proxy, then a 6th client with the right "
        "password",
        "signed in" if status == 302 else f"refused ({status})",
        status == 302,
    )


def password_spray_with_forged_header(accounts: int = 30, passwords: int = 4) -> Finding:
    """gunicorn reached directly on loopback (which the old code trusted): one attacker tries
    ``passwords`` passwords on each of ``accounts`` accounts, each request with a new forged
    X-Forwarded-For. Counted: tries whose
    password was checked (200 with the form's error) against tries answered 429 unchecked."""
    client = _client()
    rng = random.Random(34)
    checked = refused = 0
    for attempt in range(passwords):
        for n in range(accounts):
            forged = f"203.0.{rng.randrange(256)}.{rng.randrange(1, 255)}"
            status = _sign_in(client, f"spray{n}", f"guess-{attempt}", REMOTE_ADDR="127.0.0.1",
                              HTTP_X_FORWARDED_FOR=forged)  # fmt: skip
            checked += status == 200
            refused += status == 429
    tries = accounts * passwords
    return Finding(
        f"Password spray: {accounts} accounts × {passwords} passwords from one address with a "
        "forged `X-Forwarded-For` each",
        f"{checked} of {tries} passwords checked, {refused} refused unchecked",
        checked <= 6,
    )


def lock_out_a_known_account(attackers: int = 50) -> Finding:
    """``attackers`` addresses fail 3 times each on a staff account; does the staff member then
    sign in from their usual browser, and from a new one?"""
    staff = _client()
    _sign_in(staff, "sec-editor", PASSWORD, REMOTE_ADDR="192.0.2.10")  # their usual browser
    staff.post("/en/admin/logout/")
    known = staff.cookies.get("gpuguide_known_browser")
    attacker = _client()
    checked = sum(
        _sign_in(attacker, "sec-editor", "wrong", REMOTE_ADDR=f"198.18.{n // 250}.{n % 250}") == 200
        for n in range(attackers)
        for _try in range(3)
    )
    usual = _client()
    if known is not None:
        usual.cookies["gpuguide_known_browser"] = known.value
    at_desk = _sign_in(usual, "sec-editor", PASSWORD, REMOTE_ADDR="192.0.2.10")
    fresh = _client().post(
        LOGIN, {"username": "sec-editor", "password": PASSWORD}, REMOTE_ADDR="192.0.2.11"
    )
    wait = fresh.get("Retry-After", "0") if fresh.status_code == 429 else "0"
    return Finding(
        f"{attackers} addresses × 3 failures on one staff account",
        f"{checked} of {attackers * 3} tries checked; usual browser: "
        f"{'signed in' if at_desk == 302 else f'refused ({at_desk})'}; "
        f"a new browser waits {wait} s",
        at_desk == 302 and int(wait) <= 60,
    )


def sign_in_link_under_attack(attackers: int = 30) -> Finding:
    """A steady attack from rotating addresses (``attackers`` addresses, one wrong password
    each) keeps a new browser slowed; does the staff member get in by a mailed sign-in link,
    once only, and is the account told of the attack?"""
    from django.contrib.auth.models import User

    User.objects.create_user(
        "sec-mailed", email="sec-mailed@example.com", password=PASSWORD, is_staff=True
    )
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        mail.outbox = []
        attacker = _client()
        checked = sum(
            _sign_in(attacker, "sec-mailed", "wrong", REMOTE_ADDR=f"198.18.1.{n + 1}") == 200
            for n in range(attackers)
        )
        told = [m for m in mail.outbox if m.subject.startswith("Failed sign-ins")]
        browser = _client()
        fresh = _sign_in(browser, "sec-mailed", PASSWORD, REMOTE_ADDR="192.0.2.20")
        browser.post("/en/admin/sign-in-link/", {"email": "sec-mailed@example.com"},
                     REMOTE_ADDR="192.0.2.20")  # fmt: skip
        links = [m for m in mail.outbox if m.subject.startswith("Sign-in link")]
        link = re.search(r"https?://[^/\s]+(/\S+/sign-in-link/\S+/)", links[0].body).group(1)
        first = browser.post(link, REMOTE_ADDR="192.0.2.20").status_code
        index = browser.get("/en/admin/").status_code
        again = _client().post(link, REMOTE_ADDR="192.0.2.21").status_code
    return Finding(
        f"{attackers} addresses × 1 failure on one staff account, then a new browser",
        f"{checked} of {attackers} tries checked; the new browser's right password: "
        f"{'signed in' if fresh == 302 else f'refused ({fresh})'}; sign-in link: "
        f"{len(links)} mailed, first use {first} (admin {index}), second use {again}; "
        f"attack mails: {len(told)}",
        len(links) == 1 and (first, index, again) == (302, 200, 400) and len(told) == 1,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is


def _redis_down():
    """Settings with the shared cache on Redis at a closed port (django-redis as settings build
    it for CACHE_URL=redis://...), and mail kept in ``django.core.mail.outbox``."""
    options = {
        "CLIENT_CLASS": "gpuguide.lib.redis_cache.Client",
        "REDIS_CLIENT_CLASS": "gpuguide.lib.redis_cache.Redis",
        "IGNORE_EXCEPTIONS": True,
        "SOCKET_CONNECT_TIMEOUT": 0.25,
        "SOCKET_TIMEOUT": 0.5,
    }
    redis = {"BACKEND": "django_redis.cache.RedisCache", "OPTIONS": options,
             "LOCATION": f"redis://127.0.0.1:{_free_port()}/0"}  # fmt: skip
    return override_settings(
        CACHES={"default": redis},
        REDIS_RETRY_SECONDS=30,
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
    )


def redis_down_sign_in_and_reset(staff: int = 8) -> list[Finding]:
    """With Redis down: ``staff`` staff members ask for a password reset, one of them again and
    an unknown address once (each from its own address); one address asks 7 times; one account
    fails 8 times in 4 spellings from one address, then signs in from another."""
    from django.contrib.auth.models import User

    from accounts.models import ResetMail, ResetRequest

    ResetRequest.objects.all().delete()
    ResetMail.objects.all().delete()
    reset = "/en/admin/password-reset/"
    with _redis_down():
        mail.outbox = []
        client = _client()
        answers = set()
        for n in range(staff):
            User.objects.create_user(
                f"reset{n}", email=f"reset{n}@example.com", password=PASSWORD, is_staff=True
            )
        for n, email in enumerate([*(f"reset{n}@example.com" for n in range(staff)),
                                   "reset0@example.com", "nobody@example.com"]):  # fmt: skip
            answer = client.post(reset, {"email": email}, REMOTE_ADDR=f"192.0.2.{100 + n}")
            answers.add((answer.status_code, answer.get("Location")))
        mailed = sorted(address for message in mail.outbox for address in message.to)
        asked = [client.post(reset, {"email": "x@example.com"}, REMOTE_ADDR="192.0.2.200")
                 for _ in range(7)]  # fmt: skip
        spellings = ["sec-editor", "sec-editor ", "ｓｅｃ-ｅｄｉｔｏｒ", " ｓｅｃ-ｅｄｉｔｏｒ "]
        tries = [_sign_in(client, spellings[n % 4], "wrong", REMOTE_ADDR="192.0.2.201")
                 for n in range(8)]  # fmt: skip
        right = _sign_in(_client(), "sec-editor", PASSWORD, REMOTE_ADDR="192.0.2.202")
    wanted = [f"reset{n}@example.com" for n in range(staff)]
    statuses = [answer.status_code for answer in asked]
    return [
        Finding(
            f"Redis down: {staff} staff members ask for a password reset, then one of them "
            "again and an unknown address",
            f"{len(set(mailed) & set(wanted))} of {staff} mailed, {len(mailed)} mails in all; "
            f"{len(answers)} answer for all",
            mailed == wanted and len(answers) == 1,
        ),
        Finding(
            "Redis down: 7 password-reset requests from one address (limit 5 an hour)",
            f"{statuses.count(302)} answered, {statuses.count(429)} × 429",
            statuses == [302] * 5 + [429] * 2,
        ),
        Finding(
            "Redis down: 8 wrong passwords on one account in 4 spellings from one address, then "
            "the right one from another",
            f"{tries.count(200)} of 8 checked, {tries.count(429)} × 429; the right password: "
            f"{'signed in' if right == 302 else f'refused ({right})'}",
            tries == [200] * 4 + [429] * 4 and right == 302,
        ),
    ]


# Drafts ---------------------------------------------------------------------------------------


def spelled_guesses_from_rotating_addresses(guesses: int = 25) -> Finding:
    """One account guessed from ``guesses`` addresses, each try another spelling of its name
    (spaces, full-width letters): one account to sign-in, so one to every throttle."""
    letters = "sec-editor"
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in letters)
    spellings = [letters, letters + " ", " " + letters, wide, wide + " "]
    attacker = _client()
    checked = sum(
        _sign_in(attacker, spellings[n % len(spellings)], "wrong", REMOTE_ADDR=f"198.19.0.{n + 1}")
        == 200
        for n in range(guesses)
    )
    return Finding(
        f"{guesses} guesses on one account from {guesses} addresses, its name spelled "
        f"{len(spellings)} ways (spaces, full-width letters)",
        f"{checked} of {guesses} passwords checked",
        checked <= 6,
    )


def hostile_text_in_the_feeds() -> Finding:
    """An editor's (or translator's) markup in a guide's title and question, in each language,
    read through the three guide feeds: Atom text, never markup a feed reader runs."""
    from guides.models import Guide

    hostile = '<script>alert(1)</script><img src=x onerror="alert(1)">'
    fields = {
        f"{name}_{lang}": hostile for name in ("title", "question") for lang in ("en", "de", "ja")
    }
    Guide.objects.filter(slug=GUIDE).update(**fields)
    client = _client()
    feeds = [
        client.get(f"/{lang}/feeds/guides.xml").content.decode() for lang in ("en", "de", "ja")
    ]
    as_markup = sum(
        'type="html"' in feed or "<script>" in feed or "<img " in feed for feed in feeds
    )
    return Finding(
        "A script and an image with onerror in a guide's title and question, in 3 languages, "
        "read through the 3 guide feeds",
        f"{as_markup} of 3 feeds carry it as markup",
        as_markup == 0,
    )


def long_request_id() -> Finding:
    """A visitor's ``X-Request-ID`` of 10,000 characters: adopted, echoed, logged?"""
    given = "x" * 10_000
    response = _client().get("/en/gpus/", HTTP_X_REQUEST_ID=given)
    echoed = response.get("X-Request-ID", "")
    return Finding(
        "A visitor's X-Request-ID of 10,000 characters (not from a trusted proxy)",
        f"answered {response.status_code} with an id of our own ({len(echoed)} characters)",
        echoed != given and 0 < len(echoed) <= 128,
    )


def many_fields_under_debug(fields: int = 1_101) -> Finding:
    """The planner asked with ``fields`` query fields (Django takes 1,000) under ``DEBUG``, the
    embedded default: how long, and what answer?"""
    query = "&".join(f"f{n}=1" for n in range(fields))
    client = _client()
    with override_settings(DEBUG=True):
        started = time.perf_counter()
        status = client.get(f"/en/vram/?{query}").status_code
        seconds = time.perf_counter() - started
    return Finding(
        f"The planner with {fields:,} query fields under DEBUG",
        f"{status} in {seconds:.1f} s",
        status == 400 and seconds < 5,
    )


def deploy_check_without_the_settings() -> Finding:
    """``check --deploy`` with no backup key, no trusted proxies and the per-process cache."""
    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(BACKUP_SIGNING_KEY="", TRUSTED_PROXIES=(), CACHES=locmem):
        ids = sorted(
            message.id
            for message in run_checks(include_deployment_checks=True)
            if message.id and message.id.startswith("gpuguide.W")
        )
    return Finding(
        "check --deploy without BACKUP_SIGNING_KEY, TRUSTED_PROXIES and a shared cache",
        f"{len(ids)} warnings ({', '.join(ids) or 'none'})",
        ids == ["gpuguide.W001", "gpuguide.W002", "gpuguide.W003"],
    )


def draft_leaks() -> Finding:
    """A draft guide and a stored revision, asked for by each role that may not edit them."""
    from django.contrib.auth.models import User

    from guides.models import Guide, GuideRevision

    guide = Guide.objects.get(slug=GUIDE)
    revision = GuideRevision.objects.filter(guide=guide).first()
    guide.status = Guide.Status.DRAFT
    guide.save()
    roles = {
        "sec-recorder": "Price recorders",
        "sec-nobody": None,
        "sec-admin": "Administrators",  # without two-factor sign-in set up
        "sec-translator": "Translators (Japanese)",  # asking for the German page
    }
    for name, group in roles.items():
        _staff(name, group)
    leaks = asked = 0
    with override_settings(REQUIRE_2FA_FOR_ADMINISTRATORS=True):
        for name in [None, *roles]:
            client = _client()
            if name:
                client.force_login(User.objects.get(username=name))
            # The revision's preview is the admin's now; ?revision= on the public page is
            # still asked, in case a later change brings it back.
            preview = f"/de/admin/guides/guide/{guide.pk}/revisions/{revision.pk}/preview/"
            for url in (f"/de/guides/{GUIDE}/", f"/de/guides/{GUIDE}/?revision={revision.pk}",
                        preview, f"/de/guides/{GUIDE}/tutorial/"):  # fmt: skip
                asked += 1
                response = client.get(url)
                leaks += response.status_code == 200
    guide.status = Guide.Status.PUBLISHED
    guide.save()
    return Finding(
        "A draft guide, its revision (public URL and admin preview) and its tutorial asked for by "
        "a visitor, a Price recorder, staff without a role, an Administrator without 2FA, a "
        "Japanese translator (German page)",
        f"{leaks} of {asked} answered with the draft",
        leaks == 0,
    )


# Nesting and one-line fields -------------------------------------------------------------------


def deep_json_in_the_planner(depth: int = 1000) -> Finding:
    client = _client()
    config = "[" * depth + "]" * depth
    status = client.get("/en/vram/", {"config_json": config, "method": "qlora"}).status_code
    return Finding(
        f"{depth} levels of `[` in the planner's config_json",
        f"answered {status}",
        status == 400,
    )


def deep_xml_in_an_xliff_import(depth: int = 1000) -> Finding:
    from guides.editorial import translating
    from guides.models import Guide

    guide = Guide.objects.get(slug=GUIDE)
    exported = translating.xliff_export(guide, "de")
    nested = "<mrk>" * depth + "x" + "</mrk>" * depth
    hostile = exported.replace('<target xml:space="preserve">', f"<target>{nested}", 1)
    try:
        translating.translation_import(
            guide, language="de", data=hostile.encode(), filename="de.xlf"
        )
        outcome, held = "imported", False
    except translating.TranslationFileError as exc:
        outcome, held = f"refused: {exc}", True
    except RecursionError:
        outcome, held = "RecursionError", False
    return Finding(f"{depth} nested `<mrk>` in an XLIFF import", outcome, held)


def newline_in_a_title() -> Finding:
    """A German title holding a line break (saved past the admin), exported as Markdown from
    the translation screen."""
    from django.contrib.auth.models import User

    from guides.models import Guide

    guide = Guide.objects.get(slug=GUIDE)
    kept = guide.title_de
    Guide.objects.filter(pk=guide.pk).update(title_de="Welche GPU\r\nfür Llama?")
    client = _client()
    client.force_login(User.objects.get(username="sec-editor"))
    status = client.get(f"/en/admin/guides/guide/{guide.pk}/translate/de/export/md/").status_code
    Guide.objects.filter(pk=guide.pk).update(title_de=kept)
    return Finding("A title with a line break, exported as Markdown", f"answered {status}",
                   status == 200)  # fmt: skip


# Backups --------------------------------------------------------------------------------------

PAYLOAD = [
    # Rewrites every price recorded from then on (4.44 stored as 0.0101), and a superuser.
    "CREATE TRIGGER cheap_prices AFTER INSERT ON pricing_price BEGIN "
    "UPDATE pricing_price SET quoted_usd_per_hour = 0.0101 WHERE id = NEW.id; END",
    "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, "
    "is_staff, is_active, date_joined) VALUES ('!', 1, 'intruder', '', '', '', 1, 1, "
    "'2026-12-01 00:00:00')",
]


def _planted_backup(folder: Path, statements: list[str]) -> tuple[dict, Path, dict]:
    """A backup of this SQLite database with ``statements`` run in its file: its manifest as it
    was, the changed file, and a copy of the manifest fitted to it (size, SHA-256), unsigned."""
    from gpuguide.lib import backup_archive, backups

    original = folder / "site.tar"
    backups.backup("default", original)
    manifest, data = backup_archive.read(original, folder)
    with sqlite3.connect(data) as database:
        for statement in statements:
            database.execute(statement)
    database.close()
    fitted = {**manifest, "data": {**manifest["data"], "bytes": data.stat().st_size,
                                   "sha256": backup_archive.sha256_of(data)}}  # fmt: skip
    return manifest, data, fitted


def tampered_backups() -> list[Finding]:
    """A SQLite backup with a trigger and an extra superuser put in, once with the manifest as
    it was and once signed again with the right key (a leaked key); ``opened`` is every check
    a restore makes before it touches the database."""
    from gpuguide.lib import backup_archive, backups

    findings = []
    with tempfile.TemporaryDirectory(prefix="gpuguide-attack-") as folder:
        manifest, data, fitted = _planted_backup(Path(folder), PAYLOAD)
        unsigned = Path(folder) / "unsigned.tar"
        backup_archive.write(unsigned, manifest, data)
        fitted["rows"] = {**manifest["rows"], "auth_user": manifest["rows"]["auth_user"] + 1}
        resigned = Path(folder) / "resigned.tar"
        backup_archive.write(resigned, backup_archive.seal(fitted), data)
        for name, path in (("as it was", unsigned), ("signed again with the right key", resigned)):
            try:
                with backups.opened("default", path):
                    outcome, held = "accepted", False
            except backups.BackupError as exc:
                outcome, held = f"refused: {str(exc).replace(str(path), 'the file')}", True
            findings.append(Finding(
                f"A SQLite backup + trigger + extra superuser, manifest {name}", outcome, held
            ))  # fmt: skip
    return findings


# Planted in a table's own definition and beside it: both pass the schema check (a table and an
# index of the migrations' tables), and both would refuse the price 4.44 at the next check.
TIME_BOMB = [
    "CREATE UNIQUE INDEX time_bomb_index ON pricing_price (gpu_id) "
    "WHERE quoted_usd_per_hour = 4.44",
    "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = substr(sql, 1, length(sql) - 1) || "
    "', CONSTRAINT time_bomb CHECK (quoted_usd_per_hour <> 4.44))' WHERE name = 'pricing_price'",
    "PRAGMA writable_schema = OFF",
]


def time_bomb_in_a_signed_backup() -> Finding:
    """A SQLite backup signed with the right key (a leaked key) whose price table carries a
    CHECK constraint and a unique index of its own; restored, then a price of 4.44 recorded."""
    from gpuguide.lib import backup_archive, backups

    with tempfile.TemporaryDirectory(prefix="gpuguide-attack-") as folder:
        _manifest, data, fitted = _planted_backup(Path(folder), TIME_BOMB)
        planted = Path(folder) / "planted.tar"
        backup_archive.write(planted, backup_archive.seal(fitted), data)
        backups.restore("default", planted)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%time_bomb%'")
        present = cursor.fetchone()[0]
    return Finding(
        "A CHECK constraint and a unique index planted in a SQLite backup signed with the right "
        "key, restored",
        f"restored; {present} of 2 planted definitions in the database",
        present == 0,
    )


def restore_stopped_once_its_rows_are_in() -> Finding:
    """A restore killed once its rows are in, before the command purges a cache or signs anyone
    out (``backups.restore`` with the command's ``within``, then nothing): are the backup's
    sessions valid, is a page cached before current, is the front cache's purge waiting?"""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django_tasks_db.models import DBTaskResult

    from gpuguide.lib import backups
    from guides.background.tasks import purge_front_cache
    from guides.management.commands.restore import renew_with_the_rows
    from guides.pagecache import versions

    database_tasks = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend",
                                  "QUEUES": ["default", "purges"]}}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="gpuguide-attack-") as folder:
        for _ in range(16):
            SessionStore().create()  # sessions the backup holds, signed out since, maybe
        path = Path(folder) / "site.tar"
        backups.backup("default", path)
        before = versions.current_versions(["site"])
        with override_settings(FRONT_CACHE="varnish", FRONT_CACHE_PURGE_URLS=["http://127.0.0.1:9/"],
                               TASKS=database_tasks):  # fmt: skip
            backups.restore("default", path, within=renew_with_the_rows)
            purges = DBTaskResult.objects.filter(task_path=purge_front_cache.module_path).count()
    versions.forget()
    sessions = Session.objects.count()
    renewed = versions.current_versions(["site"]) != before
    return Finding(
        "A restore stopped once its rows are in (the backup holding 16 sessions; no cache "
        "emptied, no purge sent by the command)",
        f"{sessions} sessions valid; every version "
        f"{'renewed' if renewed else 'as before (pages cached before are current)'}; "
        f"{purges} purge of every page queued for the purge worker",
        sessions == 0 and renewed and purges == 1,
    )


# Rate limits ----------------------------------------------------------------------------------


def api_flood(requests: int = 700) -> Finding:
    client = _client()
    # One minute's window whatever the machine's speed: on a busy machine 700 requests took
    # over a minute, spanned two windows and were all answered (a false "no").
    window_start = time.time() // 60 * 60
    with override_settings(API_RATE_LIMIT=600), mock.patch("time.time", return_value=window_start):
        statuses = [
            client.get("/api/v1/gpus/", REMOTE_ADDR="192.0.2.99").status_code
            for _ in range(requests)
        ]
    answered, limited = statuses.count(200), statuses.count(429)
    return Finding(
        f"{requests} API requests within a minute from one address (limit 600)",
        f"{answered} answered, {limited} × 429 with Retry-After",
        answered <= 600 and limited == requests - answered,
    )


# Capacity -------------------------------------------------------------------------------------


def _serve(**settings: str):
    """The embedded default's server (runserver: a thread a request) in a process of its own,
    on this run's database, Varnish-like trust of 127.0.0.1's X-Forwarded-For."""
    port = _free_port()
    env = {**os.environ, "TRUSTED_PROXIES": "127.0.0.1/32", **settings}
    server = subprocess.Popen(  # noqa: S603 (this interpreter, our manage.py)
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=Path(__file__).resolve().parent.parent, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1).close()  # noqa: S310
            return server, base
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("runserver did not answer within 30 s")


def _get(url: str, address: str = "") -> tuple[int, float]:
    """Status and seconds of one GET (from ``address`` when given, as Varnish would say)."""
    headers = {"X-Forwarded-For": address} if address else {}
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:  # noqa: S310
            r.read()
            status = r.status
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    return status, time.perf_counter() - start


def _under_planner_load(base: str, clients: int, rate: float, samples: int) -> dict:
    """``clients`` addresses each ask the planner at ``base`` something new ``rate`` times a
    second (under the rate limit of 600 a minute) while one visitor times the cached GPU list
    and the admin's sign-in page, first at rest, then under the load."""
    stop, statuses = threading.Event(), []

    def attacker(n: int) -> None:
        start, asked = time.monotonic(), 0
        while not stop.is_set():
            asked += 1
            query = f"model=llama-3.1-8b&method=qlora&seq_len={1024 + 64 * n + asked}"
            statuses.append(_get(f"{base}/en/vram/?{query}", f"203.0.113.{n + 1}")[0])
            time.sleep(max(0.0, start + asked / rate - time.monotonic()))  # at most `rate`/s

    def medians() -> dict:
        return {path: statistics.median(_get(base + path)[1] for _ in range(samples)) * 1000
                for path in ("/en/gpus/", LOGIN)}  # fmt: skip

    _get(base + "/en/gpus/")  # into the page cache
    rest = medians()
    threads = [threading.Thread(target=attacker, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(2)  # the load under way before the timing starts
    loaded = medians()
    stop.set()
    for thread in threads:
        thread.join()
    counts = {status: statuses.count(status) for status in set(statuses)}
    return {"rest": rest, "loaded": loaded, "counts": counts}


def _at_runserver(cap: int, clients: int, rate: float, samples: int) -> dict:
    server, base = _serve(API_RATE_LIMIT="600", COMPUTE_CONCURRENCY=str(cap))
    try:
        return _under_planner_load(base, clients, rate, samples)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _slower(run: dict, path: str) -> float:
    return run["loaded"][path] / run["rest"][path]


def _statuses(run: dict) -> str:
    return ", ".join(f"{n} × {status}" for status, n in sorted(run["counts"].items()))


def _held(run: dict) -> bool:
    """At most 3x slower, and every planner question answered or refused with 503."""
    slowest = max(_slower(run, "/en/gpus/"), _slower(run, LOGIN))
    return slowest <= 3 and set(run["counts"]) <= {200, 503}


def _times(run: dict, path: str, label: str = "") -> str:
    rest, loaded = run["rest"][path], run["loaded"][path]
    return f"{rest:.1f} → {loaded:.1f} ms{label} ({_slower(run, path):.1f}×)"


def distributed_planner_load(clients: int = 8, rate: float = 5, samples: int = 40) -> Finding:
    """The cached page's and the admin sign-in page's median time at rest and under the load,
    without the cap (COMPUTE_CONCURRENCY=0) and with it (1). Goal: with the cap, each at most 3x
    its time at rest, and every refused planner request a 503 (no 429: each address is under
    its limit; no other error)."""
    off = _at_runserver(0, clients, rate, samples)
    on = _at_runserver(1, clients, rate, samples)

    def times(path: str) -> str:
        return f"{_times(off, path, ' without the cap')}, {_times(on, path, ' with it')}"

    return Finding(
        f"{clients} addresses, {rate:g} planner questions a second each (under the rate "
        "limit), at runserver (the embedded default) without and with COMPUTE_CONCURRENCY=1",
        f"median time of the cached GPU list {times('/en/gpus/')}; of the admin sign-in page "
        f"{times(LOGIN)}; the planner's answers without the cap {_statuses(off)}, with it "
        f"{_statuses(on)}",
        _held(on),
    )


def planner_load_at(base: str, clients: int = 8, rate: float = 5, samples: int = 40) -> Finding:
    """The same load against a running server (`make security ARGS="--url ..."`: through
    `make stack`'s Varnish, the edge's cap), as it is configured. The same goal."""
    run = _under_planner_load(base.rstrip("/"), clients, rate, samples)
    return Finding(
        f"{clients} addresses, {rate:g} planner questions a second each, at {base}",
        f"median time of the cached GPU list {_times(run, '/en/gpus/')}; of the admin sign-in "
        f"page {_times(run, LOGIN)}; the planner's answers {_statuses(run)}",
        _held(run),
    )


def run_all() -> list[Finding]:
    """Every attack, in a fresh state each (failures forgotten, cache emptied)."""
    from axes.models import AccessAttempt

    _staff("sec-editor", "Editors")
    findings = []
    for attack in (lockout_through_a_proxy, password_spray_with_forged_header,
                   lock_out_a_known_account, sign_in_link_under_attack,
                   spelled_guesses_from_rotating_addresses, long_request_id,
                   many_fields_under_debug, deploy_check_without_the_settings,
                   redis_down_sign_in_and_reset, draft_leaks,
                   deep_json_in_the_planner, deep_xml_in_an_xliff_import, newline_in_a_title,
                   api_flood, tampered_backups, time_bomb_in_a_signed_backup,
                   restore_stopped_once_its_rows_are_in, hostile_text_in_the_feeds,
                   distributed_planner_load):  # fmt: skip
        cache.clear()
        AccessAttempt.objects.all().delete()
        found = attack()
        findings.extend(found if isinstance(found, list) else [found])
    return findings


def as_markdown(findings: list[Finding]) -> str:
    lines = [
        "## Attacks (Hardening II and III)\n",
        "| Attack | Figure | Goal met |",
        "|---|---|---|",
    ]
    for finding in findings:
        held = "yes" if finding.held else "**no**"
        lines.append(f"| {finding.attack} | {finding.figure} | {held} |")
    return "\n".join(lines) + "\n"
