"""The proposal schema: strict about shape, lenient about vocabulary."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memory.proposals import (
    EdgeProposal,
    EventProposal,
    NodeProposal,
    ProposalError,
    SliceProposal,
    dump_proposal,
    parse_proposals,
    proposals_dedupe,
)


def test_unknown_vocabulary_becomes_other_and_unknown_edge_types_are_kept() -> None:
    node, event, slice_, edge = parse_proposals(
        [
            {"object": "node", "label": "Boxing", "category": "Sport", "state": "dormant"},
            {
                "object": "event",
                "on": "Boxing",
                "action": "Teleported",
                "text": "x",
                "importance": "huge",
            },
            {"object": "slice", "on": "Boxing", "text": "x", "kind": "vibe"},
            {"object": "edge", "from": "A", "to": "B", "type": "adores"},
        ]
    )
    assert isinstance(node, NodeProposal) and isinstance(event, EventProposal)
    assert isinstance(slice_, SliceProposal) and isinstance(edge, EdgeProposal)
    assert (node.category, node.state) == ("other", None)
    assert (event.action, event.importance) == ("other", "ordinary")
    assert slice_.kind == "other"
    assert edge.type == "adores"


@pytest.mark.parametrize(
    ("value", "when", "precision"),
    [
        ("2021", datetime(2021, 1, 1, tzinfo=UTC), "year"),
        ("2021-03", datetime(2021, 3, 1, tzinfo=UTC), "month"),
        ("2021-03-05", datetime(2021, 3, 5, tzinfo=UTC), "day"),
        ("2021-03-05T10:30:00+02:00", datetime(2021, 3, 5, 8, 30, tzinfo=UTC), "day"),
    ],
)
def test_partial_dates(value: Any, when: Any, precision: Any) -> None:
    (event,) = parse_proposals([{"object": "event", "on": "X", "text": "t", "happened_at": value}])
    assert isinstance(event, EventProposal)
    assert (event.happened_at, event.happened_at_precision, event.happened_at_source) == (
        when,
        precision,
        "stated",
    )


def test_no_date_means_unknown() -> None:
    (event,) = parse_proposals(
        [{"object": "event", "on": "X", "text": "t", "happened_at_source": "stated"}]
    )
    assert isinstance(event, EventProposal)
    assert (event.happened_at, event.happened_at_precision, event.happened_at_source) == (
        None,
        "",
        "unknown",
    )


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ("nope", "expected a list"),
        ([{"object": "node"}], "0.node.label"),
        ([{"object": "robot", "label": "x"}], "does not match any of the expected tags"),
        ([{"object": "node", "label": "x", "confidence": 7}], "less than or equal to 1"),
        ([{"object": "event", "on": "x", "text": "y", "happened_at": "March"}], "not an ISO date"),
        ([{"object": "node", "label": "x" * 201}], "at most 200 characters"),
        ([{"object": "node", "label": "x"}] * 501, "too many proposed objects"),
    ],
)
def test_bad_proposals_say_where(data: Any, error: Any) -> None:
    with pytest.raises(ProposalError) as info:
        parse_proposals(data)
    assert error in str(info.value)


def test_dump_round_trips() -> None:
    proposals = parse_proposals(
        {
            "objects": [
                {
                    "object": "edge",
                    "from": "Atlas",
                    "to": "Postgres",
                    "type": "uses",
                    "evidence": [{"message_id": "M1", "quote": "q"}],
                },
                {
                    "object": "event",
                    "on": "Berlin",
                    "action": "moved",
                    "text": "moved",
                    "happened_at": "2021-03",
                },
            ]
        }
    )
    assert parse_proposals([dump_proposal(p) for p in proposals]) == proposals


def test_the_same_object_said_again_is_one_with_one_span_per_distinct_message() -> None:
    said = {"object": "slice", "on": "Cello", "kind": "progress", "text": "practises daily"}
    proposals = parse_proposals(
        [
            {**said, "confidence": 0.6, "evidence": [{"message_id": "m1", "quote": "daily"}]},
            {**said, "confidence": 0.9, "evidence": [{"message_id": "m1", "quote": "daily"}]},
            {**said, "confidence": 0.7, "evidence": [{"message_id": "m2", "quote": "daily"}]},
            {**said, "text": "practises weekly", "evidence": [{"message_id": "m3", "quote": "x"}]},
        ]
    )

    merged = proposals_dedupe(proposals)

    assert all(isinstance(p, SliceProposal) for p in merged)
    assert [p.text for p in merged if isinstance(p, SliceProposal)] == [
        "practises daily",
        "practises weekly",
    ]
    assert merged[0].confidence == 0.9
    assert [(s.message_id, s.quote) for s in merged[0].evidence] == [
        ("m1", "daily"),
        ("m2", "daily"),
    ]
