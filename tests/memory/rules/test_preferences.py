"""Preferences and interests, stated in the common ways."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.preferences import preference
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
    ],
)
def test_preferences(text: Any, expected: Any) -> None:
    assert nodes(preference(clause(text))) == [expected]
