"""Editors in the admin: roles, guides (publishing, conflicts, token errors, training
assumptions), language models, dashboard."""

from datetime import timedelta
from decimal import Decimal as D
from importlib import import_module

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from guides.admin.guide import GuideAdmin
from guides.dashboard import _checked
from guides.editorial import revisions
from guides.models import CHILD_ROWS, ComparisonPair, Guide
from pricing.models import Gpu, LanguageModel, Method, Source
from pricing.services import price_check_record
from tests.admin_pages import form_data, initial_form_data, initial_page
from tests.conftest import GUIDE_SLUG


def change_url(guide: Guide) -> str:
    return f"/en/admin/guides/guide/{guide.pk}/change/"


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


@pytest.mark.parametrize(
    ("who", "url", "status"),
    [
        ("editor", "/en/admin/guides/guide/", 200),
        ("editor", "/en/admin/pricing/source/add/", 200),
        ("editor", "/en/admin/pricing/gpu/add/", 200),
        ("editor", "/en/admin/pricing/languagemodel/add/", 200),
        ("editor", "/en/admin/pricing/pricecheck/add/", 403),
        ("editor", "/en/admin/auth/user/", 403),
        ("recorder", "/en/admin/pricing/pricecheck/add/", 200),
        ("recorder", "/en/admin/pricing/gpu/", 200),
        ("recorder", "/en/admin/pricing/gpu/add/", 403),
        ("recorder", "/en/admin/guides/guide/", 403),
        ("recorder", "/en/admin/pricing/method/", 403),
        ("administrator", "/en/admin/auth/user/", 200),
        ("administrator", "/en/admin/guides/guide/add/", 200),
    ],
)
def test_roles_grant_least_privilege(client, db, request, who, url, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(url).status_code == status


def test_migrations_alone_create_the_roles(db):
    """guides 0002 creates the groups from its frozen grants, whatever seed_content adds later."""
    Group.objects.all().delete()  # undone when the test's transaction rolls back
    state = MigrationLoader(connection).project_state(("guides", "0002_roles"))
    import_module("guides.migrations.0002_roles").create_roles(state.apps, None)
    granted = {
        group.name: {permission.codename for permission in group.permissions.all()}
        for group in Group.objects.prefetch_related("permissions")
    }
    every_permission = Permission.objects.filter(
        content_type__app_label__in=["guides", "pricing", "auth"]
    ).count()
    assert {name: len(codenames) for name, codenames in granted.items()} == {
        "Editors": 59,
        "Price recorders": 8,
        "Administrators": every_permission,
    }
    assert {"change_guide", "add_gpu", "view_pricecheck"} <= granted["Editors"]
    assert not {"add_pricecheck", "delete_gpu", "change_user"} & granted["Editors"]
    assert granted["Price recorders"] >= {"add_pricecheck", "add_price", "view_gpu"}
    assert {"change_user", "delete_pricecheck", "add_guide"} <= granted["Administrators"]


def test_an_editor_saves_a_guide_in_every_language(client, editor, guide):
    client.force_login(editor)
    version = guide.version
    data = initial_form_data(client, change_url(guide))
    data["title_ja"] = "新しいタイトル"
    # The training assumptions are on the form, as the seed states them, and saved with it.
    assert [data[name] for name in ("seq_len", "micro_batch_size", "lora_rank")] == [2048, 1, 16]
    assert data["gradient_checkpointing"] == "on"
    # A run every configuration the guide names still holds by the estimate: without
    # checkpointing its cost scenarios would not fit, and publishing would refuse it.
    assert (data["training_tokens"], data["epochs"]) == (100_000_000, 1)
    data |= {"seq_len": "4096", "micro_batch_size": "2", "lora_rank": "64", "_publish": "1",
             "training_tokens": "250000000", "epochs": "2"}  # fmt: skip
    response = client.post(change_url(guide), data)
    assert response.status_code == 302
    guide.refresh_from_db()
    assert guide.title_ja == "新しいタイトル"
    assert guide.version == version + 2  # the draft revision, then its publication
    assert (guide.seq_len, guide.micro_batch_size, guide.gradient_checkpointing,
            guide.lora_rank) == (4096, 2, True, 64)  # fmt: skip
    assert guide.training_budget == 500_000_000


def test_publishing_needs_every_language_in_the_guide_its_sections_and_faq(client, editor, guide):
    """One save with gaps in the guide and in an FAQ entry: each refused where it is."""
    client.force_login(editor)
    data = initial_form_data(client, change_url(guide))
    data["title_de"] = ""
    data["meta_description_ja"] = " "
    faq_question = next(
        k for k in data if k.startswith("faq_entries-") and k.endswith("question_ja")
    )
    data[faq_question] = ""
    response = client.post(change_url(guide), data)
    assert response.status_code == 200
    body = response.content.decode()
    assert (
        "The guide cannot be published while these are empty: Title (German), "
        "Meta description (Japanese)" in body
    )
    index = int(faq_question.split("-")[1]) + 1
    assert (
        f"FAQ entry {index} cannot be published while these are empty: Question (Japanese)" in body
    )
    data["status"] = "draft"
    assert client.post(change_url(guide), data).status_code == 302


def test_bad_tokens_and_training_values_are_shown_on_their_fields(client, editor, guide):
    """One save with a bad token in the guide, two in a section and two bad training values."""
    client.force_login(editor)
    data = initial_form_data(client, change_url(guide))
    data["short_answer_de"] = "QLoRA braucht [[memory qlroa]]."
    data |= {"seq_len": "0", "lora_rank": "4097"}
    field = next(k for k in data if k.startswith("sections-") and k.endswith("-closing_ja"))
    data[field] = "[[price 8xb200@nobody]] [[memory lora sideways]]"
    response = client.post(change_url(guide), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "[[memory qlroa]]: there is no method “qlroa”" in errors["short_answer_de"][0]
    assert errors["seq_len"] == ["Ensure this value is greater than or equal to 1."]
    assert errors["lora_rank"] == ["Ensure this value is less than or equal to 4096."]
    formset = next(
        f.formset
        for f in response.context["inline_admin_formsets"]
        if f.formset.prefix == "sections"
    )
    index = int(field.split("-")[1])
    assert formset.forms[index].errors["closing_ja"] == [
        "[[memory lora sideways]]: “sideways” is not one of planning, lower, upper, range",
        "[[price 8xb200@nobody]]: there is no provider “nobody”",
    ]
    assert (
        Guide.objects.get(slug=GUIDE_SLUG).sections.filter(closing_ja__contains="nobody").count()
        == 0
    )


def test_a_guide_save_loads_the_known_slugs_once(client, editor, guide):
    """39 prose fields in three languages are checked against slugs read in one go."""
    client.force_login(editor)
    data = initial_form_data(client, change_url(guide))
    with CaptureQueriesContext(connection) as queries:
        assert client.post(change_url(guide), data).status_code == 302
    slug_reads = [q for q in queries if q["sql"].startswith('SELECT "pricing_fact"."key" AS')]
    assert len(slug_reads) == 1


def test_a_guide_is_added_with_its_rows_as_a_draft(client, administrator):
    client.force_login(administrator)
    data = form_data(client.get("/en/admin/guides/guide/add/"))
    data |= {"slug": "new-guide", "title_en": "New guide", "short_answer_en": "Short.",
             "meta_description_en": "Meta.", "faq_entries-TOTAL_FORMS": "1",
             "faq_entries-0-position": "1", "faq_entries-0-question_en": "Q?",
             "faq_entries-0-answer_en": "A.",
             "language_model": LanguageModel.objects.get(slug="qwen-2.5-7b").pk}  # fmt: skip
    response = client.post("/en/admin/guides/guide/add/", data, follow=True)
    added = Guide.objects.get(slug="new-guide")
    assert f'The guide “<a href="{change_url(added)}">New guide</a>” was added successfully.' in (
        response.content.decode()
    )
    assert added.status == Guide.Status.DRAFT
    assert [entry.question for entry in added.faq_entries.all()] == ["Q?"]
    [revision] = added.revisions.all()
    assert revision.revision.comment == "Draft saved"
    [entry] = LogEntry.objects.filter(content_type__model="guide", object_id=str(added.pk))
    assert entry.is_addition() and entry.get_change_message() == "Added. Added FAQ entry “Q?”."


def test_two_editors_saving_at_once_do_not_overwrite_each_other(client, editor, guide):
    """A form from before field-by-field merging (no ``started_from``: an old tab) is refused
    when it is stale; tests/guides/admin/test_coediting.py has the merge and the conflict."""
    client.force_login(editor)
    first = initial_form_data(client, change_url(guide))
    del first["started_from"]
    second = dict(first)
    first["title_en"] = "First editor's title"
    assert client.post(change_url(guide), first).status_code == 302
    second["title_en"] = "Second editor's title"
    response = client.post(change_url(guide), second)
    assert response.status_code == 200
    assert "Someone else saved this guide after you opened it" in response.content.decode()
    assert "Second editor&#x27;s title" in response.content.decode()  # nothing lost
    assert (
        revisions.working_copy(guide)
        .revision.version_set.get(content_type__model="guide")
        .field_dict["title_en"]
        == "First editor's title"
    )


def test_admin_history_records_who_changed_a_guide(client, editor, guide):
    client.force_login(editor)
    client.post(change_url(guide), initial_form_data(client, change_url(guide)))
    history = client.get(f"/en/admin/guides/guide/{guide.pk}/history/").content.decode()
    assert "erika" in history


def test_tabs_load_jquery_ui_from_our_own_static_files(client, editor, guide):
    client.force_login(editor)
    body, fieldsets = initial_page(client, change_url(guide))
    assert "/static/vendor/jquery-ui/jquery-ui.min.js" in body
    assert "ajax.googleapis.com" not in body
    assert "[[memory lora lower]]" in body  # the token reference for editors
    assert fieldsets["Training assumptions"] == [
        "seq_len", "micro_batch_size", "gradient_checkpointing", "lora_rank", "training_tokens",
        "epochs",
    ]  # fmt: skip
    assert "The training run this guide's memory estimates assume" in body


def _fieldsets(response) -> dict[str | None, list[str]]:
    """The fields of each fieldset of an admin change form, by the fieldset's name."""
    return {name: options["fields"] for name, options in response.context["adminform"].fieldsets}


def test_an_editor_edits_a_language_models_architecture(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-70b")
    url = f"/en/admin/pricing/languagemodel/{model.pk}/change/"
    client.force_login(editor)
    response = client.get(url)
    fieldsets = _fieldsets(response)
    # In config.json's (alphabetical) order, which the description names.
    assert fieldsets["Architecture (config.json)"] == [
        "head_dim", "hidden_size", "intermediate_size", "max_position_embeddings",
        "attention_heads", "num_experts_per_tok", "layers", "kv_heads",
        "num_local_experts", "sliding_window", "tie_word_embeddings", "vocab_size",
    ]  # fmt: skip
    assert "its keys are head_dim, hidden_size, intermediate_size, max_position_embeddings," in (
        response.content.decode()
    )
    data = form_data(response)
    assert data["slug"] == "llama-3.1-70b"  # editable: a model slug may have dots
    assert (data["intermediate_size"], "tie_word_embeddings" in data) == (28672, False)
    data |= {"intermediate_size": "28673", "tie_word_embeddings": "on"}
    # An MLP width of 28,673 is no whole number of 4-bit groups: the serving guide's AWQ row
    # changes, so the save asks first.
    assert _saved_once_confirmed(client, url, data)
    model.refresh_from_db()
    assert (model.intermediate_size, model.tie_word_embeddings) == (28673, True)


def _saved_once_confirmed(client, url: str, data: dict) -> bool:
    held = client.post(url, data)
    confirmation = held.context["shared_confirmation"]
    assert confirmation["moved"], "an edit that moves no published figure is saved at once"
    saved = client.post(url, data | {confirmation["name"]: confirmation["value"]})
    return saved.status_code == 302


def test_an_editor_gives_a_head_size_and_experts_and_the_estimate_counts_them(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    url = f"/en/admin/pricing/languagemodel/{model.pk}/change/"
    client.force_login(editor)
    data = form_data(client.get(url))
    refused = client.post(url, data | {"num_local_experts": "8"})
    assert refused.status_code == 200
    assert "A mixture of experts needs both" in refused.content.decode()
    refused = client.post(url, data | {"num_local_experts": "2", "num_experts_per_tok": "4"})
    assert "A token cannot be routed to more experts than a layer has." in (
        refused.content.decode()
    )
    # Mixtral 8x7B's shape on Mistral's dense one: every expert counted. It moves the 8B
    # guide's figures, so it is saved once confirmed (tests/pricing/admin/test_shared_changes).
    data |= {"vocab_size": "32000", "num_local_experts": "8", "num_experts_per_tok": "2"}
    assert _saved_once_confirmed(client, url, data)
    model.refresh_from_db()
    assert model.architecture.params == 46_702_792_704
    data |= {"num_local_experts": "", "num_experts_per_tok": "", "head_dim": "256"}
    assert _saved_once_confirmed(client, url, data)
    model.refresh_from_db()
    assert (model.head_dim, model.architecture.q_size) == (256, 32 * 256)


def test_the_language_model_form_speaks_german_and_japanese(client, editor):
    model = LanguageModel.objects.get(slug="llama-3.1-70b")
    client.force_login(editor)
    german = client.get(f"/de/admin/pricing/languagemodel/{model.pk}/change/")
    assert "Architektur (config.json)" in german.content.decode()
    assert "MLP-Breite" in german.content.decode()
    japanese = client.get(f"/ja/admin/pricing/languagemodel/{model.pk}/change/")
    assert "アーキテクチャ（config.json）" in japanese.content.decode()
    assert "出力層を埋め込みと共有" in japanese.content.decode()


# --- dashboard -------------------------------------------------------------------------


def _messages(topic: str, today=None) -> list[str]:
    return [w.message for w in {t.title: found for t, found in _checked(today, None)}[topic]]


def test_dashboard_warns_of_stale_prices(seeded, settings):
    settings.PRICE_STALE_AFTER_DAYS = 30
    seed_day = timezone.datetime(2026, 10, 29).date()
    assert _messages("Prices", seed_day + timedelta(days=30)) == []
    stale = _messages("Prices", seed_day + timedelta(days=31))
    assert stale[0].startswith("GPUwithCrypto prices were last checked Oct. 29, 2026")


def test_dashboard_warns_of_sources_not_reread(seeded, settings):
    settings.SOURCE_STALE_AFTER_MONTHS = 12
    Source.objects.filter(key="lora-paper").update(read_on="2025-01-01")
    stale = _messages("Sources", timezone.datetime(2026, 11, 29).date())
    assert stale == ["“LoRA: Low-Rank Adaptation of Large Language Models” was last read on "
                     "Jan. 1, 2025; re-read it and update the date."]  # fmt: skip


def test_dashboard_warns_when_translations_fall_behind_english(client, editor, guide):
    assert _messages("Translations") == []
    client.force_login(editor)
    data = initial_form_data(client, change_url(guide))
    data["short_answer_en"] += " Updated."
    assert client.post(change_url(guide), data).status_code == 302
    assert _messages("Translations") == []  # a draft revision: the live text is unchanged
    data["_publish"] = "1"
    data["edited_version"] = Guide.objects.get(pk=guide.pk).version
    assert client.post(change_url(guide), data).status_code == 302
    # German and Japanese now lag behind, in the guide and in its 4 clones, whose English
    # followed it (guides.editorial.families).
    assert len(_messages("Translations")) == 2 * 5


def _gpu(slug: str) -> Gpu:
    return Gpu.objects.get(slug=slug)


def test_dashboard_warns_when_an_editors_recommendation_is_no_longer_cheapest(seeded):
    today = timezone.datetime(2026, 11, 20).date()
    assert _messages("Published guides", today) == []
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.recommendations.create(method=Method.objects.get(slug="qlora"), gpu=_gpu("b200"))
    assert _messages("Published guides", today) == []  # the override is the cheapest run
    price_check_record(provider_slug="gpuwithcrypto", checked_on=today,
                       prices={"b200": D("9.99")})  # fmt: skip
    stale = _messages("Published guides", today)
    assert stale == [  # what the guide would recommend: one L40S, $66.21; one B200 now $173.91
        "“Which GPU is best for fine-tuning Llama 3.1 70B?”: for QLoRA (4-bit base), a run on "
        "1× L40S now costs less than on the recommended 1× B200, and it fits."
    ]


def test_dashboard_is_quiet_where_the_model_cannot_tell_the_editors_run_from_the_cheapest(
    seeded,
):
    """Two B200s ($84.08) against one ($80.24) for 70B QLoRA: 4.8 % dearer, inside the 23.8 %
    the model's scaling error allows a ratio of two GPU counts: no warning. (The warning where
    the model can tell them apart: the test above.)"""
    today = timezone.datetime(2026, 11, 20).date()
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.recommendations.create(method=Method.objects.get(slug="qlora"), gpu=_gpu("b200"), count=2)
    assert _messages("Published guides", today) == []


def test_dashboard_names_the_guide_and_sentence_a_price_change_makes_untrue(seeded):
    """An editor's recommendation of a GPU we stop pricing, and a sentence that needs it."""
    today = timezone.datetime(2026, 11, 20).date()
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.recommendations.create(method=Method.objects.get(slug="lora"), gpu=_gpu("l40s"))
    problems = _messages("Published guides", today)
    assert problems[0] == (
        "“Which GPU is best for fine-tuning Llama 3.1 70B?” is published but no longer right: "
        "recommendation 0: LoRA, 1× L40S: by the estimate, the guide's run needs 149.3\u00a0GB per "
        "GPU here, more than the 47.2\u00a0GB each card can use"
    )


def test_admin_index_shows_the_dashboard(client, recorder):
    client.force_login(recorder)
    body = client.get("/en/admin/").content.decode()
    assert "Needs attention" in body
    assert "prices were last checked" in body


# What each role's dashboard says: tests/guides/test_dashboard_roles.py


def test_dashboard_names_a_link_to_a_comparison_taken_offline(seeded):
    """The dashboard runs the whole guide check, comparison links included."""
    ComparisonPair.objects.update(published=False)
    problems = _messages("Published guides", timezone.datetime(2026, 11, 20).date())
    assert any(
        "“Which GPU is best for fine-tuning Llama 3.1 70B?” is published but no longer right: "
        "section 7, text before the table (English): the comparison of h100 and a100-80gb is "
        "not published" in p
        for p in problems
    ), problems


@pytest.mark.parametrize(
    "suffix",
    [
        "translate/de/",
        "translate/de/import/",
        "translate/de/export/md/",
        "revisions/",
        "revisions/compare/",
    ],
)
def test_a_guide_id_that_is_not_a_number_is_not_found(client, admin_user, seeded, suffix):
    client.force_login(admin_user)
    assert client.get(f"/en/admin/guides/guide/abc/{suffix}").status_code == 404


def test_the_change_page_of_a_guide_id_that_is_not_a_number_says_it_does_not_exist(
    client, admin_user, seeded
):
    client.force_login(admin_user)
    response = client.get("/en/admin/guides/guide/abc/change/", follow=True)
    assert response.redirect_chain == [("/en/admin/", 302)]
    assert "Guide with ID “abc” doesn’t exist." in response.content.decode()


def test_the_guide_form_has_an_inline_for_each_of_a_guides_rows_in_their_order():
    assert [inline.model for inline in GuideAdmin.inlines] == list(CHILD_ROWS)


def test_the_token_list_on_a_clones_form_reads_that_guides_figures(client, editor, seeded, caplog):
    """The help types no figure; each example reads as it does on the guide being edited
    (it used to show the 70B guide's values, some of them stale, on every guide's form)."""
    client.force_login(editor)
    clone = Guide.objects.get(slug="best-gpu-for-llama-3-1-405b-fine-tuning")
    page = client.get(change_url(clone)).content.decode()
    assert (
        "<code>[[params]]</code> — the guide's model size in billions (on this guide: 405)"
        in page.replace("&#x27;", "'")
    )
    assert "<code>[[model]]</code> — the guide's model by name (on this guide: Llama 3.1 405B)" in (
        page.replace("&#x27;", "'")
    )
    assert "Llama 3.1 70B" not in page.split("token-reference")[1].split("</ul>")[0]
    # what the 405B guide has no figure for (one GPU for QLoRA) is left out, not logged
    assert "<code>[[smallest_gpu qlora]]</code> — " in page
    assert "cannot fill" not in caplog.text
    added = client.get("/en/admin/guides/guide/add/").content.decode()
    assert "on this guide" not in added  # no guide yet: the kinds and their examples only
