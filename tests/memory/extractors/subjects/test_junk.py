"""The proposer's and the standard's filters against cards a person would reject, each way
round: the speaker leading a later clause, the speaker's own name, a relation or role word
alone, an adverb glued to a name."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors.subjects import cased, extract, relation_only, written_names
from memory.extractors.subjects.framing import first_person, self_named
from memory.extractors.subjects.phrases import Phrase, phrases
from memory.extractors.subjects.standard import clause_label
from memory.proposals import CandidateProposal, NodeProposal
from memory.transcripts import Message
from tests.memory.extractors.subjects.chats import chat

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def labels(*turns: str) -> set[str]:
    messages = [Message(f"M{i}", "user", t, SAID) for i, t in enumerate(turns)]
    return {p.label for p in extract(messages) if isinstance(p, (NodeProposal, CandidateProposal))}


# --- the speaker leading a later clause -------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "own"),
    [
        (
            "A neighbour got me into rowing with a crew called the Weir Oars, we train on Sundays.",
            True,
        ),
        ("The coach says my stroke is fine and I am training twice a week now.", True),
        ("Ruth swam with a crew on the Thames, she trains on Sundays.", False),
        ("Ruth swam in the Thames, I think.", False),
        ("My sister says I am stubborn.", False),
    ],
)
def test_the_speaker_may_lead_a_later_clause(sentence: str, own: bool) -> None:
    assert first_person(sentence) is own


def test_a_name_in_a_run_on_sentence_the_speaker_leads_later_is_proposed() -> None:
    assert "Millbrook Ramblers" in labels(
        "A neighbour got me into sea swimming with a group called the Millbrook Ramblers, "
        "we go on Sundays."
    )
    assert "Millbrook Ramblers" not in labels(
        "A neighbour swims with a group called the Millbrook Ramblers, she goes on Sundays."
    )


# --- the speaker's own name ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "name", "own"),
    [
        ("Hi, I'm Oluwaseun and I keep bees in Hackney.", "Oluwaseun", True),
        ("hello its Bronwen again, the knee is better", "Bronwen", True),
        ("Me: Ines, partner: Tiago", "Ines", True),
        ("Me: Ines, partner: Tiago", "Tiago", False),
        ("My name's Ana and I teach yoga.", "Ana", True),
        ("Tom here, quick question about my boiler", "Tom", True),
        ("I am meeting Oluwaseun in Hackney on Friday.", "Oluwaseun", False),
        ("I'm Ana's brother.", "Ana", False),
        ("This is Tidepool, my side project.", "Tidepool", False),
        ("this is Gwen speaking, about my hip", "Gwen", True),
        ("im Priya, 34, nurse", "Priya", True),
        ("Priya and I went to Porto again", "Priya", False),
    ],
)
def test_the_speakers_own_name(sentence: str, name: str, own: bool) -> None:
    assert self_named(sentence, tuple(name.split())) is own


def test_the_speakers_own_name_is_no_card_someone_they_meet_is() -> None:
    found = labels("Hi, I'm Oluwaseun and I keep bees in Hackney.")
    assert "Oluwaseun" not in found and "Hackney" in found
    assert "Oluwaseun" in labels("I am meeting Oluwaseun in Hackney on Friday.")


# --- a relation or role word alone -----------------------------------------------------------


def _phrase(label: str) -> Phrase:
    return Phrase(tuple(label.split()), label, True, 0.5, 3)


@pytest.mark.parametrize(
    ("label", "alone"),
    [("GP", True), ("Physio", True), ("Landlord", True), ("Gecko", False), ("Didsbury", False)],
)
def test_a_relation_or_role_word_alone_is_no_subject(label: str, alone: bool) -> None:
    assert relation_only(_phrase(label)) is alone


def test_my_gp_is_no_card_the_place_beside_it_is() -> None:
    found = labels("I'll call my GP in Didsbury tomorrow.")
    assert "GP" not in found and "Didsbury" in found


# --- an adverb glued to a name ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "written", "cut"),
    [
        ("Brightwave Actually", "i quit brightwave last week actually", "Brightwave"),
        ("Cello Honestly", "I love the cello honestly", "Cello"),
        # Written capitalised, the word is part of a name; not an -ly adverb, it stays.
        ("Brightwave Actually", "we joined Brightwave Actually", "Brightwave Actually"),
        ("Sunny Italy", "we loved sunny italy", "Sunny Italy"),
        ("Family", "my family", "Family"),
    ],
)
def test_an_adverb_written_after_a_subject_is_cut(label: str, written: str, cut: str) -> None:
    assert clause_label(label, written) == cut


# --- names in any alphabet, and names typed in lower case -------------------------------------


def test_a_name_with_letters_beyond_ascii_is_a_name() -> None:
    assert "Malmö" in {p.label for p in phrases("I make furniture in my workshop in Malmö.")}
    assert "Ciarán" in {p.label for p in phrases("I went hiking with Ciarán on Sunday.")}
    # A token with digits in it is still no word of a name ("level A2").
    assert not any("A2" in p.label for p in phrases("I passed the exam at level A2."))


def _chat(*turns: str) -> list[Message]:
    return chat(*turns, at=SAID)


def test_names_the_batch_writes_capitalised_inside_a_sentence() -> None:
    names = written_names(
        _chat(
            "i ride my loan pony juniper at the yard on saturdays",
            "A: Good luck with Juniper at the show! Pack a spare hat.\nWould you like a list?",
        )
    )
    assert names == {"juniper": "Juniper"}  # not "Good", "Pack" nor the line's "Would"
    assert cased("we took juniper out", names) == "we took Juniper out"
    assert cased("junipers smell nice", names) == "junipers smell nice"


def test_a_word_the_other_side_also_writes_in_lower_case_is_no_name() -> None:
    names = written_names(
        _chat("i planted a juniper by the shed", "A: A juniper likes sun. Is Juniper a variety?")
    )
    assert "juniper" not in names


def test_a_name_typed_in_lower_case_is_proposed_when_the_listener_writes_it() -> None:
    # Where it stands does not say "tamsin" is a name (:mod:`...typed`): the listener does.
    said = "i got into fell running, we train with tamsin every sunday"
    assert "Tamsin" not in labels(said)
    assert "Tamsin" in {
        p.label
        for p in extract(_chat(said, "A: Training with Tamsin sounds great."))
        if isinstance(p, (NodeProposal, CandidateProposal))
    }


def test_a_name_typed_without_its_accent_is_the_name_written_with_it() -> None:
    names = written_names(_chat("i work at the old mill cafe", "A: Shifts at Mill Café are long."))
    assert cased("i work at mill cafe on sundays", names) == "i work at Mill Café on sundays"
    assert cased("we went to the mill", names) == "we went to the mill"
