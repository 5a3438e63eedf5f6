"""Each published guide's share image: drawn when published, served per language."""

import io
import re

import pytest
from django.core import checks
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django_tasks import default_task_backend
from PIL import Image, ImageFont

from guides.background import tasks
from guides.editorial import publishing, revisions, share_images
from guides.editorial.share_images import NO_LINE_START, _as_many_as_fit, _wrap
from guides.models import Guide, ShareImage
from tests.conftest import GUIDE_SLUG, _required, as_if_committed, share_image_font

SHARE = f"/{{lang}}/guides/{GUIDE_SLUG}/share.png"
SITE_WIDE = "/static/img/share"  # the site-wide image, hashed name
# The fonts the line breaks below were measured with: the first of SHARE_IMAGE_FONTS's defaults
# (Debian's fonts-dejavu-core and fonts-ipafont-gothic, which CI installs).
MEASURED_WITH = {"de": ("DejaVu Sans", "Bold"), "ja": ("IPAPGothic", "Regular")}


@pytest.fixture
def guide(seeded) -> Guide:
    return Guide.objects.select_related("language_model").get(slug=GUIDE_SLUG)


def measured_font(language: str, size: int) -> ImageFont.FreeTypeFont:
    """The font ``language`` is drawn with here (the drawing code's lookup), if it is the one
    the expected line breaks were measured with; another font breaks lines elsewhere."""
    font = ImageFont.truetype(share_image_font(language), size)
    if font.getname() != MEASURED_WITH[language]:
        message = (
            f"the line breaks were measured with {MEASURED_WITH[language]}, but {language!r} is "
            f"drawn here with {font.getname()} (SHARE_IMAGE_FONTS)"
        )
        if _required("REQUIRE_FONTS"):
            pytest.fail(message)
        pytest.skip(message)
    return font


def test_a_published_guide_gets_a_1200_by_630_png_in_each_language(guide, share_image_fonts):
    assert share_images.draw_for_guide(guide) == ["en", "de", "ja"]
    images = {i.language: bytes(i.png) for i in ShareImage.objects.filter(guide=guide)}
    assert set(images) == {"en", "de", "ja"}
    for png in images.values():
        with Image.open(io.BytesIO(png)) as image:
            assert (image.format, image.size) == ("PNG", (1200, 630))
    assert len(set(images.values())) == 3  # each says the title in its own language


def test_each_language_draws_its_own_title_model_and_methods(guide):
    card = share_images.card_for(guide, "de")
    assert card.title == (
        "Welche GPU eignet sich am besten für das Fine-Tuning von Llama\xa03.1\xa070B?"
    )
    assert card.model == "Llama 3.1 70B"
    assert card.methods == ["QLoRA", "LoRA", "Vollständig, 8-Bit-Adam", "Vollständig, AdamW"]
    japanese = share_images.card_for(guide, "ja").methods[2:]
    assert japanese == ["フル（8ビットAdam）", "フル（AdamW）"]


def test_japanese_lines_break_between_phrases_and_the_model_stays_whole(guide):
    font = measured_font("ja", 64)
    title = share_images.card_for(guide, "ja").title
    assert _wrap(title, font, "ja") == [
        "Llama\xa03.1\xa070Bの", "ファインチューニングに最適なGPUは", "どれですか？"
    ]  # fmt: skip


def test_a_phrase_too_long_for_a_line_breaks_between_characters_but_not_before_a_mark():
    font = measured_font("ja", 64)
    lines = _wrap("あ" * 30 + "？", font, "ja")
    assert lines == ["あ" * 17, "あ" * 13 + "？"]  # the question mark hangs on its line
    assert all(line[0] not in NO_LINE_START for line in lines)


def test_latin_lines_break_between_words_but_never_inside_the_models_name(guide):
    font = measured_font("de", 64)
    assert _wrap(share_images.card_for(guide, "de").title, font, "de") == [
        "Welche GPU eignet sich am", "besten für das Fine-Tuning", "von Llama\xa03.1\xa070B?"
    ]  # fmt: skip
    assert _wrap("Which GPU is best for fine-tuning Mistral\xa07B?", font, "en") == [
        "Which GPU is best for", "fine-tuning Mistral\xa07B?"
    ]  # fmt: skip


def test_methods_that_do_not_fit_end_in_an_ellipsis():
    font = ImageFont.truetype(share_image_font("de"), 30)  # measures with itself: any font
    items = ["QLoRA", "LoRA", "Vollständig, 8-Bit-Adam", "Vollständig, AdamW"]
    assert _as_many_as_fit(items, font, 2000) == " · ".join(items)
    two = _as_many_as_fit(items, font, font.getlength("QLoRA · LoRA · …"))
    assert two == "QLoRA · LoRA · …"
    assert _as_many_as_fit(items, font, 10) == "…"


def drawings_queued() -> list[dict]:
    return [r.kwargs for r in default_task_backend.results if r.task.name == "draw_share_images"]


