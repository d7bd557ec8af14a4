"""MCP's deletes of observations, relations and held facts go through the services and leave
receipts (``mcp_server.tools``; the tools are called directly, the protocol is in test_mcp)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User

from mcp_server import tools as mcp_tools
from memory.models import Candidate, DeletionBarrier, Edge, Receipt, Slice
from memory.recall import recall
from memory.services import reference_graph
from memory.services.barrier import NEVER
from memory.services.details import detail_delete, detail_undo
from memory.services.tokens import token_create
from tests.factories import make_candidate, make_edge, make_node, make_slice

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(owner: User) -> Any:
    return token_create(owner=owner, name="assistant")[0]


def labels(owner: Any, query: str) -> list[str]:
    return [item.label for item in recall(owner, query).items]


def test_deleting_observations_leaves_an_undoable_receipt_per_fact(
    owner: User, other_user: User, token: Any
) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    make_slice(node=boxing, text="Spars on Sundays")
    make_slice(node=boxing, text="trains with Ana")
    theirs = make_slice(node=make_node(owner=other_user, label="Boxing"), text="spars on sundays")

    result = mcp_tools.delete_observations(
        token, deletions=[{"entityName": "boxing", "observations": ["spars on sundays"]}]
    )

    assert result.payload["results"][0]["deletedObservations"] == ["Spars on Sundays"]
    assert list(boxing.slices.values_list("text", flat=True)) == ["trains with Ana"]
    assert Slice.objects.filter(pk=theirs.pk).exists()  # another person's stays
    (receipt,) = Receipt.objects.for_owner(owner)
    assert (receipt.source, receipt.token_id, receipt.outcome) == ("mcp", token.pk, "wrote")
    assert receipt.detail["action"] == "detail_delete" and receipt.detail["kind"] == "slice"
    assert not Receipt.objects.for_owner(other_user).exists()
    detail_undo(receipt=receipt)  # as the dashboard's deletions, it can be taken back
    assert boxing.slices.filter(text="Spars on Sundays").exists()


def test_deleting_observations_updates_recall_and_raises_the_barrier(
    owner: User, token: Any
) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    make_slice(node=boxing, text="runs a marathon in spring")
    assert labels(owner, "marathon") == ["Boxing"]

    mcp_tools.delete_observations(
        token, deletions=[{"entityName": "Boxing", "observations": ["runs a marathon in spring"]}]
    )

    assert labels(owner, "marathon") == []
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at > NEVER


def test_a_dashboard_delete_updates_recall(owner: User) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    fact = make_slice(node=boxing, text="runs a marathon in spring")
    assert labels(owner, "marathon") == ["Boxing"]
    receipt = detail_delete(row=fact)
    assert labels(owner, "marathon") == []
    detail_undo(receipt=receipt)
    assert labels(owner, "marathon") == ["Boxing"]


def test_deleting_observations_of_a_pending_label_leaves_a_receipt(
    owner: User, other_user: User, token: Any
) -> None:
    held = [
        {"object": "slice", "on": "Piano", "text": "Practises scales", "kind": "other"},
        {"object": "slice", "on": "Piano", "text": "plays Chopin", "kind": "other"},
        {"object": "event", "on": "Piano", "action": "started", "text": "practises scales"},
    ]
    piano = make_candidate(owner=owner, label="Piano", held_objects=held)
    theirs = make_candidate(owner=other_user, label="Piano", held_objects=held)

    result = mcp_tools.delete_observations(
        token, deletions=[{"entityName": "piano", "observations": ["practises scales"]}]
    )

    assert result.payload["results"][0]["deletedObservations"] == ["Practises scales"]
    piano.refresh_from_db()
    assert piano.held_objects == held[1:]  # the fact only, not the event with the same words
    assert Candidate.objects.get(pk=theirs.pk).held_objects == held
    (receipt,) = Receipt.objects.for_owner(owner)
    assert (receipt.source, receipt.token_id, receipt.outcome) == ("mcp", token.pk, "wrote")
    assert receipt.detail == {
        "action": "held_delete",
        "candidate_id": piano.pk,
        "removed": held[:1],
    }
    assert receipt.counts == {"held_deleted": 1}
    assert "Practises scales" in receipt.summary
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at > NEVER


def test_deleting_nothing_writes_nothing(owner: User, token: Any) -> None:
    make_slice(node=make_node(owner=owner, label="Boxing"), text="spars")
    make_candidate(owner=owner, label="Piano", held_objects=[])
    mcp_tools.delete_observations(
        token,
        deletions=[
            {"entityName": "Boxing", "observations": ["never said"]},
            {"entityName": "Piano", "observations": ["never said"]},
            {"entityName": "Nobody", "observations": ["spars"]},
        ],
    )
    assert not Receipt.objects.exists()
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at == NEVER


def test_deleting_relations_leaves_an_undoable_receipt(
    owner: User, other_user: User, token: Any
) -> None:
    rahul, atlas = make_node(owner=owner, label="Rahul"), make_node(owner=owner, label="Atlas")
    make_edge(from_node=rahul, to_node=atlas, type="works_with")
    a, b = make_node(owner=other_user, label="Rahul"), make_node(owner=other_user, label="Atlas")
    theirs = make_edge(from_node=a, to_node=b, type="works_with")

    result = mcp_tools.delete_relations(
        token, relations=[{"from": "Rahul", "to": "Atlas", "relationType": "colleague_of"}]
    )

    assert result.payload["deleted"] == [
        {"from": "Rahul", "to": "Atlas", "relationType": "works_with"}
    ]
    assert list(Edge.objects.all()) == [theirs]
    (receipt,) = Receipt.objects.for_owner(owner)
    assert (receipt.source, receipt.token_id) == ("mcp", token.pk)
    assert receipt.detail["action"] == "detail_delete" and receipt.detail["kind"] == "edge"
    detail_undo(receipt=receipt)
    assert Edge.objects.for_owner(owner).filter(type="works_with").exists()


def test_a_failure_midway_deletes_nothing(owner: User, token: Any) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    make_slice(node=boxing, text="spars")
    piano = make_candidate(
        owner=owner,
        label="Piano",
        held_objects=[{"object": "slice", "on": "Piano", "text": "scales", "kind": "other"}],
    )
    # The graph tools' writes are the domain's (memory.services.reference_graph).
    fails = mock.patch.object(
        reference_graph, "candidate_held_delete", side_effect=RuntimeError("disk full")
    )
    with fails, pytest.raises(RuntimeError):
        mcp_tools.delete_observations(
            token,
            deletions=[
                {"entityName": "Boxing", "observations": ["spars"]},
                {"entityName": "Piano", "observations": ["scales"]},
            ],
        )
    assert boxing.slices.count() == 1 and not Receipt.objects.exists()
    piano.refresh_from_db()
    assert len(piano.held_objects) == 1
