"""Each public page's queries: at most 12, the same on the seed and on a long price history
(with a GPU one provider never priced, the shape that used to cost a scan per GPU), and none
for a page served from the cache. Counts, not timings: timings are in docs/performance.md."""

import re
from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from guides.editorial.cloning import clone_guide
from guides.pagecache.invalidation import invalidate, invalidate_everything
from guides.pages.selectors import guide_for_page
from pricing import cache_tags as pricing_tags
from pricing.models import Gpu, LanguageModel, Price, PriceCheck, Provider
from tests.conftest import GUIDE_SLUG, SEED_DAY, as_if_committed, forget_cached_pages

CACHED = [
    "/en/",
    f"/en/guides/{GUIDE_SLUG}/",
    f"/ja/guides/{GUIDE_SLUG}/tutorial/",
    f"/de/guides/{GUIDE_SLUG}/?as_of=2026-11-25",  # as of a recent day: stored
    "/ja/gpus/",
    "/en/gpus/?as_of=2026-11-25",
    "/en/vram/",
    "/en/compare/h100-vs-a100-80gb/",
    "/de/compare/h100-vs-a100-80gb/?as_of=2026-11-25",
]
RENDERED_EACH_TIME = [
    f"/de/guides/{GUIDE_SLUG}/?as_of=2026-11-01",  # longer ago than PAGE_CACHE_PAST_DAYS
    "/en/gpus/?as_of=2026-11-01",
    "/de/compare/h100-vs-a100-80gb/?as_of=2026-11-01",
    "/en/vram/?params=405",
    "/en/vram/?params=70&method=qlora&model=llama-3.1-70b",
]
# The dashboard (the admin index) is pinned on its own below: its guide checks read every
# published guide with its rows.
ADMIN = [
    "/en/admin/pricing/pricecheck/",
    "/en/admin/pricing/pricecheck/add/",
    "/en/admin/pricing/gpu/",
    "/en/admin/pricing/provider/",
]
HISTORY_DAYS = 180  # per provider that prices: 2,700 rows, enough to show a scan


def uncached_queries(client, url: str) -> int:
    """Queries of a render with the versions cached but not the page (after a write)."""
    assert client.get(url).status_code == 200, url
    forget_cached_pages()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200, url
    return len(queries)


def hit_queries(client, url: str) -> int:
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response["X-Page-Cache"] == "hit", url
    return len(queries)


def all_counts(client) -> dict[str, int]:
    return {url: uncached_queries(client, url) for url in CACHED + RENDERED_EACH_TIME}


def add_long_history() -> int:
    """Daily checks before the seed's for every provider, each pricing every GPU but one."""
    gpus = list(Gpu.objects.order_by("slug"))
    checks = PriceCheck.objects.bulk_create(
        PriceCheck(provider=provider, checked_on=SEED_DAY - timedelta(days=day))
        for provider in Provider.objects.all()
        for day in range(1, HISTORY_DAYS + 1)
    )
    if connection.vendor == "sqlite":  # SQLite's bulk insert returns no keys: read them back
        checks = list(PriceCheck.objects.filter(checked_on__lt=SEED_DAY).select_related("provider"))
    rows = [
        Price(
            price_check=check,
            provider=check.provider,
            checked_on=check.checked_on,
            gpu=gpu,
            quoted_usd_per_hour=D("1.5") + check.checked_on.day % 7,
        )  # fmt: skip
        for check in checks
        # one GPU that each provider never prices
        for gpu in (gpus[1:] if check.provider.is_house else gpus[:-1])
    ]
    Price.objects.bulk_create(rows, batch_size=2000)
    invalidate_everything()  # bulk inserts send no signals
    return len(rows)


def test_every_public_page_makes_at_most_12_queries_and_a_cache_hit_one(client, seeded):
    counts = all_counts(client)
    assert max(counts.values()) <= 12, counts
    assert min(counts.values()) >= 0
    # The one: has any content changed since (the version check, guides/pagecache/versions.py)?
    assert {url: hit_queries(client, url) for url in CACHED} == dict.fromkeys(CACHED, 1)


@pytest.mark.django_db
def test_the_counts_stay_the_same_with_a_long_history(client, seeded):
    small = all_counts(client)
    assert add_long_history() > 2_500
    as_if_committed()
    assert all_counts(client) == small


def admin_counts(client) -> dict[str, int]:
    counts = {}
    for url in ADMIN:
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200, url
        counts[url] = len(queries)
    return counts


