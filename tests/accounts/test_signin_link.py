"""A way in under attack: the one-time sign-in link by email (throttled with the password
reset, keeping two-factor sign-in) and the mail to an account under attack."""

import re
from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import AttackMail
from accounts.signin_link import mail_if_attacked, signin_tokens
from accounts.throttling import KNOWN_BROWSER_COOKIE
from tests.accounts.test_admin import code
from tests.accounts.test_throttling import (
    ADMIN,
    LOGIN,
    PASSWORD,
    RESET,
    failed_from_many_addresses,
    sign_in,
)

ASK = f"{ADMIN}sign-in-link/"


@pytest.fixture
def erika(editor):
    editor.email = "erika@example.com"
    editor.save()
    return editor


def ask(client, email: str = "erika@example.com", ip: str = "10.0.0.1"):
    return client.post(ASK, {"email": email}, REMOTE_ADDR=ip)


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S+/sign-in-link/\S+/)", message.body).group(1)


def failed_from_network(username: str, count: int, network: int) -> None:
    """``count`` failures on ``username`` in the last seconds, one from each address of
    10.``network``.0.0/24 (as axes records them)."""
    for n in range(count):
        AccessAttempt.objects.create(
            username=username,
            ip_address=f"10.{network}.0.{n + 1}",
            failures_since_start=1,
            attempt_time=timezone.now() - timedelta(seconds=count - n),
        )


def link_for(user, token: str | None = None) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"{ASK}{uid}/{token or signin_tokens.make_token(user)}/"


# --- Asking for a link ----------------------------------------------------------------------


def test_the_sign_in_and_slowed_pages_link_to_it(client, erika):
    assert f'href="{ASK}"' in client.get(LOGIN).content.decode()
    failed_from_many_addresses("erika", 6)
    slowed = sign_in(client, "erika", ip="10.7.0.1")
    assert slowed.status_code == 429
    assert f'href="{ASK}"' in slowed.content.decode()


def test_a_link_is_mailed_to_staff_from_site_url(client, erika, settings):
    settings.SITE_URL = "https://guide.example.com"
    asked = client.post(ASK, {"email": "erika@example.com"}, HTTP_HOST="localhost")
    assert (asked.status_code, asked["Location"]) == (302, f"{ASK}sent/")
    (message,) = mail.outbox
    assert message.to == ["erika@example.com"]
    assert message.subject == "Sign-in link for GPU Guide"
    assert "https://guide.example.com/en/admin/sign-in-link/" in message.body  # not Host
    assert "within 15 minutes; it works once" in message.body
    sent = client.get(asked["Location"])
    assert "If a staff account has this address" in sent.content.decode()


def test_no_link_for_visitors_nor_unknown_addresses_and_the_same_answer(client, erika):
    User.objects.create_user("visitor", email="v@example.com", password=PASSWORD)
    answers = [ask(client, email).status_code for email in ("v@example.com", "nobody@x.org")]
    assert answers == [302, 302]
    assert mail.outbox == []
    assert ask(client)["Location"] == f"{ASK}sent/"  # the same for erika, who is mailed
    assert len(mail.outbox) == 1


def test_one_mail_per_account_per_quarter_hour_links_and_resets_together(client, erika):
    start = timezone.now()
    for minutes, url in ((0, ASK), (5, RESET), (10, ASK), (15, RESET), (20, ASK), (30, ASK)):
        with time_machine.travel(start + timedelta(minutes=minutes), tick=False):
            client.post(url, {"email": "erika@example.com"}, REMOTE_ADDR=f"10.9.0.{minutes}")
    subjects = [message.subject for message in mail.outbox]
    assert subjects == [
        "Sign-in link for GPU Guide",
        "Password reset on GPU Guide",
        "Sign-in link for GPU Guide",
    ]  # at 0, 15 and 30 minutes


