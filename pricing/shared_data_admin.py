"""The admin's confirmation for edits of shared data (a GPU, a language model, a method, a
memory rule, a fact): an edit that moves published figures is saved only once confirmed, and
the History keeps each change's before and after. The figures are asked of
``pricing.signals.shared_data_changing``, which guides answers (pricing never imports guides).
"""

import hashlib

from django import forms
from django.contrib.admin.utils import construct_change_message
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override as translation_override

from pricing import services
from pricing.domain import formatting
from pricing.signals import MOVE_FACTOR, shared_data_changing

CONFIRM_SHARED_FIELD = "confirm_shared_change"
CONFIRM_SHARED = _("Save it: these published figures change")


def moved_fingerprint(moved) -> str:
    """What the confirmation box confirms: exactly these moves (another edit asks again)."""
    text = "\n".join(f"{m.guide}|{m.figure}|{m.before}|{m.after}" for m in moved)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class MovesFigures:
    """What an edit of shared data moves, asked of ``shared_data_changing`` once the edit is
    valid: the stored record, the edited one (held in memory, not saved) and, where the edit
    includes its rows (a method's rules, a rule's components), the edited rows. Where the
    answers name published figures, the edit is refused until the box with their fingerprint
    is ticked. Mixed into a ModelForm (``AsksBeforeMovingFigures``) or, where rows count, into
    the inline formset of those rows (``AsksBeforeMovingFiguresWithRows``)."""

    moved: tuple = ()
    moved_fingerprint = ""

    def refusal(self, after, children=None) -> forms.ValidationError | None:
        before = type(after).objects.get(pk=after.pk)
        answers = shared_data_changing.send(
            sender=type(after), before=before, after=after, children=children
        )
        self.moved = tuple(moved for _receiver, found in answers for moved in found)
        if not self.moved:
            return None
        self.moved_fingerprint = moved_fingerprint(self.moved)
        if self.data.get(CONFIRM_SHARED_FIELD) == self.moved_fingerprint:
            return None
        return forms.ValidationError(
            _(
                "This change moves %(count)s published figures by more than "
                "%(factor)s× (or changes a recommendation or a fit), listed below. "
                "Check them, tick “%(confirm)s” and save again."
            ),
            code="confirm_shared_change",
            params={
                "count": len(self.moved),
                "factor": formatting.number(MOVE_FACTOR, services.current_locale()),
                "confirm": CONFIRM_SHARED,
            },
        )


class AsksBeforeMovingFigures(MovesFigures):
    """A ModelForm of shared data without rows that count (a GPU, a language model, a fact)."""

    def _post_clean(self):
        super()._post_clean()
        if self._errors or self.instance._state.adding or not self.has_changed():
            return
        if refused := self.refusal(self.instance):
            self.add_error(None, refused)


class AsksBeforeMovingFiguresWithRows(MovesFigures):
    """The inline formset of a record's rows that count (a method's rules, a rule's
    components): Django validates it after the record's form, with that form's values applied
    to ``self.instance`` (not saved), so the edit of both is checked at once."""

    def clean(self):
        super().clean()
        if self.instance._state.adding or any(self.errors) or self.non_form_errors():
            return
        # The rows as they will be saved: the stored ones and the filled-in new ones, less
        # those ticked for deletion.
        kept = [form for form in self.forms if form.instance.pk or form.has_changed()]
        rows = [
            form.instance
            for form in kept
            if not (self.can_delete and self._should_delete_form(form))
        ]
        if refused := self.refusal(self.instance, children=rows):
            raise refused


class ConfirmSharedChangesMixin:
    """For the admins of a GPU, a language model, a method, a memory rule and a fact, which
    every guide quoting them reads: an edit that moves a published figure by more than
    MOVE_FACTOR is saved only once confirmed, naming the guides and figures (computed by
    guides.editorial.shared_changes over the edited values, nothing saved); the History keeps
    each change's before and after. ``rows_inline``: the inline whose rows the figures read,
    checked with the record (then the check runs in its formset, not in the form)."""

    change_form_template = "admin/pricing/shared_change_form.html"
    rows_inline: type | None = None

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if self.rows_inline is not None:
            return form
        return type(form.__name__, (AsksBeforeMovingFigures, form), {})

    def get_formsets_with_inlines(self, request, obj=None):
        for formset, inline in super().get_formsets_with_inlines(request, obj):
            if isinstance(inline, self.rows_inline or ()):
                formset = type(formset.__name__, (AsksBeforeMovingFiguresWithRows, formset), {})
            yield formset, inline

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        checked = [context["adminform"].form] + [
            inline.formset for inline in context.get("inline_admin_formsets", [])
        ]
        asked = next((each for each in checked if getattr(each, "moved", ())), None)
        context["shared_confirmation"] = {
            "moved": asked.moved if asked else (),
            "name": CONFIRM_SHARED_FIELD,
            "value": asked.moved_fingerprint if asked else "",
            "label": CONFIRM_SHARED,
        }
        return super().render_change_form(request, context, add, change, form_url, obj)

    def construct_change_message(self, request, form, formsets, add=False):
        """As Django's, with each changed field's value before and after ("BF16 dense TFLOPS:
        989.0 → 9895.0"), kept in no language like Django's labels."""
        message = construct_change_message(form, formsets, add)
        if add or not form.changed_data:
            return message
        with translation_override(None):
            fields = [
                f"{form.fields[name].label or name}: {_shown(form.initial.get(name))} → "
                f"{_shown(form.cleaned_data.get(name))}"
                for name in form.changed_data
            ]
        for entry in message:
            if "changed" in entry and "name" not in entry["changed"]:
                entry["changed"]["fields"] = fields
        return message


def _shown(value) -> str:
    """A value as the History writes it: a related record by its name, none as "—"."""
    return "—" if value is None or value == "" else str(value)
