"""Forms of the memory browser. They validate input; the services in memory.services decide."""

from __future__ import annotations

from django import forms

from memory.vocab import Category, EdgeType, EventAction, NodeState, RevisionKind, SliceKind


class NodeFilterForm(forms.Form):
    q = forms.CharField(max_length=200, required=False, strip=True, label="Search")
    category = forms.ChoiceField(
        choices=[("", "all categories"), *Category.choices], required=False
    )
    state = forms.ChoiceField(choices=[("", "any state"), *NodeState.choices], required=False)


class EvidenceFilterForm(forms.Form):
    """Which quotes of a node to list: those of one fact, event or link."""

    of = forms.ChoiceField(choices=[("slice", "fact"), ("event", "event"), ("edge", "link")])
    id = forms.IntegerField(min_value=1)
    page = forms.IntegerField(min_value=1, required=False)


class NodeEditForm(forms.Form):
    label = forms.CharField(max_length=200, strip=True)
    category = forms.ChoiceField(choices=Category.choices)
    state = forms.ChoiceField(choices=NodeState.choices)
    summary = forms.CharField(
        max_length=4000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    # The revision the form was rendered from: a save over a newer one shows both versions.
    revision = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)


class AliasForm(forms.Form):
    alias = forms.CharField(max_length=200, strip=True, label="New alias")


class RevisionForm(forms.Form):
    """An edit form that carries the revision it was rendered from (optional: a form without
    it saves as before)."""

    revision = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)


class SliceEditForm(RevisionForm):
    text = forms.CharField(max_length=2000, strip=True, label="Fact")
    kind = forms.ChoiceField(choices=SliceKind.choices, label="Kind")


class EventEditForm(RevisionForm):
    text = forms.CharField(max_length=2000, strip=True, label="What happened")
    action = forms.ChoiceField(choices=EventAction.choices, label="Action")
    happened_on = forms.DateField(
        required=False,
        label="On",
        help_text="Leave empty when the day is unknown.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )


class AliasEditForm(RevisionForm):
    alias = forms.CharField(max_length=200, strip=True, label="Alias")


class EdgeEditForm(RevisionForm):
    type = forms.ChoiceField(choices=EdgeType.choices, label="Link")


#: The edit form of each kind of detail (the kinds of ``memory.services.details.KINDS``).
DETAIL_FORMS: dict[str, type[forms.Form]] = {
    "slice": SliceEditForm,
    "event": EventEditForm,
    "alias": AliasEditForm,
    "edge": EdgeEditForm,
}


class NodeDeleteForm(forms.Form):
    stick = forms.BooleanField(
        required=False,
        initial=True,
        label="Make it stick",
        help_text="Suppress this label and its aliases, so extraction cannot recreate it.",
    )


class GraphFilterForm(forms.Form):
    category = forms.ChoiceField(
        choices=[("", "all categories"), *Category.choices], required=False
    )


class RestoreForm(forms.Form):
    """ "Restore this version" on a node's History tab."""

    kind = forms.ChoiceField(choices=RevisionKind.choices)
    id = forms.IntegerField(min_value=1)
    revision = forms.IntegerField(min_value=1)


class HistoryPageForm(forms.Form):
    page = forms.IntegerField(min_value=1, required=False)
