"""The label check through the real write path: fragments listed as bad_label on the receipt,
marked-up transcripts read as text, one suppression for every spelling of a label."""

from __future__ import annotations

import json

from django.contrib.auth.models import User

from memory.models import Candidate
from memory.services.ingest import ingest_text
from memory.services.nodes import node_delete
from memory.services.review import candidate_reject
from tests.factories import make_node


def ev(quote: str = "I use it daily") -> list[dict]:
    return [{"message_id": "M0", "quote": quote}]


def test_fragments_are_rejected_as_bad_label_on_the_receipt(owner: User) -> None:
    doc = json.dumps(
        {
            "objects": [
                {"object": "node", "label": "Going", "evidence": ev()},
                {"object": "node", "label": "<b>R", "evidence": ev()},
                {"object": "candidate", "label": "Few Days", "evidence": ev()},
                {"object": "node", "label": "R&D Tracker", "category": "tool", "evidence": ev()},
            ]
        }
    )
    receipt = ingest_text(owner=owner, text=doc, name="p.json", extractor="proposals")
    assert receipt.rejected == [
        {"kind": "node", "label": "Going", "reason": "bad_label"},
        {"kind": "node", "label": "<b>R", "reason": "bad_label"},
        {"kind": "candidate", "label": "Few Days", "reason": "bad_label"},
    ]
    assert list(Candidate.objects.values_list("label_guess", flat=True)) == ["R&D Tracker"]


def test_an_html_transcript_is_read_as_text(owner: User) -> None:
    text = json.dumps(
        [{"role": "user", "content": "I use a tool called <b>R&amp;D Tracker</b> at work."}]
    )
    receipt = ingest_text(owner=owner, text=text, name="chat.json")
    assert receipt.outcome == "wrote"
    candidate = Candidate.objects.for_owner(owner).get()
    assert candidate.label_guess == "R&D Tracker"
    quotes = set(candidate.evidence.values_list("quote", flat=True))
    assert quotes == {"I use a tool called R&D Tracker at work."}


def test_a_rejected_spelling_blocks_its_marked_up_variant(owner: User) -> None:
    doc = json.dumps(
        {
            "objects": [
                {"object": "node", "label": "D Tracker", "category": "tool", "evidence": ev()}
            ]
        }
    )
    ingest_text(owner=owner, text=doc, name="one.json", extractor="proposals")
    candidate_reject(candidate=Candidate.objects.for_owner(owner).get(), by=owner, suppress=True)
    again = json.dumps(
        {
            "objects": [
                {
                    "object": "node",
                    "label": "<i>D Tracker</i>",
                    "category": "tool",
                    "evidence": ev(),
                }
            ]
        }
    )
    receipt = ingest_text(owner=owner, text=again, name="two.json", extractor="proposals")
    assert receipt.reasons == {"suppressed_blocked": 1}


def test_deleting_a_node_blocks_the_marked_up_spelling_too(owner: User) -> None:
    node = make_node(owner=owner, label="Figma", category="tool")
    node_delete(node=node)
    doc = json.dumps(
        {
            "objects": [
                {"object": "node", "label": "**Figma**", "category": "tool", "evidence": ev()}
            ]
        }
    )
    receipt = ingest_text(owner=owner, text=doc, name="f.json", extractor="proposals")
    assert receipt.reasons == {"suppressed_blocked": 1}
