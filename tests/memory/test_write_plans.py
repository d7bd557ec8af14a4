"""The write path reads what it touches, never every row of a person: on SQLite (no table
statistics), each query of an ingest that supersedes facts and rewrites key words is checked
with ``EXPLAIN QUERY PLAN`` (see tests/plans.py). At 100,000 nodes, an ingest of three
objects took 186 ms, 57 of them locking the node's current facts by walking every slice of
the person, 5 more deleting key words through every key word of the person."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.models import MemoryRule, NodeKeyWord
from memory.services.ingest import ingest_proposals
from memory.services.nodes import node_update
from tests.factories import make_node, make_slice
from tests.plans import walks

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "sqlite",
        reason="EXPLAIN QUERY PLAN is SQLite's; PostgreSQL plans from its own statistics",
    ),
]


@pytest.fixture
def stored(owner: User, other_user: User) -> Any:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    for who in (owner, other_user):
        for i in range(4):
            node = make_node(owner=who, label=f"Garden Bed {i}", category="project")
            make_slice(node=node, text=f"planted row {i}", kind="progress")
    return owner


def _checked(fn: Any) -> dict[str, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        fn()
    plans = {
        q["sql"]: walks(q["sql"])
        for q in captured.captured_queries
        if q["sql"].lstrip().upper().startswith(("SELECT", "DELETE", "UPDATE"))
    }
    assert plans
    return {sql[:200]: bad for sql, bad in plans.items() if bad}


def test_an_ingest_that_supersedes_facts_reads_only_what_it_touches(stored: Any) -> None:
    def ingest() -> None:
        receipt = ingest_proposals(
            owner=stored,
            objects=[
                {
                    "object": "node",
                    "label": "Garden Bed 1",
                    "category": "project",
                    "confidence": 0.95,
                },
                {
                    "object": "slice",
                    "on": "Garden Bed 1",
                    "text": "harvested the beans",
                    "kind": "progress",
                    "confidence": 0.95,
                },
                {
                    "object": "node",
                    "label": "Compost Heap",
                    "category": "project",
                    "confidence": 0.95,
                },
                {
                    "object": "slice",
                    "on": "Compost Heap",
                    "text": "turned it twice",
                    "kind": "progress",
                    "confidence": 0.95,
                },
            ],
            name="garden",
            source="command",
        )
        assert receipt.counts["superseded"] == 1

    assert _checked(ingest) == {}


def test_a_rename_rewrites_key_words_by_node(stored: Any) -> None:
    node = make_node(owner=stored, label="Herb Spiral", category="project")

    def rename() -> None:
        node_update(node=node, label="Herb Garden Spiral")

    assert _checked(rename) == {}
    words = set(NodeKeyWord.objects.filter(node=node).values_list("word", flat=True))
    assert words == {"herb", "garden", "spiral"}
