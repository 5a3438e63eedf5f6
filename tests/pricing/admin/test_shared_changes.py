"""Shared data changes with care: an edit of a GPU, a language model or a fact that moves a
published figure by more than 1.5× is saved only once confirmed, naming the guides and
figures; the History keeps each change's before and after (issue 53)."""

from decimal import Decimal as D

import pytest
from django.contrib.admin.models import LogEntry

from guides.editorial import shared_changes
from pricing.models import Fact, Gpu, LanguageModel, MemoryRule, Method
from pricing.shared_data_admin import CONFIRM_SHARED_FIELD
from tests.admin_pages import form_data

GUIDE_70B = "Which GPU is best for fine-tuning Llama 3.1 70B?"
GUIDE_70B_DE = "Welche GPU eignet sich am besten für das Fine-Tuning von Llama 3.1 70B?"


def change_url(obj) -> str:
    return f"/{{lang}}/admin/pricing/{obj._meta.model_name}/{obj.pk}/change/"


def _rows(response) -> list[tuple[str, str, str, str]]:
    return [
        (m.guide, m.figure, m.before, m.after)
        for m in response.context["shared_confirmation"]["moved"]
    ]


@pytest.mark.django_db
def test_a_tenfold_tflops_slip_is_held_until_confirmed_naming_what_it_moves(client, editor):
    """The German editor's "989,5" read as 9895: every guide's H100 figures would move (50 on
    the fine-tuning guides, 30 on the serving guides: a tenfold H100 wins every precision)."""
    h100 = Gpu.objects.get(slug="h100")
    client.force_login(editor)
    url = change_url(h100).format(lang="de")
    data = form_data(client.get(url)) | {"bf16_dense_tflops": "9895"}
    held = client.post(url, data)
    assert held.status_code == 200
    h100.refresh_from_db()
    assert h100.bf16_dense_tflops == D("989.5")  # nothing saved
    assert "bewegt 80 veröffentlichte Zahlen um mehr als das 1,5-Fache" in held.content.decode()
    rows = _rows(held)
    assert len(rows) == 80
    cost = (GUIDE_70B_DE, "QLoRA: Kosten des empfohlenen Laufs", "85,43\xa0$", "17,87\xa0$")
    assert cost in rows
    assert (GUIDE_70B_DE, "QLoRA: Empfehlung", "1× B200, 8× B200", "1× H100, 8× H100") in rows
    serving = "Welche GPU eignet sich am besten, um Llama 3.1 70B bereitzustellen?"
    assert (serving, "FP8: Empfehlung", "4× B200", "8× H100") in rows
    assert (serving, "FP8: Kosten pro Million Ausgabe-Tokens", "0,50\xa0$", "0,22\xa0$") in rows
    fingerprint = held.context["shared_confirmation"]["value"]
    assert f'value="{fingerprint}"' in held.content.decode()

    # Another edit's box confirms nothing: a different slip is held again.
    other = client.post(
        url, data | {"bf16_dense_tflops": "5000", CONFIRM_SHARED_FIELD: fingerprint}
    )
    assert other.status_code == 200
    assert other.context["shared_confirmation"]["value"] != fingerprint

    saved = client.post(url, data | {CONFIRM_SHARED_FIELD: fingerprint})
    assert saved.status_code == 302
    h100.refresh_from_db()
    assert h100.bf16_dense_tflops == D("9895")
    entry = LogEntry.objects.filter(object_id=str(h100.pk)).latest("action_time")
    assert entry.user == editor
    assert entry.get_change_message() == "BF16 dense TFLOPS: 989.5 → 9895 geändert."


@pytest.mark.django_db
def test_a_correction_that_moves_nothing_much_is_saved_at_once_with_its_before_and_after(
    client, editor
):
    h100 = Gpu.objects.get(slug="h100")
    client.force_login(editor)
    url = change_url(h100).format(lang="en")
    saved = client.post(url, form_data(client.get(url)) | {"bf16_dense_tflops": "990"})
    assert saved.status_code == 302
    entry = LogEntry.objects.filter(object_id=str(h100.pk)).latest("action_time")
    assert entry.get_change_message() == "Changed BF16 dense TFLOPS: 989.5 → 990."


