"""A guide's tutorial: renting the recommended configuration and the ``trl sft`` command that
runs each method on it, with what the run should take and cost: the guide page's own figures
(``PageFigures``) and its training run (``pricing.domain.trl_commands``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils.translation import get_language, gettext, ngettext

from gpuguide.lib import renting
from guides.content.page_figures import MissingFigure, PageFigures, PriceDates, price_dates
from guides.content.presentation import (
    config_name,
    number,
    rent_label,
    word_list,
)
from guides.models import Guide
from guides.pages import assembly
from pricing import selectors
from pricing.domain import calculations as calc
from pricing.domain import trl_commands
from pricing.domain.throughput import SECONDS_PER_HOUR
from pricing.domain.training_memory import TrainingSetup
from pricing.models import LanguageModel, Source

HUB = "https://huggingface.co/"
OUTPUT_DIR = "./output"
TIMING_DIR = "./timing"


@dataclass(frozen=True)
class MethodTutorial:
    slug: str
    name: str
    configuration: calc.Configuration  # the recommended one
    noun: str  # "1× B200" (ja "B200 1基"), inside a sentence
    override: bool  # the editor chose it
    rent_url: str
    rent_label: str  # "Rent 1× B200": the link says what it rents
    command: trl_commands.SftCommand  # the page prints ``command.shell``
    merge_command: str | None  # joins a sharded run's newest checkpoint into one model
    timing_command: trl_commands.SftCommand  # the short run that measures steps per hour
    run: calc.RunPlan | None  # the training budget on it (None: an override it outgrew)
    block: int | None  # the smallest GPU-hour block that covers the run
    short_run: trl_commands.ShortRun | None  # what the timing command should show
    needs: assembly.RunNeeds  # the download, the disk and the host memory besides the GPUs


@dataclass(frozen=True)
class ModelAccess:
    """The model both tutorials download: its licence in the reader's language and, where
    gated, the sign-in (``includes/model_access.html``)."""

    model_name: str
    repository: str
    model_url: str
    gated: bool
    licence_note: str


def model_access(model: LanguageModel, licence_notes: dict[str, str]) -> ModelAccess:
    """``model``'s access, its licence note in the active language (English where none)."""
    language = get_language() or "en"
    return ModelAccess(
        model_name=model.name,
        repository=model.repository,
        model_url=HUB + model.repository,
        gated=model.gated,
        licence_note=licence_notes.get(language) or licence_notes.get("en", ""),
    )


@dataclass(frozen=True)
class TutorialPage:
    guide: Guide
    access: ModelAccess
    training: TrainingSetup  # the guide's run (its method a placeholder)
    run_summary: str  # "sequences of 2,048 tokens, …": the guide's run in one sentence
    house_name: str
    dataset_example: str  # two lines of train.jsonl
    install_command: str
    methods: list[MethodTutorial]  # empty where nothing on one host holds any method
    not_held: list[str]  # the names of the methods nothing on one host holds
    checked: PriceDates | None
    checked_with: str  # "trl 1.16.0, transformers 5.24.0, …" in the page's language
    learning_rate_sources: list[Source]
    # The same on every tutorial:
    timing_steps = trl_commands.TIMING_STEPS
    seconds_per_hour = SECONDS_PER_HOUR
    adapter_learning_rate = trl_commands.ADAPTER_LEARNING_RATE  # "2e-4", as commands write it
    full_learning_rate = trl_commands.FULL_LEARNING_RATE
    save_every = Decimal(trl_commands.SAVE_EVERY)  # the share of the steps between checkpoints
    checkpoints_kept = int(trl_commands.SAVE_TOTAL_LIMIT)


class NoRepository(LookupError):
    """The guide's model has no Hugging Face repository on file (or one saved around the
    admin's check): no command can name it."""


def has_tutorial(guide: Guide) -> bool:
    """Whether the guide's model names a repository its commands can download."""
    return bool(trl_commands.REPOSITORY.match(guide.language_model.repository))


