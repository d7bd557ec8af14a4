"""Other people, pets and possessives."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.people import mentioned_relations, other_people, possessive
from tests.memory.rules.helpers import clause, events, nodes, slices


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My manager is Sofia Almeida and she wants me to lead it", ("Sofia Almeida", "person")),
        ("My mentor is Dr. Helena Vogt, she runs a lab", ("Helena Vogt", "person")),
        ("my co-treasurer is Émile Durand", ("Émile Durand", "person")),
        ("My manager is Anne-Marie Lefèvre", ("Anne-Marie Lefèvre", "person")),
        ("My daughter Ana is 7", ("Ana", "family")),
        # grandchildren, step- and half-siblings, godchildren and chat's grans are family
        ("my grandson Alfie starts school in September", ("Alfie", "family")),
        ("My nan Peggy still drives at 90", ("Peggy", "family")),
        ("my half-sister Lotte lives in Utrecht", ("Lotte", "family")),
        ("My goddaughter Iris turns five on Friday", ("Iris", "family")),
        ("My neighbour Siobhan O'Neill is a retired teacher", ("Siobhan O'Neill", "person")),
        # described, then named: called or named, or set off by a comma ending the clause
        ("my new boss is a woman called Priyanka, she seems nice", ("Priyanka", "person")),
        ("my manager is the CPO, Tunde.", ("Tunde", "person")),
        ("my sister is the youngest, Chloe, who lives in Leeds", ("Chloe", "family")),
        # chat's short words for a partner or a friend, and the people who work for them
        ("my bf Ruairi hates coriander", ("Ruairi", "relationship")),
        ("my hubby Dev is on nights this week", ("Dev", "relationship")),
        ("my bestie Noor got engaged", ("Noor", "person")),
        ("my accountant Oyelowo filed it late", ("Oyelowo", "person")),
        ("my mechanic Stavros says the clutch is going", ("Stavros", "person")),
    ],
)
def test_people_are_named_with_their_relation(text: Any, expected: Any) -> None:
    assert nodes(other_people(clause(text)))[0] == expected


@pytest.mark.parametrize(
    "text", ["my boss is a nightmare, Tom says", "my sister is a nurse, Anna is a teacher"]
)
def test_a_name_after_a_comma_that_goes_on_is_not_the_relation(text: str) -> None:
    assert all(name not in ("Tom", "Anna") for name, _cat in nodes(other_people(clause(text))))


def test_facts_about_a_person_are_filed_under_them() -> None:
    found = other_people(clause("My friend Tomás hates coriander"))
    assert {s.on for s in slices(found)} == {"Tomás"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My cat Miso has kidney disease", ("Miso", "possession")),
        ("We adopted a dog named Biscuit in April", ("Biscuit", "possession")),
        ("I have a rabbit called Pepper and she is basically family", ("Pepper", "family")),
        ("My vizsla Rolo chews everything", ("Rolo", "possession")),
        ("My ragdoll Tofu sleeps all day", ("Tofu", "possession")),
    ],
)
def test_pets_are_possessions_unless_the_person_says_family(text: Any, expected: Any) -> None:
    assert nodes(other_people(clause(text)))[0] == expected


def test_an_adopted_pet_has_a_dated_start() -> None:
    (adopted,) = events(other_people(clause("We adopted a dog named Biscuit in April")))
    assert (adopted.on, adopted.action, adopted.happened_at_precision) == (
        "Biscuit",
        "started",
        "month",
    )


def test_possessives() -> None:
    assert nodes(possessive(clause("Meera's birthday is on 14 January"))) == [("Meera", "person")]


def test_a_project_the_person_is_asked_to_lead_is_a_project_of_theirs() -> None:
    found = other_people(
        clause(
            "My manager is Sofia Almeida and she wants me to lead the warehouse forecasting project"
        )
    )
    assert ("Warehouse Forecasting Project", "project") in nodes(found)
    assert ("Sofia Almeida", "person") in nodes(found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I had coffee with my cousin Zoë on Sunday", [("Zoë", "family")]),
        ("I'm planning a trip to Lisbon with my sister Dana", [("Dana", "family")]),
        ("I told my sister Meera's husband", [("Meera", "family")]),
        ("I had coffee with my friends", []),
        # a title and a particle are in the name; a day after it is not
        ("I see my counsellor Dr Ines Farrow on Thursdays", [("Dr Ines Farrow", "person")]),
        ("we ate with my landlord Joost van Dam", [("Joost van Dam", "person")]),
        ("I'm meeting my cousin Zoë Friday", [("Zoë", "family")]),
    ],
)
def test_people_mentioned_with_their_relation_anywhere_in_a_clause(
    text: Any, expected: Any
) -> None:
    assert nodes(mentioned_relations(clause(text))) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm engaged to Benedikt, no date yet", [("Benedikt", "relationship")]),
        ("I've been married to Rosalind for eleven years", [("Rosalind", "relationship")]),
        ("honestly I'm dating Kwabena now", [("Kwabena", "relationship")]),
        ("I'm not dating Kwabena", []),
        ("if I got married to Rosalind we'd move", []),
    ],
)
def test_a_partner_said_by_engaged_married_or_dating(text: str, expected: Any) -> None:
    assert nodes(mentioned_relations(clause(text))) == expected


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a pet come home, not named yet: labelled by the animal, without what it is called
        # lovingly
        ("I just adopted this cute pup from a shelter last week", "Pup"),
        ("we got a rescue cat in March", "Rescue Cat"),
        ("We took in two kittens from my neighbour", "Kittens"),
        ("we adopted a retired lurcher", "Retired Lurcher"),
    ],
)
def test_a_pet_come_home_is_a_possession_that_started(text: str, label: str) -> None:
    found = other_people(clause(text))
    assert nodes(found) == [(label, "possession")]
    (started,) = events(found)
    assert started.action == "started"


@pytest.mark.parametrize(
    ("text", "not_a_pet"),
    [
        ("I got a dog bed for the kitchen", "Dog"),  # a thing for a pet
        # the pet is its name's card
        ("We adopted a retired greyhound and named her Pepper", "Retired Greyhound"),
        ("my sister adopted a kitten", "Kitten"),  # someone else's
    ],
)
def test_what_is_no_pet_come_home(text: str, not_a_pet: str) -> None:
    labels = {label for label, _category in nodes(other_people(clause(text)))}
    assert not labels & {not_a_pet, "Dog Bed"}


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("my bf Ruairi hates coriander", "The user's boyfriend"),
        ("my gf Maud plays the oboe", "The user's girlfriend"),
        ("my bestie Noor got engaged", "The user's best friend"),
    ],
)
def test_a_short_word_for_a_relation_is_spelled_out(text: str, relation: str) -> None:
    assert relation in [s.text for s in slices(other_people(clause(text)))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Noor (my niece) starts school in September", ("Noor", "family")),
        ("we're driving Ezra, my great-grandson, to the coast", ("Ezra", "family")),
        ("I sat with Tomasz, my neighbour, all afternoon", ("Tomasz", "person")),
    ],
)
def test_a_relation_set_off_after_the_name_names_them(text: str, expected: Any) -> None:
    c = clause(text)
    assert expected in nodes(mentioned_relations(c))


@pytest.mark.parametrize("text", ["Paris, my favourite city, was lovely", "Thanks, my friend"])
def test_what_is_set_off_and_no_relation_names_no_one(text: str) -> None:
    assert mentioned_relations(clause(text)) == []


def test_a_relation_named_before_it_is_the_one_its_facts_are_about() -> None:
    text = "Ezra, my great-grandson, he'll be two in May"
    found = other_people(clause("my great-grandson, he'll be two in May", text))
    assert {s.on for s in slices(found)} == {"Ezra"}