def test_publishing_queues_the_drawing_once_it_commits(guide):
    draft = revisions.store(revisions.snapshot(guide), guide=guide, user=None, comment="test")
    default_task_backend.clear()
    assert publishing.publish(draft, user=None).published
    assert drawings_queued() == []  # not before the publication commits
    as_if_committed()
    assert drawings_queued() == [{"guide_id": guide.pk}]
    default_task_backend.clear()


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_image_is_served_with_validators_and_a_304_for_a_repeat(client, guide, lang):
    share_image_font(lang)  # this language's image is drawn; the others need not be
    url = SHARE.format(lang=lang)
    response = client.get(url)
    stored = bytes(ShareImage.objects.get(guide=guide, language=lang).png)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content == stored
    assert response["Cache-Control"] == "public, max-age=86400"
    again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_a_missing_image_is_queued_and_the_site_wide_one_served_meanwhile(client, guide):
    """Published while no task worker ran: a visitor's GET writes nothing; the worker is asked
    to draw the page language's image (once, however many ask) and the site-wide image stands
    in until it has."""
    share_image_font("ja")
    ShareImage.objects.filter(guide=guide, language="ja").delete()
    default_task_backend.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(SHARE.format(lang="ja"))
    assert response.status_code == 302 and response["Location"].startswith(SITE_WIDE)
    assert response["Cache-Control"] == "public, max-age=300"
    writes = [q["sql"] for q in queries if q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []
    assert not ShareImage.objects.filter(guide=guide, language="ja").exists()
    client.get(SHARE.format(lang="ja"))  # asked again before the worker ran: not queued again
    queued = [r for r in default_task_backend.results if r.task.name == "draw_missing_share_image"]
    assert [r.kwargs for r in queued] == [{"guide_id": guide.pk, "language": "ja"}]
    # The worker draws it; from then on it is served.
    assert tasks.draw_missing_share_image.call(guide_id=guide.pk, language="ja") is True
    assert tasks.draw_missing_share_image.call(guide_id=guide.pk, language="ja") is False
    response = client.get(SHARE.format(lang="ja"))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content == bytes(ShareImage.objects.get(guide=guide, language="ja").png)
    default_task_backend.clear()


def test_each_guide_page_links_its_own_languages_image(client, seeded, share_image_fonts):
    """og:image is the page language's address, and it answers with that language's image."""
    for guide in Guide.objects.published():
        for lang in ("en", "de", "ja"):
            page = client.get(f"/{lang}/guides/{guide.slug}/").content.decode()
            [og_image] = re.findall(r'<meta property="og:image" content="(.*?)">', page)
            path = f"/{lang}/guides/{guide.slug}/share.png?v={guide.version}"
            assert og_image == f"http://testserver{path}"
            png = client.get(path).content
            assert png == bytes(ShareImage.objects.get(guide=guide, language=lang).png)


def test_no_image_for_a_guide_that_is_not_published(client, guide):
    share_image_font("en")  # an image to delete
    share_images.draw_for_guide(guide)
    assert client.get("/en/guides/no-such-guide/share.png").status_code == 404
    Guide.objects.filter(pk=guide.pk).update(status=Guide.Status.DRAFT)
    assert client.get(SHARE.format(lang="en")).status_code == 404
    guide.refresh_from_db()
    assert share_images.draw_for_guide(guide) == []
    assert not ShareImage.objects.filter(guide=guide).exists()


def test_a_language_without_a_font_keeps_the_site_wide_image_and_check_says_so(client, guide):
    latin = [str(share_image_font("en"))]
    ShareImage.objects.filter(guide=guide, language="ja").delete()
    with override_settings(SHARE_IMAGE_FONTS={"en": latin, "de": latin, "ja": ["/no/font.ttf"]}):
        assert share_images.draw_for_guide(guide) == ["en", "de"]
        assert client.get(SHARE.format(lang="ja"))["Location"].startswith(SITE_WIDE)
        [warning] = share_images.check_fonts()
        assert share_images.check_share_images() == []  # no font: nothing the check could draw
    assert warning.id == "guides.W001" and warning.level == checks.WARNING
    assert warning.msg == (
        "share images in Japanese cannot be drawn: no font found among /no/font.ttf; "
        "install fonts-ipafont-gothic or set SHARE_IMAGE_FONTS_JA"
    )


def test_check_names_the_languages_in_which_published_guides_lack_their_image(guide):
    share_image_font("ja")
    ShareImage.objects.filter(guide=guide, language="ja").delete()
    [warning] = share_images.check_share_images()
    assert warning.id == "guides.W002" and warning.level == checks.WARNING
    assert warning.msg == (
        "1 published guide has no Japanese share image: run `manage.py draw_share_images`"
    )
    others = Guide.objects.published().exclude(pk=guide.pk)[:2]
    ShareImage.objects.filter(guide__in=others, language="ja").delete()
    [warning] = share_images.check_share_images()
    assert warning.msg.startswith("3 published guides have no Japanese share image: run ")


def test_check_is_silent_when_every_image_a_font_allows_is_there(seeded, share_image_fonts):
    assert share_images.check_fonts() == []
    assert share_images.check_share_images() == []


def unreachable_database() -> list[str]:
    raise OperationalError("connection refused")


@pytest.mark.parametrize(
    "table_names", [lambda: [], unreachable_database], ids=["not-migrated", "down"]
)
def test_check_answers_before_migrate_and_with_the_database_down(db, monkeypatch, table_names):
    monkeypatch.setattr(connection.introspection, "table_names", table_names)
    assert share_images.check_share_images() == []


def test_the_command_draws_every_published_guide_or_refuses_an_unknown_slug(
    seeded, share_image_fonts
):
    out = io.StringIO()
    call_command("draw_share_images", GUIDE_SLUG, stdout=out)
    assert out.getvalue() == f"{GUIDE_SLUG}: en, de, ja\n"
    with pytest.raises(CommandError, match="no published guide with the slug nope"):
        call_command("draw_share_images", "nope", GUIDE_SLUG)
