"""The backup file: an uncompressed tar of ``manifest.json`` (first, so it is read without the
database) and ``database.dump`` (pg_dump custom format, compressed already) or
``database.sqlite3``, nothing else; one file that every system can list (``tar tf``).

The manifest (engine, time, migrations, rows per table, the database file's SHA-256) carries an
HMAC-SHA256 of its canonical JSON, keyed by ``BACKUP_SIGNING_KEY`` or else ``SECRET_KEY``
through ``salted_hmac`` with a salt of its own, so no other part of Django accepts it. Members
are looked up by their exact names and copied to files this code names: no path in the
archive matters.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

FORMAT = "gpuguide-backup"
VERSION = 1
SUFFIX = "tar"
MANIFEST_NAME = "manifest.json"
DATA_NAMES = {"postgresql": "database.dump", "sqlite": "database.sqlite3"}
# The purpose of the key: a signature made for backups is valid for nothing else.
SIGNING_SALT = "gpuguide.lib.backup_archive.manifest"
MANIFEST_LIMIT = 4 * 1024 * 1024  # bytes; a real one is a few kilobytes
OLD_FORMATS = {b"SQLite format 3\x00": "SQLite database", b"PGDMP": "pg_dump archive"}


class BackupError(Exception):
    """A backup or restore that cannot go ahead; the message is one line for the operator."""


# Signing ---------------------------------------------------------------------------------


def signing_key() -> tuple[str, str]:
    """(the setting's name, its value): BACKUP_SIGNING_KEY if set, else SECRET_KEY."""
    if getattr(settings, "BACKUP_SIGNING_KEY", ""):
        return "BACKUP_SIGNING_KEY", settings.BACKUP_SIGNING_KEY
    return "SECRET_KEY", settings.SECRET_KEY


def _signature(manifest: dict, key: str) -> str:
    unsigned = {name: value for name, value in manifest.items() if name != "hmac"}
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"))
    return salted_hmac(SIGNING_SALT, canonical, secret=key, algorithm="sha256").hexdigest()


def seal(manifest: dict) -> dict:
    """The manifest with the name of its key and its HMAC."""
    name, key = signing_key()
    sealed = {**manifest, "format": FORMAT, "version": VERSION, "signed_with": name}
    return {**sealed, "hmac": _signature(sealed, key)}


def sha256_of(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# Writing and reading ---------------------------------------------------------------------


def _member(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o600
    return info


def write(path: Path, manifest: dict, data: Path) -> None:
    """The tar at ``path``: ``manifest`` as given (seal it first), then the database file."""
    encoded = json.dumps(manifest, indent=1, sort_keys=True).encode()
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(_member(MANIFEST_NAME, len(encoded)), io.BytesIO(encoded))
        with open(data, "rb") as handle:
            archive.addfile(_member(manifest["data"]["name"], data.stat().st_size), handle)


def _refuse_old_format(path: Path) -> None:
    """A bare dump or SQLite file from before manifests: say what it is and what to do."""
    with open(path, "rb") as handle:
        head = handle.read(16)
    for magic, kind in OLD_FORMATS.items():
        if head.startswith(magic):
            raise BackupError(
                f"{path} is a bare {kind} from before signed backups (no manifest), which "
                "restore refuses because it cannot be checked: if you trust it, restore it "
                "with the release that wrote it, then take a new backup with `manage.py backup`"
            )


def _members(archive: tarfile.TarFile, path: Path) -> list[tarfile.TarInfo]:
    """The manifest's member and the database file's, and nothing else."""
    members = archive.getmembers()
    names = [member.name for member in members]
    if (
        len(members) != 2
        or names[0] != MANIFEST_NAME
        or names[1] not in DATA_NAMES.values()
        or not all(member.isreg() for member in members)
    ):
        raise BackupError(
            f"{path} does not hold exactly {MANIFEST_NAME} and one database file "
            f"(it holds: {', '.join(names[:5]) or 'nothing'}); nothing was restored"
        )
    return members


def read(path: Path, folder: Path) -> tuple[dict, Path]:
    """The manifest, unchecked, and the database file copied into ``folder``."""
    try:
        _refuse_old_format(path)
        with tarfile.open(path, "r:") as archive:
            manifest_member, data_member = _members(archive, path)
            if manifest_member.size > MANIFEST_LIMIT:
                raise BackupError(
                    f"{path}: {MANIFEST_NAME} is too large to be ours; nothing was restored"
                )
            try:
                manifest = json.loads(archive.extractfile(manifest_member).read())
            except ValueError as exc:
                raise BackupError(
                    f"{path}: {MANIFEST_NAME} is not JSON ({exc}); nothing was restored"
                ) from exc
            if not isinstance(manifest, dict):
                raise BackupError(f"{path}: {MANIFEST_NAME} is not an object; nothing was restored")
            data = folder / data_member.name
            with archive.extractfile(data_member) as source, open(data, "wb") as target:
                shutil.copyfileobj(source, target, 1024 * 1024)
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except tarfile.TarError as exc:
        raise BackupError(
            f"{path} is not a backup written by `manage.py backup` (not a tar with "
            f"{MANIFEST_NAME}: {exc}); nothing was restored"
        ) from exc
    return manifest, data


# Checking --------------------------------------------------------------------------------


def check_signature(manifest: dict, path: Path) -> None:
    """Format, version and HMAC, before any other field of the manifest is believed."""
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{path}: {MANIFEST_NAME} is not a GPU Guide backup manifest")
    if manifest.get("version") != VERSION:
        raise BackupError(
            f"{path} is a backup of format version {manifest.get('version')!r}; this code "
            f"reads version {VERSION}: restore it with the release that wrote it"
        )
    name, key = signing_key()
    claimed = str(manifest.get("hmac", ""))
    if not constant_time_compare(claimed, _signature(manifest, key)):
        raise BackupError(
            f"{path}: the manifest's signature does not match: the file was changed after "
            f"`manage.py backup` wrote it, or was signed with another key (it names "
            f"{manifest.get('signed_with')!r}; this server signs with {name}); "
            "nothing was restored"
        )


def check_data(manifest: dict, data: Path, path: Path) -> None:
    expected = manifest.get("data") or {}
    if data.name != expected.get("name") or sha256_of(data) != expected.get("sha256"):
        raise BackupError(
            f"{path}: the database file's SHA-256 is not the manifest's: the file was changed "
            "or damaged; nothing was restored"
        )
