"""The shared sentence patterns (:mod:`memory.extractors.patterns`): the label rule around
descriptor words, and what a sentence that also asks tells."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from memory.extractors import patterns as p
from memory.extractors.rules import extract
from memory.proposals import NodeProposal
from memory.transcripts import Message


@pytest.mark.parametrize(
    ("phrase", "label"),
    [
        # A descriptor in lower case, or leading, names what the capitalised name is.
        ("my side project Atlas", "Atlas"),
        ("Project Moonbeam", "Moonbeam"),
        ("the band Wolf Alice", "Wolf Alice"),
        # Capitalised after a capitalised word, it is a word of the name itself.
        ("Senior Product Manager", "Senior Product Manager"),
        ("Galway Book Club", "Galway Book Club"),
        ("senior product manager", "Senior Product Manager"),
    ],
)
def test_a_descriptor_inside_a_capitalised_name_stays(phrase: str, label: str) -> None:
    assert p.make_label(phrase) == label


@pytest.mark.parametrize(
    ("phrase", "label"),
    [("another pottery project", "Pottery Project"), ("some community work", "Community Work")],
)
def test_a_determiner_is_no_part_of_a_label(phrase: str, label: str) -> None:
    assert p.make_label(phrase) == label


def test_a_role_said_in_capitals_is_the_whole_role() -> None:
    said = Message(
        "m",
        "user",
        "I started as a Senior Product Manager at Fenwick in May.",
        datetime(2026, 3, 2, tzinfo=UTC),
    )
    labels = {x.label for x in extract([said]) if isinstance(x, NodeProposal)}
    assert "Senior Product Manager" in labels and "Manager" not in labels


def test_a_sentence_longer_than_a_quote_may_be_is_read_in_pieces() -> None:
    run_on = "we talked about the garden and the weather and the dog " * 60
    pieces = p.split_sentences(run_on + "and then I quit smoking")
    assert len(pieces) > 1 and all(len(piece) <= p.MAX_SENTENCE for piece in pieces)
    assert all(piece in run_on + "and then I quit smoking" for piece in pieces)
    assert pieces[-1].endswith("I quit smoking")
    # a run with no space at all is cut at the limit
    assert [len(x) for x in p.split_sentences("x" * 2500)] == [1000, 1000, 500]
    # an ordinary sentence is whole
    assert p.split_sentences("I quit smoking last year.") == ["I quit smoking last year."]


def test_a_pattern_built_around_a_word_is_compiled_once() -> None:
    pattern = p.compiled(r"\bjuniper\b", re.IGNORECASE)
    assert p.compiled(r"\bjuniper\b", re.IGNORECASE) is pattern
    assert pattern.search("we took Juniper out")
    assert not p.compiled(r"\bjuniper\b").search("we took Juniper out")  # its own flags


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        # what the person told, before the question they go on to ask
        (
            "our shed roof blew off in the night, does the insurance cover it?",
            "our shed roof blew off in the night",
        ),
        (
            "my niece Ottilie starts nursery on monday 😬 how do I stop crying at the gate?",
            "my niece Ottilie starts nursery on monday",
        ),
        (
            "booked a week in Madeira - what should I pack?",
            "booked a week in Madeira",
        ),
        # or the few words of an ask after the last break
        ("my sister turns 40 on saturday, present ideas?", "my sister turns 40 on saturday"),
        ("the boiler is making a banging noise, normal?", "the boiler is making a banging noise"),
        # a question throughout, a statement, or too little before the question
        ("is it better to rent in Leith, or in Portobello?", None),
        ("we moved to Leith last year, and it's lovely.", None),
        ("so, what do you think?", None),
        ("we could rent a cabin, or go camping, what do you reckon?", None),
        # what the person tells after the question or request the sentence opens with
        (
            "how do I get the sourdough to rise, Odile (neighbour) swears by a warm oven",
            "Odile (neighbour) swears by a warm oven",
        ),
        (
            "how do I bleed a radiator, the boiler was serviced in May",
            "the boiler was serviced in May",
        ),
        # a topic typed as if it asked, then news
        (
            "update for you: we sold the campervan last weekend",
            "we sold the campervan last weekend",
        ),
        # a request that hands over material, an ask that goes on, too little after the break
        ("translate this, my cousin Bertil lives in Malmö", None),
        # a request for something written: what follows is what to write
        ("write a note to my landlord, the boiler has been broken since tuesday", None),
        ("rewrite this: we sold the campervan last weekend", None),
        ("should I take the flat in Partick, or stay in Govan", None),
        ("what should I cook tonight, maybe pasta", None),
    ],
)
def test_a_statement_before_a_question_in_one_sentence_is_read(
    sentence: str, statement: str | None
) -> None:
    assert p.told(sentence) == (statement or sentence)


def test_a_particle_keeps_its_case_only_between_two_words_of_a_name() -> None:
    assert p.title_case("Joost van Dam") == "Joost van Dam"
    assert p.title_case("camper van") == "Camper Van"
    assert p.is_name("Casa del Rio")


def test_an_emoji_between_two_sentences_ends_the_first() -> None:
    assert p.split_sentences("hiya 👋 been learning the banjo since june") == [
        "hiya 👋",
        "been learning the banjo since june",
    ]


@pytest.mark.parametrize(
    ("sentence", "lead"),
    [
        ("we moved to Leeds in May and I might get a dog", "we moved to Leeds in May"),
        # a clause someone else takes over carries its own hedge
        (
            "I was put on warfarin in March, so perhaps she meant that",
            "I was put on warfarin in March",
        ),
        ("maybe I'll try bouldering, my friend goes", None),
        ("I might move to Leeds", None),
    ],
)
def test_what_comes_before_a_hedged_clause_is_said_plainly(sentence: str, lead: str | None) -> None:
    assert p.before_hedge(sentence, p.HEDGE) == lead


def test_a_statement_before_someone_elses_hedged_clause_is_read() -> None:
    found = extract(
        [
            Message(
                id="M0",
                role="user",
                content="I was started on rivaroxaban, 20mg a day, in March, so perhaps "
                "the nurse was thinking of warfarin.",
            )
        ],
        source_time=datetime(2026, 6, 1, tzinfo=UTC),
    )
    assert [x.label for x in found if isinstance(x, NodeProposal)] == ["Rivaroxaban"]


def test_a_second_thing_the_speaker_did_with_and_is_a_clause_of_its_own() -> None:
    assert p.split_clauses("I quit my book club in March and started running") == [
        "I quit my book club in March",
        "I started running",
    ]
    # someone else's doings stay theirs, in one clause
    assert p.split_clauses("my sister quit her job and moved to Leeds") == [
        "my sister quit her job and moved to Leeds"
    ]


def test_a_reason_with_a_subject_of_its_own_is_a_clause_of_its_own() -> None:
    assert p.split_clauses("bit tricky because my dad is in hospital") == [
        "bit tricky",
        "my dad is in hospital",
    ]
