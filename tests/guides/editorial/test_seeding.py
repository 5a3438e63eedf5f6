import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from guides.editorial.content_files import (
    ContentFileError,
    TrainingAssumptions,
    guide_content,
    language_text,
    read_guide,
)
from guides.editorial.seeding import CONTENT_DIR, load_guide
from guides.editorial.translating import stale_translations
from guides.models import FaqEntry, Guide, Section, ShareImage
from pricing.domain import training_memory
from pricing.models import Gpu, MemoryRule, Method, Price, PriceCheck, Source
from tests.conftest import GUIDE_SLUG, SEED_DAY

GUIDE_DIR = CONTENT_DIR / "guides" / GUIDE_SLUG
TRAINING_LINE = (
    '  "training": {"seq_len": 2048, "micro_batch_size": 1, "gradient_checkpointing": true, '
    '"lora_rank": 16, "training_tokens": 100000000, "epochs": 1},\n'
)


def seed() -> str:
    out = StringIO()
    call_command("seed_content", stdout=out)
    return out.getvalue()


def counts() -> tuple[int, ...]:
    models = (Gpu, Method, Price, PriceCheck, Source, Guide, Section, FaqEntry)
    return tuple(model.objects.count() for model in models)


def test_seed_content_is_idempotent(empty_database):
    assert "rows created" in seed()
    first = counts()
    assert "nothing to do" in seed()
    assert counts() == first
    assert first[:2] == (6, 4)
    assert Guide.objects.get(slug=GUIDE_SLUG).status == Guide.Status.PUBLISHED


def test_a_fresh_seed_draws_every_published_guides_share_image_in_each_language(
    empty_database, share_image_fonts
):
    """Without a task worker: bulk inserts publish nothing, so no task would draw them."""
    out = seed()
    expected = Guide.objects.published().count() * len(share_image_fonts)
    assert ShareImage.objects.count() == expected == 9 * 3  # five fine-tuning guides, four serving
    assert f"Share images drawn: {expected} (published guides × languages)." in out
    assert "nothing to do" in seed()  # drawn once


def test_seed_content_never_overwrites_an_editors_edit(seeded):
    Guide.objects.update(title_de="Von einer Redakteurin geändert")
    Gpu.objects.filter(slug="h100").update(name="H100 SXM")
    Section.objects.filter(position=1).delete()
    seed()
    assert Guide.objects.get(slug=GUIDE_SLUG).title_de == "Von einer Redakteurin geändert"
    assert Gpu.objects.get(slug="h100").name == "H100 SXM"
    assert not Section.objects.filter(position=1).exists()


def test_a_deleted_rule_or_price_stays_deleted(empty_database):
    """A check's prices and a method's rules are the editors' once their parent exists."""
    seed()
    MemoryRule.objects.filter(method__slug="full-adamw", position=2).delete()
    Price.objects.filter(gpu__slug="l40s").delete()
    seed()
    assert not MemoryRule.objects.filter(method__slug="full-adamw", position=2).exists()
    assert not Price.objects.filter(gpu__slug="l40s").exists()


def test_seed_loads_exactly_what_the_files_say(seeded):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    assert guide.slug == GUIDE_SLUG
    assert guide.published_on == SEED_DAY
    assert PriceCheck.objects.filter(checked_on=SEED_DAY).count() == 3
    assert [s.table for s in guide.sections.all()][:5] == [
        "methods",
        "memory",
        "estimate",
        "fit",
        "cost",
    ]
    assert stale_translations() == []  # every seeded text is translated: nothing flagged
    roles = ["Editors", "Price recorders", "Administrators"]
    assert Group.objects.filter(name__in=roles).count() == 3
    qlora_paper = Source.objects.get_by_natural_key("qlora-paper")
    assert qlora_paper.title_de == qlora_paper.title_en  # left untranslated: English
    assert guide.training_setup("qlora") == training_memory.TrainingSetup(
        method=training_memory.Method.QLORA,
        seq_len=2048,
        batch_size=1,
        gradient_checkpointing=True,
        lora_rank=16,
        num_gpus=1,
    )


# --- the guide's files ---------------------------------------------------------------------


