"""The write path's queries do not grow with what is written: the gate snapshot and a whole
ingest (gate, apply, episodes, recall's index, receipt) run the same number of queries for
two objects of each kind as for a dozen. And the gate's "may belong to" hints are found by
key word, as whole words, kept in step with renames."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.keys import canonical_key
from memory.models import Candidate, MemoryRule, NodeKeyWord
from memory.proposals import parse_proposals
from memory.selectors import gate_snapshot
from memory.services.ingest import ingest_proposals
from memory.services.nodes import node_update
from memory.services.rollback import revision_rollback
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


def _objects(tag: str, count: int) -> list[dict]:
    """``count`` of every kind the gate and apply handle: new nodes with a slice, an event
    that changes their state and an edge; merges into existing nodes with a new alias;
    low-confidence candidates; mentions of pending candidates (bumps)."""
    objects: list[dict] = []
    for i in range(count):
        label = f"{tag} Project {i}"
        span = [{"message_id": f"m{i}", "quote": f"I work on {label}"}]
        objects += [
            {
                "object": "node",
                "label": label,
                "category": "project",
                "confidence": 0.95,
                "evidence": span,
            },
            {
                "object": "slice",
                "on": label,
                "text": f"tuned part {i}",
                "kind": "progress",
                "confidence": 0.95,
                "evidence": span,
            },
            {
                "object": "event",
                "on": label,
                "action": "paused",
                "text": f"paused {label}",
                "confidence": 0.95,
                "evidence": span,
            },
            {
                "object": "node",
                "label": f"{tag} Known {i}",
                "category": "tool",
                "aliases": [f"{tag} K{i}"],
                "confidence": 0.95,
                "evidence": span,
            },
            {
                "object": "candidate",
                "label": f"{tag} Maybe {i}",
                "category": "interest",
                "confidence": 0.6,
                "evidence": span,
            },
            {
                "object": "candidate",
                "label": f"{tag} Pending {i}",
                "category": "interest",
                "confidence": 0.6,
                "evidence": span,
            },
        ]
        if i:
            objects.append(
                {
                    "object": "edge",
                    "from": label,
                    "to": f"{tag} Project {i - 1}",
                    "type": "uses",
                    "confidence": 0.95,
                    "evidence": span,
                }
            )
    return objects


def _store(owner: Any, tag: str, count: int) -> None:
    for i in range(count):
        make_node(owner=owner, label=f"{tag} Known {i}", category="tool")
        make_candidate(owner=owner, label=f"{tag} Pending {i}", category_guess="interest")


def _queries(fn: Any) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


def test_gate_snapshot_queries_do_not_grow_with_the_objects(
    owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    _store(owner, "Small", 2)
    _store(owner, "Large", 12)
    small = parse_proposals(_objects("Small", 2))
    large = parse_proposals(_objects("Large", 12))
    now = timezone.now()
    queries = _queries(lambda: gate_snapshot(owner, small, now=now))
    with django_assert_num_queries(queries):
        snapshot = gate_snapshot(owner, large, now=now)
    # It did load what the large batch names: the existing nodes and the pending candidates.
    assert {n.key for n in snapshot.nodes} >= {canonical_key(f"Large Known {i}") for i in range(12)}
    assert len(snapshot.candidates) == 12


def test_ingest_queries_do_not_grow_with_the_objects(
    owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    _store(owner, "Small", 2)
    _store(owner, "Large", 12)
    queries = _queries(
        lambda: ingest_proposals(
            owner=owner, objects=_objects("Small", 2), name="small", source="command"
        )
    )
    with django_assert_num_queries(queries):
        receipt = ingest_proposals(
            owner=owner, objects=_objects("Large", 12), name="large", source="command"
        )
    # Every kind was written, so each kind's path ran.
    counts = receipt.counts
    assert counts["nodes"] == 12 and counts["slices"] == 12 and counts["events"] == 12
    assert counts["edges"] == 11 and counts["nodes_updated"] == 12
    assert counts["candidates"] == 12 and counts["candidate_bumps"] == 12
    assert len(receipt.detail["updated"]["state_changes"]) == 12
    bumped = Candidate.objects.for_owner(owner).get(canonical_key=canonical_key("Large Pending 3"))
    assert bumped.mention_count == 2 and bumped.evidence.count() == 1


def test_hints_are_whole_key_words_found_by_index(owner: User, other_user: User) -> None:
    atlas = make_node(owner=owner, label="Atlas Invoicing", category="project")
    make_node(owner=owner, label="Atlassian", category="tool")
    make_node(owner=other_user, label="Atlas Gym", category="place")
    proposals = parse_proposals([{"object": "candidate", "label": "Atlas", "confidence": 0.6}])
    snapshot = gate_snapshot(owner, proposals, now=timezone.now())
    # "Atlas" is a word of "atlas invoicing", not of "atlassian"; another owner's node never.
    assert [n.id for n in snapshot.nodes] == [atlas.pk]


def test_key_words_follow_a_rename_and_a_delete(owner: User) -> None:
    node = make_node(owner=owner, label="Atlas Invoicing", category="project")
    node_update(node=node, label="Ledger Invoicing")
    assert set(NodeKeyWord.objects.filter(node=node).values_list("word", flat=True)) == {
        "ledger",
        "invoicing",
    }
    proposals = parse_proposals([{"object": "candidate", "label": "Ledger", "confidence": 0.6}])
    assert [n.id for n in gate_snapshot(owner, proposals, now=timezone.now()).nodes] == [node.pk]
    node.delete()
    assert not NodeKeyWord.objects.exists()


def test_key_words_follow_a_rollback(owner: User) -> None:
    node = make_node(owner=owner, label="Atlas Invoicing", category="project")
    node_update(node=node, label="Ledger Invoicing")
    node.refresh_from_db()
    ledger = node.revision
    node_update(node=node, label="Quill Billing")

    revision_rollback(owner=owner, kind="node", object_id=node.pk, number=ledger)

    assert set(NodeKeyWord.objects.filter(node=node).values_list("word", flat=True)) == {
        "ledger",
        "invoicing",
    }
    proposals = parse_proposals([{"object": "candidate", "label": "Ledger", "confidence": 0.6}])
    assert [n.id for n in gate_snapshot(owner, proposals, now=timezone.now()).nodes] == [node.pk]
    quill = parse_proposals([{"object": "candidate", "label": "Quill", "confidence": 0.6}])
    assert gate_snapshot(owner, quill, now=timezone.now()).nodes == ()
