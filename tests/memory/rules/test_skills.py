"""Skills said as what the person is good at or speaks."""

from __future__ import annotations

import pytest

from memory.extractors.rules.skills import skill
from tests.memory.rules.helpers import clause, nodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm good at chess", [("Chess", "skill")]),
        ("I am good with Excel and Python", [("Excel", "skill"), ("Python", "skill")]),
        ("I'm fluent in Welsh", [("Welsh", "skill")]),
        ("I speak Polish and a bit of Dutch", [("Polish", "skill"), ("Dutch", "skill")]),
        ("I'm great at knitting, terrible at baking", [("Knitting", "skill")]),
    ],
)
def test_what_the_person_is_good_at_or_speaks_is_a_skill(text: str, expected: list) -> None:
    assert nodes(skill(clause(text))) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm good at the moment thanks",
        "I'm good with kids",
        "I'm good with that",
        "we are good at home",
        "I'm good in the mornings",
    ],
)
def test_being_well_or_good_with_people_is_no_skill(text: str) -> None:
    assert skill(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I play the viola in a community orchestra", "Viola"),
        ("these days I only play the harmonica, badly", "Harmonica"),
        ("I've played the banjo for thirty years", "Banjo"),
        ("I teach cello on Saturday mornings", "Cello"),
        ("I'm learning the ukulele with my niece", "Ukulele"),
    ],
)
def test_an_instrument_played_taught_or_learned_is_a_skill(text: str, label: str) -> None:
    assert nodes(skill(clause(text))) == [(label, "skill")]


@pytest.mark.parametrize(
    "text", ["I play the long game at work", "I teach maths at a comprehensive", "I play it safe"]
)
def test_what_is_played_and_no_instrument_is_no_skill_here(text: str) -> None:
    assert skill(clause(text)) == []


def test_starting_or_stopping_an_instrument_is_left_to_the_status_recogniser() -> None:
    assert skill(clause("I started learning the viola in March")) == []
    assert skill(clause("I gave up the trombone years ago")) == []
