"""Nothing that guides use can be deleted: the reference index, the admin's delete pages (one
object and "delete selected"), and deletions through the ORM (guides/editorial/where_used.py)."""

from datetime import date
from decimal import Decimal as D

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import ProtectedError
from django.test.utils import CaptureQueriesContext

from guides.editorial import revisions
from guides.editorial.cloning import clone_guide
from guides.editorial.where_used import InUseError, build_index, uses_of
from guides.models import FaqEntry, Guide
from guides.pages.selectors import guide_for_page
from pricing.models import (
    Fact,
    Gpu,
    HourBlock,
    LanguageModel,
    Method,
    Price,
    PriceCheck,
    Provider,
    Source,
    ThroughputMeasurement,
)
from tests.conftest import GUIDE_SLUG

ADMIN = "/en/admin/"
GUIDE = "Guide “Which GPU is best for fine-tuning Llama 3.1 70B?”"
# One object of each kind the index covers, and one use of it in the 70B guide as its delete
# page lists it: the place, linked, then the languages that quote it there.
USED = [
    (Fact, {"key": "minimum-top-up"}, ">FAQ 5 › [[fact minimum-top-up]]</a> (en, de, ja)"),
    (Source, {"key": "qlora-paper"}, ">cited source 1</a>"),
    (Gpu, {"slug": "h200"}, ">fit table row 8× H200</a>"),
    (Method, {"slug": "qlora"}, ">Section 1 › [[too_small qlora]]</a> (en, de, ja)"),
    (
        Provider,
        {"slug": "thunder-compute"},
        ">Section 6 › [[price a100-80gb@thunder-compute]]</a> (en, de, ja)",
    ),
    (LanguageModel, {"slug": "llama-3.1-70b"}, ">its model</a>"),
    (HourBlock, {"hours": 10}, ">cost scenario QLoRA: 1× A100 80GB, 10 h</a>"),
]
IDS = [model.__name__ for model, _lookup, _use in USED]


@pytest.fixture
def superuser(seeded) -> User:
    return User.objects.create_superuser("root", password="pw-for-tests-only")


def delete_url(obj) -> str:
    return f"{ADMIN}{obj._meta.app_label}/{obj._meta.model_name}/{obj.pk}/delete/"


def changelist(model) -> str:
    return f"{ADMIN}{model._meta.app_label}/{model._meta.model_name}/"


def labels(obj) -> list[str]:
    return [use.label for use in uses_of([obj]).get(obj, [])]


def in_use_list(body: str) -> str:
    return body.split('id="deleted-objects"')[1].split("</ul>\n  <p>")[0]


def guide_block(body: str) -> str:
    """The places a delete page lists under the 70B guide's line (a <details>)."""
    return body.split(f"{GUIDE}</a>: ", 1)[1].split("</details>", 1)[0]


def unused_fact() -> Fact:
    return Fact.objects.create(key="spare", value=D(1), description="Not quoted anywhere")


# --- the index -----------------------------------------------------------------------------


def test_the_index_names_every_language_of_a_fact_in_every_guide(seeded):
    uses = labels(Fact.objects.get(key="minimum-top-up"))
    assert [u for u in uses if u.startswith(GUIDE)] == [
        f"{GUIDE} › FAQ 5 (en) › [[fact minimum-top-up]]",
        f"{GUIDE} › FAQ 5 (de) › [[fact minimum-top-up]]",
        f"{GUIDE} › FAQ 5 (ja) › [[fact minimum-top-up]]",
    ]
    assert len(uses) == 27  # nine guides (five fine-tuning, four serving), three languages each


def test_the_index_reads_tables_as_well_as_tokens(seeded):
    h200 = labels(Gpu.objects.get(slug="h200"))
    assert [u for u in h200 if u.startswith(GUIDE) and "›" in u and "[[" not in u] == [
        f"{GUIDE} › fit table row 1× H200",
        f"{GUIDE} › fit table row 2× H200",
        f"{GUIDE} › fit table row 8× H200",
        f"{GUIDE} › cost scenario LoRA: 2× H200, 12 h",
        f"{GUIDE} › cost scenario Full, 8-bit Adam: 8× H200, 21 h",
    ]
    assert "GPU comparison “H100 – A100 80GB”" in labels(Gpu.objects.get(slug="h100"))
    assert labels(HourBlock.objects.get(hours=720)) == []  # no scenario falls in it


