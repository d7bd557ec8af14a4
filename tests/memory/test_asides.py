"""What a person says that is not theirs to keep: each rule on its own, then through the
subjects extractor (the rules' guesses and the proposer's alike)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors.asides import (
    disowned,
    ironic,
    private,
    retracts,
    unmeant,
    withheld_messages,
)
from memory.extractors.subjects import extract, propose
from memory.extractors.subjects.framing import first_person, owned
from memory.extractors.subjects.phrases import phrases
from memory.extractors.subjects.standard import unsaid
from memory.proposals import CandidateProposal, EvidenceSpan, NodeProposal
from memory.transcripts import Message

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def chat(*turns: str) -> list[Message]:
    return [
        Message(f"M{i}", "assistant", t[3:], SAID)
        if t.startswith("A: ")
        else Message(f"M{i}", "user", t, SAID)
        for i, t in enumerate(turns)
    ]


def labels(*turns: str) -> set[str]:
    return {
        p.label for p in extract(chat(*turns)) if isinstance(p, (NodeProposal, CandidateProposal))
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dont remember this pls but I'm thinking of quitting", True),
        ("Off the record, my landlord is useless", True),
        ("between you and me, I hate the new office", True),
        ("Don't forget that I started boxing last week.", False),
        ("I never forget a face", False),
    ],
)
def test_a_message_asked_not_to_be_kept(text: str, expected: bool) -> None:
    assert private(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("actually scratch that, forget i said it", True),
        ("ok ignore that.", True),
        ("never mind that", True),
        ("forget what I just said, it was wrong", True),
        ("dont forget that.", False),
        ("can you ignore this warning in the linter", False),
        ("I scratched my car on the gate", False),
    ],
)
def test_a_message_that_takes_back_the_one_before(text: str, expected: bool) -> None:
    assert retracts(text) is expected


def test_a_retraction_withholds_the_message_before_it_and_itself() -> None:
    messages = chat(
        "My neighbour Odile grows chillies.",
        "My cousin Bram is moving to Ghent next month",
        "A: Exciting!",
        "wait scratch that, he hasn't told his parents yet",
        "I do like chillies though",
    )
    assert withheld_messages(messages) == {"M1", "M3"}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("oh yeah I just LOVE doing my taxes 🙃", True),
        ("Great, another Monday 🙄", True),
        ("sure, I'm a natural athlete /s", True),
        ("yeah right, like I'd ever run a marathon", True),
        ("I love doing my taxes early", False),
        ("I got the s/s catalogue", False),
        # on a plain report the face is a sigh: what is reported stands
        ("my landlord put the rent up again 🙄", False),
        ("the boiler broke the day my parents arrived 🙃", False),
    ],
)
def test_irony_that_is_marked(sentence: str, expected: bool) -> None:
    assert ironic(sentence) is expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("that kayak is my uncle's, not mine", True),
        ("The allotment isn't ours, we just help out", True),
        ("the piano in the hall was never mine", False),  # "never mine" without "was" first
        ("That kayak is mine", False),
        ("not my problem", False),
    ],
)
def test_a_thing_the_person_says_is_not_theirs(sentence: str, expected: bool) -> None:
    assert disowned(sentence) is expected


@pytest.mark.parametrize(
    ("sentence", "words", "expected"),
    [
        ("my fave line is 'we'll always have Paris', gets me every time", ("Paris",), True),
        ('she said "meet me in Oslo" and left', ("Oslo",), True),
        ("I moved to Paris and 'Paris' is all I talk about", ("Paris",), False),
        ("my brother's flat in Leeds is tiny", ("Leeds",), False),
        ("I live in Leeds", (), False),
    ],
)
def test_words_said_only_inside_a_quotation(
    sentence: str, words: tuple[str, ...], expected: bool
) -> None:
    assert unmeant(sentence, words) is expected


def test_the_rules_guesses_said_only_where_the_person_did_not_mean_them_go() -> None:
    def node(label: str, message_id: str, quote: str) -> NodeProposal:
        span = (EvidenceSpan(message_id=message_id, quote=quote),)
        return NodeProposal(label=label, evidence=span)

    found = [
        node("Bram", "M1", "My cousin Bram is moving to Ghent"),
        node("Tax Returns", "M2", "I just adore my tax returns 🙃"),
        node("Kayak", "M2", "the kayak is my uncle's, not mine"),
        node("Manderley", "M2", "the line 'I went to Manderley again' is great"),
        node("Odile", "M0", "My neighbour Odile grows chillies."),
    ]
    assert unsaid(found, {"M1"}) == {"Bram", "Tax Returns", "Kayak", "Manderley"}


def test_a_line_or_a_song_is_what_was_read_not_a_subject() -> None:
    assert phrases("There's a line in Persuasion about waiting that I love") == []
    assert phrases("a song by Ezra Collective was stuck in my head") == []


@pytest.mark.parametrize(
    ("sentence", "words", "expected"),
    [
        ("that story reminds me of my grandad Wilf", ("Wilf",), True),
        ("we sold our old green caravan", ("caravan",), True),
        ("some bloke told me he's cycling to Truro", ("Truro",), False),
    ],
)
def test_a_subject_named_as_the_persons_own(
    sentence: str, words: tuple[str, ...], expected: bool
) -> None:
    assert owned(sentence, words) is expected


def test_first_person_typed_without_the_apostrophe() -> None:
    assert first_person("im moving to Dundee in the spring")
    assert first_person("ive got a new allotment")


def test_a_subject_only_told_to_the_person_waits_to_be_said_again() -> None:
    told = "a lady on the train told me she's walking to Santiago de Compostela next year"
    assert propose(chat(told)) == []
    # the same subject in a sentence the person leads, or named as theirs, is a card
    said = "I'm walking to Santiago de Compostela next year with my sister Greta"
    assert "Greta" in {p.label for p in propose(chat(said)) if isinstance(p, CandidateProposal)}
    reminded = "that old joke reminds me of my grandad Wilf, he passed in March"
    assert {p.label for p in propose(chat(reminded)) if isinstance(p, CandidateProposal)} == {
        "Wilf"
    }


def test_quiet_asides_propose_nothing_through_the_subjects_extractor() -> None:
    assert labels("Off the record, my landlord Mr Okonkwo never answers his phone") == set()
    assert (
        labels("My cousin Bram is moving to Ghent next month", "scratch that, forget i said it")
        == set()
    )
    assert labels("the red canoe outside is my neighbour's, not mine") == set()
    assert labels("oh sure, I ADORE my 6am spin class 🙃") == set()


def test_a_withheld_message_does_not_withhold_another_that_shares_its_id() -> None:
    # Pasted transcripts can repeat an id; only the message asked not to be kept is left out.
    said = "My grandad Wilf taught me to carve spoons."
    twins = [
        Message("M1", "user", "Off the record, my landlord Mr Okonkwo never answers", SAID),
        Message("M1", "user", said, SAID),
    ]
    found = {p.label for p in propose(twins) if isinstance(p, CandidateProposal)}
    assert "Wilf" in found and "Okonkwo" not in found
    alone = [Message("M1", "user", said, SAID)]
    assert {p.label for p in propose(alone) if isinstance(p, CandidateProposal)} == found
