"""The grammar of live-figure tokens (``[[kind arg ...]]``) and the registry of their kinds.

Kinds are declared with ``@registry.kind(...)`` in ``guides.content.tokens.kinds``. This module
knows only the grammar, so models and forms check prose with it without loading rendering code
or touching the database; slugs are checked against ``KnownSlugs`` loaded once per admin form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.utils.translation import gettext

TOKEN_RE = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
CONFIG_RE = re.compile(
    r"^(?:(?P<count>[1-9][0-9]?)x)?(?P<gpu>[a-z0-9][a-z0-9-]*)(?:@(?P<provider>[a-z0-9-]+))?$"
)


class TokenError(ValueError):
    """A token that cannot be read; the message says why."""


@dataclass(frozen=True)
class KnownSlugs:
    """What arguments may name, as loaded by ``guides.pages.selectors.token_slugs``."""

    methods: frozenset[str]
    gpus: frozenset[str]
    providers: frozenset[str]
    facts: frozenset[str]
    gpu_names: frozenset[str] = frozenset()  # to tell "A100 80GB" from a typed "80 GB"


@dataclass(frozen=True)
class ConfigRef:
    """``8xb200@massed-compute`` as written in a token: count, GPU and provider (None = ours)."""

    gpu: str
    count: int = 1
    provider: str | None = None


# --- argument types: each reads one word and says what it expected ---------------------


class Arg:
    def refers_to(self, value) -> list[tuple[str, str]]:
        """(pool, slug) for each thing on file ``value`` names, pool being a KnownSlugs field."""
        return []


@dataclass(frozen=True)
class Slug(Arg):
    """A method, GPU, provider or fact, named by its slug."""

    pool: str  # the KnownSlugs field it must be in

    def parse(self, word: str) -> str:
        if not SLUG_RE.match(word):
            raise TokenError(gettext("“%(word)s” is not a slug") % {"word": word})
        return word

    def refers_to(self, value: str) -> list[tuple[str, str]]:
        return [(self.pool, value)]


@dataclass(frozen=True)
class Choice(Arg):
    options: tuple[str, ...]

    def parse(self, word: str) -> str:
        if word not in self.options:
            raise TokenError(
                gettext("“%(word)s” is not one of %(options)s")
                % {"word": word, "options": ", ".join(self.options)}
            )
        return word


@dataclass(frozen=True)
class RuleNumber(Arg):
    def parse(self, word: str) -> int:
        if not word.isascii() or not word.isdigit() or int(word) < 1:
            raise TokenError(gettext("“%(word)s” is not a rule number (1, 2, …)") % {"word": word})
        return int(word)


@dataclass(frozen=True)
class Config(Arg):
    def parse(self, word: str) -> ConfigRef:
        match = CONFIG_RE.match(word)
        if not match:
            raise TokenError(
                gettext("“%(word)s” is not a configuration like 8xh200 or b200@massed-compute")
                % {"word": word}
            )
        return ConfigRef(match["gpu"], int(match["count"] or 1), match["provider"])

    def refers_to(self, value: ConfigRef) -> list[tuple[str, str]]:
        named = [("gpus", value.gpu)]
        return named + [("providers", value.provider)] if value.provider else named


METHOD, GPU, PROVIDER, FACT = Slug("methods"), Slug("gpus"), Slug("providers"), Slug("facts")
CONFIG, RULE_NUMBER = Config(), RuleNumber()


# --- the registry ---------------------------------------------------------------------


@dataclass(frozen=True)
class TokenKind:
    name: str
    required: tuple[Arg, ...]
    optional: tuple[Arg, ...]
    example: str
    help: str
    render: Callable[..., str]  # (figures, *parsed args) -> the formatted figure
    html: bool = False  # the render function builds safe HTML itself (links)


class Registry:
    def __init__(self) -> None:
        self._kinds: dict[str, TokenKind] = {}

    def kind(
        self, example: str, help: str, *required: Arg, optional: tuple[Arg, ...] = (), html=False
    ) -> Callable[[Callable[..., str]], Callable[..., str]]:
        """Register the decorated render function as the token kind that ``example`` shows
        (``[[memory lora lower]]``: "memory"), with its ``required`` and ``optional`` arguments."""
        name = example.removeprefix("[[").split()[0].removesuffix("]]")

        def register(render: Callable[..., str]) -> Callable[..., str]:
            if name in self._kinds:
                raise ValueError(f"token kind {name!r} is registered twice")
            self._kinds[name] = TokenKind(name, required, optional, example, help, render, html)
            return render

        return register

    def __iter__(self) -> Iterator[TokenKind]:
        return iter(self._kinds.values())

    def parse(self, body: str) -> tuple[TokenKind, list]:
        """The kind and parsed arguments of a token's inside; raises TokenError."""
        words = body.split()
        if not words:
            raise TokenError(gettext("empty token"))
        kind = self._kinds.get(words[0])
        if kind is None:
            raise TokenError(gettext("unknown token kind “%(kind)s”") % {"kind": words[0]})
        args = words[1:]
        if not len(kind.required) <= len(args) <= len(kind.required) + len(kind.optional):
            raise TokenError(
                gettext("wrong number of arguments; write it like %(example)s")
                % {"example": kind.example}
            )
        specs = kind.required + kind.optional
        return kind, [arg.parse(word) for arg, word in zip(specs, args, strict=False)]


registry = Registry()


# --- checking prose -------------------------------------------------------------------


def syntax_errors(text: str) -> list[str]:
    """One message per malformed token in ``text``, naming the token; no database needed."""
    text = text or ""
    errors = []
    outside = TOKEN_RE.sub("", text)
    if "[[" in outside or "]]" in outside:
        errors.append(gettext("unclosed token: every “[[” needs a matching “]]”"))
    for match in TOKEN_RE.finditer(text):
        try:
            registry.parse(match.group(1))
        except TokenError as exc:
            errors.append(f"{match.group(0)}: {exc}")
    return errors


def unknown_slug_errors(text: str, known: KnownSlugs) -> list[str]:
    """One message per well-formed token in ``text`` that names something not on file."""
    kinds = {"methods": "method", "gpus": "gpu", "providers": "provider", "facts": "fact"}
    return [
        f"{token}: "
        + gettext("there is no %(kind)s “%(word)s”") % {"kind": kinds[pool], "word": slug}
        for token, pool, slug in token_references(text)
        if slug not in getattr(known, pool)
    ]


def token_errors(text: str, known: KnownSlugs) -> list[str]:
    """Every problem with the tokens in ``text``: malformed ones first, then unknown slugs."""
    return syntax_errors(text) + unknown_slug_errors(text, known)


def token_references(text: str) -> Iterator[tuple[str, str, str]]:
    """(token, pool, slug) for each method, GPU, provider or fact a well-formed token in
    ``text`` names, pool being a ``KnownSlugs`` field: what a deletion must not pull away."""
    for match in TOKEN_RE.finditer(text or ""):
        try:
            kind, values = registry.parse(match.group(1))
        except TokenError:
            continue  # syntax_errors reports it
        for arg, value in zip(kind.required + kind.optional, values, strict=False):
            for pool, slug in arg.refers_to(value):
                yield match.group(0), pool, slug
