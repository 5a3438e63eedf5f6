"""A guide as files an editor or translator can read and diff, and back (the format:
docs/content.md, "Content files"): ``guide.json`` holds the structure, ``<lang>.md`` all of one
language's text. ``read_guide`` reads a folder, ``guide_content`` a guide in the database, into
the same ``GuideContent``; ``language_text`` writes one language's file, which reads back as it
was written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator

from gpuguide.lib.editor_input import LINE_BREAK
from guides.editorial.publishing_rules import LANGUAGES
from guides.models import Guide

STRUCTURE_FILE = "guide.json"
# guide.json's keys, besides "training" and "serving", which may be left out ("serving" makes
# it a serving guide).
STRUCTURE_KEYS = [
    "configurations", "cost_scenarios", "language_model", "published_on", "recommendations",
    "sections", "slug", "sources", "status",
]  # fmt: skip
FRONT_MATTER = ("title", "question", "meta_description")
HEADING_RE = re.compile(r"^(#{2,3})(?: (.*))?$")
TABLE_RE = re.compile(r"^\[table(?:: (.*))?\]$")


class ContentFileError(ValueError):
    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = Path(path), line, message
        try:  # relative to the project, as people type it
            where = str(self.path.resolve().relative_to(Path(settings.BASE_DIR).resolve()))
        except ValueError:  # outside it: as given
            where = str(self.path)
        super().__init__(f"{where}{f':{line}' if line else ''}: {message}")


SECTION_FIELDS = ("heading", "body", "table_caption", "closing")


@dataclass
class SectionText:
    heading: str = ""
    body: str = ""
    table_caption: str = ""
    closing: str = ""
    has_table_line: bool = field(default=False, compare=False)  # as read from a file


@dataclass
class FaqText:
    question: str = ""
    answer: str = ""


@dataclass
class GuideText:
    """One language's text; ``path`` and ``lines`` (where each piece starts in its file) are
    not compared: the same text read from a file and from the database is equal."""

    title: str | None = None
    question: str | None = None
    meta_description: str | None = None
    short_answer: str = ""
    sections: list[SectionText] = field(default_factory=list)
    faq: list[FaqText] = field(default_factory=list)
    path: Path | None = field(default=None, compare=False)
    lines: list[tuple[int, str]] = field(default_factory=list, compare=False)  # for checking


@dataclass
class SectionStructure:
    table: str = ""
    compare: tuple[str, str] | None = None


@dataclass(frozen=True)
class TrainingAssumptions:
    seq_len: int
    micro_batch_size: int
    gradient_checkpointing: bool
    lora_rank: int
    training_tokens: int
    epochs: int


@dataclass(frozen=True)
class ServingAssumptions:
    serving_context: int
    prompt_tokens: int
    output_tokens: int
    tpot_target_ms: int


OPTIONAL_KEYS = {"training": TrainingAssumptions, "serving": ServingAssumptions}


def _assumptions(cls, guide: Guide | None):
    """``guide``'s training run or load; without a guide, the Guide model's defaults."""
    if guide is None:
        return cls(**{f.name: Guide._meta.get_field(f.name).default for f in fields(cls)})
    return cls(**{f.name: getattr(guide, f.name) for f in fields(cls)})


@dataclass
class GuideContent:
    slug: str
    status: str
    language_model: str
    published_on: date | None
    sections: list[SectionStructure]
    configurations: list[tuple[str, int]]
    recommendations: list[tuple[str, str, int]]
    cost_scenarios: list[tuple[str, str, int, Decimal]]
    sources: list[str]
    texts: dict[str, GuideText]
    training: TrainingAssumptions
    structure_path: Path | None = field(default=None, compare=False)
    serving: ServingAssumptions | None = None  # a serving guide's load; None: fine-tuning

    def structure_line(self, word: str) -> int | None:
        if self.structure_path is None:
            return None
        return _line_mentioning(self.structure_path, word)


def _line_mentioning(path: Path, word: str) -> int | None:
    needle = json.dumps(word, ensure_ascii=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    return next((number for number, line in enumerate(lines, 1) if needle in line), None)


# --- reading -------------------------------------------------------------------------------


def read_guide(folder: Path | str) -> GuideContent:
    folder = Path(folder)
    content = _read_structure(folder / STRUCTURE_FILE)
    first_language = None
    for lang in LANGUAGES:
        path = folder / f"{lang}.md"
        if not path.is_file():
            raise ContentFileError(path, None, "missing: every language needs its file")
        text = parse_language(path.read_text(encoding="utf-8"), path, content.sections)
        if first_language is not None and len(text.faq) != len(first_language.faq):
            raise ContentFileError(
                path,
                None,
                f"{len(text.faq)} FAQ entries, but {first_language.path.name} has "
                f"{len(first_language.faq)}: every language has the same entries",
            )
        first_language = first_language or text
        content.texts[lang] = text
    return content


def _read_structure(path: Path) -> GuideContent:
    if not path.is_file():
        raise ContentFileError(path, None, "missing: the guide's structure file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ContentFileError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    got = set(data) if isinstance(data, dict) else set()
    allowed = {*STRUCTURE_KEYS, *OPTIONAL_KEYS}
    if not isinstance(data, dict) or not set(STRUCTURE_KEYS) <= got <= allowed:
        raise ContentFileError(
            path,
            1,
            f"keys must be exactly {', '.join(STRUCTURE_KEYS)}, and optionally training and "
            "serving" + _keys_amiss(STRUCTURE_KEYS, got, allowed),
        )
    training = _read_assumptions(path, data, "training") or _assumptions(TrainingAssumptions, None)
    serving = _read_assumptions(path, data, "serving")
    try:
        return GuideContent(
            slug=data["slug"],
            status=data["status"],
            language_model=data["language_model"],
            published_on=date.fromisoformat(data["published_on"]) if data["published_on"] else None,
            sections=[
                SectionStructure(s["table"], tuple(s["compare"]) if "compare" in s else None)
                for s in data["sections"]
            ],
            configurations=[(c["gpu"], int(c["count"])) for c in data["configurations"]],
            recommendations=[
                (r["method"], r["gpu"], int(r["count"])) for r in data["recommendations"]
            ],
            cost_scenarios=[
                (c["method"], c["gpu"], int(c["count"]), Decimal(c["hours"]))
                for c in data["cost_scenarios"]
            ],
            sources=list(data["sources"]),
            texts={},
            training=training,
            structure_path=path,
            serving=serving,
        )
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise ContentFileError(path, None, f"unexpected structure: {exc!r}") from exc


def _keys_amiss(expected: list[str], got: set[str], allowed: set[str]) -> str:
    missing = [key for key in expected if key not in got]
    unknown = sorted(got - allowed)
    return (f" (missing: {', '.join(missing)})" if missing else "") + (
        f" (unknown: {', '.join(unknown)})" if unknown else ""
    )


def _read_assumptions(path: Path, data: dict, key: str):
    """guide.json's ``training`` or ``serving`` (None where left out), each value within the
    Guide model's limits."""
    if key not in data:
        return None
    value, assumptions = data[key], OPTIONAL_KEYS[key]
    names = [f.name for f in fields(assumptions)]
    if not isinstance(value, dict) or set(value) != set(names):
        raise ContentFileError(
            path,
            _line_mentioning(path, key),
            f"“{key}” is an object with exactly the keys "
            + ", ".join(names)
            + (_keys_amiss(names, set(value), set(names)) if isinstance(value, dict) else ""),
        )
    for name in names:
        item, line = value[name], _line_mentioning(path, name)
        if name == "gradient_checkpointing":
            if not isinstance(item, bool):
                raise ContentFileError(
                    path, line, f"{key}.{name} is true or false, not {json.dumps(item)}"
                )
            continue
        validators = Guide._meta.get_field(name).validators  # the limits the model accepts
        lowest = max(v.limit_value for v in validators if isinstance(v, MinValueValidator))
        highest = min(
            (v.limit_value for v in validators if isinstance(v, MaxValueValidator)),
            default=2**31 - 1,  # a PositiveIntegerField's own bound
        )
        # bool is an int in Python, but true is no sequence length.
        if type(item) is not int or not lowest <= item <= highest:
            raise ContentFileError(
                path,
                line,
                f"{key}.{name} is a whole number from {lowest} to {highest}, "
                f"not {json.dumps(item)}",
            )
    return assumptions(**{name: value[name] for name in names})


