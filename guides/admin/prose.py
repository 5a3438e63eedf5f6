"""What the admin's forms with editor prose share: the token reference, picker and checks,
preview links, and what an editor is told of drafts and schedules."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from modeltranslation.utils import build_localized_fieldname

from gpuguide.lib.zoned_time import zoned
from guides.content.prose_rules import typed_figures
from guides.content.tokens.registry import KnownSlugs, registry, token_errors
from guides.content.tokens.render import example_value
from guides.editorial import publishing_rules, revisions
from guides.editorial.checks import problems_list
from guides.models import Guide, GuideRevision
from guides.pages import assembly

TOKEN_HELP = _(
    "Live figures: write [[kind args]], e.g. [[memory qlora]]; the kinds are listed "
    "at the top of the guide form."
)


def token_reference(guide: Guide | None = None) -> SafeString:
    """An HTML list of every token kind with its example, for the guide form; on a guide's own
    form, each example as it reads on that guide (the help itself types no figure)."""
    kinds = [{"example": kind.example, "help": kind.help, "live": None} for kind in registry]
    if guide is not None:
        figures = assembly.guide_figures(guide)
        for kind in kinds:
            kind["live"] = example_value(kind["example"], figures)
    return render_to_string("admin/guides/includes/token_reference.html", {"kinds": kinds})


def token_picker_data() -> dict:
    """What the token picker beside each prose field lists (read by static/js/guide-editor.js)."""
    return {
        "label": str(_("Insert a token")),
        "filter": str(_("Filter the tokens")),
        "kinds": [{"token": k.example, "help": str(k.help)} for k in registry],
    }


class ProseHelpMixin:
    """Adds the token hint to every prose field, in every language tab."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        base = getattr(db_field, "translated_field", db_field).name  # "body_de": "body"
        if field is not None and base in getattr(db_field.model, "prose_fields", ()):
            field.help_text = TOKEN_HELP
            field.widget.attrs["data-token-picker"] = ""  # static/js/guide-editor.js
        return field


class ProseForm(forms.ModelForm):
    """Names every bad token on its field: malformed, or naming a slug not on file; the slugs
    (``token_slugs``) are loaded once per view for all its forms."""

    def __init__(self, *args, token_slugs: KnownSlugs | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.token_slugs = token_slugs

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.token_slugs is None:
            return cleaned
        model = self._meta.model
        for base in (*getattr(model, "prose_fields", ()), *getattr(model, "plain_text_fields", ())):
            for code in publishing_rules.LANGUAGES:
                name = build_localized_fieldname(base, code)
                text = cleaned.get(name) or ""
                for message in token_errors(text, self.token_slugs):
                    self.add_error(name, message)
                for typed in typed_figures(text, self.token_slugs.gpu_names):
                    self.add_error(name, typed.message)
        return cleaned


def preview_links(guide: Guide, revision: GuideRevision | None) -> list[tuple[str, str]]:
    """(URL, language name) of ``revision``'s preview in each language, or without one the
    guide's public page."""
    links = []
    for code, name in settings.LANGUAGES:
        with translation.override(code):
            if revision is None:
                url = reverse("guides:detail", kwargs={"slug": guide.slug})
            else:
                url = reverse("admin:guides_guide_revision_preview", args=[guide.pk, revision.pk])
        links.append((url, str(name)))
    return links


DRAFT_SAVED = "admin/guides/includes/draft_saved.html"


def draft_saved_message(
    guide: Guide, draft: GuideRevision, problems: list
) -> tuple[SafeString, int]:
    """What an editor is told once an edit of a live guide is kept as the draft revision
    ``draft``, and the message's level: preview links, and any problems that keep it offline."""
    links = preview_links(guide, draft)
    if problems:
        message = _(
            "Saved as draft revision %(number)s; the live page is unchanged. It "
            "cannot be published until these are fixed:"
        ) % {"number": draft.pk}
        said = {"message": message, "links": links, "problems": problems_list(problems)}
        return render_to_string(DRAFT_SAVED, said), messages.WARNING
    message = _(
        "Saved as draft revision %(number)s; the live page is unchanged until "
        "you publish it. Preview:"
    ) % {"number": draft.pk}
    return render_to_string(DRAFT_SAVED, {"message": message, "links": links}), messages.SUCCESS


def schedule_notes(guide: Guide) -> list[str]:
    """What is scheduled for the guide, a sentence each, for its form."""
    notes, scheduled = [], revisions.schedules(guide)
    for revision in scheduled.going_live:
        notes.append(
            _("Revision %(number)s goes live at %(when)s (scheduled by %(who)s).")
            % {
                "number": revision.pk,
                "when": zoned(revision.go_live_at),
                "who": revision.scheduled_by or "—",
            }
        )
    for revision in scheduled.expiring:
        notes.append(
            _("The live revision %(number)s expires at %(when)s: the guide then goes offline.")
            % {"number": revision.pk, "when": zoned(revision.expire_at)}
        )
    return notes


def say_cancelled(model_admin, request, cancelled: list[GuideRevision]) -> None:
    """Tell the editor which go-lives a publication, revert or schedule cancelled, if any."""
    if not cancelled:
        return
    listed = ", ".join(
        _("revision %(number)s at %(when)s") % {"number": r.pk, "when": zoned(r.go_live_at)}
        for r in cancelled
    )
    message = ngettext(
        "Cancelled the scheduled go-live of %(listed)s: it was set before this change and "
        "would have undone it at its time.",
        "Cancelled the scheduled go-lives of %(listed)s: they were set before this change and "
        "would have undone it at their time.",
        len(cancelled),
    ) % {"listed": listed}
    model_admin.message_user(request, message, messages.WARNING)
