"""Load the content files (``content/``, docs/content.md) into the database, creating only
what is missing: nothing that exists is ever changed, so an editor's later edit survives every
run. The records a parent owns (a check's prices, a method's rules) are created only with their
parent; a guide whole, or not at all when its slug exists. The first problem stops the load
with the file and line (callers wrap it in a transaction).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.exceptions import ObjectDoesNotExist
from django.core.serializers import base
from django.core.serializers.json import DjangoJSONEncoder

from guides.content.prose_rules import typed_figures
from guides.content.tokens.registry import TOKEN_RE, KnownSlugs, syntax_errors, token_errors
from guides.editorial import publishing
from guides.editorial.checks import guide_problems
from guides.editorial.cloning import CloneRefused, clone_guide, guide_slug_for
from guides.editorial.content_files import ContentFileError, GuideContent, read_guide
from guides.models import (
    ComparisonPair,
    CostScenario,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideSource,
    LegalPage,
    Operator,
    Recommendation,
    Section,
)
from guides.pages.selectors import guide_for_page, token_slugs
from pricing.models import Gpu, LanguageModel, Method, Source

CONTENT_DIR = Path(settings.BASE_DIR) / "content"

# Records that belong to a parent record: created with it, the editors' once it exists.
OWNED_BY = {
    "pricing.price": "price_check",
    "pricing.memoryrule": "method",
    "pricing.memorycomponent": "rule",
}


def load_content(content_dir: Path | None = None) -> int:
    content_dir = Path(content_dir or CONTENT_DIR)
    created = load_reference(content_dir / "reference.json")
    # Before the guides: a guide's check refuses links to comparisons not published.
    created += load_comparisons(content_dir / "comparisons.json")
    created += load_legal_pages(content_dir / "legal")
    guides_dir = content_dir / "guides"
    for folder in sorted(p for p in guides_dir.iterdir() if p.is_dir()):
        created += load_guide(read_guide(folder))
    clones = content_dir / "clones.json"
    if clones.exists():
        created += load_clones(clones)
    return created


# --- comparison pages and legal pages ---------------------------------------------------------


def load_comparisons(path: Path) -> int:
    """``[{"first": GPU, "second": GPU, "published": true}]``."""
    if not path.exists():
        return 0
    created = 0
    for row in json.loads(path.read_text(encoding="utf-8")):
        try:
            first, second = Gpu.objects.get(slug=row["first"]), Gpu.objects.get(slug=row["second"])
        except Gpu.DoesNotExist:
            raise ContentFileError(path, None, f"unknown GPU in {row}") from None
        _pair, made = ComparisonPair.objects.get_or_create(
            first=first, second=second, defaults={"published": bool(row.get("published"))}
        )
        created += made
    return created


def load_legal_pages(folder: Path) -> int:
    """``legal/<kind>.json``: each legal page's fields, seeded as not reviewed by the company."""
    if not folder.is_dir():
        return 0
    created = 0
    for path in sorted(folder.glob("*.json")):
        kind = path.stem
        if kind not in LegalPage.Kind.values:
            raise ContentFileError(
                path, None, f"not a legal page ({', '.join(LegalPage.Kind.values)})"
            )
        fields = json.loads(path.read_text(encoding="utf-8"))
        _page, made = LegalPage.objects.get_or_create(
            kind=kind, defaults={**fields, "reviewed": False}
        )
        created += made
    return created


EXAMPLE_OPERATOR_FILE = "operator.example.json"


def load_example_operator(path: Path) -> int:
    """For development only: ``seed_content`` loads it with DEBUG on, never over an operator."""
    if Operator.objects.exists() or not path.exists():
        return 0
    fields = json.loads(path.read_text(encoding="utf-8"))
    fields.pop("_comment", None)
    Operator(**fields).save()
    return 1


# --- guides made by cloning ------------------------------------------------------------------


