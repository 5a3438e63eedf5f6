"""The guide list's search finds a guide by any of its translated prose: its own fields, its
sections and its FAQ entries, in every language, each guide once (GuideAdmin.search_fields)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from guides.models import Guide
from tests.conftest import GUIDE_SLUG

LIST = "/en/admin/guides/guide/"


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.get(slug=GUIDE_SLUG)


def found(client, words: str) -> list[str]:
    return [g.slug for g in client.get(LIST, {"q": words}).context["cl"].result_list]


def _set(row, field: str, text: str) -> None:
    type(row).objects.filter(pk=row.pk).update(**{field: text})


@pytest.mark.parametrize(
    ("rows", "field", "word"),
    [
        ("sections", "body_de", "Zwischenspeicherungsfaktor"),
        ("sections", "closing_ja", "量子化誤差補正"),
        ("faq_entries", "question_de", "Abrechnungszeitraum"),
        ("faq_entries", "answer_ja", "学習率減衰方式"),
        ("faq_entries", "answer_en", "checkpointing-cadence"),
        ("", "question_ja", "最適化手順書"),
        ("", "short_answer_de", "Gradientenakkumulation"),
        ("", "meta_description_en", "throughput-ledger"),
    ],
)
def test_a_word_of_any_translated_text_finds_its_guide(client, editor, guide, rows, field, word):
    row = getattr(guide, rows).order_by("position").last() if rows else guide
    _set(row, field, f"{getattr(row, field) or ''} {word}")
    client.force_login(editor)
    assert found(client, word) == [GUIDE_SLUG]
    assert found(client, word[2:-2].upper() if word.isascii() else word[1:-1]) == [GUIDE_SLUG]


def test_a_guide_matched_in_many_rows_is_listed_once(client, editor, guide):
    for section in guide.sections.all():
        _set(section, "body_de", "Wiederholungswort")
    for entry in guide.faq_entries.all():
        _set(entry, "answer_ja", "Wiederholungswort")
    client.force_login(editor)
    assert found(client, "wiederholungswort") == [GUIDE_SLUG]
    page = client.get(LIST, {"q": "wiederholungswort"}).content.decode()
    assert "1 result (" in page


def test_searching_prose_costs_no_more_queries_than_the_list(client, editor, guide):
    client.force_login(editor)
    client.get(LIST)  # warm the caches a first request fills

    def queries(params: dict) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(LIST, params).status_code == 200
        return len(captured)

    assert queries({"q": "GPU"}) == queries({})
    assert len(found(client, "GPU")) == Guide.objects.count()  # in every guide, each once


def test_a_slug_and_a_title_are_still_found(client, editor, guide):
    client.force_login(editor)
    assert found(client, "llama-70b") == [GUIDE_SLUG]
    assert found(client, guide.title_de) == [GUIDE_SLUG]
