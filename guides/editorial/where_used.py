"""Where a fact, source, GPU, method, provider, language model or hour block is used: by
guides' prose tokens and tables (live, working copies and scheduled revisions) and by
comparison pages. Deleting one would leave a dash in a published sentence, so deletions of
anything used are refused (``guides.apps`` connects ``refuse_deleting_used``). Unlike Wagtail's
reference index, it is computed when a deletion asks, in a fixed number of queries. Foreign
keys from elsewhere (prices, memory rules, a fact's source) are ``on_delete=PROTECT``. An hour
block is used where it is the block a cost scenario falls in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models.deletion import ProtectedError
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from modeltranslation.utils import build_localized_fieldname

from guides.content import presentation as show
from guides.content.tokens.registry import token_references
from guides.editorial import revisions
from guides.models import (
    CHILD_ROWS,
    ComparisonPair,
    CostScenario,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideRevision,
    GuideSource,
    Recommendation,
    Section,
)
from pricing.domain.calculations import covering_block
from pricing.models import Fact, Gpu, HourBlock, LanguageModel, Method, Provider, Source

# Each model whose rows the index finds, by the value that names a row in tokens and tables.
NAMED_BY: dict[type[models.Model], str] = {
    Fact: "key",
    Gpu: "slug",
    Method: "slug",
    Provider: "slug",
    Source: "pk",
    LanguageModel: "pk",
    HourBlock: "hours",
}
INDEXED = tuple(NAMED_BY)
# What a token argument's pool (guides.content.tokens.registry.KnownSlugs) names.
POOLS = {"facts": Fact, "gpus": Gpu, "methods": Method, "providers": Provider}
Key = tuple[type[models.Model], str]
SEPARATOR = " › "


@dataclass(frozen=True)
class Use:
    owner: str  # Guide “Which GPU …”, or GPU comparison “H100 – A100 80GB”
    url: str
    where: tuple[str, ...] = ()  # ("FAQ 3", "[[fact minimum-top-up]]"), in no language
    language: str = ""  # the language of the prose that quotes it; "" for a table
    working_copy: bool = False  # used only in the guide's working copy or scheduled revision
    in_guide: bool = True  # False for a GPU comparison page

    @property
    def place(self) -> str:
        """FAQ 3 (de) › [[fact minimum-top-up]]"""
        where = list(self.where)
        if self.language:
            where[0] = f"{where[0]} ({self.language})"
        return SEPARATOR.join(where)

    @property
    def label(self) -> str:
        label = SEPARATOR.join((self.owner, self.place)) if self.where else self.owner
        return _("%(place)s (working copy)") % {"place": label} if self.working_copy else label


class InUseError(ProtectedError):
    """A deletion refused because guides use what it would delete; the message says where."""


def key_of(obj: models.Model) -> Key:
    model = type(obj)
    return model, str(getattr(obj, NAMED_BY[model]))


@dataclass
class _Content:
    guide_pk: int
    fields: dict
    rows: dict[type[models.Model], list[dict]]
    working_copy: bool


class ReferenceIndex:
    def __init__(self) -> None:
        # key -> each use (as if live) -> whether it was seen live (else only in a working copy)
        self._found: dict[Key, dict[Use, bool]] = defaultdict(dict)

    def add(self, key: Key, use: Use, *, working_copy: bool = False) -> None:
        self._found[key][use] = self._found[key].get(use, False) or not working_copy

    def uses(self, obj: models.Model) -> list[Use]:
        return [
            use if live else replace(use, working_copy=True)
            for use, live in self._found.get(key_of(obj), {}).items()
        ]


def build_index() -> ReferenceIndex:
    """12 queries (13 with working copies), however many guides, rows and tokens."""
    index = ReferenceIndex()
    guides = {g["id"]: g for g in _raw_values(Guide)}
    gpus = {pk: (slug, name) for pk, slug, name in Gpu.objects.values_list("pk", "slug", "name")}
    methods = {
        pk: (slug, name)
        for pk, slug, name in Method.objects.values_list("pk", "slug", "short_name")
    }
    blocks = sorted(HourBlock.objects.values_list("hours", flat=True))
    names = _Names(gpus, methods, blocks)
    for content in [*_live_contents(guides), *_working_copies(guides)]:
        fields = guides[content.guide_pk]
        title = fields.get(f"title_{get_language()}") or fields[f"title_{settings.LANGUAGE_CODE}"]
        _index_guide(index, content, title, names)
    for first, second, pk in ComparisonPair.objects.values_list("first", "second", "pk"):
        label = _("GPU comparison “%(first)s – %(second)s”") % {
            "first": gpus[first][1],
            "second": gpus[second][1],
        }
        url = reverse("admin:guides_comparisonpair_change", args=[pk])
        for gpu in (first, second):
            index.add((Gpu, gpus[gpu][0]), Use(label, url, in_guide=False))
    return index


def uses_of(objs: Iterable[models.Model]) -> dict[models.Model, list[Use]]:
    objs = list(objs)
    if not objs:
        return {}
    index = build_index()
    return {obj: found for obj in objs if (found := index.uses(obj))}


# --- refusing deletions through the ORM --------------------------------------------------


def refuse_deleting_used(sender, objects, **kwargs) -> None:
    """``pricing.signals.deletion_requested``: refuse to delete a used object, whoever deletes
    it, before Django collects anything; once per ``QuerySet.delete()``."""
    if used := uses_of(objects):
        lines = [f"{obj}: {use.label}" for obj, uses in used.items() for use in uses]
        raise InUseError(
            _("Cannot delete what guides still use; remove these uses first:\n%(uses)s")
            % {"uses": "\n".join(lines)},
            set(used),
        )


# --- building ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Names:
    gpus: dict[int, tuple[str, str]]  # pk -> (slug, name)
    methods: dict[int, tuple[str, str]]  # pk -> (slug, short name)
    blocks: list[int]

    def config(self, row: dict) -> str:
        return show.config_label(row["count"], self.gpus[row["gpu_id"]][1])


def _raw_values(model: type[models.Model]) -> list[dict]:
    return list(model._default_manager.values(*(f.attname for f in revisions.columns(model))))


def _live_contents(guides: dict[int, dict]) -> list[_Content]:
    rows: dict[int, dict[type[models.Model], list[dict]]] = defaultdict(lambda: defaultdict(list))
    for model in CHILD_ROWS:
        for row in _raw_values(model):
            rows[row["guide_id"]][model].append(row)
    return [_Content(pk, fields, rows[pk], working_copy=False) for pk, fields in guides.items()]


def _working_copies(guides: dict[int, dict]) -> list[_Content]:
    stored = GuideRevision.objects.values_list("pk", "guide_id", "published_at", "go_live_at")
    newest: dict[int, int] = {}
    live: dict[int, tuple] = {}
    wanted: dict[int, int] = {}  # revision pk -> guide pk
    for pk, guide_pk, published_at, go_live_at in stored:
        newest[guide_pk] = max(newest.get(guide_pk, pk), pk)
        if published_at is not None:
            live[guide_pk] = max(live.get(guide_pk, (published_at, pk)), (published_at, pk))
        elif go_live_at is not None:
            wanted[pk] = guide_pk
    published = {pk for _at, pk in live.values()}
    for guide_pk, pk in newest.items():
        if pk not in published and pk > live.get(guide_pk, (None, 0))[1]:
            wanted[pk] = guide_pk
    if not wanted:
        return []
    contents = {
        pk: _Content(guide_pk, {}, defaultdict(list), working_copy=True)
        for pk, guide_pk in wanted.items()
        if guide_pk in guides
    }
    for revision_pk, rows in revisions.rows_by_revision(contents).items():
        content = contents[revision_pk]
        for model, pk, values in rows:
            if model is Guide:
                content.fields = values
            elif model in CHILD_ROWS:
                content.rows[model].append({"id": pk, **values})
    return [c for c in contents.values() if c.fields]


def _ordered(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda row: (row.get("position", 0), row["id"]))


def _index_guide(index: ReferenceIndex, content: _Content, title: str, names: _Names) -> None:
    url = reverse("admin:guides_guide_change", args=[content.guide_pk])
    guide = _("Guide “%(title)s”") % {"title": title}
    draft = content.working_copy

    def add(key: Key, *where: str, language: str = "") -> None:
        index.add(key, Use(guide, url, where, language), working_copy=draft)

    def prose(model: type[models.Model], fields: dict, where: str) -> None:
        for base in model.prose_fields:
            for code, _name in settings.LANGUAGES:
                text = fields.get(build_localized_fieldname(base, code)) or ""
                for token, pool, slug in token_references(text):
                    place = where or str(capfirst(model._meta.get_field(base).verbose_name))
                    add((POOLS[pool], slug), place, token, language=code)

    prose(Guide, content.fields, "")
    if content.fields.get("language_model_id"):
        add((LanguageModel, str(content.fields["language_model_id"])), _("its model"))
    for number, row in enumerate(_ordered(content.rows[Section]), start=1):
        where = _("Section %(number)s") % {"number": number}
        prose(Section, row, where)
        for field in ("compare_gpu_id", "compare_with_gpu_id"):
            if row.get(field) in names.gpus:
                add((Gpu, names.gpus[row[field]][0]), where, _("comparison table"))
    for number, row in enumerate(_ordered(content.rows[FaqEntry]), start=1):
        prose(FaqEntry, row, _("FAQ %(number)s") % {"number": number})
    for number, row in enumerate(_ordered(content.rows[GuideSource]), start=1):
        add((Source, str(row["source_id"])), _("cited source %(number)s") % {"number": number})
    for row in _ordered(content.rows[FitConfiguration]):
        if row["gpu_id"] in names.gpus:
            add(
                (Gpu, names.gpus[row["gpu_id"]][0]),
                _("fit table row %(config)s") % {"config": names.config(row)},
            )
    for row in _ordered(content.rows[Recommendation]):
        if row["gpu_id"] in names.gpus and row["method_id"] in names.methods:
            where = _("recommendation for %(method)s: %(config)s") % {
                "method": names.methods[row["method_id"]][1],
                "config": names.config(row),
            }
            add((Gpu, names.gpus[row["gpu_id"]][0]), where)
            add((Method, names.methods[row["method_id"]][0]), where)
    for row in _ordered(content.rows[CostScenario]):
        if row["gpu_id"] in names.gpus and row["method_id"] in names.methods:
            hours = Decimal(row["hours"])
            where = _("cost scenario %(method)s: %(config)s, %(hours)s h") % {
                "method": names.methods[row["method_id"]][1],
                "config": names.config(row),
                "hours": show.number(hours),
            }
            add((Gpu, names.gpus[row["gpu_id"]][0]), where)
            add((Method, names.methods[row["method_id"]][0]), where)
            block = covering_block(hours * row["count"], names.blocks)
            if block is not None:
                add((HourBlock, str(block)), where)
