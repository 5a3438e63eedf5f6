"""The code's shape: the layers of .importlinter, no import cycle, and the few modules allowed
to do what no other may.

The layers (highest first) are listed in ``.importlinter`` and described in
docs/architecture.md; import-linter reads every import, those inside functions included.
"""

import ast
import configparser
from pathlib import Path

from importlinter import configuration
from importlinter.application.use_cases import lint_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("gpuguide", "accounts", "pricing", "guides")
# The one module that may use django-reversion, whose Version keeps its model and object behind
# private attributes.
REVISION_STORE = "guides/editorial/revisions.py"
REVERSION_PRIVATE = ("_get_options", "._model", "._object_version")


def project_modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the apps, migrations aside."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "migrations" in relative.parts:
                continue
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def layer_names() -> list[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"]
    return [
        name.strip()
        for line in layers.strip().splitlines()
        for name in line.replace("|", ":").split(":")
    ]


def test_the_layers_hold_and_no_import_goes_round_in_a_circle(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    configuration.configure()  # what the lint-imports command does first
    kept = lint_imports(config_filename=str(ROOT / ".importlinter"), cache_dir=None, no_logo=True)
    assert kept, capsys.readouterr().out


def test_every_module_belongs_to_a_layer():
    """A new module must be placed in a layer (or a package that is one), so that the contract
    covers it."""
    layers = layer_names()
    unplaced = [
        name
        for name in project_modules()
        if name not in PACKAGES
        and not any(name == layer or name.startswith(layer + ".") for layer in layers)
    ]
    assert unplaced == []


def _function_local_project_imports(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name.split(".")[0] in PACKAGES for name in names):
                lines.append(node.lineno)
    return lines


def test_project_modules_are_imported_inside_a_function_only_where_django_forces_it():
    """Only an AppConfig's ``ready()`` (the models are not loaded when apps.py is imported)."""
    found = {
        str(path.relative_to(ROOT)): lines
        for path in project_modules().values()
        if (lines := _function_local_project_imports(path)) and path.name != "apps.py"
    }
    assert found == {}


def test_no_module_is_imported_by_a_string_outside_the_settings():
    """import_module / import_string hide an import from the contract; Django's own settings
    (middleware, backends) are the top layer, so they may name anything."""
    found = []
    for name, path in project_modules().items():
        if name == "gpuguide.settings":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if called in {"import_module", "import_string", "__import__"}:
                    found.append(f"{name}:{node.lineno}")
    assert found == []


def _reversion_uses(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    uses = [attribute for attribute in REVERSION_PRIVATE if attribute in text]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "reversion":
            uses.append(f"from {node.module} import")
        elif isinstance(node, ast.Import):
            uses += [f"import {a.name}" for a in node.names if a.name.split(".")[0] == "reversion"]
    return uses


def test_only_the_revision_store_touches_django_reversion():
    found = {
        str(path.relative_to(ROOT)): uses
        for path in project_modules().values()
        if (uses := _reversion_uses(path))
    }
    assert set(found) == {REVISION_STORE}


def test_the_revision_store_is_where_reversion_is_used():
    """The exemption above names a module that still is the store."""
    text = (ROOT / REVISION_STORE).read_text(encoding="utf-8")
    assert "import reversion" in text and "_get_options" in text
