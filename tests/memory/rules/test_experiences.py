"""Experiences: what the person did, with its time."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.experiences import experience
from tests.memory.rules.helpers import clause, events, nodes


@pytest.mark.parametrize(
    ("text", "label", "category", "action", "precision"),
    [
        (
            "I went to a grief support group yesterday",
            "Grief Support Group",
            "life_event",
            "other",
            "day",
        ),
        ("I ran a charity race last Saturday", "Charity Race", "life_event", "achieved", "day"),
        (
            "I ran my first half marathon last Saturday",
            "Half Marathon",
            "life_event",
            "achieved",
            "day",
        ),
        ("I visited my grandma in Kraków two weeks ago", "Kraków", "place", "other", "week"),
        (
            "We saw a tribute band at the Roundhouse on Friday",
            "Roundhouse",
            "place",
            "other",
            "day",
        ),
        (
            "I did my first solo hike up Ben Nevis on Saturday",
            "Ben Nevis",
            "place",
            "achieved",
            "day",
        ),
        # occasions of a life: a picnic had, a run set up, an event taken part in, a meeting
        # and a convention gone to (how it was done is no part of it)
        ("we had a picnic by the reservoir last Sunday", "Picnic", "life_event", "other", "day"),
        (
            "I set up a sponsored swim at our pool last month",
            "Sponsored Swim",
            "life_event",
            "achieved",
            "month",
        ),
        (
            "I participated in a fun run for the hospice on Saturday",
            "Fun Run",
            "life_event",
            "achieved",
            "day",
        ),
        (
            "Last Friday I went to a parish council meeting",
            "Parish Council Meeting",
            "life_event",
            "other",
            "day",
        ),
        (
            "My sister and I went to a comic convention together last month",
            "Comic Convention",
            "life_event",
            "other",
            "month",
        ),
        ("I passed my driving test yesterday", "Driving Test", "life_event", "achieved", "day"),
        # a report typed without its "I", and coming back from where one went
        (
            "Just got back from a family road trip yesterday",
            "Family Road Trip",
            "life_event",
            "other",
            "day",
        ),
        ("Went to a pottery class last night", "Pottery Class", "life_event", "other", "day"),
        # a class is taken as it is gone to
        (
            "I took a stained glass workshop last Sunday",
            "Stained Glass Workshop",
            "life_event",
            "other",
            "day",
        ),
    ],
)
def test_experiences_are_dated_events(
    text: Any, label: Any, category: Any, action: Any, precision: Any
) -> None:
    (found,) = events(experience(clause(text)))
    assert (found.on, found.category, found.action) == (label, category, action)
    assert found.happened_at is not None and found.happened_at_precision == precision


def test_been_to_a_place_is_a_place_without_a_date() -> None:
    found = experience(clause("I've been to Paris twice but never to Lyon"))
    assert nodes(found) == [("Paris", "place")]
    assert events(found) == []


@pytest.mark.parametrize(
    "text",
    [
        "I went to work",
        "I had coffee with my cousin on Sunday",
        "I run 5k every morning",
        "I went to bed early",
        # taking is going only for a class: not a walk, a photo, a bus or one's mum somewhere
        "I took a walk along the canal on Sunday",
        "I took a photo of the harbour",
        "I took the bus to the hospital",
        "I took my mum to her appointment",
        "I took a class",
        # a meeting, an event, a test or a run: of what, it does not say
        "I went to a meeting yesterday",
        "I went to an event on Friday",
        "I did a run this morning",
        "I had my team meeting at noon",
        "Went well, thanks",
        "Ran out of milk again",
        "Got back from work late",
    ],
)
def test_routines_and_ordinary_days_are_not_experiences(text: Any) -> None:
    assert experience(clause(text)) == []


def test_the_time_is_never_part_of_the_place() -> None:
    (visit,) = events(experience(clause("We visited the Louvre on Sunday")))
    assert (visit.on, visit.category, visit.happened_at_precision) == ("Louvre", "place", "day")


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        # a name leading a phrase that goes on in lower case: the whole phrase
        ("Last month I went to an LGBTQ+ film night", "LGBTQ+ Film Night", "life_event"),
        ("we went to Bondi beach on Sunday", "Bondi Beach", "place"),
        ("I went to Lisbon with my sister", "Lisbon", "place"),
        # kinds of occasion one goes to
        ("I went to a pride parade on Saturday", "Pride Parade", "life_event"),
        ("We went to a climate rally in town yesterday", "Climate Rally", "life_event"),
    ],
)
def test_where_one_went_is_the_whole_phrase_that_names_it(
    text: str, label: str, category: str
) -> None:
    (found,) = events(experience(clause(text)))
    assert (found.on, found.category) == (label, category)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # an occasion of the person's, said with its date as people say it
        ("cardiff half marathon is oct 5, week 3 of training", "Cardiff Half Marathon"),
        ("my citizenship test for reading is 14 may", "Citizenship Test"),
        ("Our housewarming party was on Saturday", "Housewarming Party"),
        ("My dance recital is this weekend!", "Dance Recital"),
    ],
)
def test_an_occasion_said_with_its_date_is_an_event(text: str, label: str) -> None:
    (found,) = events(experience(clause(text)))
    assert (found.on, found.category) == (label, "life_event")


@pytest.mark.parametrize(
    "text",
    [
        "my exam is tomorrow",  # which, it does not say
        "the school concert is on Friday",  # not said as the person's
        "his driving test is on the 3rd",
        "my marathon training is going well",  # no date
        "the meeting is at 3pm",
        "Priya's recital is on Friday",  # someone's, read by the occasion rules
        "my birthday is on 14 January",  # a date of the person's, not an occasion
    ],
)
def test_what_is_no_dated_occasion_of_the_persons(text: str) -> None:
    assert events(experience(clause(text))) == []