def test_an_address_asks_at_most_five_times_an_hour_links_and_resets_together(client, seeded):
    answers = [
        client.post(RESET, {"email": f"x{n}@example.com"}, REMOTE_ADDR="10.0.0.1") for n in range(3)
    ]
    answers += [ask(client, f"y{n}@example.com") for n in range(3)]
    assert [answer.status_code for answer in answers] == [302] * 5 + [429]
    assert answers[-1]["Retry-After"] == "3600"
    assert "Too many sign-in link requests" in answers[-1].content.decode()
    assert ask(client, ip="10.9.9.9").status_code == 302


# --- Using it -------------------------------------------------------------------------------


def test_opening_the_link_signs_nobody_in(client, erika):
    ask(client)
    page = client.get(link_in(mail.outbox[0]))
    assert page.status_code == 200
    assert "Sign in to the administration as erika." in page.content.decode()
    assert 'name="otp_token"' not in page.content.decode()
    assert client.get(ADMIN).status_code == 302  # still to the sign-in page


def test_the_link_signs_in_once_and_remembers_the_browser(client, erika):
    ask(client)
    link = link_in(mail.outbox[0])
    signed_in = client.post(link)
    assert (signed_in.status_code, signed_in["Location"]) == (302, ADMIN)
    assert signed_in.cookies[KNOWN_BROWSER_COOKIE].value
    assert client.get(ADMIN).status_code == 200
    client.post(f"{ADMIN}logout/")
    for again in (client.get(link), client.post(link)):
        assert again.status_code == 400
        assert "it has been used already" in again.content.decode()
        assert f'href="{ASK}"' in again.content.decode()
    assert client.get(ADMIN).status_code == 302


def test_the_link_expires_after_15_minutes(client, erika):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        link = link_for(erika)
    with time_machine.travel(start + timedelta(minutes=15), tick=False):
        assert client.get(link).status_code == 200
    with time_machine.travel(start + timedelta(minutes=15, seconds=1), tick=False):
        assert client.get(link).status_code == 400
        assert client.post(link).status_code == 400
    assert client.get(ADMIN).status_code == 302


def test_a_reset_token_is_not_a_sign_in_token_nor_the_reverse(client, erika):
    reset_token = default_token_generator.make_token(erika)
    assert client.post(link_for(erika, reset_token)).status_code == 400
    assert not default_token_generator.check_token(erika, signin_tokens.make_token(erika))
    assert client.get(ADMIN).status_code == 302


@pytest.mark.parametrize("bad", ["MQ/garbage-token", "zzzz/ck2-x", "!!/ck2-x"])
def test_a_mangled_link_is_refused_not_an_error(client, erika, bad):
    assert client.get(f"{ASK}{bad}/").status_code == 400


def test_no_link_works_for_an_account_no_longer_staff(client, erika):
    link = link_for(erika)
    erika.is_staff = False
    erika.save()
    assert client.post(link).status_code == 400


def test_with_a_device_the_code_is_required_and_verified(client, erika):
    device = TOTPDevice.objects.create(user=erika, name="phone", confirmed=True)
    link = link_for(erika)
    assert 'name="otp_token"' in client.get(link).content.decode()
    assert "Enter the six-digit code" in client.post(link).content.decode()
    wrong = client.post(link, {"otp_token": code(device, 1)})
    assert (wrong.status_code, "not valid" in wrong.content.decode()) == (200, True)
    # After a wrong code django-otp's device waits a second before it accepts even the right one.
    assert client.post(link, {"otp_token": code(device)}).status_code == 200
    assert client.get(ADMIN).status_code == 302
    with time_machine.travel(timezone.now() + timedelta(seconds=2)):
        signed_in = client.post(link, {"otp_token": code(device)})
        assert (signed_in.status_code, signed_in["Location"]) == (302, ADMIN)
        assert client.get(ADMIN).status_code == 200  # verified: the admin's index


def test_an_administrator_without_a_device_is_sent_to_set_one_up(client, administrator, settings):
    settings.REQUIRE_2FA_FOR_ADMINISTRATORS = True
    signed_in = client.post(link_for(administrator))
    assert signed_in["Location"] == f"{ADMIN}two-factor/"


