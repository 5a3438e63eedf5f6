import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from guides.content_files import ContentFileError, read_guide, write_content, write_guide
from guides.models import FaqEntry, Guide, Section
from guides.seeding import CONTENT_DIR
from pricing.models import Gpu, MemoryRule, Method, Price, PriceCheck, Source

from .conftest import GUIDE_SLUG, SEED_DAY

GUIDE_DIR = CONTENT_DIR / "guides" / GUIDE_SLUG


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
    assert Guide.objects.get().status == Guide.Status.PUBLISHED


def test_seed_content_never_overwrites_an_editors_edit(seeded):
    Guide.objects.update(title_de="Von einer Redakteurin geändert")
    Gpu.objects.filter(slug="h100").update(name="H100 SXM")
    Section.objects.filter(position=1).delete()
    seed()
    assert Guide.objects.get().title_de == "Von einer Redakteurin geändert"
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
    guide = Guide.objects.get()
    assert guide.slug == GUIDE_SLUG
    assert guide.published_on == SEED_DAY
    assert PriceCheck.objects.filter(checked_on=SEED_DAY).count() == 3
    assert [s.table for s in guide.sections.all()][:4] == ["methods", "memory", "fit", "cost"]
    assert guide.translation_stamps.count() == 3
    roles = ["Editors", "Price recorders", "Administrators"]
    assert Group.objects.filter(name__in=roles).count() == 3
    qlora_paper = Source.objects.get_by_natural_key("qlora-paper")
    assert qlora_paper.title_de == qlora_paper.title_en  # left untranslated: English


# --- the guide's files ---------------------------------------------------------------------


def test_writing_the_seeded_guide_gives_the_files_byte_for_byte(seeded, tmp_path):
    write_guide(Guide.objects.get(), tmp_path)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in GUIDE_DIR.iterdir())
    for name in written:
        assert (tmp_path / name).read_bytes() == (GUIDE_DIR / name).read_bytes(), name


def test_reading_and_writing_the_files_gives_the_same_bytes(tmp_path):
    write_content(read_guide(GUIDE_DIR), tmp_path)
    for path in GUIDE_DIR.iterdir():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_writer_refuses_text_it_could_not_read_back(seeded, tmp_path):
    Section.objects.filter(position=2).update(body_de="Erst dies.\n## Kein Abschnitt")
    with pytest.raises(ContentFileError, match="reads as structure"):
        write_guide(Guide.objects.get(), tmp_path)
    assert list(tmp_path.iterdir()) == []


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
        ("## Ist die H100", "Ist die H100", "6 sections (##), but guide.json has 7"),
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