def test_a_use_only_in_a_working_copy_counts_and_says_so(seeded):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    fact = unused_fact()
    revisions.ensure_baseline(guide)
    draft = revisions.rows_content(guide)
    draft.rows[FaqEntry][-1].answer_de += " [[fact spare]]"
    revisions.store(revisions.snapshot(draft), guide=guide, user=None, comment="draft")
    assert labels(fact) == [f"{GUIDE} › FAQ 5 (de) › [[fact spare]] (working copy)"]
    with pytest.raises(InUseError):
        fact.delete()


def test_the_index_takes_the_same_queries_however_many_guides(seeded):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            build_index()
        return len(captured)

    assert queries() == 12  # 7 tables of guides, GPUs, methods, blocks, revisions, comparisons
    clone_guide(guide_for_page(slug=GUIDE_SLUG), LanguageModel.objects.get(slug="qwen-2.5-7b"))
    revisions.ensure_baseline(Guide.objects.get(slug=GUIDE_SLUG))
    assert queries() == 12


# --- the admin's delete pages ------------------------------------------------------------


@pytest.mark.parametrize(("model", "lookup", "use"), USED, ids=IDS)
def test_the_delete_page_lists_the_uses_and_deletes_nothing(client, superuser, model, lookup, use):
    obj = model.objects.get(**lookup)
    client.force_login(superuser)
    page = client.get(delete_url(obj))
    body = page.content.decode()
    assert page.status_code == 200
    assert "cannot be deleted: it is used in the places below" in body
    assert f'<summary><a href="{ADMIN}guides/guide/' in body
    assert use in guide_block(body)
    assert "Yes, I’m sure" not in body
    assert client.post(delete_url(obj), {"post": "yes"}).status_code == 200
    assert model.objects.filter(pk=obj.pk).exists()


def test_the_h100s_uses_are_grouped_by_guide_and_language(client, superuser):
    """A GPU quoted by tokens in every language: one line per guide (a <details> that opens
    to its places, each with its languages), under how widely it is used."""
    client.force_login(superuser)
    body = client.get(delete_url(Gpu.objects.get(slug="h100"))).content.decode()
    listed = in_use_list(body)
    assert listed.startswith(
        ' class="in-use">\t<li>Used in 9 guides × 3 languages and 1 GPU comparison\n\t<ul>'
    )
    assert listed.count("<details>") == 9  # one per guide
    # summary, guides, comparison, places (51 fine-tuning, 6 on each serving guide), price
    assert listed.count("<li>") == 1 + 9 + 1 + 51 + 4 * 6 + 1
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    edit = f"{ADMIN}guides/guide/{guide.pk}/change/"
    assert f'<summary><a href="{edit}">{GUIDE}</a>: 11 places</summary>' in listed
    assert guide_block(listed).split("<li>")[1:4] == [
        f'<a href="{edit}">Section 7 › [[holds qlora h100 a100-80gb]]</a> (en, de, ja)</li>',
        f'<a href="{edit}">Section 7 › [[spec_ratio h100 a100-80gb bf16]]</a> (en, de, ja)</li>',
        f'<a href="{edit}">Section 7 › [[spec h100 bf16]]</a> (en, de, ja)</li>',
    ]
    assert ">fit table row 8× H100</a></li>" in guide_block(listed)  # a table: no language
    assert "GPU comparison “H100 – A100 80GB”</a></li>" in listed
    assert "Yes, I’m sure" not in body


def test_a_use_in_a_working_copy_is_marked_on_the_delete_page(client, superuser):
    guide, fact = Guide.objects.get(slug=GUIDE_SLUG), unused_fact()
    revisions.ensure_baseline(guide)
    draft = revisions.rows_content(guide)
    draft.rows[FaqEntry][-1].answer_de += " [[fact spare]]"
    revisions.store(revisions.snapshot(draft), guide=guide, user=None, comment="draft")
    client.force_login(superuser)
    listed = in_use_list(client.get(delete_url(fact)).content.decode())
    assert listed.startswith(' class="in-use">\t<li>Used in 1 guide × 1 language\n')
    assert ">FAQ 5 › [[fact spare]]</a> (de) (working copy)</li>" in guide_block(listed)


def test_an_editor_is_refused_as_a_superuser_is(client, editor):
    fact = Fact.objects.get(key="minimum-top-up")
    client.force_login(editor)
    assert "cannot be deleted" in client.get(delete_url(fact)).content.decode()
    client.post(delete_url(fact), {"post": "yes"})
    assert Fact.objects.filter(pk=fact.pk).exists()


