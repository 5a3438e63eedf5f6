"""Sign-in throttling that an attacker cannot turn against staff, unlocking, password reset,
and the client address behind TRUSTED_PROXIES."""

import re
from datetime import timedelta
from ipaddress import ip_network

import pytest
import time_machine
from axes.models import AccessAttempt
from django.core import mail
from django.test import RequestFactory
from django.utils import timezone

from accounts.throttling import KNOWN_BROWSER_COOKIE, slowdown_seconds
from gpuguide.lib.client_address import client_ip

ADMIN = "/en/admin/"
LOGIN = f"{ADMIN}login/?next={ADMIN}"
PASSWORD = "pw-for-tests-only"
RESET = f"{ADMIN}password-reset/"


def sign_in(client, username: str, password: str = PASSWORD, ip: str = "10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def failed_from_many_addresses(username: str, count: int) -> None:
    """An attacker's failures on ``username`` in the last minutes, one from each address (as
    axes records them; test_an_account_failing_... makes them through the form)."""
    for n in range(count):
        AccessAttempt.objects.create(
            username=username,
            ip_address=f"10.1.0.{n + 1}",
            user_agent="",
            get_data="",
            post_data="",
            http_accept="",
            path_info=LOGIN,
            failures_since_start=1,
            attempt_time=timezone.now() - timedelta(seconds=count - n),
        )


# --- The pair (account, address) ------------------------------------------------------------


def test_five_failures_lock_the_pair_not_the_account(client, editor):
    assert [sign_in(client, "erika", "wrong").status_code for _ in range(5)] == [200] * 4 + [429]
    locked = sign_in(client, "erika")
    assert locked.status_code == 429
    assert locked["Retry-After"] == "900"
    assert "Too many failed sign-ins" in locked.content.decode()
    # Five requests from an attacker's address do not lock Erika out at her own.
    assert sign_in(client, "erika", ip="10.0.0.2").status_code == 302
    client.logout()
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        assert sign_in(client, "erika").status_code == 302


def test_tries_refused_while_locked_do_not_count(client, editor):
    for _attempt in range(8):
        sign_in(client, "erika", "wrong")
    assert AccessAttempt.objects.get(username="erika").failures_since_start == 5


# --- Slowed, never locked: an account failing from many addresses, one address on many ------


@pytest.mark.parametrize(
    ("failures", "seconds"), [(0, 0), (5, 0), (6, 2), (7, 4), (10, 32), (11, 60), (500, 60)]
)
def test_each_failure_beyond_five_doubles_the_wait_up_to_a_minute(failures, seconds):
    assert slowdown_seconds(failures) == seconds


def test_an_account_failing_from_many_addresses_is_slowed_not_locked(client, editor):
    tries = [sign_in(client, "erika", "wrong", ip=f"10.1.0.{n}").status_code for n in range(7)]
    assert tries == [200] * 6 + [429]  # the 7th waits: one beyond the free five
    slowed = sign_in(client, "erika", ip="10.2.0.1")
    assert slowed.status_code == 429
    assert slowed["Retry-After"] == "2"
    assert "Try again in 2 seconds; your password was not checked." in slowed.content.decode()
    assert "_auth_user_id" not in client.session
    # A slowed try is not a failure: the wait does not grow by trying.
    assert sum(AccessAttempt.objects.values_list("failures_since_start", flat=True)) == 6
    with time_machine.travel(timezone.now() + timedelta(seconds=3)):
        assert sign_in(client, "erika", ip="10.2.0.1").status_code == 302


@pytest.mark.parametrize("spelling", ["erika", "erika ", " erika", "ｅｒｉｋａ", "ｅｒｉｋａ "])
def test_every_spelling_sign_in_reads_as_one_account_counts_for_that_account(
    client, editor, spelling
):
    """Sign-in reads "erika ", full-width "ｅｒｉｋａ" and "erika" as one account (NFKC, spaces
    stripped); the throttles count them as one: six failures in all spellings from six
    addresses, and the seventh try in any spelling waits, its password unchecked."""
    spellings = ["erika", "erika ", "ｅｒｉｋａ", " erika", "ｅｒｉｋａ ", "erika\u3000"]
    tries = [
        sign_in(client, name, "wrong", ip=f"10.1.0.{n}").status_code
        for n, name in enumerate(spellings)
    ]
    assert tries == [200] * 6
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"erika"}
    slowed = sign_in(client, spelling, ip="10.2.0.1")
    assert slowed.status_code == 429 and slowed["Retry-After"] == "2"
    assert "_auth_user_id" not in client.session


