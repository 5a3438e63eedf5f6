"""Accounts and sign-in: who may change users and groups, the lockout page, two-factor sign-in
(the lockout's rules: test_sign_in_throttling.py)."""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import Group, Permission, User
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

ADMIN = "/en/admin/"
LOGIN = f"{ADMIN}login/?next={ADMIN}"
PASSWORD = "pw-for-tests-only"


def user_url(user: User, action: str = "change") -> str:
    return f"{ADMIN}auth/user/{user.pk}/{action}/"


def user_post(user: User, **changes) -> dict:
    """What the change form posts for ``user`` (an Administrator's form), plus ``changes``."""
    data = {
        "username": user.username,
        "is_active": "on",
        "is_staff": "on",
        "groups": [str(pk) for pk in user.groups.values_list("pk", flat=True)],
        "date_joined_0": "2026-11-29",
        "date_joined_1": "12:00:00",
    }
    return data | changes


@pytest.fixture
def superuser(seeded) -> User:
    return User.objects.create_superuser("root", password=PASSWORD)


# --- Roles ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "action", "status"),
    [
        ("administrator", "list users", 200),
        ("administrator", "add user", 200),
        ("administrator", "change staff user", 302),
        ("administrator", "change superuser", 403),
        ("administrator", "delete superuser", 403),
        ("administrator", "list groups", 200),
        ("administrator", "add group", 403),
        ("administrator", "change group", 403),
        ("editor", "list users", 403),
        ("editor", "change staff user", 403),
        ("editor", "list groups", 403),
        ("recorder", "add user", 403),
        ("recorder", "change group", 403),
        ("superuser", "change superuser", 302),
        ("superuser", "change group", 302),
    ],
)
def test_who_may_change_users_and_groups(client, request, recorder, superuser, who, action, status):
    client.force_login(request.getfixturevalue(who))
    editors = Group.objects.get(name="Editors")
    target = superuser if "superuser" in action else recorder
    get_url, post = {
        "list users": (f"{ADMIN}auth/user/", None),
        "add user": (f"{ADMIN}auth/user/add/", None),
        "change staff user": (user_url(target), user_post(target)),
        "change superuser": (user_url(target), user_post(target, is_superuser="on")),
        "delete superuser": (user_url(target, "delete"), {"post": "yes"}),
        "list groups": (f"{ADMIN}auth/group/", None),
        "add group": (f"{ADMIN}auth/group/add/", {"name": "Friends"}),
        "change group": (f"{ADMIN}auth/group/{editors.pk}/change/", {"name": "Editors"}),
    }[action]
    response = client.post(get_url, post) if post is not None else client.get(get_url)
    assert response.status_code == status
    assert User.objects.filter(pk=superuser.pk, is_superuser=True).exists()


@pytest.mark.parametrize("target", ["editor", "administrator"])  # another user, or oneself
def test_an_administrator_cannot_make_a_superuser_or_grant_permissions(
    client, request, administrator, target
):
    client.force_login(administrator)
    user = request.getfixturevalue(target)
    form = client.get(user_url(user)).context["adminform"].form
    assert not {"is_superuser", "user_permissions"} & set(form.fields)
    anything = Permission.objects.get(codename="delete_totpdevice")  # in no role
    data = user_post(user, is_superuser="on", user_permissions=[str(anything.pk)])
    assert client.post(user_url(user), data).status_code == 302  # saved, those fields ignored
    user.refresh_from_db()
    assert not user.is_superuser
    assert not user.user_permissions.exists()
    assert not user.has_perm("otp_totp.delete_totpdevice")


def test_a_superuser_still_sees_every_field(client, superuser, editor):
    client.force_login(superuser)
    form = client.get(user_url(editor)).context["adminform"].form
    assert {"is_superuser", "user_permissions"} <= set(form.fields)


def _add_user(client, **changes):
    data = {
        "username": "neu",
        "password1": "a-long-passphrase-9",
        "password2": "a-long-passphrase-9",
        "groups": [str(Group.objects.get(name="Editors").pk)],
    }
    return client.post(f"{ADMIN}auth/user/add/", data | changes)


@pytest.mark.parametrize("who", ["administrator", "superuser"])
def test_add_user_creates_a_staff_member_with_a_role_in_one_step(client, request, who):
    client.force_login(request.getfixturevalue(who))
    form = client.get(f"{ADMIN}auth/user/add/").context["adminform"].form
    assert list(form.fields) == ["username", "password1", "password2", "groups"]
    assert [g.name for g in form.fields["groups"].queryset] == [
        "Administrators",
        "Editors",
        "Price recorders",
        "Reviewers",
        "Translators (German)",
        "Translators (Japanese)",
    ]
    response = _add_user(client, is_superuser="on", is_staff="")
    assert response.status_code == 302
    assert response["Location"] == f"{ADMIN}auth/user/"  # the list, not a second form
    user = User.objects.get(username="neu")
    assert (user.is_staff, user.is_superuser, [g.name for g in user.groups.all()]) == (
        True,
        False,
        ["Editors"],
    )
    assert user.check_password("a-long-passphrase-9")
    client.logout()
    assert sign_in(client, "neu", "a-long-passphrase-9").status_code == 302  # signs in at once