def parse_language(source: str, path: Path, structure: list[SectionStructure]) -> GuideText:
    lines = source.split("\n")
    text = GuideText(path=path)
    if not lines or lines[0] != "---":
        raise ContentFileError(path, 1, "the file starts with a “---” line (front matter)")
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise ContentFileError(path, 1, "the front matter has no closing “---” line") from None
    seen: set[str] = set()
    for number, line in enumerate(lines[1:end], start=2):
        key, colon, value = line.partition(":")
        if not colon or key not in FRONT_MATTER:
            raise ContentFileError(
                path, number, f"front matter lines are “key: value”, keys {', '.join(FRONT_MATTER)}"
            )
        if key in seen:
            raise ContentFileError(path, number, f"“{key}” appears twice")
        seen.add(key)
        value = value.removeprefix(" ")
        setattr(text, key, value or None)
        if value:
            text.lines.append((number, value))
    if missing := [key for key in FRONT_MATTER if key not in seen]:
        raise ContentFileError(path, end + 1, f"the front matter lacks {', '.join(missing)}")

    # Walk the rest: structure lines switch where the following prose lines go.
    block: list[tuple[int, str]] = []
    target: tuple[object, str] = (text, "short_answer")
    section: SectionText | None = None

    def flush() -> None:
        value = "\n".join(s for _n, s in block).strip("\n")  # blank lines around it left out
        setattr(target[0], target[1], value)
        if value:
            text.lines.append((next(n for n, s in block if s), value))
        block.clear()

    for number, line in enumerate(lines[end + 1 :], start=end + 2):
        heading = HEADING_RE.match(line)
        table = TABLE_RE.match(line)
        if heading:
            flush()
            title = heading.group(2) or ""
            if title:
                text.lines.append((number, title))
            if heading.group(1) == "##":
                if text.faq:
                    raise ContentFileError(path, number, "sections (##) come before the FAQ (###)")
                section = SectionText(heading=title)
                text.sections.append(section)
                target = (section, "body")
            else:
                entry = FaqText(question=title)
                text.faq.append(entry)
                section = None
                target = (entry, "answer")
        elif table:
            if section is None or section.has_table_line:
                raise ContentFileError(
                    path, number, "“[table]” belongs in a section (##), once, between its texts"
                )
            flush()
            section.has_table_line = True
            section.table_caption = table.group(1) or ""
            if section.table_caption:
                text.lines.append((number, section.table_caption))
            target = (section, "closing")
        else:
            block.append((number, line))
    flush()

    if len(text.sections) != len(structure):
        raise ContentFileError(
            path,
            None,
            f"{len(text.sections)} sections (##), but {STRUCTURE_FILE} has {len(structure)}",
        )
    for position, (words, shape) in enumerate(zip(text.sections, structure, strict=True), 1):
        if shape.table and not words.has_table_line:
            heading = f"## {words.heading}"
            number = next((n for n, line in enumerate(lines, 1) if line == heading), None)
            raise ContentFileError(
                path, number, f"section {position} places a table: add its “[table: …]” line"
            )
    return text


