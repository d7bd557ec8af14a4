"""Recall reads what matches, never every row of a person: on SQLite, whose planner has no
table statistics to go on, each query recall sends is checked with ``EXPLAIN QUERY PLAN``.

An ``ORDER BY id`` (or a model's default order) on a lookup by key, or an owner condition
outside a disjunction, makes SQLite walk the index on the owner alone: every node or episode
of the person, read to return a handful (43 ms of a 95 ms recall at 20,000 nodes). The
plan is the same on a tiny table as on a large one, so a small corpus shows it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.recall import recall, vectors
from memory.services.ingest import ingest_text
from tests.factories import make_node, make_page, make_slice
from tests.plans import tables, walks

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "sqlite",
        reason="EXPLAIN QUERY PLAN is SQLite's; PostgreSQL plans from its own statistics",
    ),
]


def save(owner: Any, messages: Any, name: Any) -> None:
    doc = {"objects": [], "messages": messages}
    ingest_text(
        owner=owner,
        text=json.dumps(doc),
        name=name,
        extractor="proposals",
        source_time=datetime(2026, 5, 1, tzinfo=UTC),
    )


@pytest.fixture
def person(owner: User, other_user: User) -> Any:
    for who in (owner, other_user):
        kafka = make_node(owner=who, label="Kafka", category="tool", aliases=("Apache Kafka",))
        make_slice(node=kafka, text="runs the event bus at work")
        make_node(owner=who, label="Kafka Connect", category="tool")
        ana = make_node(owner=who, label="Ana", category="person", aliases=("Ana Lima",))
        make_slice(node=ana, text="runs the bouldering nights")
        make_node(owner=who, label="Sourdough Baking", category="interest")
        make_page(owner=who, title="Kafka Upgrade Notes", summary="what broke", node=kafka)
        for n in range(3):
            save(
                who,
                [
                    {"role": "user", "content": f"Kafka lag spiked again on cluster {n}"},
                    {"role": "assistant", "content": "Did the consumer group rebalance?"},
                    {"role": "user", "content": "Yes, twice"},
                    {"role": "user", "content": "Ana says the bouldering night moved to Friday"},
                ],
                name=f"chat {n}",
            )
    return owner


QUESTIONS = [
    "Kafka",  # a name only
    "what do you remember about Apache Kafka?",  # an alias, with the episode lane's twins
    "did the consumer group rebalance",  # words: the lexical and episode lanes
    "when is the bouldering night with Ana",  # a name and words
    "what are my interests",  # a profile question
    "which bread do I bake",  # the semantic lane
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_no_recall_query_walks_a_persons_rows(person: Any, question: Any) -> None:
    vectors.clear()
    with CaptureQueriesContext(connection) as captured:
        result = recall(person, question)
    assert not result.no_recall, question
    plans = {q["sql"]: walks(q["sql"]) for q in captured.captured_queries}
    assert plans  # recall read something, and every read was checked
    assert {sql[:160]: bad for sql, bad in plans.items() if bad} == {}


@pytest.mark.parametrize("question", ["what are my hobbies", "tell me about me"])
def test_a_profile_question_reads_its_first_nodes_in_index_order(
    person: Any, question: Any
) -> None:
    """The first active nodes of a category come from the index in the lane's order and
    stop at the limit: no sort of every node of the category (of the person, for "about
    me"). (The inactive ones, read only when fewer than the limit are active, are sorted.)"""
    with CaptureQueriesContext(connection) as captured:
        result = recall(person, question)
    assert not result.no_recall
    firsts = [
        q["sql"]
        for q in captured.captured_queries
        if 'FROM "memory_node"' in q["sql"]
        and " LIMIT " in q["sql"]
        and "\"state\" = 'active'" in q["sql"]
        and "NOT (" not in q["sql"]  # the inactive ones
    ]
    assert firsts
    for sql in firsts:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN QUERY PLAN " + sql)
            plan = [row[-1] for row in cursor.fetchall()]
        assert not [line for line in plan if "TEMP B-TREE" in line], (sql, plan)


def test_a_walk_is_caught_when_the_plan_names_a_table_by_its_alias() -> None:
    sql = 'SELECT c.id FROM "memory_episode" c JOIN "memory_episode" AS n ON n.id = c.id'
    episode = "memory_episode"
    assert tables(sql) == {episode: episode, "c": episode, "n": episode}
    # a table without an alias before a JOIN: the joined table's alias is still known
    bare = 'SELECT n.id FROM "memory_node" JOIN "memory_episode" n ON n.id = memory_node.id'
    assert tables(bare) == {"memory_node": "memory_node", episode: episode, "n": episode}
    # every row of c is read (through whichever index SQLite picks); n is read by id
    assert [line.split()[:2] for line in walks(sql)] == [["SCAN", "c"]]
