"""The rules' guesses held to the subject proposer's standard, and one label per spelling."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors.rules.preferences import CATCH_ALL
from memory.extractors.subjects import Heard, extract, feelings, held, joined
from memory.extractors.subjects.standard import (
    about_listener,
    clause_label,
    offered,
    one_spelling,
    spelling_key,
    unheld,
    without,
)
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.transcripts import Message

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def node(label: str, quote: str, text: str = "") -> list[AnyProposal]:
    """A rule's subject: its node and, when ``text`` is given, a fact held on it."""
    span = (EvidenceSpan(message_id="M1", quote=quote),)
    out: list[AnyProposal] = [NodeProposal(label=label, evidence=span)]
    if text:
        out.append(SliceProposal(on=label, text=text, evidence=span))
    return out


def labels(found: list[AnyProposal]) -> set[str]:
    return {p.label for p in found if isinstance(p, (NodeProposal, CandidateProposal))}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I'd love to give it a go sometime", True),
        ("Oh, I would really like to see the photos", True),
        ("I'd be happy to lend my ladder", True),
        ("Let me know if you need a hand", True),
        ("I love hiking in the Alps", False),
        ("I'd rather stay in tonight", False),
    ],
)
def test_an_offer_or_wish_said_to_the_listener(sentence: str, expected: bool) -> None:
    assert offered(sentence) is expected


@pytest.mark.parametrize(
    ("sentence", "label", "expected"),
    [
        ("I adore how you arranged the tulips in your garden", "Garden", True),
        ("I'm so glad you're enjoying the choir", "Choir", True),
        ("I really like how you explain things to your students", "Teaching Style", True),
        # The speaker's own thing, said to the listener.
        ("I told you about my dog Rex", "Rex", False),
        ("I love my garden, you should come see it", "Garden", False),
        # "you know" is a filler; a request or a question has no reaction of the speaker's.
        ("You know I love jazz", "Jazz", False),
        ("Could you fix the rounding bug in the invoice page?", "Invoice Page", False),
        ("What's your favourite cheese?", "Cheese", False),
    ],
)
def test_a_sentence_about_the_listener(sentence: str, label: str, expected: bool) -> None:
    assert about_listener(sentence, label) is expected


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Book Club Cause I Love Reading", "Book Club"),
        ("Choir Practice Lately", "Choir Practice"),
        ("Gardening Here", "Gardening"),
        ("Rex- Look at Him", "Rex"),
        ("Making Sure Tenants Are Heard", "Making Sure Tenants"),
        ("Trip to the Lake District", "Trip to the Lake District"),
        ("Pottery", "Pottery"),
        # Nothing of a subject is left: a clause, a pronoun inside, a lone verb.
        ("When We Met Up", None),
        ("Fix It", None),
        ("Part of Running Your Own Bakery", None),
        ("Finding Something", None),
        ("Make That Work", None),
        # Typed fast: a contraction without its apostrophe starts a clause, a slip is the
        # word meant, and time words or a "lol" at the end are not the subject.
        ("And Im Still Pretty Bad Lol", None),
        ("Climbing Wall Shes Been", "Climbing Wall"),
        ("Before Then", None),
        ("Allotment Lol", "Allotment"),
    ],
)
def test_a_label_keeps_only_the_clause_about_its_subject(label: str, expected: str | None) -> None:
    assert clause_label(label) == expected


def test_a_slip_is_corrected_only_in_words_written_in_lower_case() -> None:
    said = "im finally buiyng an electric car"
    assert clause_label("Buiyng an Electric Car", said) == "Buying an Electric Car"
    # A capitalised name one slip from a common word is the person's name, not the word.
    assert clause_label("Dora Halloway", "My aunt Dora Halloway") == "Dora Halloway"
    assert clause_label("Dora Halloway", "my aunt dora halloway") == "Dora Halloway"
    assert clause_label("Buiyng an Electric Car") == "Buiyng an Electric Car"
    # A word English knows is no slip, even one letter from a commoner one.
    assert clause_label("Backend Developer", "i'm a backend developer") == "Backend Developer"


def test_a_clipped_word_written_in_lower_case_is_the_word_it_stands_for() -> None:
    said = "taking the fam camping and then my sis's bday"
    assert clause_label("Fam Camping", said) == "Family Camping"
    assert clause_label("Bday Party", "planning her bday party") == "Birthday Party"
    # written as a name, a clipping is left be: a shop called "Biz", a band "Uni"
    assert clause_label("Biz Books", "I bought it at Biz Books") == "Biz Books"


@pytest.mark.parametrize(
    ("label", "said", "expected"),
    [
        ("Going Camping", "we're going camping in the dales", "Camping"),
        ("Went Bouldering", "we went bouldering after work", "Bouldering"),
        ("Go Kayaking", "we might go kayaking in july", "Kayaking"),
        # not an activity in -ing: the going is the subject's own word
        ("Going Home", "i'm going home for christmas", "Going Home"),
        ("Going Strong", "the allotment is going strong", "Going Strong"),
    ],
)
def test_going_and_a_gerund_is_the_activity(label: str, said: str, expected: str) -> None:
    assert clause_label(label, said) == expected