def load_clones(path: Path) -> int:
    """``[{"source": SLUG, "model": MODEL_SLUG, "publish": true}]``: each made from its source
    unless its slug exists (then linked to its source, if it had none)."""
    created, checked = 0, set()
    for line, record in _records(path):
        try:
            language_model = LanguageModel.objects.get(slug=record["model"])
            kind = Guide.objects.filter(slug=record["source"]).values_list("kind", flat=True)
            slug = record.get("slug") or guide_slug_for(language_model, *kind)
            if Guide.objects.filter(slug=slug).exists():
                _link_to_source(slug, record["source"])
                continue
            source = guide_for_page(slug=record["source"], include_drafts=True)
            if source.slug not in checked:  # once per source, not once per clone
                if problems := guide_problems(source):
                    raise CloneRefused(f"the source guide fails its own checks: {problems[0]}")
                checked.add(source.slug)
            clone_guide(
                source,
                language_model,
                slug=slug,
                publish=record.get("publish", False),
                source_checked=True,
            )
        except (KeyError, LanguageModel.DoesNotExist, Guide.DoesNotExist, CloneRefused) as exc:
            raise ContentFileError(path, line, f"cannot clone {record}: {exc}") from exc
        created += 1
    return created


def _link_to_source(slug: str, source_slug: str) -> None:
    source = Guide.objects.filter(slug=source_slug).first()
    if source is not None:
        Guide.objects.filter(slug=slug, source__isnull=True).exclude(pk=source.pk).update(
            source=source
        )


# --- reference data ------------------------------------------------------------------------


def _key(natural_key) -> str:
    return json.dumps(list(natural_key), cls=DjangoJSONEncoder)


