"""Same-day corrections (``services.price_check_supersede``) and duplicate checks: the mistaken
check stays in the history, marked; every read of prices ignores it; one current check per
provider and day, enforced by the database too; a lost race is a one-line refusal."""

from datetime import UTC, date, datetime
from decimal import Decimal as D
from io import StringIO
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from guides.pagecache import invalidation
from pricing import cache_tags as pricing_tags
from pricing import selectors, services
from pricing.models import Gpu, Price, PriceCheck, Provider

TODAY = date(2026, 11, 29)
SEEDED_DAY = date(2026, 10, 29)  # the seed's checks
SEEDED_HOUSE = {"l40s": "0.82", "a100-80gb": "0.92", "h100": "2.32", "h200": "3.07", "b200": "4.61"}


@pytest.fixture(autouse=True)
def _pinned_today():
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        yield


@pytest.fixture
def recorder(seeded) -> User:
    user = User.objects.create_user("ramon", is_staff=True)
    user.groups.add(Group.objects.get(name="Price recorders"))
    return user


def house() -> Provider:
    return Provider.objects.get(slug="gpuwithcrypto")


def house_check() -> PriceCheck:
    return PriceCheck.objects.get(provider__slug="gpuwithcrypto", checked_on=SEEDED_DAY)


def latest_house_prices() -> dict[str, str]:
    return {
        g.slug: str(g.quoted_usd_per_hour)
        for g in selectors.gpu_listings_for_provider(provider=house())
        if g.quoted_usd_per_hour is not None
    }


def correct_h100(recorder, price: str = "2.23", reason: str = "H100 read from the wrong row"):
    return services.price_check_supersede(
        check=house_check(),
        prices={"h100": D(price), "b200": D("4.61")},
        recorded_by=recorder,
        reason=reason,
        note="read again",
    )


def test_a_correction_keeps_the_mistaken_check_marked_superseded(recorder):
    mistaken = house_check()
    when = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)
    with mock.patch("django.utils.timezone.now", return_value=when):
        correction = correct_h100(recorder)
    mistaken.refresh_from_db()
    assert mistaken.superseded_at == when
    assert mistaken.superseded_by == recorder
    assert mistaken.superseded_reason == "H100 read from the wrong row"
    assert mistaken.correction == correction
    assert {p.gpu.slug: str(p.quoted_usd_per_hour) for p in mistaken.prices.all()} == {
        k: f"{v}00" for k, v in SEEDED_HOUSE.items()
    }
    assert set(mistaken.prices.values_list("superseded", flat=True)) == {True}
    assert (correction.provider, correction.checked_on, correction.superseded_at) == (
        house(),
        SEEDED_DAY,
        None,
    )
    assert (correction.recorded_by, correction.note) == (recorder, "read again")
    assert set(correction.prices.values_list("superseded", flat=True)) == {False}


def test_every_read_of_prices_ignores_superseded_checks(recorder):
    assert latest_house_prices()["h100"] == "2.3200"
    correct_h100(recorder)
    # The correction priced two GPUs: the others have no current price that day any more.
    assert latest_house_prices() == {"h100": "2.2300", "b200": "4.6100"}
    runs = selectors.price_runs(providers=[house()])["gpuwithcrypto"]
    by_slug = {Gpu.objects.get(pk=pk).slug: found for pk, found in runs.items()}
    assert by_slug == {
        "b200": [selectors.PriceRun(SEEDED_DAY, SEEDED_DAY, D("4.61"))],
        "h100": [selectors.PriceRun(SEEDED_DAY, SEEDED_DAY, D("2.23"))],
    }
    assert selectors.gpu_price_history(gpu_slug="h100", provider=house()) == [
        (SEEDED_DAY, D("2.23"))
    ]
    assert selectors.latest_check_dates()["gpuwithcrypto"] == SEEDED_DAY
    assert selectors.latest_check_date(provider=house()) == SEEDED_DAY
    assert selectors.first_check_date(provider=house()) == SEEDED_DAY
    assert selectors.price_check_exists(provider=house(), checked_on=SEEDED_DAY)
    key = ("gpuwithcrypto", SEEDED_DAY)
    assert selectors.price_check_sources(checks=[key]) == {key: ""}


