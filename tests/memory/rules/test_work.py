"""Work: roles, employers and start dates."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.work import employer_lead, work
from tests.memory.rules.helpers import clause, events, nodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm a data engineer at Brightline Logistics",
            [("Data Engineer", "identity"), ("Brightline Logistics", "organization")],
        ),
        (
            "I work as a backend developer at Kestrel & Finch",
            [("Backend Developer", "identity"), ("Kestrel & Finch", "organization")],
        ),
        (
            "I'm the treasurer of the Riverside Allotment Society",
            [("Treasurer", "identity"), ("Riverside Allotment Society", "organization")],
        ),
        ("I've been freelancing as a translator, mostly German", [("Translator", "identity")]),
        ("I'm going freelance as a copywriter", [("Copywriter", "identity")]),
        ("I work at AT&T", [("AT&T", "organization")]),
        (
            "I graduated from the University of Porto in 2019",
            [("University of Porto", "organization")],
        ),
        ("I'm applying to Nordwind Energy", [("Nordwind Energy", "organization")]),
        ("I'm a senior architect now", [("Senior Architect", "identity")]),
        (
            "I joined a new team at Calder Analytics as a product manager",
            [("Product Manager", "identity"), ("Calder Analytics", "organization")],
        ),
    ],
)
def test_roles_and_employers(text: Any, expected: Any) -> None:
    assert nodes(work(clause(text))) == expected


def test_a_new_job_dates_the_start_of_the_role_and_the_employer() -> None:
    found = work(
        clause("I started a new job as a night nurse at St. Brigid's Hospital two weeks ago")
    )
    assert nodes(found) == [("Night Nurse", "identity"), ("St. Brigid's Hospital", "organization")]
    dated = events(found)
    assert {e.action for e in dated} == {"started", "joined"}
    assert all(e.happened_at and e.happened_at_precision == "week" for e in dated)


def test_a_promotion_is_an_achievement_with_its_day() -> None:
    (promoted,) = events(work(clause("I got promoted to team lead yesterday")))
    assert (promoted.on, promoted.action, promoted.happened_at_precision) == (
        "Team Lead",
        "achieved",
        "day",
    )


def test_joined_without_an_object_joins_the_employer_of_its_sentence() -> None:
    sentence = "I'm a data engineer at Brightline Logistics, I joined in March 2024."
    (joined,) = events(work(clause("I joined in March 2024", sentence)))
    assert (joined.on, joined.action) == ("Brightline Logistics", "joined")
    assert joined.happened_at is not None
    assert joined.happened_at.strftime("%Y-%m") == "2024-03"


@pytest.mark.parametrize(
    "text",
    [
        "I'm a huge fan of Studio Ghibli films",
        "I'm a morning person",
        "I'm a member of the book club",
        "I'm tired at work",
    ],
)
def test_what_is_no_role(text: Any) -> None:
    assert work(clause(text)) == []


def test_an_employer_leading_the_sentence_leaves_the_rest_to_read() -> None:
    found, rest = employer_lead(clause("At AT&T I mostly write C++ for billing"))
    assert nodes(found) == [("AT&T", "organization")]
    assert rest is not None and rest.text == "I mostly write C++ for billing"
    assert employer_lead(clause("I mostly write C++")) == ([], None)