def test_the_seeded_guide_is_what_its_files_say(seeded):
    assert guide_content(Guide.objects.get(slug=GUIDE_SLUG)) == read_guide(GUIDE_DIR)


def test_each_language_file_written_from_the_seeded_guide_is_its_file_byte_for_byte(seeded):
    content = guide_content(Guide.objects.get(slug=GUIDE_SLUG))
    for path in GUIDE_DIR.glob("*.md"):
        assert language_text(content, path.stem, path).encode() == path.read_bytes(), path.name


def test_training_assumptions_go_through_the_seed(seeded):
    # A run every configuration of the guide still holds by the estimate (else it is refused).
    Guide.objects.update(seq_len=4096, micro_batch_size=2, gradient_checkpointing=True,
                         lora_rank=64, training_tokens=250_000_000, epochs=3)  # fmt: skip
    content = guide_content(Guide.objects.get(slug=GUIDE_SLUG))
    assert content.training == TrainingAssumptions(4096, 2, True, 64, 250_000_000, 3)
    content.slug = "a-copy"
    load_guide(content)
    copy = Guide.objects.get(slug="a-copy")
    assert (copy.seq_len, copy.micro_batch_size, copy.gradient_checkpointing,
            copy.lora_rank) == (4096, 2, True, 64)  # fmt: skip


def test_the_writer_refuses_text_it_could_not_read_back(seeded):
    Section.objects.filter(position=2).update(body_de="Erst dies.\n## Kein Abschnitt")
    content = guide_content(Guide.objects.get(slug=GUIDE_SLUG))
    with pytest.raises(ContentFileError, match="reads as structure"):
        language_text(content, "de", GUIDE_DIR / "de.md")


