"""What makes a guess worth a person's time (memory.triage): pure tables, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.keys import canonical_key
from memory.triage import candidate_value, is_one_off, subject_groups

NOW = datetime(2025, 6, 1, 12, tzinfo=UTC)


def value(sessions: int = 1, mentions: int = 1, confidence: float = 0.7, **when: float) -> float:
    return candidate_value(
        sessions=sessions,
        mentions=mentions,
        confidence=confidence,
        last_said=NOW - timedelta(**when),
    )


@pytest.mark.parametrize(
    ("higher", "lower", "why"),
    [
        (value(3, days=4 * 365), value(1, days=7), "three conversations years ago beat one"),
        (value(2, days=30), value(3, days=5 * 365), "two last month beat three five years ago"),
        (value(5), value(2), "more conversations"),
        (value(1, 4), value(1, 1), "more mentions in one conversation"),
        (value(confidence=0.9), value(confidence=0.6), "more confident"),
        (value(minutes=1), value(minutes=2), "a minute more recent, all else equal"),
        (value(2, 2), value(1, 9), "a second conversation outweighs many mentions in one"),
    ],
)
def test_value_orders_guesses_as_documented(higher: float, lower: float, why: str) -> None:
    assert higher > lower, why


def test_value_does_not_depend_on_when_it_is_read() -> None:
    """It is stored: the order of two guesses never changes as time passes."""
    a = candidate_value(sessions=3, mentions=3, confidence=0.6, last_said=NOW)
    b = candidate_value(
        sessions=1, mentions=1, confidence=0.9, last_said=NOW + timedelta(days=3 * 365)
    )
    assert a == candidate_value(sessions=3, mentions=3, confidence=0.6, last_said=NOW)
    assert a > b


def test_value_without_a_time_and_with_odd_inputs() -> None:
    none = candidate_value(sessions=1, mentions=1, confidence=0.5, last_said=None)
    assert value(confidence=0.5, days=1) > none > 0
    assert candidate_value(sessions=0, mentions=0, confidence=-3, last_said=None) == 0
    assert candidate_value(sessions=1, mentions=1, confidence=7, last_said=None) == candidate_value(
        sessions=1, mentions=1, confidence=1, last_said=None
    )


@pytest.mark.parametrize(
    ("sessions", "mentions", "confidence", "expected"),
    [
        (1, 1, 0.6, True),
        (1, 2, 0.79, True),
        (1, 3, 0.6, False),  # said three times in its one conversation: not a passing mention
        (2, 1, 0.6, False),  # came up again: recurring
        (1, 1, 0.8, False),  # as sure as automatic capture needs
        (1, 1, 0.95, False),
    ],
)
def test_one_off(sessions: int, mentions: int, confidence: float, expected: bool) -> None:
    got = is_one_off(
        sessions=sessions, mentions=mentions, confidence=confidence, auto_confidence=0.8
    )
    assert got is expected


def groups(*labels: str) -> dict[str, str]:
    keys = {i: canonical_key(label) for i, label in enumerate(labels, start=1)}
    roots = subject_groups(keys)
    return {labels[i - 1]: labels[root - 1] for i, root in roots.items()}


def test_guesses_that_name_a_subject_group_under_it() -> None:
    assert groups("Pepper", "Pepper's vet", "greyhound Pepper", "Pepper's vet bill") == {
        "Pepper": "Pepper",
        "Pepper's vet": "Pepper",
        "greyhound Pepper": "Pepper",
        "Pepper's vet bill": "Pepper",
    }


def test_a_subject_is_its_own_group_and_unrelated_guesses_stay_apart() -> None:
    assert groups("Sea swimming", "sea swimming group", "Anki", "Lisbon", "Chess club") == {
        "Sea swimming": "Sea swimming",
        "sea swimming group": "Sea swimming",
        "Anki": "Anki",
        "Lisbon": "Lisbon",
        "Chess club": "Chess club",
    }


def test_grouping_goes_one_way_only_and_never_merges_cards() -> None:
    """ "UML College Society" is shown under "UML" (it names it) but stays its own card; and
    "UML" is never put under the longer name."""
    assert groups("UML College Society", "UML") == {
        "UML College Society": "UML",
        "UML": "UML",
    }
    assert groups("Ana Lopez", "Ana Ferreira") == {
        "Ana Lopez": "Ana Lopez",
        "Ana Ferreira": "Ana Ferreira",
    }


def test_stop_words_and_possessives_do_not_make_a_subject() -> None:
    assert groups("The", "the plan", "my sister's wedding", "Wedding") == {
        "The": "The",
        "the plan": "the plan",
        "my sister's wedding": "Wedding",
        "Wedding": "Wedding",
    }


def test_grouping_is_deterministic_for_twins() -> None:
    keys = {7: "pepper", 3: "pepper", 9: "pepper vet", 2: "our pepper"}
    assert subject_groups(keys) == {3: 3, 7: 3, 9: 3, 2: 3}
