"""What a question asks for, and whether a message could answer it. Pure tables."""

from __future__ import annotations

import pytest

from memory.recall.slots import (
    MISSING_SLOT_FACTOR,
    ONLY_NAMES_FACTOR,
    PERSON,
    PLACE,
    QUANTITY,
    TIME,
    Slot,
    asked_kind,
    holds_kind,
    names_of,
    only_names,
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("when is Jess's birthday?", TIME),
        ("When did Caroline go to the support group?", TIME),
        ("how long did Bea end up staying with us?", TIME),
        ("what year did she move?", TIME),
        ("and when do entries close?", TIME),
        ("how much did the garage charge for the MOT?", QUANTITY),
        ("How many kids does Melanie have?", QUANTITY),
        ("who was staying with us?", PERSON),
        ("Whose idea was it?", PERSON),
        ("where did we go skiing?", PLACE),
        ("what country is her grandma from?", PLACE),
        ("what did Mr Okonkwo say about the rent increase?", ""),
        ("why am I learning spanish?", ""),
        ("what time-saving tools do I use", ""),
        ("which dentist did I book?", ""),
    ],
)
def test_asked_kind(question: str, kind: str) -> None:
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    ("kind", "text", "said", "holds"),
    [
        (TIME, "did the parkrun at Heaton Park yesterday, 31:40!", "when was my parkrun", True),
        (TIME, "booked it in for thursday", "when did I book the car in", True),
        (TIME, "Bea is moving in for a few weeks", "how long did Bea stay", True),
        (TIME, "car's making that grinding noise again", "when did I book the car in", False),
        # the question's own time words are not an answer
        (TIME, "my birthday party was great", "when is my birthday", False),
        (TIME, "the 5k was fun", "when did I run the 5k", False),
        (QUANTITY, "£180 fitted, booked it in", "how much was the repair", True),
        (QUANTITY, "ended up costing two hundred", "how much was the repair", True),
        (QUANTITY, "the garage reckons its the rear pads", "how much did the garage charge", False),
        (QUANTITY, "I have 3 kids", "how many kids do I have, all 3?", False),
        (PERSON, "celebrating with Priya and Sol tonight", "who did I celebrate with", True),
        (PERSON, "probably ask my mum", "who will look after the kids", True),
        (PERSON, "Thanks! The party was great", "who came to the party", False),
        (PERSON, "Priya came to the party", "who is Priya", False),
        (PLACE, "we went to Val Thorens in the end", "where did we go skiing", True),
        (PLACE, "met her at the park", "where did I meet her", True),
        (PLACE, "skiing was brilliant, so tired", "where did we go skiing", False),
        ("", "anything at all", "what did I say", True),
    ],
)
def test_holds_kind(kind: str, text: str, said: str, holds: bool) -> None:
    assert holds_kind(kind, text, Slot.of(said).said) is holds


def test_names_are_capitalised_inside_a_sentence_or_rare() -> None:
    assert names_of("Thanks, Mel! Priya came with Sol. The rest stayed home") == [
        "mel",
        "priya",
        "sol",
    ]
    assert names_of("what did Dr Mensah say about my cholesterol?") == ["dr", "mensah"]
    assert names_of("I think It was fine") == []


def test_only_names() -> None:
    wanted = ["okonkwo", "rent", "increas"]
    assert only_names(["okonkwo"], wanted, ["okonkwo"])
    assert not only_names(["okonkwo", "rent"], wanted, ["okonkwo"])
    assert not only_names([], wanted, ["okonkwo"])  # holds nothing: coverage says so
    assert not only_names(["bea"], ["bea"], ["bea"])  # a question that is only a name


def test_an_answer_without_the_asked_for_kind_is_weaker() -> None:
    slot = Slot.of("how much did the garage charge for the MOT?")
    assert slot.answer_factor(["the garage reckons its the rear pads"]) == MISSING_SLOT_FACTOR
    # the detail may be in a later message of the answer than the one naming the thing
    assert slot.answer_factor(["the garage reckons its the pads", "£180 fitted"]) == 1.0
    assert slot.answer_factor([]) == MISSING_SLOT_FACTOR
    assert Slot.of("what did the garage say?").answer_factor(["the garage said no"]) == 1.0


def test_a_message_holding_only_the_names_is_weaker() -> None:
    slot = Slot.of("what did Mr Okonkwo say about the rent increase?")
    wanted = ["okonkwo", "rent", "increas"]
    assert slot.names_factor(["okonkwo"], wanted) == ONLY_NAMES_FACTOR
    assert slot.names_factor(["okonkwo", "rent"], wanted) == 1.0
    # the key of a memory the question named is a name too
    assert Slot.of("what about the rent?").names_factor(["=0"], ["rent", "=0"], ["=0"]) == (
        ONLY_NAMES_FACTOR
    )
    # a question asking for a kind is checked by that kind, not by its names
    when = Slot.of("how long did Bea end up staying?")
    assert when.names_factor(["bea"], ["bea", "stay"]) == 1.0