@pytest.mark.parametrize(
    ("role", "counts"),
    [
        # session, user, second factor, then the list's own: providers for the filter, the
        # count, the second factor again (the admin's context), the page, its providers, its
        # prices with their GPUs (one query for all rows); the add form: the house provider
        # once, its last prices, the GPU menu once for all rows, the providers' menu; the GPU
        # and provider lists' last check and check count are subqueries per row
        # (pricing/admin.py).
        (None, {
            "/en/admin/pricing/pricecheck/": 9,
            "/en/admin/pricing/pricecheck/add/": 8,
            "/en/admin/pricing/gpu/": 8,
            "/en/admin/pricing/provider/": 7,
        }),
        # Staff in a role: their own and their groups' permissions, 2 more.
        ("Price recorders", {
            "/en/admin/pricing/pricecheck/": 11,
            "/en/admin/pricing/pricecheck/add/": 10,
            "/en/admin/pricing/gpu/": 10,
            "/en/admin/pricing/provider/": 9,
        }),
    ],
)  # fmt: skip
def test_the_admins_price_pages_stay_at_12_queries(client, seeded, admin_user, role, counts):
    user = admin_user
    if role:
        user = User.objects.create_user("ramon", is_staff=True)
        user.groups.add(Group.objects.get(name=role))
    client.force_login(user)
    assert admin_counts(client) == counts
    add_long_history()
    assert admin_counts(client) == counts
    assert "paginator" in client.get("/en/admin/pricing/pricecheck/").content.decode()


def test_the_admin_lists_read_no_aggregate_over_the_history(client, seeded, admin_user):
    """The check list is read in the order of its index (no join to sort by provider name, no
    DISTINCT years for a date drill-down); the GPU and provider lists' latest check is a
    subquery per row (index seeks), not a MAX over a join of every price or check."""
    client.force_login(admin_user)
    for url in ADMIN[::2] + ADMIN[3:]:
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        sql = "\n".join(q["sql"] for q in queries.captured_queries)
        for aggregate in ('JOIN "pricing_price" ', 'JOIN "pricing_pricecheck" ', "date_trunc"):
            assert aggregate not in sql, (url, aggregate)
    checks = "\n".join(q["sql"] for q in queries_of(client, ADMIN[0]))
    assert (
        'ORDER BY "pricing_pricecheck"."checked_on" DESC, "pricing_pricecheck"."id" DESC' in checks
    )


def queries_of(client, url: str) -> list[dict]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return queries.captured_queries


def test_the_gpu_admin_lists_each_gpus_last_check_at_any_provider(client, seeded, admin_user):
    client.force_login(admin_user)
    house = Provider.objects.get(is_house=True)
    thunder = Provider.objects.get(slug="thunder-compute")
    check = PriceCheck.objects.create(provider=thunder, checked_on=SEED_DAY + timedelta(days=9))
    Price.objects.create(price_check=check, gpu=Gpu.objects.get(slug="h100"),
                         quoted_usd_per_hour=D("2.5"))  # fmt: skip
    corrected = PriceCheck.objects.create(provider=house, checked_on=SEED_DAY + timedelta(days=12))
    Price.objects.create(price_check=corrected, gpu=Gpu.objects.get(slug="b200"),
                         quoted_usd_per_hour=D("4.7"))  # fmt: skip
    PriceCheck.objects.filter(pk=corrected.pk).update(superseded_at=corrected.recorded_at)
    Price.objects.filter(price_check=corrected).update(superseded=True)
    body = client.get("/en/admin/pricing/gpu/?o=1").content.decode()
    rows = dict(re.findall(r'<th class="field-name"><a href="[^"]*">([^<]+)</a></th>.*?'
                           r'<td class="field-last_checked[^"]*">([^<]*)<', body))  # fmt: skip
    assert rows["H100"] == "Nov. 7, 2026"  # Thunder Compute's, later than ours
    assert rows["B200"] == "Oct. 29, 2026"  # the superseded check counts for nothing
    assert rows["RTX 4090"] == "-"  # never priced


def dashboard_queries(client, language: str = "en") -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/{language}/admin/").status_code == 200
    return len(queries)


def test_the_dashboard_checks_every_guide_in_a_fixed_number_of_queries(client, seeded, admin_user):
    """Its warnings are cached under the versions of every tag they read
    (guides.dashboard), so a visit makes 11 queries until a write: the session, the
    user, two-factor, the version check, the guides' keys (their tags), the task queue's
    failures, what is scheduled, what waits for review and the user's own submissions (never
    cached: guides.background.task_queue.task_trouble, dashboard.scheduled_changes,
    dashboard.review_lists)
    and the admin's recent actions. After a price check: 32 (the version table read again, the
    guides with their rows, prices, check dates, measurements, published comparisons, stale
    sources, the operator's details, unreviewed legal pages, and 4 for the translations' bases
    and texts, each read once for all guides); after a write to shared data (methods, rules,
    blocks and facts are read again too: 38). More guides or more history add none."""
    client.force_login(admin_user)
    client.get("/en/admin/")  # the versions exist from here on, as in production
    house = Provider.objects.get(is_house=True)

    def after_writes() -> list[int]:
        invalidate({pricing_tags.prices(house.pk)})
        as_if_committed()
        counts = [dashboard_queries(client), dashboard_queries(client)]
        invalidate_everything()
        as_if_committed()
        return [*counts, dashboard_queries(client)]

    assert after_writes() == [32, 11, 38]
    source = guide_for_page(slug=GUIDE_SLUG)
    clone_guide(source, LanguageModel.objects.get(slug="qwen-2.5-7b"), publish=True)
    add_long_history()
    as_if_committed()  # a version is replaced once per transaction: commit, as a request would
    client.get("/en/admin/")
    assert after_writes() == [32, 11, 38]
