"""Each role's dashboard says only what is true of the data that role may view.

On the pinned day (2026-11-29) every provider's prices are 31 days old (checked 2026-10-29,
stale after 30): Editors used to read "Nothing is stale: prices, … are up to date" then,
because price warnings were not shown to them.
"""

from datetime import date, timedelta
from decimal import Decimal as D

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from guides.dashboard import dashboard_for
from pricing.models import Provider, Source
from pricing.services import price_check_record
from tests.conftest import SEED_DAY, TODAY, review_legal_pages

ADMIN = "/en/admin/"
STALE = [
    f"{name} prices were last checked Oct. 29, 2026 (more than 30 days ago)."
    for name in ("GPUwithCrypto", "Massed Compute", "Thunder Compute")
]
FRESH_DAY = SEED_DAY + timedelta(days=30)  # every price exactly 30 days old: not stale yet


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.PRICE_STALE_AFTER_DAYS = 30
    settings.SOURCE_STALE_AFTER_MONTHS = 12


@pytest.fixture(autouse=True)
def _legal_pages_reviewed(seeded):
    """The seed's legal pages are drafts, a blocker on the Administrators' dashboard (tested in
    test_public_face.py); these tests are about the rest."""
    review_legal_pages()


@pytest.fixture
def superuser(seeded) -> User:
    return User.objects.create_superuser("root", password="pw-for-tests-only")


@pytest.fixture
def no_role(seeded) -> User:
    return User.objects.create_user("nobody", password="pw-for-tests-only", is_staff=True)


def _shown(user, day=TODAY) -> tuple[dict[str, list[tuple[str, str]]], str]:
    dashboard = dashboard_for(user, day)
    warnings = {
        topic: [(w.message, w.url) for w in found] for topic, found in dashboard.warnings.items()
    }
    return warnings, dashboard.up_to_date


@pytest.mark.parametrize(
    ("who", "links", "up_to_date"),
    [
        (
            "editor",  # may view price checks, not record them: links to each provider's checks
            "/en/admin/pricing/pricecheck/?provider__id__exact=",
            "Checked and up to date: sources, translations, and published guides.",
        ),
        (
            "recorder",  # may view sources, not guides: nothing said about guides
            "/en/admin/pricing/pricecheck/add/?provider=",
            "Checked and up to date: sources.",
        ),
        (
            "administrator",
            "/en/admin/pricing/pricecheck/add/?provider=",
            "Checked and up to date: sources, translations, legal pages, and published guides.",
        ),
        (
            "superuser",
            "/en/admin/pricing/pricecheck/add/?provider=",
            "Checked and up to date: sources, translations, legal pages, and published guides.",
        ),
    ],
)
def test_every_role_that_may_view_prices_is_told_they_are_31_days_old(
    request, who, links, up_to_date
):
    user = request.getfixturevalue(who)
    expected_links = [f"{links}{pk}" for pk in _provider_pks()]
    assert _shown(user) == ({"Prices": list(zip(STALE, expected_links, strict=True))}, up_to_date)


def _provider_pks() -> list[int]:
    """In the dashboard's order: ours first, then by name (as STALE)."""
    return list(Provider.objects.order_by("-is_house", "name").values_list("pk", flat=True))


@pytest.mark.parametrize(
    ("who", "sentence"),
    [
        (
            "editor",
            "Nothing is stale: prices, sources, translations, and published guides are up to date.",
        ),
        ("recorder", "Nothing is stale: prices and sources are up to date."),
        (
            "administrator",
            "Nothing is stale: prices, sources, translations, legal pages, and published guides "
            "are up to date.",
        ),
    ],
)
def test_nothing_stale_names_only_what_was_checked_for_the_role(request, who, sentence):
    assert _shown(request.getfixturevalue(who), FRESH_DAY) == ({}, sentence)


def test_the_sentence_in_german_and_japanese(recorder):
    with translation.override("de"):
        assert _shown(recorder, FRESH_DAY)[1] == (
            "Nichts ist veraltet: Preise und Quellen sind aktuell."
        )
    with translation.override("ja"):
        assert (
            _shown(recorder, FRESH_DAY)[1]
            == "古くなったものはありません：価格、出典はすべて最新です。"
        )


def test_a_staff_member_without_a_role_is_told_nothing(client, no_role):
    assert _shown(no_role) == ({}, "")
    client.force_login(no_role)
    assert "Needs attention" not in client.get(ADMIN).content.decode()


def test_the_editors_admin_index_shows_the_stale_prices_and_no_false_all_clear(client, editor):
    client.force_login(editor)
    body = client.get(ADMIN).content.decode()
    assert STALE[0] in body
    assert "Nothing is stale" not in body
    assert "Checked and up to date: sources, translations, and published guides." in body
    assert 'href="/en/admin/pricing/pricecheck/?provider__id__exact=' in body
    # the link opens the provider's checks, which an editor may read
    checks = client.get(f"/en/admin/pricing/pricecheck/?provider__id__exact={_provider_pks()[0]}")
    assert checks.status_code == 200
    assert checks.context["cl"].result_count == 1


# --- cached until a write ------------------------------------------------------------------


def _warnings_on_index(client) -> list[str]:
    dashboard = client.get(ADMIN).context["dashboard"]
    return [w.message for found in dashboard.warnings.values() for w in found]


def test_a_price_check_clears_its_warning_from_the_cached_dashboard(client, recorder):
    client.force_login(recorder)
    assert _warnings_on_index(client) == STALE
    assert _warnings_on_index(client) == STALE  # from the cache now
    price_check_record(provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"h100": D("2.32")})
    assert _warnings_on_index(client) == STALE[1:]


def test_a_source_saved_with_an_old_date_shows_at_once(client, editor):
    client.force_login(editor)
    assert "Sources" not in client.get(ADMIN).context["dashboard"].warnings
    source = Source.objects.get(key="lora-paper")
    source.read_on = date(2025, 1, 1)
    source.save()
    assert _warnings_on_index(client)[-1] == (
        "“LoRA: Low-Rank Adaptation of Large Language Models” was last read on Jan. 1, 2025; "
        "re-read it and update the date."
    )


def test_each_language_has_its_own_cached_warnings(client, recorder):
    client.force_login(recorder)
    assert _warnings_on_index(client)[0] == STALE[0]
    german = client.get("/de/admin/").context["dashboard"]
    assert german.warnings["Preise"][0].message == (
        "Die Preise von GPUwithCrypto wurden zuletzt am 29. Oktober 2026 geprüft "
        "(vor mehr als 30 Tagen)."
    )
    assert german.warnings["Preise"][0].url.startswith("/de/admin/pricing/pricecheck/add/")


def test_a_provider_without_a_check_is_said_to_have_none(recorder):
    newcomer = Provider.objects.create(slug="newcomer", name="Newcomer Cloud")
    prices = _shown(recorder)[0]["Prices"]
    assert ("Newcomer Cloud has no price check yet.",
            f"/en/admin/pricing/pricecheck/add/?provider={newcomer.pk}") in prices  # fmt: skip
    assert not any("never" in message for message, _url in prices)
