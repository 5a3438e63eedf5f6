"""The staff manuals in the admin, with their screenshots: the editing manual
(docs/editing.md, docs/editing/) and the price recorders' manual (docs/prices.md,
docs/prices/)."""

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from markdown_it import MarkdownIt

DOCS = Path(settings.BASE_DIR) / "docs"
TITLES = {"editing": _("Editing manual"), "prices": _("Price recording manual")}


def manual(request, site, document: str = "editing"):
    # The file is ours, and raw HTML in it is escaped ("html": False), so the result is safe.
    text = (DOCS / f"{document}.md").read_text(encoding="utf-8")
    body = MarkdownIt("commonmark", {"html": False}).render(text)
    context = {**site.each_context(request), "title": TITLES[document], "body": mark_safe(body)}
    return TemplateResponse(request, "admin/manual.html", context)


def screenshot(request, name: str, document: str = "editing", site=None):
    path = DOCS / document / f"{name}.png"
    if not path.is_file():
        raise Http404
    return FileResponse(path.open("rb"), content_type="image/png")
