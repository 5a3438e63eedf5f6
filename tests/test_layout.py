"""README.md's map by folder and the tree, held against each other both ways (every folder it
lists exists; every top-level folder and every package of the apps is listed), and the links
between the README and docs/ (each manual is linked from the README; no link leads nowhere)."""

import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("gpuguide", "accounts", "pricing", "guides")
# Django's own folders, named by convention, not by us: the map says what the app does instead.
CONVENTIONAL = {"migrations", "management", "templatetags"}
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def listed_folders() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The code by folder", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- `([^`]+/)`", section, flags=re.MULTILINE)


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return out.splitlines()


def test_every_listed_folder_exists():
    folders = listed_folders()
    assert len(folders) > 10
    assert [folder for folder in folders if not (ROOT / folder).is_dir()] == []


def test_every_top_level_folder_is_listed():
    tops = {path.split("/")[0] + "/" for path in tracked_files() if "/" in path}
    assert sorted(tops - set(listed_folders())) == []


def test_every_package_of_the_apps_is_listed():
    packages = {
        f"{init.parent.relative_to(ROOT)}/"
        for app in APPS
        for init in (ROOT / app).glob("*/__init__.py")
        if init.parent.name not in CONVENTIONAL
    }
    assert sorted(packages - set(listed_folders())) == []


def test_every_manual_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(readme))
    manuals = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert sorted(manuals - linked) == []


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_link_between_the_readme_and_the_docs_leads_somewhere():
    broken = []
    for source in MARKDOWN:
        for target in LINK.findall(source.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            file, _hash, anchor = target.partition("#")
            path = (source.parent / file).resolve() if file else source
            if not path.exists() or (anchor and anchor not in anchors(path)):
                broken.append(f"{source.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_web_font_is_the_copy_of_the_pinned_npm_package():
    """static/fonts/ holds the file of the @fontsource-variable/inter version package.json pins
    (`make fonts` copies it), so the font's origin and licence are known."""
    from tests.page_checks import skip_or_fail

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
