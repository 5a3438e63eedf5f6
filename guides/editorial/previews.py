"""A stored revision of a guide as its public page would show it, built in memory from what the
revision holds: nothing is written. The admin serves it; the public views never show a revision."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from guides.editorial import revisions
from guides.models import GuideRevision
from guides.pages import meta, serving_guide
from pricing.models import Provider


def revision_preview(request: HttpRequest, revision: GuideRevision) -> HttpResponse:
    """The guide's page with ``revision``'s content, in the active language, with a banner."""
    guide = revisions.revision_content(revision).page_guide()
    try:
        page = serving_guide.guide_page_for(guide)
    except Provider.DoesNotExist:
        raise Http404(_("No prices have been recorded yet.")) from None
    context = {
        "page": page,
        "guide": guide,
        "as_of": None,
        "preview_revision": revision,
        **meta.guide(request, guide, page),
    }
    return render(request, "guides/guide_detail.html", context)
