"""`manage.py check --deploy` warns of our own settings that production gets wrong silently
(gpuguide/lib/deploy_checks.py); plain `check` (development) says nothing of them."""

from ipaddress import ip_network

import pytest
from django.core.checks import WARNING, Tags, run_checks

from gpuguide.lib import deploy_checks

OURS = {
    deploy_checks.UNSET_BACKUP_KEY,
    deploy_checks.NO_TRUSTED_PROXIES,
    deploy_checks.PER_PROCESS_CACHE,
}
REDIS = {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://127.0.0.1:6379/1"}
LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


def our_warnings(*, deploy: bool = True) -> dict[str, object]:
    # Those tags only: the others include checks that read the database.
    found = run_checks(include_deployment_checks=deploy, tags=[Tags.security, Tags.caches])
    return {message.id: message for message in found if message.id in OURS}


@pytest.fixture
def production_defaults(settings):
    settings.BACKUP_SIGNING_KEY = ""
    settings.TRUSTED_PROXIES = ()
    settings.CACHES = {"default": LOCMEM}


@pytest.mark.usefixtures("production_defaults")
def test_the_deploy_check_warns_of_each_unset_setting_with_a_hint():
    warnings = our_warnings()
    assert set(warnings) == OURS
    assert all(w.level == WARNING and w.hint for w in warnings.values())
    backup = warnings[deploy_checks.UNSET_BACKUP_KEY]
    assert "derived from SECRET_KEY" in backup.msg and "beside backups/" in backup.msg
    assert "kept apart from .env" in backup.hint
    proxies = warnings[deploy_checks.NO_TRUSTED_PROXIES]
    assert "count all visitors as one client" in proxies.msg
    assert "TRUSTED_PROXIES=127.0.0.1/32" in proxies.hint
    cache = warnings[deploy_checks.PER_PROCESS_CACHE]
    assert "one per process" in cache.msg and "CACHE_URL" in cache.hint


@pytest.mark.usefixtures("production_defaults")
def test_development_checks_say_nothing_of_them():
    assert our_warnings(deploy=False) == {}


@pytest.mark.usefixtures("production_defaults")
@pytest.mark.parametrize(
    ("setting", "value", "silenced"),
    [
        ("BACKUP_SIGNING_KEY", "another-long-random-string", deploy_checks.UNSET_BACKUP_KEY),
        ("TRUSTED_PROXIES", (ip_network("127.0.0.1/32"),), deploy_checks.NO_TRUSTED_PROXIES),
        ("CACHES", {"default": REDIS}, deploy_checks.PER_PROCESS_CACHE),
    ],
)
def test_each_warning_goes_once_its_setting_is_set(settings, setting, value, silenced):
    setattr(settings, setting, value)
    assert set(our_warnings()) == OURS - {silenced}
