"""Forms of the memory browser. They validate input; the services in memory.services decide."""

from __future__ import annotations

from django import forms

from memory.vocab import Category, NodeState


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


class AliasForm(forms.Form):
    alias = forms.CharField(max_length=200, strip=True, label="New alias")


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
