"""Every public page says exactly what it said when these snapshots were taken.

The snapshots in ``tests/page_text/`` hold each page's title, meta description, JSON-LD and
visible text in the three languages, rendered from the seed content on a pinned day. Refactors
must leave them untouched; a deliberate change to what a page says is re-recorded with

    UPDATE_PAGE_TEXT=1 .venv/bin/pytest tests/test_page_text.py

and the diff of ``tests/page_text/`` reviewed like any other change.
"""

import html
import os
import re
from datetime import date
from pathlib import Path
from unittest import mock

import pytest

from tests.conftest import GUIDE_SLUG, fill_in_operator

SNAPSHOTS = Path(__file__).parent / "page_text"
TODAY = date(2026, 11, 29)
PAGES = {
    "index": "/{lang}/",
    "guide": f"/{{lang}}/guides/{GUIDE_SLUG}/",
    "tutorial": f"/{{lang}}/guides/{GUIDE_SLUG}/tutorial/",
    "serving-guide": "/{lang}/guides/best-gpu-for-serving-llama-3-1-70b/",
    "serving-tutorial": "/{lang}/guides/best-gpu-for-serving-llama-3-1-70b/tutorial/",
    "gpus": "/{lang}/gpus/",
    "vram": "/{lang}/vram/",
    "vram-405": "/{lang}/vram/?params=405",
    "vram-bad": "/{lang}/vram/?params=abc",
    "serving": "/{lang}/serving/",
    "serving-70b": "/{lang}/serving/?model=llama-3.1-70b&context=8192&concurrency=16",
    "serving-405b-awq": (
        "/{lang}/serving/?model=llama-3.1-405b&weight_precision=awq&kv_precision=fp8"
    ),
    "serving-bad": "/{lang}/serving/?model=mistral-7b&context=abc",
    "compare": "/{lang}/compare/h100-vs-a100-80gb/",
    "not-found": "/{lang}/guides/no-such-guide/",
    # The operator's pages, drawn from the development fixture's example details.
    "imprint": "/{lang}/legal/imprint/",
    "privacy": "/{lang}/legal/privacy/",
    "commercial-transactions": "/{lang}/legal/commercial-transactions/",
}
OPERATOR_PAGES = {"imprint", "privacy", "commercial-transactions"}


def page_snapshot(body: str) -> str:
    """Title, description, JSON-LD and visible text, one block per line for readable diffs."""
    title = re.search(r"<title>(.*?)</title>", body, re.S).group(1)
    description = re.search(r'<meta name="description" content="(.*?)">', body, re.S).group(1)
    json_ld = re.findall(r'<script type="application/ld\+json">(.*?)</script>', body, re.S)
    visible = re.sub(r"<(script|style|head)\b.*?</\1>", " ", body, flags=re.S)
    visible = visible.replace("<wbr>", "")  # a line-break opportunity, no text (Japanese)
    visible = re.sub(r"<(?:/?(?:p|li|tr|h[1-6]|caption|figcaption|ul|ol|table|nav))\b[^>]*>",
                     "\n", visible)  # fmt: skip
    visible = html.unescape(re.sub(r"<[^>]+>", " ", visible))
    lines = [re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in visible.splitlines()]
    return "\n".join(
        [
            f"title: {html.unescape(title).strip()}",
            f"description: {html.unescape(description).strip()}",
            *(f"json-ld: {block}" for block in json_ld),
            *(line for line in lines if line),
        ]
    )


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
@pytest.mark.parametrize("page", list(PAGES))
def test_page_says_what_its_snapshot_says(client, seeded, page, lang):
    if page in OPERATOR_PAGES:
        fill_in_operator()
    with mock.patch("django.utils.timezone.localdate", return_value=TODAY):
        response = client.get(PAGES[page].format(lang=lang))
    expected_status = {"vram-bad": 400, "serving-bad": 400, "not-found": 404}.get(page, 200)
    assert response.status_code == expected_status
    snapshot = page_snapshot(response.content.decode()) + "\n"
    path = SNAPSHOTS / f"{page}.{lang}.txt"
    if os.environ.get("UPDATE_PAGE_TEXT"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(snapshot, encoding="utf-8")
    assert snapshot == path.read_text(encoding="utf-8")
