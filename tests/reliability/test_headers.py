"""Security headers: a strict Content-Security-Policy everywhere, and Permissions-Policy."""

import pytest
from django.contrib.auth.models import User

from tests.conftest import GUIDE_SLUG


def _directives(response) -> dict[str, set[str]]:
    policy = response["Content-Security-Policy"]
    return {
        name: set(values)
        for name, *values in (part.split() for part in policy.split(";") if part.strip())
    }


def _assert_strict(response) -> None:
    csp = _directives(response)
    assert csp["default-src"] == {"'self'"}
    assert csp["script-src"] == {"'self'"} and csp["style-src"] == {"'self'"}
    assert csp["img-src"] == {"'self'", "data:"}
    assert csp["object-src"] == {"'none'"} and csp["frame-ancestors"] == {"'none'"}
    assert csp["base-uri"] == {"'self'"} and csp["form-action"] == {"'self'"}
    assert "nonce-" not in response["Content-Security-Policy"]  # pages stay cacheable
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]


@pytest.mark.parametrize(
    "url", ["/en/", f"/de/guides/{GUIDE_SLUG}/", "/api/v1/docs", "/healthz", "/en/nowhere/"]
)
def test_public_answers_carry_the_strict_policy(client, seeded, url):
    _assert_strict(client.get(url))


def test_a_cached_page_carries_the_policy_too(client, seeded):
    client.get("/ja/gpus/")
    _assert_strict(client.get("/ja/gpus/"))


def test_the_admin_needs_no_allowance(client, seeded):
    client.force_login(User.objects.create_superuser("root", password="pw-for-tests-only"))
    response = client.get("/en/admin/")
    assert response.status_code == 200
    _assert_strict(response)
    assert 'style="' not in response.content.decode()
