"""The Nu HTML checker and axe-core, for the tests that run them over every public page.

Both come from npm (``npm ci`` installs them into node_modules/; .ci/run does so), the checker
also needs Java. Where they are missing the tests say so and skip; with REQUIRE_PAGE_CHECKS=1
(CI) they fail instead.
"""

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import GUIDE_SLUG

ROOT = Path(__file__).resolve().parent.parent
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
INSTALL = "run `npm ci` in the project folder (and install Java 17 for the Nu checker)"

# Every public page (path, status), in each language: what both checkers look at.
PAGES = [
    ("/{lang}/", 200),
    (f"/{{lang}}/guides/{GUIDE_SLUG}/", 200),
    (f"/{{lang}}/guides/{GUIDE_SLUG}/tutorial/", 200),
    ("/{lang}/gpus/", 200),
    ("/{lang}/vram/", 200),
    ("/{lang}/vram/?model=llama-3.1-70b&method=qlora&tokens_millions=50&params=405", 200),
    ("/{lang}/vram/?params=abc", 400),
    ("/{lang}/serving/", 200),
    ("/{lang}/serving/?model=llama-3.1-70b&context=8192&concurrency=16", 200),
    ("/{lang}/serving/?model=llama-3.1-405b&weight_precision=awq&kv_precision=fp8", 200),
    ("/{lang}/serving/?model=mistral-7b&context=abc", 400),
    ("/{lang}/compare/h100-vs-a100-80gb/", 200),
    ("/{lang}/legal/imprint/", 200),
    ("/{lang}/legal/privacy/", 200),
    ("/{lang}/legal/commercial-transactions/", 200),
    ("/{lang}/legal/terms/", 200),
    ("/{lang}/guides/no-such-guide/", 404),
    ("/{lang}/gpus/?as_of=1999-01-01", 400),
]
LANGS = ["en", "de", "ja"]


def required() -> bool:
    return os.environ.get("REQUIRE_PAGE_CHECKS", "").lower() in {"1", "true", "yes"}


def missing_tools() -> list[str]:
    missing = []
    if not VNU_JAR.exists():
        missing.append("the Nu HTML checker (node_modules/vnu-jar)")
    if shutil.which("java") is None:
        missing.append("java")
    if not AXE_JS.exists():
        missing.append("axe-core (node_modules/axe-core)")
    return missing


def skip_or_fail(what: str) -> None:
    message = f"{what} missing, so the page checks cannot run: {INSTALL}"
    if required():
        pytest.fail(message)
    pytest.skip(message)
