"""Fixing one detail of a memory: edit and delete a fact, event, alias or link, each with a
receipt, and undo from that receipt."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import User

from memory.models import Alias, Edge, Event, Evidence, Receipt, Slice
from memory.services import details
from memory.services.details import DetailError
from tests.factories import make_edge, make_event, make_node, make_slice

pytestmark = pytest.mark.django_db


@pytest.fixture
def sofia(owner: User) -> Any:
    return make_node(owner=owner, label="Sofia Almeida", category="person", aliases=("Manager",))


def test_slice_edit_leaves_a_receipt_and_undo_puts_the_words_back(owner: User, sofia: Any) -> None:
    fact = make_slice(node=sofia, text="Is Sofia Almeida")
    receipt = details.slice_update(slice=fact, text="My manager at Northwind", kind="other")
    assert receipt is not None
    fact.refresh_from_db()
    assert fact.text == "My manager at Northwind"
    assert receipt.owner == owner and receipt.source == "review" and receipt.outcome == "wrote"
    assert receipt.detail["before"]["text"] == "Is Sofia Almeida"
    assert "Is Sofia Almeida" in receipt.summary and "Sofia Almeida" in receipt.subject

    details.detail_undo(receipt=receipt)
    fact.refresh_from_db()
    assert fact.text == "Is Sofia Almeida"
    receipt.refresh_from_db()
    assert receipt.undone_at is not None
    with pytest.raises(DetailError, match="undone already"):
        details.detail_undo(receipt=receipt)


def test_an_edit_that_changes_nothing_writes_no_receipt(sofia: Any) -> None:
    fact = make_slice(node=sofia, text="Leads the platform team")
    assert (
        details.slice_update(slice=fact, text="  Leads the   platform team ", kind="other") is None
    )
    assert not Receipt.objects.exists()


@pytest.mark.parametrize("text", ["", "   ", "x" * 2001])
def test_bad_fact_text_is_refused_and_changes_nothing(sofia: Any, text: Any) -> None:
    fact = make_slice(node=sofia, text="Leads the platform team")
    with pytest.raises(DetailError):
        details.slice_update(slice=fact, text=text, kind="other")
    fact.refresh_from_db()
    assert fact.text == "Leads the platform team"


def test_undo_of_an_edit_is_refused_when_the_row_changed_again(sofia: Any) -> None:
    fact = make_slice(node=sofia, text="one")
    first = details.slice_update(slice=fact, text="two", kind="other")
    assert first is not None
    details.slice_update(slice=fact, text="three", kind="other")
    with pytest.raises(DetailError, match="changed again"):
        details.detail_undo(receipt=first)
    fact.refresh_from_db()
    assert fact.text == "three"


def test_delete_a_fact_then_undo_brings_it_back_with_its_evidence(owner: User, sofia: Any) -> None:
    fact = make_slice(node=sofia, text="Is Sofia Almeida")
    quote = Evidence.objects.create(owner=owner, node=sofia, slice=fact, quote="my manager is…")
    fact_id = fact.pk
    receipt = details.detail_delete(row=fact)
    assert not Slice.objects.filter(pk=fact_id).exists()
    quote.refresh_from_db()
    assert quote.slice_id is None
    assert receipt.detail["evidence"] == [quote.pk] and receipt.detail["id"] == fact_id

    details.detail_undo(receipt=receipt)
    restored = Slice.objects.get(pk=fact_id)
    assert restored.text == "Is Sofia Almeida" and restored.node_id == sofia.pk
    quote.refresh_from_db()
    assert quote.slice_id == fact_id


def test_deleting_the_current_progress_makes_the_one_it_replaced_current_again(sofia: Any) -> None:
    old = make_slice(node=sofia, text="hiring two people", kind="progress", is_current=False)
    new = make_slice(node=sofia, text="hired everyone", kind="progress")
    new_id = new.pk
    receipt = details.detail_delete(row=new)
    old.refresh_from_db()
    assert old.is_current and old.superseded_at is None

    details.detail_undo(receipt=receipt)
    old.refresh_from_db()
    assert not old.is_current
    assert Slice.objects.get(pk=new_id).is_current


def test_event_edit_sets_a_day_as_set_by_a_person_and_clears_it(sofia: Any) -> None:
    event = make_event(node=sofia, text="joined Northwind", action="joined")
    details.event_update(
        event=event, text="joined Northwind", action="joined", happened_on=date(2024, 5, 2)
    )
    event.refresh_from_db()
    assert event.happened_at is not None and event.happened_at.date() == date(2024, 5, 2)
    assert (event.happened_at_precision, event.happened_at_source) == ("day", "user")
    receipt = details.event_update(event=event, text="joined Northwind", action="joined")
    assert receipt is not None
    event.refresh_from_db()
    assert event.happened_at is None and event.happened_at_precision == ""
    details.detail_undo(receipt=receipt)
    event = Event.objects.get(pk=event.pk)
    assert event.happened_at is not None and event.happened_at.date() == date(2024, 5, 2)


def test_event_delete_and_undo(sofia: Any) -> None:
    event = make_event(node=sofia, text="paused the web app", action="paused")
    event_id = event.pk
    receipt = details.detail_delete(row=event)
    assert not Event.objects.filter(pk=event_id).exists()
    details.detail_undo(receipt=receipt)
    assert Event.objects.get(pk=event_id).text == "paused the web app"


def test_alias_edit_refuses_a_name_of_another_memory(owner: User, sofia: Any) -> None:
    make_node(owner=owner, label="Tomás", category="person")
    alias = sofia.aliases.get()
    with pytest.raises(DetailError, match="another memory"):
        details.alias_update(alias=alias, text="tomas")
    with pytest.raises(DetailError, match="this memory's label"):
        details.alias_update(alias=alias, text="Sofia Almeida")
    details.alias_update(alias=alias, text="Sofi")
    alias.refresh_from_db()
    assert (alias.alias, alias.canonical_key) == ("Sofi", "sofi")


def test_alias_delete_undo_is_refused_when_the_name_was_taken_meanwhile(
    owner: User, sofia: Any
) -> None:
    alias = sofia.aliases.get()
    receipt = details.detail_delete(row=alias)
    other = make_node(owner=owner, label="Bruno", category="person")
    Alias.objects.create(owner=owner, node=other, alias="Manager", canonical_key="manager")
    with pytest.raises(DetailError, match="already an alias"):
        details.detail_undo(receipt=receipt)
    receipt.refresh_from_db()
    assert receipt.undone_at is None


def test_edge_type_edit_and_delete_with_undo(owner: User, sofia: Any) -> None:
    team = make_node(owner=owner, label="Platform Team", category="project")
    edge = make_edge(from_node=sofia, to_node=team, type="related_to")
    details.edge_update(edge=edge, type="works_with")
    edge.refresh_from_db()
    assert edge.type == "works_with"
    with pytest.raises(DetailError):
        details.edge_update(edge=edge, type="loves")
    edge_id = edge.pk
    receipt = details.detail_delete(row=edge)
    assert not Edge.objects.filter(pk=edge_id).exists()
    details.detail_undo(receipt=receipt)
    assert Edge.objects.get(pk=edge_id).type == "works_with"


def test_undo_of_a_delete_is_refused_once_the_node_is_gone(sofia: Any) -> None:
    fact = make_slice(node=sofia, text="Leads the platform team")
    receipt = details.detail_delete(row=fact)
    sofia.delete()
    with pytest.raises(DetailError, match="was deleted"):
        details.detail_undo(receipt=receipt)
