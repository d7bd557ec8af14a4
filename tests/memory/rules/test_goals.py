"""Goals, wishes and plans."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.goals import goal
from tests.memory.rules.helpers import clause, events, nodes, slices


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("We're planning a trip to Japan in April 2027, mostly Kyoto", "Trip to Japan"),
        # a stay planned by how long it lasts is a trip to the place
        ("I'm planning three days in Tallinn", "Trip to Tallinn"),
        ("We're planning a long weekend in Ghent in June", "Trip to Ghent"),
        ("I want to ask for a raise before the end of the year", "Raise"),
        ("My goal is to be conversational in Spanish by next summer", "Spanish"),
        ("We hope to buy a house in Bristol within two years", "House in Bristol"),
        ("I'm saving up for a motorbike", "Motorbike"),
        # making one thing into another: the goal is about the first
        # what the pastime is to the person is no part of its name
        ("My goal is to turn my baking hobby into a business", "Baking"),
        ("I'm aiming to turn my dancing passion into a studio", "Dancing"),
        ("I'm aiming to turn my photography into a side income", "Photography"),
    ],
)
def test_goals(text: Any, label: Any) -> None:
    found = goal(clause(text))
    assert nodes(found) == [(label, "goal")]
    assert events(found) == []  # a plan has not happened: its time stays in the text
    assert slices(found)[0].text.startswith(text[:10])


@pytest.mark.parametrize("text", ["I want to learn the piano", "I want to try bouldering"])
def test_wishes_about_activities_are_left_to_the_hedges(text: Any) -> None:
    assert goal(clause(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "I want to go home",
        "I would like to know more about Python",
        "I hope to see you soon",
        "I want to finish this tonight",
    ],
)
def test_wishes_of_the_moment_are_no_goals(text: Any) -> None:
    assert goal(clause(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "My aim is to show patience, even on the bad days",
        "I want to spread kindness wherever I go",
        "I really hope to find peace after this year",
    ],
)
def test_showing_or_passing_on_a_quality_is_a_way_to_be_not_a_goal(text: str) -> None:
    assert goal(clause(text)) == []


def test_a_thing_found_or_shared_with_an_article_or_a_possessive_is_still_a_goal() -> None:
    assert nodes(goal(clause("I hope to find a new job by spring"))) == [("Job", "goal")]
