"""``manage.py check --deploy`` on our own settings: each one production gets wrong silently."""

from __future__ import annotations

from django.conf import settings
from django.core import checks

UNSET_BACKUP_KEY = "gpuguide.W001"
NO_TRUSTED_PROXIES = "gpuguide.W002"
PER_PROCESS_CACHE = "gpuguide.W003"


@checks.register(checks.Tags.security, deploy=True)
def check_backup_signing_key(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if settings.BACKUP_SIGNING_KEY:
        return []
    return [
        checks.Warning(
            "BACKUP_SIGNING_KEY is not set: backups are signed with a key derived from "
            "SECRET_KEY, which `make run` and many deployments keep in .env beside backups/; "
            "whoever reads both can sign a backup of their own that `restore` accepts.",
            hint="Set BACKUP_SIGNING_KEY to another long random string, kept apart from .env "
            "and from the backups (the service's environment or a secret store).",
            id=UNSET_BACKUP_KEY,
        )
    ]


@checks.register(checks.Tags.security, deploy=True)
def check_trusted_proxies(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if settings.TRUSTED_PROXIES:
        return []
    return [
        checks.Warning(
            "TRUSTED_PROXIES is empty: behind a proxy (the TLS proxy, Varnish, nginx, a load "
            "balancer) every visitor has the proxy's address, so the rate limits and the "
            "sign-in throttles count all visitors as one client.",
            hint="Name the proxies that reach gunicorn, e.g. TRUSTED_PROXIES=127.0.0.1/32 for "
            "one on this host (docs/operations.md, 'Deploying to production').",
            id=NO_TRUSTED_PROXIES,
        )
    ]


@checks.register(checks.Tags.caches, deploy=True)
def check_shared_cache(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if not settings.CACHES["default"]["BACKEND"].endswith(".LocMemCache"):
        return []
    return [
        checks.Warning(
            "The default cache is local memory, one per process: each gunicorn worker counts "
            "its own rate limits (so the limit multiplies by the workers) and sees only its "
            "own editors' presence, and the pages the task worker renders after a write land "
            "in its own memory, not the servers'.",
            hint="Set CACHE_URL to a cache all processes share, e.g. redis://127.0.0.1:6379/1.",
            id=PER_PROCESS_CACHE,
        )
    ]
