"""The admin's confirmation for edits of shared data (a GPU, a language model, a method, a
memory rule, a fact) that move published figures, asked of ``signals.shared_data_changing``
(guides answers; pricing never imports guides), and History entries with before and after."""

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


class MovesFigures:
    """What a valid edit moves: the stored record against the edited one (unsaved) and, where
    they count, its edited rows. Refused until the box with exactly these moves' fingerprint
    is ticked (another edit asks again)."""

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
        text = "\n".join(f"{m.guide}|{m.figure}|{m.before}|{m.after}" for m in self.moved)
        self.moved_fingerprint = hashlib.sha256(text.encode()).hexdigest()[:16]
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
    """The inline formset of rows that count (a method's rules, a rule's components): Django
    validates it after the record's form has set ``self.instance``, so both are checked at once."""

    def clean(self):
        super().clean()
        if self.instance._state.adding or any(self.errors) or self.non_form_errors():
            return
        rows = [  # as they will be saved
            form.instance
            for form in self.forms
            if (form.instance.pk or form.has_changed())
            and not (self.can_delete and self._should_delete_form(form))
        ]
        if refused := self.refusal(self.instance, children=rows):
            raise refused


class ConfirmSharedChangesMixin:
    """For the admins of shared data. ``rows_inline``: the inline whose rows the figures read,
    checked with the record (in its formset, then, not in the form)."""

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