def test_a_correction_of_an_older_day_leaves_later_checks_latest(recorder):
    services.price_check_record(
        provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 20), prices={"h100": D("2.40")}
    )
    correct_h100(recorder)
    assert latest_house_prices()["h100"] == "2.4000"
    assert selectors.gpu_price_history(gpu_slug="h100", provider=house()) == [
        (SEEDED_DAY, D("2.23")),
        (date(2026, 11, 20), D("2.40")),
    ]


def test_a_correction_makes_the_providers_pages_stale_as_a_new_check_does(recorder):
    with mock.patch.object(invalidation, "invalidate", wraps=invalidation.invalidate) as invalidate:
        correct_h100(recorder)
    assert [c.args[0] for c in invalidate.call_args_list] == [{pricing_tags.prices(house().pk)}]
    with mock.patch.object(invalidation, "invalidate", wraps=invalidation.invalidate) as invalidate:
        services.price_check_record(
            provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"h100": D("2.40")}
        )
    assert [c.args[0] for c in invalidate.call_args_list] == [{pricing_tags.prices(house().pk)}]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"reason": "  "}, "a correction needs a reason: say what was wrong"),
        ({"recorded_by": None}, "a correction must name who made it (recorded-by)"),
        ({"prices": {}}, "a price check needs at least one price"),
        ({"prices": {"h100": D(0)}}, None),  # the price rule's own message
        ({"prices": {"nope": D(1)}}, None),
    ],
)
def test_a_refused_correction_saves_nothing(recorder, change, message):
    kwargs = {"prices": {"h100": D("2.23")}, "recorded_by": recorder, "reason": "typo", **change}
    before = (PriceCheck.objects.count(), Price.objects.count())
    with pytest.raises(services.PriceCheckError) as refused:
        services.price_check_supersede(check=house_check(), **kwargs)
    if message is not None:
        assert str(refused.value) == message
    assert (PriceCheck.objects.count(), Price.objects.count()) == before
    assert house_check().superseded_at is None


def test_a_correction_needs_a_recorder_allowed_to_record(recorder):
    visitor = User.objects.create_user("vic", is_staff=False)
    with pytest.raises(services.PriceCheckError) as refused:
        services.price_check_supersede(
            check=house_check(), prices={"h100": D(1)}, recorded_by=visitor, reason="typo"
        )
    assert str(refused.value) == (
        "recorded-by must be an active staff user allowed to add price checks, got 'vic'"
    )


def test_a_superseded_check_cannot_be_corrected_again(recorder):
    mistaken = house_check()
    correct_h100(recorder)
    with pytest.raises(services.PriceCheckError) as refused:
        services.price_check_supersede(
            check=mistaken, prices={"h100": D(1)}, recorded_by=recorder, reason="again"
        )
    assert str(refused.value) == (
        "the price check of gpuwithcrypto on 2026-10-29 was already corrected; "
        "correct the current one"
    )
    assert PriceCheck.objects.filter(provider=house(), checked_on=SEEDED_DAY).count() == 2


def test_the_correction_can_itself_be_corrected(recorder):
    first = correct_h100(recorder)
    second = services.price_check_supersede(
        check=first, prices={"h100": D("2.22")}, recorded_by=recorder, reason="again"
    )
    first.refresh_from_db()
    assert first.correction == second and first.superseded_reason == "again"
    assert latest_house_prices() == {"h100": "2.2200"}
    assert PriceCheck.objects.current().filter(provider=house(), checked_on=SEEDED_DAY).get() == (
        second
    )


# --- one current check per provider and day ---------------------------------------------


def test_the_database_allows_one_current_check_per_provider_and_day(recorder):
    with pytest.raises(IntegrityError), transaction.atomic():
        PriceCheck.objects.create(provider=house(), checked_on=SEEDED_DAY)
    correct_h100(recorder)  # a superseded check beside the current one is allowed
    assert PriceCheck.objects.filter(provider=house(), checked_on=SEEDED_DAY).count() == 2


def test_a_lost_race_is_the_duplicate_message_and_the_transaction_goes_on(seeded):
    # Both recorders found the day free; the database refuses the second insert. Inside the
    # caller's transaction (as in the admin), the refusal must leave it usable: PostgreSQL
    # refuses every later query of a transaction whose statement failed outside a savepoint.
    with transaction.atomic():
        with (
            mock.patch("pricing.selectors.price_check_exists", return_value=False),
            pytest.raises(services.PriceCheckError) as refused,
        ):
            services.price_check_record(
                provider_slug="gpuwithcrypto", checked_on=SEEDED_DAY, prices={"h100": D(1)}
            )
        assert str(refused.value) == (
            "gpuwithcrypto already has a price check on 2026-10-29; correct that check instead"
        )
        assert PriceCheck.objects.filter(provider=house()).count() == 1  # still usable