def test_add_user_takes_several_roles(client, administrator):
    client.force_login(administrator)
    roles = Group.objects.filter(name__in=["Editors", "Price recorders"])
    assert _add_user(client, groups=[str(g.pk) for g in roles]).status_code == 302
    assert User.objects.get(username="neu").groups.count() == 2


def test_add_user_refuses_a_user_without_a_role(client, administrator):
    client.force_login(administrator)
    response = _add_user(client, groups=[])
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "groups": ["Give the new staff member at least one role."]
    }
    assert not User.objects.filter(username="neu").exists()


def test_add_user_offers_only_the_roles_not_other_groups(client, superuser):
    friends = Group.objects.create(name="Friends")
    client.force_login(superuser)
    response = _add_user(client, groups=[str(friends.pk)])
    assert "groups" in response.context["adminform"].form.errors
    assert not User.objects.filter(username="neu").exists()


# --- Login lockout --------------------------------------------------------------------------


def sign_in(client, username: str, password: str = PASSWORD, ip: str = "10.0.0.1", **extra):
    data = {"username": username, "password": password, **extra}
    return client.post(LOGIN, data, REMOTE_ADDR=ip)


def test_the_lockout_page_speaks_german(client, editor):
    for _attempt in range(5):
        sign_in(client, "erika", "wrong")
    response = client.post(
        "/de/admin/login/", {"username": "erika", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1"
    )
    assert response.status_code == 429
    assert "Zu viele fehlgeschlagene Anmeldungen" in response.content.decode()


# --- Two-factor sign-in ---------------------------------------------------------------------


def code(device: TOTPDevice, steps: int = 0) -> str:
    token = totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits)
    return f"{(token + steps) % 10**6:06d}" if steps else f"{token:06d}"


@pytest.fixture
def editor_device(editor) -> TOTPDevice:
    return TOTPDevice.objects.create(user=editor, name="phone", confirmed=True)


def test_with_a_device_the_code_is_required_at_sign_in(client, editor_device):
    assert "Enter the six-digit code" in sign_in(client, "erika").content.decode()
    assert (
        "not valid" in sign_in(client, "erika", otp_token=code(editor_device, 1)).content.decode()
    )
    # After a wrong code the device waits a second before it accepts even the right one.
    assert sign_in(client, "erika", otp_token=code(editor_device)).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(seconds=2)):
        assert sign_in(client, "erika", otp_token=code(editor_device)).status_code == 302
    assert client.get(ADMIN).status_code == 200


def test_a_session_without_the_code_is_sent_to_sign_in(client, editor, editor_device):
    client.force_login(editor)  # password only, as before the device was added
    assert client.get(ADMIN)["Location"].startswith(f"{ADMIN}login/")


def test_a_staff_user_sets_up_an_authenticator_app(client, editor):
    client.force_login(editor)
    page = client.get(f"{ADMIN}two-factor/")
    body = page.content.decode()
    assert "<svg" in body and page.context["secret"]
    device = TOTPDevice.objects.get(user=editor, confirmed=False)
    assert "otpauth://totp/" in device.config_url
    assert client.post(f"{ADMIN}two-factor/", {"otp_token": code(device, 1)}).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(seconds=2)):  # past the throttle
        response = client.post(f"{ADMIN}two-factor/", {"otp_token": code(device)})
    assert response["Location"] == ADMIN
    device.refresh_from_db()
    assert device.confirmed
    assert client.get(ADMIN).status_code == 200  # this session proved the code


def test_administrators_must_set_up_two_factor_when_required(
    client, settings, administrator, editor
):
    settings.REQUIRE_2FA_FOR_ADMINISTRATORS = True
    client.force_login(administrator)
    assert client.get(ADMIN)["Location"].startswith(f"{ADMIN}login/")
    assert client.get(f"{ADMIN}login/")["Location"] == f"{ADMIN}two-factor/"
    assert client.get(f"{ADMIN}two-factor/").status_code == 200
    client.force_login(editor)  # optional for the other roles
    assert client.get(ADMIN).status_code == 200


def test_robots_txt_names_the_configured_admin_path(client, db):
    assert "Disallow: /de/admin/" in client.get("/robots.txt").content.decode()


def test_the_lockout_page_carries_the_headers_every_page_does(client, seeded):
    """AxesMiddleware is the last middleware, as django-axes asks: the lockout page it puts in
    place of the sign-in form passes through all the others, Permissions-Policy included."""
    for _attempt in range(5):
        response = client.post("/en/admin/login/", {"username": "nobody", "password": "wrong"})
    assert response.status_code == 429
    assert "camera=()" in response["Permissions-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert "Content-Security-Policy" in response
