"""Forms of the review queue and the upload page. They validate; the services decide."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django import forms
from django.utils import timezone

from memory.vocab import Category, NodeState

TIME_BOXES = {"week": timedelta(days=7), "month": timedelta(days=30), "forever": None}
TIME_BOX_CHOICES = [("forever", "forever"), ("month", "for a month"), ("week", "for a week")]
MAX_ID = 2**63 - 1  # BigAutoField


def until_from(choice: str) -> datetime | None:
    """The end of a suppression's time box; None means for ever."""
    span = TIME_BOXES.get(choice)
    return timezone.now() + span if span else None


class QueueFilterForm(forms.Form):
    """The queue's filters, bound to GET; a value it cannot read is a 400."""

    category = forms.ChoiceField(
        choices=[("", "all categories"), *Category.choices], required=False
    )
    transcript = forms.TypedChoiceField(
        coerce=int, empty_value=None, required=False, label="From", choices=[]
    )
    sort = forms.ChoiceField(
        choices=[
            ("value", "most worth your time first"),
            ("recent", "most recent first"),
            ("confidence", "most confident first"),
            ("least_confident", "least confident first"),
        ],
        required=False,
    )

    def __init__(self, *args: Any, transcripts: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.TypedChoiceField, self.fields["transcript"])
        field.choices = [("", "any source"), *transcripts]

    # The guesses about one subject (memory.triage_selectors.subject_member_ids): the id of
    # the guess that names it. A hidden filter, reached from the grouped view.
    subject = forms.IntegerField(min_value=1, max_value=MAX_ID, required=False)

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "category": data.get("category") or "",
            "transcript": data.get("transcript"),
            "sort": data.get("sort") or "value",
        }

    def is_filtered(self) -> bool:
        keys = ("category", "transcript", "subject")
        return bool(self.is_bound and any(self.data.get(k) for k in keys))


class PromoteForm(forms.Form):
    label = forms.CharField(max_length=200, strip=True)
    category = forms.ChoiceField(choices=Category.choices)
    state = forms.ChoiceField(choices=NodeState.choices, initial=NodeState.ACTIVE)
    keep_guess = forms.BooleanField(
        required=False, help_text="Under a new label, keep the guess as another name (an alias)."
    )
    # The person's answer when the label looks like something they asked to forget: lift that
    # suppression, or keep it and make this memory its exception (empty: not asked yet).
    resemblance = forms.ChoiceField(
        choices=[("", "not decided"), ("lift", "lift"), ("keep", "keep")], required=False
    )


class RejectForm(forms.Form):
    forget = forms.BooleanField(required=False)  # "and forget what was said about it"


class SuppressForm(forms.Form):
    until = forms.ChoiceField(choices=TIME_BOX_CHOICES, required=False)

    def until_value(self) -> datetime | None:
        return until_from(self.cleaned_data.get("until") or "forever")


class MergeForm(forms.Form):
    node = forms.IntegerField(
        min_value=1, error_messages={"required": "Pick a memory to merge into."}
    )
    add_alias = forms.BooleanField(required=False)
    change_state = forms.BooleanField(required=False)


class PreviewForm(forms.Form):
    node = forms.IntegerField(min_value=1, max_value=MAX_ID)
    add_alias = forms.BooleanField(required=False)


class PickerForm(forms.Form):
    q = forms.CharField(max_length=200, required=False, strip=True)


class IdListField(forms.Field):
    """Several ``name=1&name=2`` values as a list of ints."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        if not value:
            return []
        try:
            ids = sorted({int(v) for v in value})
        except (TypeError, ValueError) as exc:
            raise forms.ValidationError("Bad selection.") from exc
        # Past the id column's range the database raises instead of matching nothing.
        if ids and not (ids[0] >= 1 and ids[-1] <= MAX_ID):
            raise forms.ValidationError("Bad selection.")
        return ids


BATCH_CHOICES = [("promote", "promote"), ("reject", "reject"), ("suppress", "suppress")]


class NextField(forms.CharField):
    """Where to go back to after a batch: a page of the review queue, never elsewhere."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, max_length=2000, **kwargs)

    def clean(self, value: Any) -> str:
        value = super().clean(value)
        if not value or not value.startswith("/review/") or "//" in value or "\\" in value:
            return ""
        return str(value)


class BulkForm(forms.Form):
    """A batch on the selected cards."""

    ids = IdListField(error_messages={"required": "Select at least one card first."})
    action = forms.ChoiceField(choices=BATCH_CHOICES)
    until = forms.ChoiceField(choices=TIME_BOX_CHOICES, required=False)
    next = NextField()

    def until_value(self) -> datetime | None:
        if self.cleaned_data["action"] != "suppress":
            return None
        return until_from(self.cleaned_data.get("until") or "forever")


class GroupBatchForm(BulkForm):
    """A batch on a whole group of the grouped view, as the person saw it (``upto``: the
    newest guess on the queue when the page was shown)."""

    ids = None  # type: ignore[assignment]
    by = forms.ChoiceField(choices=[(g, g) for g in ("subject", "category", "conversation")])
    key = forms.CharField(max_length=64)
    upto = forms.IntegerField(min_value=0, max_value=MAX_ID)


class BulkUndoForm(forms.Form):
    batch = forms.IntegerField(
        min_value=1, max_value=MAX_ID, error_messages={"required": "Nothing to undo."}
    )
    next = NextField()


class RestoreForm(forms.Form):
    """Expired guesses to bring back: the selected ones, or all of one cleanup run's."""

    ids = IdListField(required=False)
    receipt = forms.IntegerField(min_value=1, max_value=MAX_ID, required=False)
    next = NextField()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("ids") and not data.get("receipt"):
            raise forms.ValidationError("Select at least one expired guess first.")
        return data


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".txt,.md,.markdown,.json"}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        files = data if isinstance(data, (list, tuple)) else [data]
        files = [f for f in files if f]
        if not files:
            raise forms.ValidationError("Choose one or more transcript files.")
        return files


class UploadForm(forms.Form):
    transcripts = MultipleFileField(label="Transcripts")
    happened_on = forms.DateField(
        required=False,
        label="When did this conversation happen?",
        help_text="Optional. Dates like “last March” are read against this day.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def source_time(self) -> datetime | None:
        day = self.cleaned_data.get("happened_on")
        if day is None:
            return None
        return timezone.make_aware(datetime(day.year, day.month, day.day, 12))
