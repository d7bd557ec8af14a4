"""One card per subject, through the database: a new spelling of a subject waiting for review
joins its card (mentions, evidence, held details) instead of making another; near-identical
subjects stay apart."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Candidate, Edge, Evidence, Node
from memory.services.ingest import ingest_proposals
from memory.services.review import candidate_promote
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


def save(owner: Any, *objects: dict[str, Any]) -> None:
    receipt = ingest_proposals(owner=owner, objects=list(objects), name="chat", source="api")
    assert receipt.outcome in {"wrote", "no_write"}, receipt.error


def guess(label: str, quote: str) -> dict[str, Any]:
    return {
        "object": "candidate",
        "label": label,
        "confidence": 0.6,
        "evidence": [{"message_id": "m1", "quote": quote}],
    }


def test_a_second_spelling_in_a_later_save_joins_the_card(owner: Any) -> None:
    save(owner, guess("Pottery class", "I signed up for a pottery class"))
    save(owner, guess("pottery classes", "pottery classes are on Tuesdays now"))
    save(owner, guess("Pottery", "pottery is the best part of my week"))

    (card,) = Candidate.objects.for_owner(owner)
    assert card.label_guess == "Pottery class"
    assert card.fold_key == "pottery"
    assert card.mention_count == 3
    quotes = set(
        Evidence.objects.for_owner(owner).filter(candidate=card).values_list("quote", flat=True)
    )
    assert quotes == {
        "I signed up for a pottery class",
        "pottery classes are on Tuesdays now",
        "pottery is the best part of my week",
    }


def test_near_identical_subjects_stay_two_cards_in_either_order(owner: Any) -> None:
    save(owner, guess("UML", "the UML exam is on Friday"))
    save(owner, guess("UML College Society", "I joined the UML College Society"))
    save(owner, guess("Ana Lopez", "Ana Lopez from the lab called"))
    save(owner, guess("Ana", "Ana is coming round tonight"))
    labels = sorted(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert labels == ["Ana", "Ana Lopez", "UML", "UML College Society"]


def test_another_owners_card_is_never_joined(owner: Any, other_user: Any) -> None:
    theirs = make_candidate(owner=other_user, label="Pottery class")
    save(owner, guess("Pottery classes", "pottery classes on Tuesdays"))
    mine = Candidate.objects.for_owner(owner).get()
    assert mine.label_guess == "Pottery classes"
    theirs.refresh_from_db()
    assert theirs.mention_count == 1


def test_an_edge_held_under_another_spelling_is_written_on_promotion(owner: Any) -> None:
    save(owner, guess("Pottery class", "I signed up for a pottery class"))
    make_node(owner=owner, label="Maya", category="person")
    save(
        owner,
        {
            "object": "edge",
            "from": "pottery classes",
            "to": "Maya",
            "type": "related_to",
            "confidence": 0.9,
            "evidence": [{"message_id": "m2", "quote": "Maya teaches the pottery classes"}],
        },
    )
    card = Candidate.objects.for_owner(owner).get()
    assert len(card.held_objects) == 1
    candidate_promote(candidate=card, by=owner)
    pottery = Node.objects.for_owner(owner).get(label="Pottery class")
    edge = Edge.objects.for_owner(owner).get()
    assert (edge.from_node_id, edge.to_node.label) == (pottery.pk, "Maya")


def test_a_mistyped_label_joins_the_card_said_right_in_either_order(owner: Any) -> None:
    save(owner, guess("Electirc car", "still saving up for an electirc car"))
    save(owner, guess("Electric car", "test drove an electric car on Saturday"))
    save(owner, guess("Scetion for tasks", "added a scetion for tasks to my notes"))
    save(owner, guess("Section for tasks", "the section for tasks is a mess already"))
    cards = {c.label_guess: c for c in Candidate.objects.for_owner(owner)}
    assert sorted(cards) == ["Electirc car", "Scetion for tasks"]
    assert cards["Electirc car"].fold_key == "electric car"
    assert cards["Electirc car"].mention_count == 2


def test_two_names_one_letter_apart_stay_two_cards(owner: Any) -> None:
    save(owner, guess("Marlen Voss", "Marlen Voss runs the choir"))
    save(owner, guess("Marten Voss", "Marten Voss fixed the boiler"))
    save(owner, guess("Potery class", "potery class tonight"))
    save(owner, guess("Poetry class", "poetry class tonight"))
    labels = sorted(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert labels == ["Marlen Voss", "Marten Voss", "Poetry class", "Potery class"]
