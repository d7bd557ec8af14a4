"""Status changes: state from tense and verbs, category from what the thing is."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.status import status_change
from tests.memory.rules.helpers import clause, events, nodes, slices


@pytest.mark.parametrize(
    ("text", "label", "category", "action"),
    [
        ("I stopped drinking coffee two weeks ago", "Coffee", "habit", "stopped"),
        ("I quit smoking in January", "Smoking", "habit", "stopped"),
        # a habit's gerund with only a time after it is the habit, not a lead-in to cut
        ("I quit drinking last year", "Drinking", "habit", "stopped"),
        ("I quit drinking coffee in March", "Coffee", "habit", "stopped"),
        ("I gave up sugar three weeks ago", "Sugar", "habit", "stopped"),
        (
            "I started volunteering at the animal shelter on Saturdays",
            "Volunteering",
            "habit",
            "started",
        ),
        ("I started boxing last week", "Boxing", "skill", "started"),
        ("I've put piano lessons on hold", "Piano Lessons", "skill", "paused"),
        ("I finished the quarterly report", "Quarterly Report", "project", "completed"),
        ("I got into running during lockdown", "Running", "habit", "started"),
        # starting something with an article founds it; a habit stays a habit
        ("I'm starting a bakery because I love bread", "Bakery", "project", "started"),
        ("we started a community garden on our street", "Community Garden", "project", "started"),
        ("I started a new diet in March", "Diet", "habit", "started"),
        # taken up, packed in, got into by another's doing
        ("I have taken up birdwatching since I retired", "Birdwatching", "skill", "started"),
        ("I've packed in golf, sold the clubs", "Golf", "habit", "stopped"),
        ("the dads from school got me into sea swimming", "Sea Swimming", "habit", "started"),
        # "some" before a noun is no pronoun
        ("I took up some volunteering at the food bank", "Volunteering", "habit", "started"),
    ],
)
def test_status_changes(text: Any, label: Any, category: Any, action: Any) -> None:
    (found,) = events(status_change(clause(text)))
    assert (found.on, found.category, found.action) == (label, category, action)


def test_a_routine_stated_in_the_sentence_makes_the_activity_a_habit() -> None:
    sentence = "I picked up surfing, I go every Sunday morning."
    found = status_change(clause("I picked up surfing", sentence))
    assert nodes(found) == [("Surfing", "habit")]


def test_learning_something_is_a_skill_in_progress() -> None:
    found = status_change(clause("I've been learning Kotlin for about three months"))
    assert nodes(found) == [("Kotlin", "skill")]
    assert events(found) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("my dutch is not so good yet, i am doing the course in the evenings", "Dutch"),
        ("my Spanish grammar is rusty", "Spanish"),
        ("honestly my welsh needs work", "Welsh"),
        ("sorry my english.", "English"),
    ],
)
def test_a_language_said_as_the_persons_own_is_a_skill(text: str, label: str) -> None:
    assert nodes(status_change(clause(text))) == [(label, "skill")]


@pytest.mark.parametrize(
    "text",
    [
        "my French teacher is lovely",  # someone of theirs
        "my italian nonna makes pasta",
        "I love my english breakfast",  # a thing, not the language
        "the french are on strike",  # not the person's
    ],
)
def test_a_language_word_that_is_not_the_persons_language_is_no_skill(text: str) -> None:
    assert status_change(clause(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "we got into the accident on the way back from the coast",
        "I got into an argument with the landlord",
        "we were getting into a taxi when it started pouring",
    ],
)
def test_getting_into_a_thing_or_a_situation_is_no_pastime_taken_up(text: str) -> None:
    assert status_change(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        # a course being taken or done these days
        ("I've been taking a bookbinding class lately", "Bookbinding Class", "skill"),
        ("we're doing a first-aid course at the community centre", "First-aid Course", "skill"),
        ("I am taking Welsh lessons", "Welsh Lessons", "skill"),
        # an activity being done: a habit's word, or a rarer one the lexicon may not know
        ("I'm doing capoeira twice a week", "Capoeira", "habit"),
        ("I'm doing yoga again", "Yoga", "habit"),
        ("I've been doing kickboxing since the spring", "Kickboxing", "skill"),
        # typed without an apostrophe
        ("im doing a coding bootcamp in the evenings", "Coding Bootcamp", "skill"),
        # off to do it
        ("I'm off to do some capoeira!", "Capoeira", "habit"),
    ],
)
def test_what_the_person_is_doing_these_days(text: str, label: str, category: str) -> None:
    found = status_change(clause(text))
    assert nodes(found) == [(label, category)]
    (detail,) = slices(found)
    assert detail.kind == "progress"


@pytest.mark.parametrize(
    "text",
    [
        # chores, work and how one is: no activity
        "I'm doing the dishes",
        "I'm doing great, thanks",
        "I'm doing swimmingly",
        "I've been doing research for my thesis",
        "I'm doing my best",
        "I'm doing a lot of thinking",
        # taking something that is not a course
        "I'm taking a break",
        "I'm taking my kids to the park",
        "we are taking the train",
        "that got me into trouble",
        "I'm off to do the shopping",
    ],
)
def test_doing_what_is_no_activity(text: str) -> None:
    assert status_change(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I have also given up my chess club on Mondays", "Chess Club"),
        # a sport retired from, typed as chat types it
        ("ive officially retired from hockey", "Hockey"),
    ],
)
def test_a_pastime_given_up_or_retired_from_is_stopped(text: str, label: str) -> None:
    found = status_change(clause(text))
    assert [(e.on, e.action) for e in events(found)] == [(label, "stopped")]


def test_retiring_from_a_job_is_no_pastime_stopped() -> None:
    assert status_change(clause("I retired from the council in 2019")) == []