def test_a_browser_that_signed_in_before_is_not_slowed(client, editor, recorder):
    assert sign_in(client, "erika").status_code == 302
    known = client.cookies[KNOWN_BROWSER_COOKIE]
    assert known["httponly"]
    client.logout()  # the session ends; the known-browser cookie stays (the test client
    client.cookies[KNOWN_BROWSER_COOKIE] = known.value  # drops every cookie)
    failed_from_many_addresses("erika", 12)
    assert sign_in(client, "erika", ip="10.3.0.1").status_code == 302
    # The cookie names its account: it does not let this browser past another's slowdown.
    client.logout()
    client.cookies[KNOWN_BROWSER_COOKIE] = known.value
    failed_from_many_addresses("ramon", 12)
    assert sign_in(client, "ramon", ip="10.3.0.1").status_code == 429


def test_a_forged_known_browser_cookie_is_ignored(client, editor):
    failed_from_many_addresses("erika", 12)
    client.cookies[KNOWN_BROWSER_COOKIE] = "erika"
    assert sign_in(client, "erika", ip="10.3.0.1").status_code == 429


def test_one_address_spraying_many_accounts_is_slowed_others_are_not(client, editor, recorder):
    for name in ["a", "b", "c", "d", "e", "f"]:
        sign_in(client, name, "wrong", ip="10.0.0.9")
    sprayed = sign_in(client, "erika", ip="10.0.0.9")
    assert (sprayed.status_code, sprayed["Retry-After"]) == (429, "2")
    assert sign_in(client, "erika", ip="10.0.0.8").status_code == 302


def test_the_slowed_page_speaks_japanese(client, editor):
    failed_from_many_addresses("erika", 6)
    response = client.post(
        "/ja/admin/login/", {"username": "erika", "password": PASSWORD}, REMOTE_ADDR="10.2.0.1"
    )
    assert response.status_code == 429
    assert "ログインの失敗が多すぎます" in response.content.decode()


# --- Administrators unlock ------------------------------------------------------------------


def test_an_administrator_unlocks_an_account_at_once(client, editor, administrator):
    for _attempt in range(5):
        sign_in(client, "erika", "wrong")
    assert sign_in(client, "erika").status_code == 429
    client.force_login(administrator)
    response = client.post(
        f"{ADMIN}auth/user/",
        {"action": "unlock_sign_in", "_selected_action": [str(editor.pk)]},
        follow=True,
    )
    assert "Sign-in unlocked for 1 account." in response.content.decode()
    assert not AccessAttempt.objects.filter(username="erika").exists()
    client.logout()
    assert sign_in(client, "erika").status_code == 302


def test_an_editor_cannot_unlock(client, editor, recorder):
    for _attempt in range(5):
        sign_in(client, "ramon", "wrong")
    client.force_login(editor)
    client.post(
        f"{ADMIN}auth/user/", {"action": "unlock_sign_in", "_selected_action": [str(recorder.pk)]}
    )
    assert AccessAttempt.objects.filter(username="ramon").exists()


# --- Password reset by email ----------------------------------------------------------------


@pytest.fixture
def erika_mail(editor):
    editor.email = "erika@example.com"
    editor.save()
    return editor


def reset_link(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S+/)", message.body).group(1)


def test_a_password_reset_by_email_works_and_forgets_failures(client, erika_mail, settings):
    settings.SITE_URL = "https://guide.example.com"
    for _attempt in range(5):
        sign_in(client, "erika", "wrong")
    (attack,) = mail.outbox  # 5 failures: the account is told (tests/accounts/test_signin_link)
    assert attack.subject == "Failed sign-ins to your account on GPU Guide"
    mail.outbox.clear()
    login = client.get(LOGIN)
    assert f'href="{RESET}"' in login.content.decode()
    asked = client.post(RESET, {"email": "erika@example.com"}, HTTP_HOST="localhost")
    assert asked.status_code == 302
    (message,) = mail.outbox
    assert message.to == ["erika@example.com"]
    assert message.subject == "Password reset on GPU Guide"
    assert "https://guide.example.com/en/admin/password-reset/" in message.body  # not Host
    form = client.get(reset_link(message), follow=True)
    assert form.status_code == 200
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-new-long-password-9", "new_password2": "a-new-long-password-9"},
    )
    assert done.status_code == 302
    assert not AccessAttempt.objects.filter(username="erika").exists()
    assert sign_in(client, "erika", "a-new-long-password-9").status_code == 302


