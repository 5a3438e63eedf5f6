"""The guide admin's revision pages: the list with its schedules and reviews, the diff, publish,
revert, schedule and review. Each action is a use case of guides.editorial.publishing; these
views only parse, call it and say what happened."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from gpuguide.lib.editor_input import VisibleTextValidator
from gpuguide.lib.zoned_time import zoned
from guides import permissions
from guides.admin.families import say_followed
from guides.admin.prose import preview_links, say_cancelled
from guides.editorial import families, previews, publishing, revisions, translating
from guides.editorial.checks import problems_list
from guides.models import Guide, GuideRevision, Review


class ReviewCommentForm(forms.Form):
    """A comment with a submission for review, an approval or a sending back."""

    comment = forms.CharField(
        label=_("Comment"),
        required=False,
        max_length=Review._meta.get_field("comment").max_length,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
    )

    def __init__(self, *args, required: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["comment"].required = required
        self.fields["comment"].validators.append(VisibleTextValidator(_("Comment")))


LOCAL_TIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class ScheduleForm(forms.Form):
    go_live_at = forms.DateTimeField(label=_("Go live at"), required=False, widget=LOCAL_TIME)
    expire_at = forms.DateTimeField(label=_("Expire at"), required=False, widget=LOCAL_TIME)

    def clean(self) -> dict:
        cleaned = super().clean()
        go_live, expire = cleaned.get("go_live_at"), cleaned.get("expire_at")
        if go_live and go_live <= timezone.now():
            raise forms.ValidationError(
                _("Choose a go-live time in the future; to publish now, use “Publish”.")
            )
        if go_live and expire and expire <= go_live:
            raise forms.ValidationError(_("A revision must expire after it goes live."))
        return cleaned


class RevisionAdminMixin:
    """For GuideAdmin: the revision, publish-confirmation and review pages, and ``_guide_for``
    and ``_render``, which its other pages use too."""

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<path:object_id>/revisions/", view(self.revisions_view),
                 name="guides_guide_revisions"),
            path("<path:object_id>/revisions/compare/", view(self.compare_view),
                 name="guides_guide_compare"),
            # Before the actions' pattern, which "preview" would match too.
            path("<path:object_id>/revisions/<int:revision_id>/preview/",
                 view(self.preview_view), name="guides_guide_revision_preview"),
            path("<path:object_id>/revisions/<int:revision_id>/<str:action>/",
                 view(self.revision_action_view), name="guides_guide_revision_action"),
            path("<path:object_id>/reviews/<int:review_id>/", view(self.review_view),
                 name="guides_guide_review"),
            *super().get_urls(),
        ]  # fmt: skip

    def _render(self, request, template: str, context: dict) -> TemplateResponse:
        """A page of the guide admin's own (``admin/guides/guide/<template>``)."""
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, **context}
        return TemplateResponse(request, f"admin/guides/guide/{template}", context)

    def _guide_for(self, request, object_id, *, change: bool = False) -> Guide:
        guide = self.get_object(request, unquote(object_id))  # None for "abc" too, as Django's
        if guide is None:
            raise Http404(_("No such guide."))
        allowed = self.has_change_permission if change else self.has_view_or_change_permission
        if not allowed(request, guide):
            raise PermissionDenied(
                _("You may view this guide but not change it.")
                if change and self.has_view_permission(request, guide)
                else _("You may not see this guide.")
            )
        return guide

    def revisions_view(self, request, object_id):
        guide = self._guide_for(request, object_id)
        every = revisions.revisions_of(guide)
        # What a submission for review offers: the working copy (a live guide's), or the newest
        # revision of a guide never published.
        newest_unpublished = every[0].pk if every and every[0].published_at is None else None
        pending = (
            Review.objects.filter(guide=guide, state=Review.State.PENDING)
            .select_related("submitted_by")
            .first()
        )
        live = revisions.online_revision(guide)
        draft = revisions.working_copy(guide) if guide.status == Guide.Status.PUBLISHED else None
        rows = [
            {
                "revision": r,
                "is_live": live is not None and r.pk == live.pk,
                "is_draft": draft is not None and r.pk == draft.pk,
                "previews": preview_links(guide, r),
                "schedule_form": ScheduleForm(
                    prefix=f"r{r.pk}",
                    initial={"go_live_at": r.go_live_at, "expire_at": r.expire_at},
                ),
                "goes_live": zoned(r.go_live_at) if r.go_live_at else "",
                "expires": zoned(r.expire_at) if r.expire_at else "",
                "review": pending if pending is not None and pending.revision_id == r.pk else None,
                "submittable": r.pk == newest_unpublished,
            }
            for r in every
        ]
        return self._render(
            request,
            "revisions.html",
            {
                "title": _("Revisions of “%(title)s”") % {"title": guide.title},
                "guide": guide,
                "rows": rows,
                "can_change": self.has_change_permission(request, guide),
                "can_publish": permissions.may_publish(request.user),
                "can_submit": permissions.may_submit(request.user),
                "time_zone": timezone.get_current_timezone_name(),
            },
        )

    def preview_view(self, request, object_id, revision_id: int):
        """The guide's public page as ``revision`` would make it, in the address's language,
        rendered in memory from its stored rows, for whoever may edit that language."""
        guide = self._guide_for(request, object_id)
        language = get_language()
        if not permissions.may_preview_guides(request.user, language):
            raise permissions.NotAllowed(
                _("You may not preview this guide in %(language)s.")
                % {"language": translating.language_name(language)}
            )
        revision = get_object_or_404(GuideRevision, guide=guide, pk=revision_id)
        response = previews.revision_preview(request, revision)
        add_never_cache_headers(response)  # private, no-store: not public yet
        return response

    def compare_view(self, request, object_id):
        guide = self._guide_for(request, object_id)
        try:
            old, new = (
                GuideRevision.objects.select_related("revision__user").get(
                    guide=guide, pk=int(request.GET.get(name, ""))
                )
                for name in ("from", "to")
            )
        except (ValueError, GuideRevision.DoesNotExist):
            raise Http404(_("Choose two revisions of this guide to compare.")) from None
        return self._render(
            request,
            "compare.html",
            {
                "title": _("Changes from revision %(old)s to revision %(new)s")
                % {"old": old.pk, "new": new.pk},
                "guide": guide,
                "old": old,
                "new": new,
                "changes": revisions.compare(old, new),
            },
        )

    def revision_action_view(self, request, object_id, revision_id: int, action: str):
        guide = self._guide_for(request, object_id, change=action != "submit")
        revision = get_object_or_404(GuideRevision, guide=guide, pk=revision_id)
        if action in ("publish", "schedule", "unschedule") and not permissions.may_publish(
            request.user
        ):
            raise permissions.NotAllowed(
                _("Only a reviewer publishes or schedules guides: submit it for review.")
            )
        if action == "publish":
            return self._publish_view(request, guide, revision)
        if request.method != "POST":
            raise Http404
        back = redirect("admin:guides_guide_revisions", guide.pk)
        if action == "submit":
            self._submit(request, revision, request.POST.get("comment", ""))
            return back
        if action == "revert":
            outcome = publishing.revert(revision, user=request.user)
            self.message_user(
                request,
                _("Revision %(new)s is a copy of revision %(old)s: a draft until you publish it.")
                % {"new": outcome.revision.pk, "old": revision.pk},
                messages.SUCCESS,
            )
            say_cancelled(self, request, outcome.cancelled)
            return back
        if action == "schedule":
            form = ScheduleForm(request.POST, prefix=f"r{revision.pk}")
            try:
                if not form.is_valid():
                    raise publishing.ScheduleRefused(
                        "; ".join(str(e) for errs in form.errors.values() for e in errs)
                    )
                cancelled = publishing.schedule(revision, user=request.user, **form.cleaned_data)
            except publishing.ScheduleRefused as refused:
                self.message_user(request, str(refused), messages.ERROR)
                return back
            self.message_user(
                request,
                _("Schedule of revision %(number)s saved.") % {"number": revision.pk},
                messages.SUCCESS,
            )
            say_cancelled(self, request, cancelled)
            return back
        if action == "unschedule":
            publishing.unschedule(revision, user=request.user)
            self.message_user(
                request,
                _("Schedule of revision %(number)s cleared.") % {"number": revision.pk},
                messages.SUCCESS,
            )
            return back
        raise Http404

    def review_view(self, request, object_id, review_id: int):
        """A submitted working copy, which a reviewer approves (publishing it) or sends back."""
        guide = self._guide_for(request, object_id)
        review = get_object_or_404(
            Review.objects.select_related("revision__revision__user", "submitted_by", "decided_by"),
            guide=guide,
            pk=review_id,
        )
        decide = permissions.may_publish(request.user) and review.state == Review.State.PENDING
        sending_back = "send_back" in request.POST
        form = ReviewCommentForm(request.POST or None, required=sending_back)
        if request.method == "POST":
            if not decide:
                raise permissions.NotAllowed(_("Only a reviewer decides a pending review."))
            if form.is_valid():
                comment = form.cleaned_data["comment"]
                if sending_back:
                    publishing.send_back(review, user=request.user, comment=comment)
                    self.message_user(
                        request,
                        _("Revision %(number)s was sent back: its author is told.")
                        % {"number": review.revision_id},
                        messages.SUCCESS,
                    )
                    return redirect("admin:guides_guide_revisions", guide.pk)
                outcome = publishing.approve(review, user=request.user, comment=comment)
                if outcome.published:
                    self.message_user(
                        request,
                        _("Approved: the live page now shows revision %(number)s.")
                        % {"number": review.revision_id},
                        messages.SUCCESS,
                    )
                    say_cancelled(self, request, outcome.cancelled)
                    say_followed(self, request, outcome.followed)
                    return redirect("admin:guides_guide_revisions", guide.pk)
                form.add_error(
                    None,
                    format_html(
                        "{}{}",
                        _("Not published: it fails its checks. Send it back saying so."),
                        problems_list(outcome.problems),
                    ),
                )
        live = revisions.online_revision(guide)
        return self._render(
            request,
            "review.html",
            {
                "title": _("Review of revision %(number)s of “%(title)s”")
                % {"number": review.revision_id, "title": guide.title},
                "guide": guide,
                "review": review,
                "live": live,
                "revision": review.revision,
                # The diff against the live page; for a guide never live, its whole text.
                "changes": revisions.compare(live, review.revision),
                "preview_links": preview_links(guide, review.revision),
                # The copies that approving publishes into (or writes, a draft copy's rows).
                "reached": [
                    (rows.guide, [change.field.label() for change in taken])
                    for rows, taken in families.reach(
                        guide, revisions.live_revision(guide), review.revision
                    )
                ],
                "form": form,
                "decide": decide,
            },
        )

    def _publish_view(self, request, guide: Guide, revision: GuideRevision):
        """Publishing a stored revision: what it changes and cancels (GET), then, confirmed, the
        publication (POST)."""
        after = request.POST.get("next") or request.GET.get("next")
        back = (
            redirect("admin:guides_guide_change", guide.pk)
            if after == "change"
            else redirect("admin:guides_guide_revisions", guide.pk)
        )
        if request.method == "POST":
            outcome = publishing.publish(revision, user=request.user)
            if outcome.problems:
                self.message_user(
                    request,
                    format_html(
                        "{}{}",
                        _("Revision %(number)s was not published: it fails its checks.")
                        % {"number": revision.pk},
                        problems_list(outcome.problems),
                    ),
                    messages.ERROR,
                )
                return redirect("admin:guides_guide_revisions", guide.pk)
            self.message_user(
                request,
                _("Published: the live page now shows revision %(number)s.")
                % {"number": revision.pk},
                messages.SUCCESS,
            )
            say_cancelled(self, request, outcome.cancelled)
            say_followed(self, request, outcome.followed)
            return back
        live = revisions.online_revision(guide)
        if live is not None and live.pk == revision.pk:
            self.message_user(
                request,
                _("Revision %(number)s is live already.") % {"number": revision.pk},
                messages.INFO,
            )
            return back
        draft = revisions.working_copy(guide) if live is not None else None
        return self._render(
            request,
            "publish_confirm.html",
            {
                "title": _("Publish revision %(number)s of “%(title)s”?")
                % {"number": revision.pk, "title": guide.title},
                "guide": guide,
                "revision": revision,
                "live": live,
                "older": live is not None and revision.pk < live.pk,
                "newer_draft": draft if draft is not None and draft.pk > revision.pk else None,
                "changes": revisions.compare(live, revision) if live is not None else None,
                "cancelling": [
                    (r, zoned(r.go_live_at))
                    for r in revisions.pending_go_lives(guide)
                    if r.pk != revision.pk
                ],
                "next": after or "",
            },
        )

    def _submit(self, request, revision: GuideRevision, comment: str) -> None:
        """Submit ``revision`` for review, with the comment checked as any text."""
        form = ReviewCommentForm({"comment": comment})
        if not form.is_valid():
            errors = " ".join(str(e) for e in form.errors["comment"])
            self.message_user(
                request, _("Not submitted for review: %(why)s") % {"why": errors}, messages.ERROR
            )
            return
        publishing.submit_for_review(
            revision, user=request.user, comment=form.cleaned_data["comment"]
        )
        self.message_user(
            request,
            _("Revision %(number)s was submitted for review: the reviewers are told.")
            % {"number": revision.pk},
            messages.SUCCESS,
        )
