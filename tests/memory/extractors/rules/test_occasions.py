"""Someone's occasion still to come is a life event labelled as people say it ("Cathal's
Wedding", "Elsie's 7th Birthday"); one that is over, a birthday said as a date, a visit, and a
subject that is no one are not."""

from __future__ import annotations

import pytest

from memory.extractors.rules.occasions import occasion
from memory.extractors.rules.registry import extract
from memory.transcripts import Message
from memory.vocab import Category
from tests.memory.rules.helpers import ANCHOR, clause, events, nodes

EVENT = Category.LIFE_EVENT.value
PERSON = Category.PERSON.value
HEALTH = Category.HEALTH.value


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Elsie turns 7 on the 16th and wants a dinosaur party", "Elsie's 7th Birthday"),
        ("ok so, my nephew Tariq turns 21 in June", "Tariq's 21st Birthday"),
        ("our Rhys turns 18 next month", "Rhys's 18th Birthday"),
        ("my dad turns 62 on Friday", "Dad's 62nd Birthday"),
        ("busy week, anouk turns 40 on saturday", "Anouk's 40th Birthday"),
        ("Mira turns 13 soon", "Mira's 13th Birthday"),
        ("My brother Cathal is getting married on the 27th", "Cathal's Wedding"),
        ("my best friend Jess gets married in May", "Jess's Wedding"),
        ("Priya's getting married in Goa next spring", "Priya's Wedding"),
        ("I'm giving a speech at Dad's retirement do on Friday", "Dad's Retirement"),
        ("we're flying out for Tom's graduation in July", "Tom's Graduation"),
    ],
)
def test_an_occasion_to_come_is_a_life_event_of_its_own(text: str, label: str) -> None:
    found = occasion(clause(text))
    assert (label, EVENT) in nodes(found)
    assert [e.on for e in events(found)] == [label]


def test_the_one_named_is_a_person_and_a_relation_is_left_to_the_people_rules() -> None:
    assert ("Elsie", PERSON) in nodes(occasion(clause("Elsie turns 7 on the 16th")))
    # "my brother Cathal" is theirs: the relation rules read him, as family
    assert nodes(occasion(clause("My brother Cathal is getting married on the 27th"))) == [
        ("Cathal's Wedding", EVENT)
    ]


def test_the_occasion_holds_the_persons_words() -> None:
    (event,) = events(occasion(clause("Elsie turns 7 on the 16th and wants a volcano")))
    assert event.text == "Elsie turns 7 on the 16th and wants a volcano"


@pytest.mark.parametrize(
    "text",
    [
        "We celebrated my daughter's birthday with a concert",  # over
        "a trip we took last year for my daughter Sara's birthday",  # over
        "we went to Tom's graduation and it poured",  # over
        "My husband's birthday falls on 9 October",  # a date of his: the people rules
        "My cousin Lena is visiting next week",  # a visit is not an event of a life
        "she turns 30 next week",  # no one named
        "the price turns 5 percent higher",  # no one at all
        "it turns 5 when you press it",
        "my dog turns 3 tomorrow",  # a pet's: not an occasion of people
        "the bride's wedding is soon",  # a role, not a name
        "I am getting married in June",  # the person's own: the life-event rules
        "Everyone's getting married this year",
    ],
)
def test_what_is_no_ones_occasion_to_come_is_not_one(text: str) -> None:
    assert occasion(clause(text)) == []


def test_the_registry_reads_the_occasion_and_the_relation_both() -> None:
    said = Message("M0", "user", "My brother Cathal is getting married on the 27th.", ANCHOR)
    labels = set(nodes(extract([said])))
    assert ("Cathal's Wedding", EVENT) in labels
    assert ("Cathal", Category.FAMILY.value) in labels


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("my graduation is on the 9th of July", "Graduation"),
        # as chat says it, without "my"
        ("graduation is on the 9th of July!!", "Graduation"),
        ("our wedding is in September", "Wedding"),
        # "the wedding" is theirs when it is being arranged
        ("the wedding is booked for 12 June 2027 at Stanway Barn", "Wedding"),
    ],
)
def test_the_persons_own_occasion_to_come_is_a_life_event(text: str, label: str) -> None:
    assert nodes(occasion(clause(text))) == [(label, Category.LIFE_EVENT.value)]


@pytest.mark.parametrize(
    "text",
    [
        "the wedding is on saturday",  # anyone's
        "the wedding was on saturday",  # over
        "graduation is on my mind",  # no day said
    ],
)
def test_an_occasion_not_the_persons_or_not_to_come_is_not(text: str) -> None:
    assert occasion(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        ("the theory test is booked for the 9th", "Theory Test", EVENT),
        ("my son Ilan has his school recital on Thursday", "School Recital", EVENT),
        ("our twins have their confirmation in April", "Confirmation", EVENT),
        ("signed up for the Kielder half marathon, 4 October", "Kielder Half Marathon", EVENT),
        ("I've got my cataract operation next Wednesday", "Cataract Operation", HEALTH),
        ("my hip replacement's scheduled for the 2nd", "Hip Replacement", HEALTH),
        ("the citizenship interview is on 12 May", "Citizenship Interview", EVENT),
    ],
)
def test_a_day_to_come_named_by_what_it_is_is_an_event(
    text: str, label: str, category: str
) -> None:
    found = occasion(clause(text))
    assert nodes(found) == [(label, category)]
    assert [e.on for e in events(found)] == [label]


@pytest.mark.parametrize(
    "text",
    [
        "I passed my theory test last week",  # over
        "the test is on Monday",  # which test: too general alone
        "we have a party next week",  # the same
        "my cataract operation went well",  # over, and no day
        "the recital is lovely",  # no day to come
        "the interview questions are in a doc",  # no day
        # someone else's day: not the person's nor their family's
        "she has a job interview on Monday",
        "my colleague Tunde has his citizenship hearing in May",
        "they've got the Kielder half marathon next week",
        "he signed up for the Bath half marathon",
    ],
)
def test_a_day_not_to_come_or_not_named_is_no_event(text: str) -> None:
    assert occasion(clause(text)) == []