def test_what_nothing_uses_is_deleted_as_before(client, superuser):
    fact, block = unused_fact(), HourBlock.objects.get(hours=720)
    client.force_login(superuser)
    assert "Yes, I’m sure" in client.get(delete_url(fact)).content.decode()
    assert client.post(delete_url(fact), {"post": "yes"}).status_code == 302
    assert client.post(delete_url(block), {"post": "yes"}).status_code == 302
    assert not Fact.objects.filter(pk=fact.pk).exists()
    assert not HourBlock.objects.filter(hours=720).exists()


def test_a_price_history_is_listed_in_short(client, superuser):
    """Rows that protect an object by foreign key are listed after its uses, ten per kind."""
    house, h100 = Provider.objects.get(is_house=True), Gpu.objects.get(slug="h100")
    for day in range(1, 13):
        check = PriceCheck.objects.create(provider=house, checked_on=date(2026, 1, day))
        Price.objects.create(price_check=check, gpu=h100, quoted_usd_per_hour=D("2.5"))
    client.force_login(superuser)
    body = client.get(delete_url(h100)).content.decode()
    listed = in_use_list(body)
    assert listed.count("<li>Price: H100 $") == 10
    assert listed.endswith("<li>Price: H100 $2.5000</li>\n\t<li>… and 3 more</li>")
    assert ">fit table row 1× H100</a>" in guide_block(listed)
    assert "Fit-table configuration:" not in listed  # listed once, by the index


def test_delete_selected_lists_each_objects_uses_and_deletes_nothing(client, superuser):
    used, spare = Fact.objects.get(key="minimum-top-up"), unused_fact()
    client.force_login(superuser)
    data = {"action": "delete_selected", "_selected_action": [used.pk, spare.pk]}
    page = client.post(changelist(Fact), data)
    body = page.content.decode()
    assert "Nothing was deleted: the places below still use the selected facts." in body
    listed = in_use_list(body)
    assert listed.startswith(
        ' class="in-use">\t<li>minimum-top-up = 25.0000 — used in 9 guides × 3 languages\n\t<ul>'
    )
    assert ">FAQ 5 › [[fact minimum-top-up]]</a> (en, de, ja)</li>" in guide_block(listed)
    assert "spare" not in listed
    client.post(changelist(Fact), {**data, "post": "yes"})
    assert Fact.objects.filter(pk__in=[used.pk, spare.pk]).count() == 2


def test_delete_selected_still_deletes_what_nothing_uses(client, superuser):
    spare = unused_fact()
    client.force_login(superuser)
    data = {"action": "delete_selected", "_selected_action": [spare.pk], "post": "yes"}
    assert client.post(changelist(Fact), data).status_code == 302
    assert not Fact.objects.filter(pk=spare.pk).exists()


# --- the ORM ------------------------------------------------------------------------------


def test_the_shell_cannot_delete_a_used_fact_either(seeded):
    fact = Fact.objects.get(key="minimum-top-up")
    with pytest.raises(InUseError) as refused:
        fact.delete()
    message = str(refused.value.args[0])
    assert message.startswith("Cannot delete what guides still use; remove these uses first:\n")
    assert f"minimum-top-up = 25.0000: {GUIDE} › FAQ 5 (de) › [[fact minimum-top-up]]" in message
    assert refused.value.protected_objects == {fact}
    assert isinstance(refused.value, ProtectedError)  # callers that handle PROTECT handle it


def test_a_queryset_delete_is_checked_once_and_refused_whole(seeded):
    spare = unused_fact()
    with pytest.raises(InUseError):
        Fact.objects.filter(key__in=["spare", "minimum-top-up"]).delete()
    assert Fact.objects.filter(pk=spare.pk).exists()
    Fact.objects.create(key="spare-2", value=D(2), description="Not quoted either")
    with CaptureQueriesContext(connection) as captured:
        assert Fact.objects.filter(key__startswith="spare").delete()[0] == 2
    assert len(captured) < 25  # one index (12 queries) for both facts, not one each


def test_a_fact_deleted_once_its_last_use_is_gone(seeded):
    fact = unused_fact()
    entry = Guide.objects.get(slug=GUIDE_SLUG).faq_entries.first()
    entry.answer_en += " [[fact spare]]"
    entry.save()
    with pytest.raises(InUseError):
        fact.delete()
    entry.answer_en = entry.answer_en.removesuffix(" [[fact spare]]")
    entry.save()
    fact.delete()
    assert not Fact.objects.filter(key="spare").exists()


def test_measurements_protect_their_model_and_method(seeded):
    """A measurement is recorded evidence: deleting its model no longer takes it along."""
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    Guide.objects.filter(language_model=model).delete()  # no guide about it any more
    with pytest.raises(ProtectedError) as refused:
        model.delete()
    assert {type(obj) for obj in refused.value.protected_objects} == {ThroughputMeasurement}
