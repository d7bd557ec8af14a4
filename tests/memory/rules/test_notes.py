"""Notes: remembered sentences and terse notes with a time."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.notes import remembered_note, timed_note
from tests.memory.rules.helpers import clause, nodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Gym at 6", [("Gym", "habit")]),
        ("Dentist on Friday", [("Dentist", "other")]),
        ("Piano lessons at 5pm", [("Piano Lessons", "other")]),
    ],
)
def test_timed_notes(text: Any, expected: Any) -> None:
    assert nodes(timed_note(clause(text))) == expected


@pytest.mark.parametrize("text", ["See you at 6", "I left at 6", "Meet at noon", "It is at 6"])
def test_timed_notes_need_a_thing_not_a_sentence(text: Any) -> None:
    assert timed_note(clause(text)) == []


def test_a_remembered_note_is_filed_under_its_named_subject() -> None:
    assert nodes(remembered_note(clause("the Atlas launch slipped a week"))) == [("Atlas", "other")]