@pytest.mark.django_db
def test_a_models_size_slip_names_its_guides_figures(client, editor):
    """ "27,2" billion read as 272: here the 70B model typed as 700."""
    model = LanguageModel.objects.get(slug="llama-3.1-70b")
    client.force_login(editor)
    url = change_url(model).format(lang="en")
    data = form_data(client.get(url)) | {"params_billion": "700", "layers": "800"}
    held = client.post(url, data)
    assert held.status_code == 200
    rows = _rows(held)
    assert (GUIDE_70B, "QLoRA: peak memory on one GPU", "45.1\xa0GB", "398.3\xa0GB") in rows
    # Its serving guide goes blank: 700 billion parameters contradict its config.json fields,
    # which the vLLM planner then refuses to plan with.
    serving = "Which GPU is best for serving Llama 3.1 70B?"
    assert (serving, "FP8: recommendation", "4× B200", "—") in rows
    assert {guide for guide, *_rest in rows} == {GUIDE_70B, serving}  # its own model's guides


@pytest.mark.django_db
def test_a_facts_uses_are_named(client, editor):
    fact = Fact.objects.get(key="lora-adapter-overhead")
    client.force_login(editor)
    url = change_url(fact).format(lang="en")
    held = client.post(url, form_data(client.get(url)) | {"value": str(fact.value * 10)})
    assert held.status_code == 200
    rows = _rows(held)
    assert (
        "Guide “Which GPU is best for fine-tuning Llama 3.1 70B?”",
        "Section 2 (de) › [[fact lora-adapter-overhead]]",
        "1",
        "10",
    ) in rows


@pytest.mark.django_db
def test_the_moves_are_computed_over_the_edited_record_without_saving_it():
    h100 = Gpu.objects.get(slug="h100")
    edited = Gpu.objects.get(slug="h100")
    edited.bf16_dense_tflops = D("9895")
    moved = shared_changes.moved_by_gpu(h100, edited)
    assert len(moved) == 80
    assert Gpu.objects.get(slug="h100").bf16_dense_tflops == D("989.5")
    # Within 1.5× either way nothing is asked.
    edited.bf16_dense_tflops = D("990")
    assert shared_changes.moved_by_gpu(h100, edited) == []


@pytest.mark.django_db
def test_a_rule_and_a_methods_margin_are_checked_too(client, editor):
    """QLoRA's cited 48 GB for 65 B parameters typed as 480: the rule's memory moves on every
    guide; a margin of 200 % instead of 20 % likewise."""
    rule = MemoryRule.objects.filter(method__slug="qlora").order_by("position").first()
    client.force_login(editor)
    url = change_url(rule).format(lang="en")
    data = form_data(client.get(url)) | {"reference_memory_gb": "480"}
    held = client.post(url, data)
    assert held.status_code == 200
    rows = _rows(held)
    assert (GUIDE_70B, "QLoRA: memory by the cited rules", "52.5\xa0GB", "518\xa0GB") in rows
    method = Method.objects.get(slug="qlora")
    url = change_url(method).format(lang="en")
    data = form_data(client.get(url)) | {"planning_margin_percent": "200"}
    rows = _rows(client.post(url, data))
    assert any(figure == "QLoRA: memory by the cited rules" for _g, figure, *_ in rows)


@pytest.mark.django_db
def test_the_rows_a_rule_and_a_method_are_edited_with_are_checked_with_them(client, editor):
    """A component's bytes per parameter (AdamW's optimizer states, 12, typed as 50) on the
    rule's page, and the QLoRA rule's 48 GB typed as 480 in the method's own rows."""
    rule = MemoryRule.objects.filter(method__slug="full-adamw").order_by("position").first()
    client.force_login(editor)
    url = change_url(rule).format(lang="en")
    data = form_data(client.get(url))
    row = next(
        key.removesuffix("-bytes_per_param")
        for key, value in data.items()
        if key.endswith("-bytes_per_param") and D(str(value)) == 12
    )
    held = client.post(url, data | {f"{row}-bytes_per_param": "50"})
    assert held.status_code == 200
    assert "This change moves" in held.content.decode()
    assert any(figure == "Full, AdamW: memory by the cited rules" for _g, figure, *_ in _rows(held))
    method = Method.objects.get(slug="qlora")
    url = change_url(method).format(lang="en")
    data = form_data(client.get(url))
    held = client.post(url, data | {"rules-0-reference_memory_gb": "480"})
    assert held.status_code == 200
    assert (GUIDE_70B, "QLoRA: memory by the cited rules", "52.5\xa0GB", "518\xa0GB") in _rows(held)
    confirmed = data | {
        "rules-0-reference_memory_gb": "480",
        CONFIRM_SHARED_FIELD: held.context["shared_confirmation"]["value"],
    }
    assert client.post(url, confirmed).status_code == 302
    first = MemoryRule.objects.filter(method=method).order_by("position").first()
    assert first.reference_memory_gb == 480
