"""README.md's *Project layout* map and the tree, held against each other both ways: every
entry it lists exists, and every module, script and top-level file is listed."""

import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("gpuguide", "accounts", "pricing", "guides")
DESCRIPTION_COLUMN = 30  # an entry's path starts left of it; its description to the right


def layout_block() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Project layout", 1)[1]
    return section.split("```\n", 2)[1].splitlines()


def listed() -> dict[str, str]:
    """Path -> its description, with the folders above each nested entry resolved.

    A folder's entry ends with "/"; the entries under it are indented two spaces more. A line
    that starts at the description column continues the description above it.
    """
    entries: dict[str, str] = {}
    folders: list[tuple[int, str]] = []  # (indent, path) of the folders above
    last = None
    for line in layout_block():
        indent = len(line) - len(line.lstrip())
        if indent >= DESCRIPTION_COLUMN:
            entries[last] += " " + line.strip()
            continue
        name, _gap, description = line.strip().partition("  ")
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = (folders[-1][1] if folders else "") + name
        entries[path] = description.strip()
        if name.endswith("/"):
            folders.append((indent, path))
        last = path
    return entries


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return out.splitlines()


def test_every_listed_path_exists():
    missing = [path for path in listed() if not (ROOT / path.rstrip("/")).exists()]
    assert missing == []


def test_every_module_of_the_apps_is_listed():
    """Packages' __init__.py, migrations and commands aside (commands: next test)."""
    entries = listed()
    unlisted = [
        str(path.relative_to(ROOT))
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if path.name != "__init__.py"
        and "migrations" not in path.parts
        and "commands" not in path.parts
        and str(path.relative_to(ROOT)) not in entries
    ]
    assert unlisted == []


def test_every_management_command_is_named_under_its_folder():
    entries = listed()
    unnamed = []
    for commands in sorted(ROOT.glob("*/management/commands")):
        folder = f"{commands.relative_to(ROOT)}/"
        names = set(re.findall(r"\w+", entries.get(folder, "")))
        unnamed += [
            f"{folder}{path.stem}"
            for path in sorted(commands.glob("*.py"))
            if path.name != "__init__.py" and path.stem not in names
        ]
    assert unnamed == []


def test_every_top_level_entry_and_script_is_listed():
    entries = listed()
    tops = {
        name + ("/" if (ROOT / name).is_dir() else "")
        for name in {path.split("/")[0] for path in tracked_files()}
    }
    scripts = {path for path in tracked_files() if path.startswith("scripts/")}
    assert sorted((tops | scripts) - set(entries)) == []


def test_the_web_font_is_the_copy_of_the_pinned_npm_package():
    """static/fonts/ holds the file of the @fontsource-variable/inter version package.json pins
    (`make fonts` copies it), so the font's origin and licence are known."""
    from .page_checks import skip_or_fail

    package = ROOT / "node_modules" / "@fontsource-variable" / "inter"
    if not package.exists():
        skip_or_fail("@fontsource-variable/inter (node_modules)")
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]
    installed = json.loads((package / "package.json").read_text())
    assert installed["version"] == pinned["@fontsource-variable/inter"]
    assert installed["license"] == "OFL-1.1"
    for copy, original in [
        ("static/fonts/inter-latin-wght-normal.woff2", "files/inter-latin-wght-normal.woff2"),
        ("static/fonts/Inter-OFL.txt", "LICENSE"),
    ]:
        assert (ROOT / copy).read_bytes() == (package / original).read_bytes(), copy