def _records(path: Path) -> list[tuple[int, dict]]:
    """The fixture's records, each with the line its object starts on."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContentFileError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ContentFileError(path, 1, "a fixture is a list of {model, fields} records")
    decoder, records = json.JSONDecoder(), []
    position = text.index("[") + 1
    while True:
        while text[position] in " \t\r\n,":
            position += 1
        if text[position] == "]":
            return records
        record, end = decoder.raw_decode(text, position)
        records.append((text.count("\n", 0, position) + 1, record))
        position = end


def load_reference(path: Path) -> int:
    created_keys: set[tuple[str, str]] = set()
    for line, record in _records(path):
        label = record.get("model", "")
        parent = OWNED_BY.get(label)
        if parent:
            parent_model = apps.get_model(label)._meta.get_field(parent).related_model
            if (parent_model._meta.label_lower, _key(record["fields"][parent])) not in created_keys:
                continue  # the parent was already there: its children are the editors'
        try:
            [obj] = serializers.deserialize("python", [record])
        except (base.DeserializationError, ObjectDoesNotExist, LookupError) as exc:
            raise ContentFileError(path, line, f"{label}: {exc}") from exc
        if obj.object.pk is not None:
            continue  # on file already: never overwritten
        obj.save()
        created_keys.add((label, _key(obj.object.natural_key())))
    return len(created_keys)


# --- guides --------------------------------------------------------------------------------


def token_problems(content: GuideContent, known: KnownSlugs | None) -> list[ContentFileError]:
    """Each bad token with its file and line; slugs are not checked when ``known`` is None."""
    problems = []
    for text in content.texts.values():
        for first_line, value in text.lines:
            blanked = TOKEN_RE.sub(lambda m: "".join(c if c == "\n" else " " for c in m[0]), value)
            for stray in ("[[", "]]"):
                if stray in blanked:
                    line = first_line + blanked.count("\n", 0, blanked.index(stray))
                    problems.append(ContentFileError(text.path, line, syntax_errors(stray)[0]))
            for match in TOKEN_RE.finditer(value):
                token = match.group(0)
                errors = syntax_errors(token) if known is None else token_errors(token, known)
                line = first_line + value.count("\n", 0, match.start())
                problems += [ContentFileError(text.path, line, error) for error in errors]
            if known is None:
                continue  # telling "A100 80GB" from a typed "80 GB" needs the GPU names
            for typed in typed_figures(value, known.gpu_names):
                line = first_line + value.count("\n", 0, max(value.find(typed.text), 0))
                problems.append(ContentFileError(text.path, line, typed.message))
    return problems


def load_guide(content: GuideContent) -> int:
    if Guide.objects.filter(slug=content.slug).exists():
        if problems := token_problems(content, None):
            raise problems[0]
        return 0  # the guide belongs to the editors now
    if problems := token_problems(content, token_slugs()):
        raise problems[0]

    gpus = {g.slug: g for g in Gpu.objects.all()}
    methods = {m.slug: m for m in Method.objects.all()}
    sources = {s.key: s for s in Source.objects.all()}

    def named(table: dict, slug: str | None, kind: str):
        if slug is None:
            return None
        if slug not in table:
            raise ContentFileError(
                content.structure_path or "",
                content.structure_line(slug),
                f"there is no {kind} “{slug}”",
            )
        return table[slug]

    models = {m.slug: m for m in LanguageModel.objects.all()}
    texts = content.texts
    guide = Guide.objects.create(
        slug=content.slug,
        language_model=named(models, content.language_model, "language model"),
        status=Guide.Status.DRAFT,  # published below, once its rows are all there
        published_on=content.published_on,
        **asdict(content.training),
        kind=Guide.Kind.SERVING if content.serving else Guide.Kind.FINE_TUNING,
        **(asdict(content.serving) if content.serving else {}),
        **{
            f"{name}_{lang}": getattr(text, name) or ""
            for name in ("title", "question", "meta_description", "short_answer")
            for lang, text in texts.items()
        },
    )
    for position, shape in enumerate(content.sections, start=1):
        first, second = shape.compare or (None, None)
        Section.objects.create(
            guide=guide,
            position=position,
            table=shape.table,
            compare_gpu=named(gpus, first, "gpu"),
            compare_with_gpu=named(gpus, second, "gpu"),
            **{
                f"{name}_{lang}": getattr(text.sections[position - 1], name)
                for name in ("heading", "table_caption", "body", "closing")
                for lang, text in texts.items()
            },
        )
    faq_count = len(next(iter(texts.values())).faq)
    for position in range(1, faq_count + 1):
        FaqEntry.objects.create(
            guide=guide,
            position=position,
            **{
                f"{name}_{lang}": getattr(text.faq[position - 1], name)
                for name in ("question", "answer")
                for lang, text in texts.items()
            },
        )
    FitConfiguration.objects.bulk_create(
        FitConfiguration(guide=guide, gpu=named(gpus, gpu, "gpu"), count=count, position=position)
        for position, (gpu, count) in enumerate(content.configurations, start=1)
    )
    Recommendation.objects.bulk_create(
        Recommendation(
            guide=guide,
            method=named(methods, method, "method"),
            gpu=named(gpus, gpu, "gpu"),
            count=count,
            position=position,
        )
        for position, (method, gpu, count) in enumerate(content.recommendations, start=1)
    )
    CostScenario.objects.bulk_create(
        CostScenario(
            guide=guide,
            method=named(methods, method, "method"),
            gpu=named(gpus, gpu, "gpu"),
            count=count,
            hours=hours,
            position=position,
        )
        for position, (method, gpu, count, hours) in enumerate(content.cost_scenarios, start=1)
    )
    GuideSource.objects.bulk_create(
        GuideSource(guide=guide, source=named(sources, key, "source"), position=position)
        for position, key in enumerate(content.sources, start=1)
    )
    if content.status == Guide.Status.PUBLISHED:
        outcome = publishing.publish_rows(guide, user=None, comment="Loaded from the seed content")
        if outcome.problems:
            raise ContentFileError(
                content.structure_path or "",
                1,
                f"the guide fails its checks: {outcome.problems[0]}",
            )
    listed = (content.configurations, content.recommendations, content.cost_scenarios)
    return 1 + len(content.sections) + faq_count + sum(map(len, listed)) + len(content.sources)