def test_spellings_of_one_subject_share_a_key_and_others_do_not() -> None:
    assert spelling_key("Making a Difference") == spelling_key("Make a Difference")
    assert spelling_key("Pottery Classes") == spelling_key("pottery class")
    assert spelling_key("UML") != spelling_key("UML College Society")
    assert spelling_key("Ana") != spelling_key("Ana Lopez")


def test_one_spelling_renames_nodes_facts_and_links_and_drops_what_keeps_no_subject() -> None:
    found = [
        *node(
            "Making a Difference", "I want to keep making a difference", "Keep making a difference"
        ),
        *node("Make a Difference", "I wanna make a difference", "Make a difference"),
        *node("Volunteering Here", "I started volunteering here", "Started volunteering"),
        *node("Volunteering", "I volunteer at the food bank", "Volunteers"),
        EdgeProposal.model_validate({"from": "Volunteering Here", "to": "Food Bank", "type": "at"}),
        *node("When We Met Up", "When we met up?"),
    ]
    spelled, gone = one_spelling(found)
    assert gone == {"When We Met Up"}
    assert labels(spelled) == {"Make a Difference", "Volunteering", "When We Met Up"}
    assert {p.on for p in spelled if isinstance(p, SliceProposal)} == {
        "Make a Difference",
        "Volunteering",
    }
    edge = next(p for p in spelled if isinstance(p, EdgeProposal))
    assert edge.from_label == "Volunteering"
    assert labels(without(spelled, gone)) == {"Make a Difference", "Volunteering"}


@pytest.mark.parametrize(
    ("label", "quote", "text", "dropped"),
    [
        # An offer, or a reaction to the listener's own thing.
        ("Helping", "I'd love to help with the move", "Love helping", True),
        ("Garden", "I adore how you arranged the tulips in your garden", "", True),
        # A quality, not a thing: a lone adjective, a phrase of them led by a quantifier.
        ("Calm", "I want to stay calm and patient", "Wants to stay calm", True),
        ("Both Acoustic", "I'm a fan of both acoustic and electric sets", "", True),
        (
            "Spare Key",
            "The spare key is under the blue pot",
            "The spare key is under the pot",
            False,
        ),
        ("Volunteering", "I started volunteering in May", "Started volunteering", False),
        # A reply the rules could not read: it names neither the subject nor the speaker.
        ("Cousins", "Are loving the beach so far", "Are loving the beach so far", True),
        ("Pizza", "Margherita, obviously!", "My favourite pizza is Margherita", False),
        # The rules' bucket for a liking with no subject of its own.
        (CATCH_ALL, "I love being an uncle", "Loves being an uncle", True),
    ],
)
def test_rule_subjects_below_the_standard(label: str, quote: str, text: str, dropped: bool) -> None:
    assert (label in unheld(node(label, quote, text), set())) is dropped


def test_a_one_word_feeling_is_no_subject_but_a_phrase_is_read_as_a_thing() -> None:
    found = [
        *node("Gratitude", "I feel such gratitude for the lake"),
        *node("Terminal Theme", "I like a light theme in my terminal"),
        *node("Pottery", "I love pottery"),
    ]
    assert feelings(found) == {"Gratitude"}


def waiting_for(label: str) -> object:
    def history(needles: dict[str, str]) -> dict[str, Heard]:
        return {key: Heard(conversations=1, waiting=label) for key in needles}

    return history


def test_a_rule_subject_joins_the_card_waiting_for_it_by_a_common_noun() -> None:
    found = node(
        "Another Painting", "I just finished another painting", "Finished another painting"
    )
    out = joined(found, waiting_for("Painting"))  # type: ignore[arg-type]
    assert labels(out) == {"Painting"}
    assert {p.on for p in out if isinstance(p, SliceProposal)} == {"Painting"}


@pytest.mark.parametrize(
    ("label", "quote"),
    [
        # Never by an acronym or a name: two subjects that share a word.
        ("UML College Society", "I joined the UML College Society"),
        ("NHS Conference", "I went to an NHS conference"),
        # Never by a verb: improving one thing is not improving another.
        ("Improving My Old Street", "I want to work on improving my old street"),
    ],
)
def test_a_rule_subject_never_joins_by_a_name_or_a_verb(label: str, quote: str) -> None:
    out = joined(node(label, quote), waiting_for("Something Else"))  # type: ignore[arg-type]
    assert labels(out) == {label}


def test_the_subjects_extractor_holds_the_rules_guesses_and_the_rules_do_not_change() -> None:
    from memory.extractors.rules import extract as rules

    chat = [
        Message("M0", "assistant", "I finally finished the quilt for my niece!", SAID),
        Message("M1", "user", "I'd love to see it sometime.", SAID),
        Message("M2", "user", "I adore how you picked the colours for your quilt.", SAID),
        Message("M3", "user", "I joined a pottery class last week.", SAID),
    ]
    mine = labels(extract(chat))
    assert "Pottery Class" in mine
    assert not mine & {"Seeing", "Quilt", "Colours"}
    assert labels(held(rules(chat))) <= labels(rules(chat))