# --- writing -------------------------------------------------------------------------------


def guide_content(guide) -> GuideContent:
    """A Guide as the files describe it, its rows as its related managers give them."""
    sections = list(guide.sections.all())
    faq = list(guide.faq_entries.all())

    def value(obj, name: str, lang: str) -> str:
        return getattr(obj, f"{name}_{lang}") or ""

    texts = {
        lang: GuideText(
            **{key: value(guide, key, lang) or None for key in FRONT_MATTER},
            short_answer=value(guide, "short_answer", lang),
            sections=[SectionText(*(value(s, n, lang) for n in SECTION_FIELDS)) for s in sections],
            faq=[FaqText(value(e, "question", lang), value(e, "answer", lang)) for e in faq],
        )
        for lang in LANGUAGES
    }
    return GuideContent(
        slug=guide.slug,
        status=guide.status,
        language_model=guide.language_model.slug,
        published_on=guide.published_on,
        sections=[
            SectionStructure(
                s.table,
                (s.compare_gpu.slug, s.compare_with_gpu.slug)
                if s.compare_gpu and s.compare_with_gpu
                else None,
            )
            for s in sections
        ],
        configurations=[(c.gpu.slug, c.count) for c in guide.configurations.all()],
        recommendations=[(r.method.slug, r.gpu.slug, r.count) for r in guide.recommendations.all()],
        cost_scenarios=[
            (c.method.slug, c.gpu.slug, c.count, c.hours) for c in guide.cost_scenarios.all()
        ],
        sources=[gs.source.key for gs in guide.guide_sources.all()],
        texts=texts,
        training=_assumptions(TrainingAssumptions, guide),
        serving=_assumptions(ServingAssumptions, guide) if guide.serves else None,
    )


