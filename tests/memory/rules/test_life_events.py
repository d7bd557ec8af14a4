"""Life events: moved, married, born, a baby on the way, diagnosed, injured, recovered, broke up,
joined, left."""

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
        # an adverb before it, or the doctor's doing
        ("I was only diagnosed with ADHD at 34", "ADHD", "diagnosed"),
        ("the GP diagnosed me with sleep apnoea in March", "Sleep Apnoea", "diagnosed"),
        ("I hurt my knee playing football", "Knee Injury", "injured"),
        ("I left Parcelwise last Friday", "Parcelwise", "left"),
        ("I joined Toastmasters in 2022 too", "Toastmasters", "joined"),
        ("we're expecting our second baby in November", "Baby on the Way", "born"),
        ("we are having twins!!", "Twins on the Way", "born"),
    ],
)
def test_life_events(text: Any, label: Any, action: Any) -> None:
    (found,) = events(life_event(clause(text)))
    assert (found.on, found.action) == (label, action)


def test_a_baby_on_the_way_is_dated_by_when_it_is_due() -> None:
    (due,) = events(life_event(clause("we're expecting our first baby in November")))
    assert due.happened_at is not None and due.happened_at.month == 11


@pytest.mark.parametrize(
    "text", ["we're having a party on Saturday", "my sister is expecting a baby in May"]
)
def test_no_baby_of_theirs_on_the_way(text: str) -> None:
    assert not [e for e in events(life_event(clause(text))) if e.on.endswith("on the Way")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("my car broke down on the way to work", "Car"),
        ("our campervan got stolen from outside the house", "Campervan"),
        ("My boiler packed up in the middle of January", "Boiler"),
    ],
)
def test_a_vehicle_or_the_boiler_failing_is_an_event_on_it(text: str, label: str) -> None:
    (found,) = events(life_event(clause(text)))
    assert (found.on, found.category) == (label, "possession")


@pytest.mark.parametrize("text", ["my phone died again", "my car is due a service"])
def test_what_is_no_vehicle_failing(text: str) -> None:
    assert events(life_event(clause(text))) == []
