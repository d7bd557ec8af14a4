"""Projects, decisions and routines: one test module for three small families."""

from __future__ import annotations

import pytest

from memory.extractors.rules.decisions import decision
from memory.extractors.rules.projects import projects
from memory.extractors.rules.routines import routine
from tests.memory.rules.helpers import clause, nodes, slices


def test_projects() -> None:
    assert ("Atlas", "project") in nodes(projects(clause("Atlas is my invoicing app")))


def test_a_loose_verb_makes_a_project_only_when_its_object_names_the_work() -> None:
    assert nodes(projects(clause("I'm writing a book about my grandmother"))) == [
        ("Book", "project")
    ]
    # "my work" later in the clause does not make "a difference" a piece of work
    said = "I wonder if I'm making a difference, but knowing people value my work helps"
    assert projects(clause(said)) == []


def test_decisions() -> None:
    found = decision(clause("let's go with Postgres"))
    assert nodes(found) == [("Postgres", "tool")]
    assert slices(found)[0].kind == "decision"


def test_routines() -> None:
    found = routine(clause("I train boxing three days a week"))
    assert nodes(found) == [("Boxing", "skill")]
    assert slices(found)[0].kind == "progress"
    assert routine(clause("I train three days a week")) == []


def test_a_routine_said_with_been_and_a_gerund() -> None:
    found = routine(clause("I've been swimming twice a week instead"))
    assert nodes(found) == [("Swimming", "habit")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("doing aqua aerobics most Tuesdays now", "Aqua Aerobics"),
        ("playing darts every Friday", "Darts"),
    ],
)
def test_a_routine_led_by_its_carrying_verb_without_i(text: str, label: str) -> None:
    assert label in [n[0] for n in nodes(routine(clause(text)))]


def test_a_carrying_verb_with_nothing_after_it_is_no_routine() -> None:
    assert routine(clause("doing nothing most weekends")) == []


def test_numbered_lines_are_read_without_their_numbers() -> None:
    from memory.extractors.patterns import split_sentences

    assert split_sentences("1. My physio is Dr. Ngozi Adeyemi\n2. I quit vaping.") == [
        "My physio is Dr. Ngozi Adeyemi",
        "I quit vaping.",
    ]


def test_a_project_worked_on_without_a_subject_or_named_as_the_speakers_is_a_project() -> None:
    assert nodes(projects(clause("working on my side project Lanternfish, a weather app"))) == [
        ("Lanternfish", "project")
    ]
    assert nodes(projects(clause("building Quillpad in the evenings"))) == [("Quillpad", "project")]
    assert nodes(projects(clause("my pet project Ferrule is a tiny text editor"))) == [
        ("Ferrule", "project")
    ]
    # an errand is no project
    assert projects(clause("making a cake for my sister's birthday")) == []