def test_the_price_lookups_use_the_indexes_of_current_prices(seeded):
    """The query plans of the latest-price, history and check-date lookups name the partial
    indexes (their condition repeated in the queries), on SQLite and PostgreSQL."""
    sql, params = selectors._latest_prices_sql([house()], TODAY, False, None)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_seqscan = off")  # a seed this small is one page
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        else:
            connection.ensure_connection()
            plan = str(
                connection.connection.execute(
                    "EXPLAIN QUERY PLAN " + sql.replace("%s", "?"),
                    [p if isinstance(p, int) else str(p) for p in params],
                ).fetchall()
            )
        assert "price_latest_per_gpu" in plan or "price_provider_days" in plan, plan
        if connection.vendor == "postgresql":
            # Three checks leave PostgreSQL to choose among equal costs (with the admin's day
            # index beside them, it took the provider's foreign-key index and sorted): give it
            # a history of checks and their statistics, as a running site has.
            PriceCheck.objects.bulk_create(
                PriceCheck(
                    provider=provider, checked_on=date.fromordinal(SEEDED_DAY.toordinal() - n)
                )
                for provider in Provider.objects.all()
                for n in range(1, 400)
            )
            cursor.execute("ANALYZE pricing_pricecheck")
        checks = (
            PriceCheck.objects.current()
            .filter(provider=house(), checked_on__lte=TODAY)
            .order_by("-checked_on")
            .values("checked_on")[:1]
        )
        assert "one_current_check_per_provider_and_day" in checks.explain()
        history = (
            Price.objects.current()
            .filter(provider=house(), checked_on__gt=SEEDED_DAY)
            .order_by("checked_on")
            .values("checked_on", "quoted_usd_per_hour")
        )
        assert "price_provider_days" in history.explain()


# --- manage.py record_price_check --supersede ------------------------------------------------


def command(*args: str) -> str:
    out = StringIO()
    call_command("record_price_check", *args, stdout=out)
    return out.getvalue()


def test_the_command_corrects_a_check(recorder):
    out = command(
        "--provider", "gpuwithcrypto", "--date", "2026-10-29", "--supersede",
        "--reason", "H100 read from the wrong row", "--recorded-by", "ramon",
        "h100=2.23", "b200=4.61",
    )  # fmt: skip
    assert out == "Corrected 2 price(s) for gpuwithcrypto on 2026-10-29.\n"
    mistaken = PriceCheck.objects.exclude(superseded_at=None).get()
    assert (mistaken.superseded_by, mistaken.superseded_reason) == (
        recorder,
        "H100 read from the wrong row",
    )
    assert latest_house_prices() == {"h100": "2.2300", "b200": "4.6100"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--date", "2026-11-20", "--reason", "typo", "--recorded-by", "ramon"],
            "'gpuwithcrypto' has no price check on 2026-11-20 to correct",
        ),
        (
            ["--date", "2026-10-29", "--recorded-by", "ramon"],
            "a correction needs a reason: say what was wrong",
        ),
        (
            ["--date", "2026-10-29", "--reason", "typo"],
            "a correction must name who made it (recorded-by)",
        ),
    ],
)
def test_the_command_refuses_a_correction_in_one_line(recorder, args, message):
    before = (PriceCheck.objects.count(), Price.objects.count())
    with pytest.raises(CommandError) as refused:
        command("--provider", "gpuwithcrypto", "--supersede", *args, "h100=2.23")
    assert str(refused.value) == message
    assert (PriceCheck.objects.count(), Price.objects.count()) == before


def test_the_check_to_supersede_is_that_providers_on_that_day(seeded):
    """Every seeded provider was checked on the same day: each gets its own check back."""
    for slug in ("gpuwithcrypto", "massed-compute", "thunder-compute"):
        check = services.check_to_supersede(provider_slug=slug, checked_on=SEEDED_DAY)
        assert (check.provider.slug, check.checked_on) == (slug, SEEDED_DAY)
    with pytest.raises(services.PriceCheckError):
        services.check_to_supersede(provider_slug="gpuwithcrypto", checked_on=date(2026, 10, 28))
