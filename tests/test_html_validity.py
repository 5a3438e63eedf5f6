"""Every public page, in three languages, is valid HTML by the Nu HTML checker (vnu.jar).

One checker run over all pages at once (saved to a temporary folder), so Java starts once; a
deliberately broken page goes with them, to show that the checker ran and reports errors. The
accessibility check (axe-core) runs in the browser tests, on the shared browser.
"""

import json
import shutil
import subprocess

from tests.conftest import review_legal_pages
from tests.page_checks import LANGS, PAGES, VNU_JAR, skip_or_fail

# A short run: the quick JIT tier and the simplest collector halve Java's time here.
JVM_FAST_START = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
BROKEN = "canary.html"  # must be reported, or the checker did not look at the folder


def test_every_public_page_is_valid_html(client, seeded, tmp_path):
    if not VNU_JAR.exists() or shutil.which("java") is None:
        skip_or_fail("The Nu HTML checker (node_modules/vnu-jar) or java is")
    review_legal_pages()  # only reviewed ones are public
    names = {}
    for lang in LANGS:
        for number, (path, status) in enumerate(PAGES):
            url = path.format(lang=lang)
            response = client.get(url)
            assert response.status_code == status, url
            name = f"{lang}-{number:02d}.html"
            (tmp_path / name).write_bytes(response.content)
            names[name] = url
    (tmp_path / BROKEN).write_text(
        "<!DOCTYPE html><html lang=en><title>x</title><p>unclosed <b>bold</p></html>"
    )
    run = subprocess.run(
        ["java", "-Xss4m", *JVM_FAST_START, "-jar", str(VNU_JAR), "--errors-only",
         "--format", "json", "--skip-non-html", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    messages = json.loads(run.stderr)["messages"]
    errors: dict[str, list[str]] = {}
    for m in messages:
        if m.get("type") in {"error", "non-document-error"}:
            name = m.get("url", "").rsplit("/", 1)[-1]
            errors.setdefault(names.get(name, name), []).append(
                f"line {m.get('lastLine')}: {m['message']}"
            )
    assert errors.pop(BROKEN, None), f"the checker reported nothing for {BROKEN}: {run.stderr}"
    assert errors == {}, json.dumps(errors, indent=1, ensure_ascii=False)