def test_a_reset_mails_only_staff_and_one_mail_per_quarter_hour(client, erika_mail, seeded):
    from django.contrib.auth.models import User

    User.objects.create_user("visitor", email="v@example.com", password=PASSWORD)
    client.post(RESET, {"email": "v@example.com"})
    assert mail.outbox == []
    client.post(RESET, {"email": "erika@example.com"})
    client.post(RESET, {"email": "erika@example.com"}, REMOTE_ADDR="10.9.9.9")
    assert len(mail.outbox) == 1


def test_an_account_is_mailed_again_after_a_quarter_hour(client, erika_mail):
    start = timezone.now()
    for minutes in (0, 14, 15, 29, 30):
        with time_machine.travel(start + timedelta(minutes=minutes), tick=False):
            client.post(RESET, {"email": "erika@example.com"}, REMOTE_ADDR=f"10.9.0.{minutes}")
    assert len(mail.outbox) == 3  # at 0, 15 and 30 minutes


def test_an_address_asks_for_at_most_five_resets_an_hour(client, erika_mail):
    answers = [client.post(RESET, {"email": f"x{n}@example.com"}) for n in range(6)]
    assert [answer.status_code for answer in answers] == [302] * 5 + [429]
    assert answers[-1]["Retry-After"] == "3600"
    assert "Too many password-reset requests" in answers[-1].content.decode()
    assert client.post(RESET, {"email": "a@example.com"}, REMOTE_ADDR="10.9.9.9").status_code == 302


def test_an_address_may_ask_again_when_its_oldest_request_is_an_hour_old(client, seeded):
    start = timezone.now()

    def ask_at(minutes: float):
        with time_machine.travel(start + timedelta(minutes=minutes), tick=False):
            return client.post(RESET, {"email": "x@example.com"})

    assert [ask_at(minutes).status_code for minutes in range(5)] == [302] * 5
    refused = ask_at(10)
    assert (refused.status_code, refused["Retry-After"]) == (429, "3000")  # 60 - 10 minutes
    assert ask_at(59.99).status_code == 429  # refusals are not counted: the wait stays
    assert ask_at(60).status_code == 302  # the request at 0 has left the window
    assert ask_at(60.5).status_code == 429


# --- The client address ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trusted", "remote", "forwarded", "counted"),
    [
        ([], "203.0.113.5", "", "203.0.113.5"),
        ([], "127.0.0.1", "198.51.100.1", "127.0.0.1"),  # no proxy trusted: header ignored
        (["127.0.0.1/32"], "203.0.113.5", "198.51.100.1", "203.0.113.5"),  # not our proxy
        (["127.0.0.1/32"], "127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"),
        (["127.0.0.1/32"], "127.0.0.1", "", "127.0.0.1"),
        # Behind two of ours (Varnish on 10.0.0.2 behind nginx on 127.0.0.1): the entry before.
        (
            ["127.0.0.1/32", "10.0.0.0/24"],
            "127.0.0.1",
            "9.9.9.9, 203.0.113.7, 10.0.0.2",
            "203.0.113.7",
        ),  # fmt: skip
        (["127.0.0.1/32"], "127.0.0.1", "203.0.113.7, not-an-address", "127.0.0.1"),
        (["::1/128"], "::1", "2001:db8::7", "2001:db8::7"),
    ],
)
def test_the_client_is_the_nearest_untrusted_address(settings, trusted, remote, forwarded, counted):
    settings.TRUSTED_PROXIES = tuple(ip_network(cidr) for cidr in trusted)
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == counted


def test_behind_a_trusted_proxy_each_client_is_locked_on_its_own(client, editor, settings):
    settings.TRUSTED_PROXIES = (ip_network("10.0.0.5/32"),)

    def via_proxy(password, visitor):
        return client.post(
            LOGIN,
            {"username": "erika", "password": password},
            REMOTE_ADDR="10.0.0.5",
            HTTP_X_FORWARDED_FOR=visitor,
        )

    for _attempt in range(5):
        via_proxy("wrong", "198.51.100.66")
    assert via_proxy(PASSWORD, "198.51.100.66").status_code == 429
    assert via_proxy(PASSWORD, "198.51.100.7").status_code == 302
