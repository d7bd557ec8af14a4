"""Work: roles, employers and start dates."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.work import employer_lead, lost_job, work
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
        # an employer in lower case leaves the role said
        ("I'm a teacher at a small village school", [("Teacher", "identity")]),
        ("I work as a carer in a care home", [("Carer", "identity")]),
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
        "I'm a regular at the pub",
        "I was a mess for weeks",
        # a thing being made or done for someone: an article or someone's inside it
        "I'm knitting a scarf for Dilys",
        "I'm baking my sister a cake for Bartek",
    ],
)
def test_what_is_no_role(text: Any) -> None:
    assert work(clause(text)) == []


def test_an_employer_leading_the_sentence_leaves_the_rest_to_read() -> None:
    found, rest = employer_lead(clause("At AT&T I mostly write C++ for billing"))
    assert nodes(found) == [("AT&T", "organization")]
    assert rest is not None and rest.text == "I mostly write C++ for billing"
    assert employer_lead(clause("I mostly write C++")) == ([], None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a job lost is left, on the role and the employer where they are named
        (
            "I lost my job as a sous chef at the Harbour Hotel in June",
            [
                ("Sous Chef", "identity", "left"),
                ("Harbour Hotel", "organization", "left"),
            ],
        ),
        (
            "I was fired from Halvorsen Marine last week",
            [
                ("Halvorsen Marine", "organization", "left"),
            ],
        ),
        # a clipped sentence says it too
        ("Lost my job as a welder yesterday", [("Welder", "identity", "left")]),
        # nothing named: the job itself
        ("I got laid off from the warehouse in March", [("Job", "organization", "left")]),
        ("we were made redundant when the depot closed", [("Job", "organization", "left")]),
    ],
)
def test_a_job_lost_is_left(text: str, expected: list[tuple[str, str, str]]) -> None:
    found = work(clause(text))
    assert [(e.on, e.category, e.action) for e in events(found)] == expected
    assert all(e.importance == "important" for e in events(found))


@pytest.mark.parametrize(
    "text",
    ["I lost my keys on the bus", "I got fired up about the rent", "I lost my temper"],
)
def test_what_is_no_job_lost(text: str) -> None:
    assert lost_job(clause(text)) == []


def test_a_graduation_without_a_school_named_is_a_life_event() -> None:
    (found,) = events(work(clause("I graduated from college last week")))
    assert (found.on, found.category, found.action) == ("Graduation", "life_event", "achieved")
    assert found.happened_at is not None
    # a school named is the school, as before
    (named,) = events(work(clause("I graduated from the University of Porto in 2019")))
    assert named.on == "University of Porto"


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("spent thirty years as a quantity surveyor", "Quantity Surveyor"),
        ("I've spent a decade working as a carpenter", "Carpenter"),
        # where the work was done ends the role
        ("I spent six years as a welder on oil rigs", "Welder"),
    ],
)
def test_years_spent_as_a_role_are_the_role(text: str, role: str) -> None:
    assert (role, "identity") in nodes(work(clause(text)))


def test_a_role_english_also_uses_as_an_adjective_is_kept() -> None:
    from memory.extractors.subjects import extract
    from memory.proposals import NodeProposal
    from memory.transcripts import Message

    found = extract(
        [Message(id="M0", role="user", content="I'm principal of a small primary school in Cobh")],
    )
    assert ("Principal", "identity") in [
        (x.label, x.category) for x in found if isinstance(x, NodeProposal)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "i start at Pellworth Bank as a data analyst next month",
            [("Data Analyst", "identity"), ("Pellworth Bank", "organization")],
        ),
        (
            "I joined Kestrel & Finch as a junior designer in May",
            [("Junior Designer", "identity"), ("Kestrel & Finch", "organization")],
        ),
    ],
)
def test_a_job_started_at_an_employer_as_a_role_is_both(text: str, expected: list) -> None:
    assert nodes(work(clause(text))) == expected
