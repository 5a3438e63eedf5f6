"""Each published guide's link-preview image (Open Graph, Twitter cards) in each language,
drawn with Pillow on publication (in the background), by ``seed_content``, or by the worker on
a visitor's request for one still missing; kept in the database so that every app server
serves the same bytes. Fonts come from the machine (``settings.SHARE_IMAGE_FONTS``): a
language without one keeps the site-wide image, which ``manage.py check`` reports.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import budoux
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core import checks
from django.db import DatabaseError, connection
from django.db.models import QuerySet
from django.utils import timezone, translation
from PIL import Image, ImageDraw, ImageFont

from guides.content.presentation import PRECISION_LABELS
from guides.models import Guide, ShareImage
from guides.pages import reference_data

WIDTH, HEIGHT = 1200, 630  # the size Open Graph and Twitter's large card expect
MARGIN = 80
TEXT_WIDTH = WIDTH - 2 * MARGIN
LOGO_SIZE = 112
TITLE_SIZES = (64, 56, 50, 44, 40)  # the largest at which the title fits in MAX_TITLE_LINES
MAX_TITLE_LINES = 3
BACKGROUND, INK, MUTED, ACCENT = "#f4f6fa", "#1d2330", "#5a6272", "#2b59c3"
LOGO = "img/apple-touch-icon.png"
# Japanese is written without spaces: lines break between phrases (BudouX's model), and inside
# a phrase too long for a line between characters, except before closing punctuation and
# small kana, which hang at the end of the line instead.
PHRASES = {"ja": budoux.load_default_japanese_parser()}
NO_LINE_START = set("、。，．？！）」』ーぁぃぅぇぉっゃゅょァィゥェォッャュョ")
# Debian's Japanese font (IPA P Gothic) has no bold face: its strokes are thickened instead.
THICKENED = {"ja": 1}
NBSP = "\u00a0"
# What to install (Debian) or set for a language without a font: SHARE_IMAGE_FONTS' defaults.
LATIN_FONT_REMEDY = ("fonts-dejavu-core", "SHARE_IMAGE_FONTS_LATIN")
FONT_REMEDIES = {"ja": ("fonts-ipafont-gothic", "SHARE_IMAGE_FONTS_JA")}


@dataclass(frozen=True)
class ShareCard:
    language: str
    site_name: str
    title: str
    model: str
    methods: list[str]  # what the guide covers: its methods, or a serving guide's precisions


def card_for(guide: Guide, language: str) -> ShareCard:
    model = guide.language_model.name
    with translation.override(language):
        if guide.serves:
            methods = [str(label) for label in PRECISION_LABELS.values()]
        else:
            methods = [method.short_name for method in reference_data.method_listings()]
        # The model's name in one piece: never "Llama" at a line's end and "3.1 70B" below.
        title = guide.title.replace(model, model.replace(" ", NBSP))
        return ShareCard(language, settings.SITE_NAME, title, model, methods)


def font_path(language: str) -> Path | None:
    candidates = map(Path, settings.SHARE_IMAGE_FONTS.get(language, ()))
    return next((path for path in candidates if path.is_file()), None)


def draw(card: ShareCard, font: Path) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, WIDTH, 12), fill=ACCENT)
    logo = Image.open(finders.find(LOGO)).convert("RGBA").resize((LOGO_SIZE, LOGO_SIZE))
    image.paste(logo, (MARGIN, MARGIN - 16), logo)
    bold = THICKENED.get(card.language, 0)
    pen.text(
        (MARGIN + LOGO_SIZE + 28, MARGIN + LOGO_SIZE // 2 - 16),
        card.site_name,
        font=ImageFont.truetype(font, 44),
        fill=INK,
        anchor="lm",
        stroke_width=bold,
        stroke_fill=INK,
    )
    title_font, lines = _fitted_title(card, font)
    y = 228
    for line in lines:
        pen.text((MARGIN, y), line, font=title_font, fill=INK, stroke_width=bold, stroke_fill=INK)
        y += round(title_font.size * 1.25)
    model_font, methods_font = ImageFont.truetype(font, 32), ImageFont.truetype(font, 26)
    pen.text((MARGIN, HEIGHT - 104), card.model, font=model_font, fill=ACCENT, anchor="ls")
    methods = _as_many_as_fit(card.methods, methods_font, TEXT_WIDTH)
    pen.text((MARGIN, HEIGHT - 60), methods, font=methods_font, fill=MUTED, anchor="ls")
    out = io.BytesIO()
    # zlib's default level: optimize=True takes over 4× the time for 3 % fewer bytes.
    image.save(out, format="PNG")
    return out.getvalue()


def _fitted_title(card: ShareCard, font: Path) -> tuple[ImageFont.FreeTypeFont, list[str]]:
    for size in TITLE_SIZES:
        title_font = ImageFont.truetype(font, size)
        lines = _wrap(card.title, title_font, card.language)
        if len(lines) <= MAX_TITLE_LINES:
            return title_font, lines
    return title_font, [*lines[: MAX_TITLE_LINES - 1], lines[MAX_TITLE_LINES - 1] + "…"]


def _as_many_as_fit(items: list[str], font: ImageFont.FreeTypeFont, width: float) -> str:
    for count in range(len(items), 0, -1):
        text = " · ".join(items[:count]) + (" · …" if count < len(items) else "")
        if font.getlength(text) <= width:
            return text
    return "…"


def _wrap(text: str, font: ImageFont.FreeTypeFont, language: str) -> list[str]:
    """Greedy line breaking between words, or in Japanese between phrases (and characters
    inside one too long for a line)."""
    parser = PHRASES.get(language)
    if parser is None:
        pieces, joiner = text.split(" "), " "
    else:
        pieces, joiner = [], ""
        for phrase in parser.parse(text):
            pieces += list(phrase) if font.getlength(phrase) > TEXT_WIDTH else [phrase]
    lines: list[str] = []
    line = ""
    for piece in pieces:
        candidate = f"{line}{joiner}{piece}" if line else piece
        hangs = parser is not None and piece in NO_LINE_START
        if line and not hangs and font.getlength(candidate) > TEXT_WIDTH:
            lines.append(line)
            line = piece
        else:
            line = candidate
    return [*lines, line] if line else lines


def draw_for_guide(guide: Guide) -> list[str]:
    """The languages drawn; a guide no longer published keeps no images."""
    if guide.status != Guide.Status.PUBLISHED:
        ShareImage.objects.filter(guide=guide).delete()
        return []
    return [language for language in drawable_languages() if draw_image(guide, language)]


def draw_image(guide: Guide, language: str) -> ShareImage | None:
    font = font_path(language)
    if font is None:
        return None
    png = draw(card_for(guide, language), font)
    image, _created = ShareImage.objects.update_or_create(
        guide=guide, language=language, defaults={"png": png, "drawn_at": timezone.now()}
    )
    return image


def drawable_languages() -> list[str]:
    return [language for language, _name in settings.LANGUAGES if font_path(language)]


def guides_without_image() -> dict[str, QuerySet[Guide]]:
    published = Guide.objects.published().select_related("language_model").order_by("slug")
    return {
        language: published.exclude(share_images__language=language)
        for language in drawable_languages()
    }


def draw_missing() -> int:
    """How many drawn; a query per language when none is missing."""
    drawn = 0
    for language, guides in guides_without_image().items():
        for guide in guides:
            draw_image(guide, language)
            drawn += 1
    return drawn


def _language_name(code: str) -> str:
    with translation.override("en"):
        return str(dict(settings.LANGUAGES)[code])


@checks.register()
def check_fonts(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    warnings = []
    for language, _name in settings.LANGUAGES:
        if font_path(language) is not None:
            continue
        package, setting = FONT_REMEDIES.get(language, LATIN_FONT_REMEDY)
        looked_in = ", ".join(map(str, settings.SHARE_IMAGE_FONTS.get(language, ()))) or "none"
        warnings.append(
            checks.Warning(
                f"share images in {_language_name(language)} cannot be drawn: no font found "
                f"among {looked_in}; install {package} or set {setting}",
                hint="Its guides' pages link the site-wide (English) share image instead.",
                id="guides.W001",
            )
        )
    return warnings


@checks.register()
def check_share_images(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    try:
        tables = set(connection.introspection.table_names())
        if not {Guide._meta.db_table, ShareImage._meta.db_table} <= tables:
            return []  # not migrated yet: nothing published to draw
        missing = {language: guides.count() for language, guides in guides_without_image().items()}
    except DatabaseError:  # down or half-migrated: `check` still answers, about the rest
        return []
    return [
        checks.Warning(
            f"{count} published guide{' has' if count == 1 else 's have'} no "
            f"{_language_name(language)} share image: run `manage.py draw_share_images`",
            hint="The task worker draws them on publication (is `manage.py db_worker` "
            "running?); until then each is asked of the worker on its first request, and the "
            "site-wide image served meanwhile.",
            id="guides.W002",
        )
        for language, count in missing.items()
        if count
    ]
