"""What history costs the write path, in queries: a constant number per write, whatever the
number of objects it writes (the revisions go in with one insert). Measured against the same
write with ``UME_HISTORY`` off."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from memory.models import MemoryRule, Revision
from memory.services.ingest import ingest_proposals
from memory.services.nodes import node_delete, node_update
from tests.factories import make_edge, make_event, make_node, make_slice

pytestmark = pytest.mark.django_db

SKILLS = ["Cello", "Violin", "Piano", "Flute", "Oboe", "Harp", "Banjo", "Tuba"]
GAMES = ["Chess", "Poker", "Bridge", "Sudoku", "Tennis", "Squash", "Rugby", "Hockey"]


def queries(run: Any) -> int:
    with CaptureQueriesContext(connection) as ctx:
        run()
    return len(ctx)


@pytest.mark.parametrize("n", [1, 8])
def test_an_ingest_records_its_history_with_one_query(
    owner: User, settings: Settings, n: Any
) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    warm = [{"object": "node", "label": "Kayak", "category": "skill", "confidence": 0.95}]
    ingest_proposals(owner=owner, objects=warm, name="warm-up", source="upload")

    def save(labels: Any) -> Any:
        objects = [
            {"object": "node", "label": label, "category": "skill", "confidence": 0.95}
            for label in labels[:n]
        ]
        return lambda: ingest_proposals(owner=owner, objects=objects, name="a", source="upload")

    settings.UME_HISTORY = False
    off = queries(save(SKILLS))
    settings.UME_HISTORY = True
    on = queries(save(GAMES))
    assert on - off == 1
    assert Revision.objects.for_owner(owner).filter(kind="node").count() == n + 1


@pytest.mark.parametrize("details", [1, 6])
def test_deleting_a_node_records_every_final_revision_in_six_queries(
    owner: User, settings: Settings, details: Any
) -> None:
    def node_with(label: Any) -> Any:
        node = make_node(
            owner=owner, label=label, aliases=tuple(f"{label} {i}" for i in range(details))
        )
        other = make_node(owner=owner, label=f"{label} partner")
        for i in range(details):
            make_slice(node=node, text=f"fact {i}")
            make_event(node=node, text=f"event {i}")
        make_edge(from_node=node, to_node=other)
        return node

    off_node, on_node = node_with("Boxing"), node_with("Rowing")
    node_delete(node=make_node(owner=owner, label="Warm-up"))
    settings.UME_HISTORY = False
    off = queries(lambda: node_delete(node=off_node))
    settings.UME_HISTORY = True
    on = queries(lambda: node_delete(node=on_node))
    # aliases, slices, events, links and the node read once each, then one insert
    assert on - off == 6
    assert Revision.objects.for_owner(owner).filter(action="deleted").count() == 3 * details + 3


def test_an_edit_records_its_revision_with_one_query(owner: User, settings: Settings) -> None:
    a, b = make_node(owner=owner, label="Boxing"), make_node(owner=owner, label="Rowing")
    node_update(node=make_node(owner=owner, label="Warm-up"), summary="x")
    settings.UME_HISTORY = False
    off = queries(lambda: node_update(node=a, summary="x"))
    settings.UME_HISTORY = True
    on = queries(lambda: node_update(node=b, summary="x"))
    assert on - off == 1
