"""Life events: moved, married, born, diagnosed, injured, recovered, broke up, joined, left."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.life_events import life_event
from tests.memory.rules.helpers import clause, events


@pytest.mark.parametrize(
    ("text", "label", "action"),
    [
        ("I moved to Lisbon in June", "Lisbon", "moved"),
        ("I was diagnosed with type 2 diabetes in 2023", "Type 2 Diabetes", "diagnosed"),
        ("I hurt my knee playing football", "Knee Injury", "injured"),
        ("I left Parcelwise last Friday", "Parcelwise", "left"),
        ("I joined Toastmasters in 2022 too", "Toastmasters", "joined"),
    ],
)
def test_life_events(text: Any, label: Any, action: Any) -> None:
    (found,) = events(life_event(clause(text)))
    assert (found.on, found.action) == (label, action)
