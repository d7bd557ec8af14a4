"""A piece of writing wanted in a chat is a request to the assistant, not a goal."""

from __future__ import annotations

import pytest

from memory.extractors.rules.goals import goal
from tests.memory.rules.helpers import clause, nodes


@pytest.mark.parametrize(
    "text",
    [
        "I want a proper 30/60/90 day plan",
        "I'd like a packing checklist for the show",
        "I want a short email to my landlord",
        "I would like a rough itinerary",
    ],
)
def test_writing_wanted_from_the_assistant_is_no_goal(text: str) -> None:
    assert goal(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I want an allotment plot by the river", "Allotment Plot"),
        ("We hope to buy a narrowboat", "Narrowboat"),
        ("I'm saving up for a camper van", "Camper Van"),
    ],
)
def test_a_thing_wanted_for_a_life_is_still_a_goal(text: str, label: str) -> None:
    assert nodes(goal(clause(text))) == [(label, "goal")]
