"""The editing manual (docs/editing.md) in the admin, with its screenshots (docs/editing/)."""

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt

DOCS = Path(settings.BASE_DIR) / "docs"


def manual(request, site):
    # The file is ours, and raw HTML in it is escaped ("html": False), so the result is safe.
    text = (DOCS / "editing.md").read_text(encoding="utf-8")
    body = MarkdownIt("commonmark", {"html": False}).render(text)
    context = {**site.each_context(request), "title": _("Editing manual"), "body": mark_safe(body)}
    return TemplateResponse(request, "admin/manual.html", context)


def screenshot(request, name: str):
    path = DOCS / "editing" / f"{name}.png"
    if not path.is_file():
        raise Http404
    return FileResponse(path.open("rb"), content_type="image/png")
