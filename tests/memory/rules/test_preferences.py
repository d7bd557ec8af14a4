"""Preferences and interests, stated in the common ways."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.preferences import diet, preference
from tests.memory.rules.helpers import clause, nodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a huge fan of Studio Ghibli films", ("Studio Ghibli", "preference")),
        (
            "I can't stand horror movies, so skip those in the recommendations",
            ("Horror Movies", "preference"),
        ),
        ("lately I'm really into bouldering", ("Bouldering", "interest")),
        ("I'd rather take the train than fly", ("Train", "preference")),
        ("I love sushi", ("Sushi", "preference")),
        ("My favourite pizza is Pepperoni", ("Pizza", "preference")),
        # what is played is the pastime, not the playing
        ("I like to play squash on Fridays", ("Squash", "preference")),
        ("I love to play the oboe", ("Oboe", "preference")),
        # how much, said where a learner of English says it
        ("I like very much to play squash", ("Squash", "preference")),
        ("I like to knit", ("Knitting", "preference")),
    ],
)
def test_preferences(text: Any, expected: Any) -> None:
    assert nodes(preference(clause(text))) == [expected]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        # where, with whom or for whom a thing is liked qualifies it; the thing is the subject
        ("I love hiking with my dog", "Hiking"),
        ("I hate driving in the city", "Driving"),
        ("I prefer tea with my breakfast", "Tea"),
        ("I enjoy sea swimming, it clears my head and calms my body", "Sea Swimming"),
        ("I love hunting for vintage lamps for my flat", "Hunting"),
        # a light verb names no pastime: its object does
        ("I like to use Vim for my work", "Vim"),
        ("I love to go sailing", "Sailing"),
        # a choice made within a context is a preference there
        ("I prefer tabs over spaces in Python", "Python"),
    ],
)
def test_the_thing_liked_is_the_subject_not_where_it_is_liked(text: str, subject: str) -> None:
    assert nodes(preference(clause(text))) == [(subject, "preference")]


@pytest.mark.parametrize(
    "text",
    [
        "I don't want my kids to go through what I did",
        "I do not want the neighbours to think we're rude",
    ],
)
def test_not_wanting_someone_to_do_something_is_no_dislike_of_them(text: str) -> None:
    assert preference(clause(text)) == []


def test_not_wanting_a_thing_is_still_a_dislike() -> None:
    assert nodes(preference(clause("I don't want sugar in my coffee"))) == [("Sugar", "preference")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My new hobby is bouldering", [("Bouldering", "interest")]),
        (
            "our hobbies are hiking, sea swimming and board games",
            [("Hiking", "interest"), ("Sea Swimming", "interest"), ("Board Games", "interest")],
        ),
        ("My hobby at the moment is woodturning", [("Woodturning", "interest")]),
        # what the hobby is like, not what it is
        ("My hobby is a mess honestly", []),
        ("my hobby is getting expensive", []),
    ],
)
def test_a_hobby_said_as_what_it_is(text: str, expected: list[tuple[str, str]]) -> None:
    assert nodes(preference(clause(text))) == expected


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I've been pescatarian since the new year", "Pescatarian"),
        ("I'm fully vegan now", "Vegan"),
        ("we keep kosher at home", "Kosher"),
        ("I went gluten-free in the autumn", "Gluten-free"),
    ],
)
def test_how_the_person_eats_is_a_preference(text: str, label: str) -> None:
    assert nodes(diet(clause(text))) == [(label, "preference")]


@pytest.mark.parametrize(
    "text",
    [
        "my flatmate is vegan",  # someone else's
        "I'm not vegetarian, just picky",  # denied
        "if I went vegan I'd miss cheese",  # a supposition
        "I need vegan options for the party",  # food for others
    ],
)
def test_what_is_not_how_the_person_eats_is_no_diet(text: str) -> None:
    assert diet(clause(text)) == []