def language_text(
    content: GuideContent, lang: str, path: Path, *, fold_line_breaks: bool = False
) -> str:
    """The per-language file; a one-line field holding a line break is refused, or with
    ``fold_line_breaks`` (rows saved before that was refused) written with spaces."""
    text = content.texts[lang]

    def one_line(value: str, what: str) -> str:
        if fold_line_breaks and LINE_BREAK.search(value):
            return " ".join(part.strip() for part in LINE_BREAK.split(value) if part.strip())
        if "\n" in value or "\r" in value:
            raise ContentFileError(path, None, f"the {what} must be one line")
        return value

    front = ["---"]
    for key in FRONT_MATTER:
        value = one_line(getattr(text, key) or "", key)
        front.append(f"{key}: {value}" if value else f"{key}:")
    front.append("---")
    blocks = ["\n".join(front)]
    if text.short_answer:
        blocks.append(_prose(text.short_answer, path, "short answer"))
    for position, (words, shape) in enumerate(
        zip(text.sections, content.sections, strict=True), start=1
    ):
        heading = one_line(words.heading, f"section {position} heading")
        blocks.append(f"## {heading}" if heading else "##")
        if words.body:
            blocks.append(_prose(words.body, path, f"section {position} text"))
        if shape.table or words.table_caption or words.closing:
            caption = one_line(words.table_caption, f"section {position} caption")
            blocks.append(f"[table: {caption}]" if caption else "[table]")
        if words.closing:
            blocks.append(_prose(words.closing, path, f"section {position} text after the table"))
    for position, entry in enumerate(text.faq, start=1):
        question = one_line(entry.question, f"FAQ {position} question")
        blocks.append(f"### {question}" if question else "###")
        if entry.answer:
            blocks.append(_prose(entry.answer, path, f"FAQ {position} answer"))
    return "\n\n".join(blocks) + "\n"


def _prose(value: str, path: Path, what: str) -> str:
    if value != value.strip("\n") or "\r" in value:
        raise ContentFileError(
            path, None, f"the {what} starts or ends with a blank line, or has a carriage return"
        )
    for line in value.split("\n"):
        if HEADING_RE.match(line) or TABLE_RE.match(line):
            raise ContentFileError(
                path, None, f"the {what} has a line that reads as structure: {line!r}"
            )
    return value