def test_under_attack_a_new_browser_is_slowed_but_the_link_gets_it_in(client, erika):
    failed_from_many_addresses("erika", 20)
    assert sign_in(client, "erika", ip="10.7.0.1").status_code == 429  # right password
    ask(client, ip="10.7.0.1")
    assert client.post(link_in(mail.outbox[-1]), REMOTE_ADDR="10.7.0.1").status_code == 302
    assert client.get(ADMIN).status_code == 200
    client.post(f"{ADMIN}logout/")
    assert sign_in(client, "erika", ip="10.7.0.1").status_code == 302  # now a known browser


# --- The attack mail ------------------------------------------------------------------------


def test_an_account_under_attack_is_mailed_once_an_hour_with_the_figures(client, erika):
    failed_from_many_addresses("erika", 4)  # 4 failures from 4 addresses: not yet
    assert sign_in(client, "erika", "wrong", ip="10.1.0.1").status_code == 200  # the 5th
    (message,) = mail.outbox
    assert message.to == ["erika@example.com"]
    assert message.subject == "Failed sign-ins to your account on GPU Guide"
    body = " ".join(message.body.split())
    assert (
        "There were 5 failed tries to sign in to your account erika on GPU Guide in the last "
        "15 minutes. They came from 4 different addresses. The password was not accepted."
    ) in body
    assert "http://testserver/en/admin/sign-in-link/" in body  # SITE_URL in the tests
    start = timezone.now()

    def attack_at(minutes: int) -> None:
        with time_machine.travel(start + timedelta(minutes=minutes), tick=False):
            failed_from_network("erika", 8, network=100 + minutes)
        # A try past the slowdown's longest wait is checked (and fails); slowed ones are not.
        with time_machine.travel(start + timedelta(minutes=minutes, seconds=61), tick=False):
            assert (
                sign_in(client, "erika", "wrong", ip=f"10.{100 + minutes}.0.1").status_code == 200
            )

    for minutes in (1, 30, 58):  # the last at 59:01, within the hour
        attack_at(minutes)
    assert len(mail.outbox) == 1
    attack_at(60)
    assert len(mail.outbox) == 2
    body = " ".join(mail.outbox[1].body.split())  # 9 failures from 8 addresses at 58 and at 60
    assert "There were 18 failed tries" in body and "from 16 different addresses" in body


def test_no_attack_mail_below_the_slowdown_nor_to_visitors_nor_without_an_address(erika):
    failed_from_many_addresses("erika", 4)
    assert not mail_if_attacked("erika")
    User.objects.create_user("visitor", email="v@example.com", password=PASSWORD)
    failed_from_network("visitor", 9, network=2)
    assert not mail_if_attacked("visitor")
    erika.email = ""
    erika.save()
    failed_from_network("erika", 9, network=3)
    assert not mail_if_attacked("erika")
    assert not mail_if_attacked("nobody")
    assert mail.outbox == []
    assert not AttackMail.objects.exists()


def test_the_pages_and_the_attack_mail_speak_german_and_japanese(client, erika):
    page = client.get(ASK.replace("/en/", "/de/")).content.decode()
    assert "Anmeldelink per E-Mail senden" in page
    failed_from_network("erika", 4, network=50)
    with translation.override("ja"):
        assert mail_if_attacked("erika") is False  # 4: not yet
        failed_from_network("erika", 1, network=51)
        assert mail_if_attacked("erika")
    (message,) = mail.outbox
    assert message.subject == "GPU Guide のあなたのアカウントへのログイン失敗"
    assert (
        "過去 15 分間に、GPU Guide のあなたのアカウント erika へのログインが 5 回失敗しました。"
        in (message.body)
    )
    assert "5 個のアドレスからの試行です。" in message.body
    assert "http://testserver/ja/admin/sign-in-link/" in message.body