def _content_copy(tmp_path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(CONTENT_DIR, target)
    return target


def _replace(path: Path, old: str, new: str) -> int:
    """Replace the first ``old`` in the file; return the line it is on."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("[[memory qlora]]", "[[memroy qlora]]", "[[memroy qlora]]: unknown token kind “memroy”"),
        ("[[memory lora]]", "[[memory dpo]]", "[[memory dpo]]: there is no method “dpo”"),
        ("[[link vram]]", "[link vram]]", "unclosed token: every “[[” needs a matching “]]”"),
    ],
)
def test_a_bad_token_stops_the_seed_with_file_and_line(empty_database, tmp_path, old, new, message):
    content = _content_copy(tmp_path)
    german = content / "guides" / GUIDE_SLUG / "de.md"
    line = _replace(german, old, new)
    with pytest.raises(CommandError) as caught:
        call_command("seed_content", content_dir=str(content), stdout=StringIO())
    assert str(caught.value) == f"{german}:{line}: {message}"
    assert counts() == (0,) * 8  # nothing saved


def test_errors_name_project_files_as_people_type_them():
    error = ContentFileError(GUIDE_DIR / "de.md", 12, "x")
    assert str(error) == f"content/guides/{GUIDE_SLUG}/de.md:12: x"


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("## Ist die H100", "Ist die H100", "7 sections (##), but guide.json has 8"),
        ("[table: Speicherregeln und Quellen]", "", "section 2 places a table"),
        ("### Kann ich die GPUs", "Kann ich die GPUs", "4 FAQ entries, but en.md has 5"),
        ("meta_description:", "description:", "front matter lines are"),
    ],
)
def test_a_malformed_guide_file_stops_the_seed(empty_database, tmp_path, old, new, fragment):
    content = _content_copy(tmp_path)
    _replace(content / "guides" / GUIDE_SLUG / "de.md", old, new)
    with pytest.raises(CommandError, match=re.escape(fragment)):
        call_command("seed_content", content_dir=str(content), stdout=StringIO())
    assert counts() == (0,) * 8


def test_an_unknown_slug_in_the_structure_names_its_line(empty_database, tmp_path):
    content = _content_copy(tmp_path)
    guide_json = content / "guides" / GUIDE_SLUG / "guide.json"
    line = _replace(guide_json, '{"gpu": "l40s", "count": 1}', '{"gpu": "l40x", "count": 1}')
    with pytest.raises(CommandError) as caught:
        call_command("seed_content", content_dir=str(content), stdout=StringIO())
    assert str(caught.value) == f"{guide_json}:{line}: there is no gpu “l40x”"
    assert counts() == (0,) * 8


def test_a_bad_reference_record_names_its_line(empty_database, tmp_path):
    content = _content_copy(tmp_path)
    reference = content / "reference.json"
    line = _replace(reference, '"spec_source": ["nvidia-h100"]', '"spec_source": ["nvidia-h1OO"]')
    with pytest.raises(CommandError) as caught:
        call_command("seed_content", content_dir=str(content), stdout=StringIO())
    message = str(caught.value)
    where, reported, rest = message.split(":", 2)
    assert where == str(reference) and rest.startswith(" pricing.gpu: ")
    lines = reference.read_text(encoding="utf-8").split("\n")
    record_start = max(n for n in range(1, line) if lines[n - 1] == "  {")
    assert int(reported) == record_start
    assert "\n" not in message
    assert counts() == (0,) * 8


def test_a_guide_json_without_training_gets_the_model_defaults(tmp_path):
    folder = tmp_path / GUIDE_SLUG
    shutil.copytree(GUIDE_DIR, folder)
    _replace(folder / "guide.json", TRAINING_LINE, "")
    content = read_guide(folder)
    assert content.training == TrainingAssumptions(
        seq_len=2048,
        micro_batch_size=1,
        gradient_checkpointing=True,
        lora_rank=16,
        training_tokens=100_000_000,
        epochs=1,
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"seq_len": 2048', '"seq_len": 0', "training.seq_len is a whole number from 1 to "
         "1048576, not 0"),
        ('"seq_len": 2048', '"seq_len": 1048577', "training.seq_len is a whole number from 1 to "
         "1048576, not 1048577"),
        ('"seq_len": 2048', '"seq_len": 2048.0', "training.seq_len is a whole number from 1 to "
         "1048576, not 2048.0"),
        ('"micro_batch_size": 1', '"micro_batch_size": true', "training.micro_batch_size is a "
         "whole number from 1 to 1024, not true"),
        ('"micro_batch_size": 1', '"micro_batch_size": 1025', "training.micro_batch_size is a "
         "whole number from 1 to 1024, not 1025"),
        ('"lora_rank": 16', '"lora_rank": "16"', 'training.lora_rank is a whole number from 1 to '
         '4096, not "16"'),
        ('"lora_rank": 16', '"lora_rank": 4097', "training.lora_rank is a whole number from 1 to "
         "4096, not 4097"),
        ('"gradient_checkpointing": true', '"gradient_checkpointing": 1',
         "training.gradient_checkpointing is true or false, not 1"),
        ('"gradient_checkpointing": true', '"gradient_checkpointing": "yes"',
         'training.gradient_checkpointing is true or false, not "yes"'),
        (', "lora_rank": 16', "", "“training” is an object with exactly the keys seq_len, "
         "micro_batch_size, gradient_checkpointing, lora_rank, training_tokens, epochs "
         "(missing: lora_rank)"),
        ('"lora_rank"', '"rank"', "“training” is an object with exactly the keys seq_len, "
         "micro_batch_size, gradient_checkpointing, lora_rank, training_tokens, epochs "
         "(missing: lora_rank) (unknown: rank)"),
        (TRAINING_LINE, '  "training": null,\n', "“training” is an object with exactly the "
         "keys seq_len, micro_batch_size, gradient_checkpointing, lora_rank, training_tokens, "
         "epochs"),
        ('"epochs": 1', '"epochs": 0', "training.epochs is a whole number from 1 to 100, not 0"),
        ('"training_tokens": 100000000', '"training_tokens": 999', "training.training_tokens is "
         "a whole number from 1000 to 10000000000000, not 999"),
    ],
)  # fmt: skip
def test_a_bad_training_value_names_its_file_line_and_key(tmp_path, old, new, message):
    folder = tmp_path / GUIDE_SLUG
    shutil.copytree(GUIDE_DIR, folder)
    structure = folder / "guide.json"
    line = _replace(structure, old, new)
    with pytest.raises(ContentFileError) as caught:
        read_guide(folder)
    assert str(caught.value) == f"{structure}:{line}: {message}"