def tutorial_page(guide: Guide, *, at: date | None = None) -> TutorialPage:
    """The tutorial of ``guide`` (from ``selectors.guide_for_page``) with prices as of ``at``,
    for the active language."""
    model = guide.language_model
    if not has_tutorial(guide):
        raise NoRepository(model.slug)
    figures = assembly.guide_figures(guide, at=at)
    methods, not_held = [], []
    for listing in figures.methods.values():
        try:
            methods.append(_method_tutorial(guide, figures, listing.slug, listing.name))
        except MissingFigure:  # NothingFits, or a method the estimate does not know
            not_held.append(listing.name)
    return TutorialPage(
        guide=guide,
        access=model_access(model, figures.licence_notes),
        training=figures.training,
        run_summary=run_summary(figures.training, figures.tokens_per_epoch, figures.epochs),
        house_name=figures.house_name,
        dataset_example=dataset_example(),
        install_command=trl_commands.install_command(
            bitsandbytes=any(m.command.needs_bitsandbytes for m in methods)
        ),
        methods=methods,
        not_held=not_held,
        checked=price_dates(figures.quoted_on),
        checked_with=word_list(f"{name} {version}" for name, version in trl_commands.CHECKED_WITH),
        learning_rate_sources=selectors.sources_by_key(keys=trl_commands.LEARNING_RATE_SOURCES),
    )


def _method_tutorial(guide: Guide, figures: PageFigures, method: str, name: str) -> MethodTutorial:
    configuration = figures.recommended(method)[0]
    (run,) = figures.runs(method, [configuration]) or (None,)
    setup = figures.training_setup(method, configuration.count)
    command = trl_commands.sft_command(
        repository=guide.language_model.repository,
        setup=setup,
        epochs=guide.epochs,
        output_dir=OUTPUT_DIR,
    )
    return MethodTutorial(
        slug=method,
        name=name,
        configuration=configuration,
        noun=config_name(configuration.count, configuration.gpu.name),
        override=figures.is_override(method),
        rent_url=renting.rent_url(configuration.gpu.slug, configuration.count),
        rent_label=rent_label(configuration.count, configuration.gpu.name),
        command=command,
        merge_command=trl_commands.merge_command(command),
        timing_command=trl_commands.timing_command(command, output_dir=TIMING_DIR),
        run=run,
        block=None if run is None else calc.covering_block(run.gpu_hours, figures.blocks),
        short_run=None
        if run is None
        else trl_commands.short_run(setup, run.tokens_per_s, configuration.gpu.usd_per_gpu_hour),
        needs=assembly.run_needs(figures, method, name, configuration),
    )


def published_commands(guide: Guide) -> list[tuple[str, trl_commands.SftCommand]]:
    """Every command ``guide``'s tutorial prints, labelled: the full and the short run of each
    method that something holds (what CI has TRL parse)."""
    commands = []
    for method in tutorial_page(guide).methods:
        where = f"{method.configuration.count}x {method.configuration.gpu.slug}"
        label = f"{guide.slug} {method.slug} on {where}"
        commands += [(label, method.command), (f"{label}, short run", method.timing_command)]
    return commands


def run_summary(training: TrainingSetup, tokens_per_epoch: int, epochs: int) -> str:
    """The guide's run in one sentence, its figures formatted for the active language."""
    checkpointing = (
        gettext("gradient checkpointing on")
        if training.gradient_checkpointing
        else gettext("gradient checkpointing off")
    )
    return ngettext(
        "sequences of %(seq)s tokens, a batch of %(batch)s per GPU, LoRA rank %(rank)s, "
        "%(checkpointing)s, %(tokens)s training tokens for %(epochs)s epoch.",
        "sequences of %(seq)s tokens, a batch of %(batch)s per GPU, LoRA rank %(rank)s, "
        "%(checkpointing)s, %(tokens)s training tokens per epoch for %(epochs)s epochs.",
        epochs,
    ) % {
        "seq": number(training.seq_len),
        "batch": number(training.batch_size),
        "rank": number(training.lora_rank),
        "checkpointing": checkpointing,
        "tokens": number(tokens_per_epoch),
        "epochs": number(epochs),
    }


def dataset_example() -> str:
    """Two lines of ``train.jsonl`` in trl's prompt-completion format, in the page's language:
    written with ``json.dumps`` so that what a visitor copies is valid JSON."""
    rows = [
        {
            "prompt": gettext("How do I reset my password?"),
            "completion": gettext("Open Settings, choose Security and select Reset password."),
        },
        {
            "prompt": gettext("Can I change the email address of my account?"),
            "completion": gettext("Yes: Settings, then Account, then Email."),
        },
    ]
    return "\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
