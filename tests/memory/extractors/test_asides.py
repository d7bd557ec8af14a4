"""What is said but not of the person's life: a negated experience and an exclamation
(:func:`memory.extractors.asides.unmeant`), each way round, and through the extractor."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors.asides import denied_spans, oath_spans, unmeant
from memory.extractors.subjects import extract
from memory.extractors.subjects.standard import unsaid
from memory.proposals import CandidateProposal, EvidenceSpan, NodeProposal
from memory.transcripts import Message

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def labels(*turns: str) -> set[str]:
    messages = [Message(f"M{i}", "user", t, SAID) for i, t in enumerate(turns)]
    return {p.label for p in extract(messages) if isinstance(p, (NodeProposal, CandidateProposal))}


@pytest.mark.parametrize(
    ("sentence", "words", "denied"),
    [
        ("We've never been to Iceland.", "Iceland", True),
        ("Neither of my parents has ever visited Lagos.", "Lagos", True),
        ("I haven't tried Haskell yet, but I write Elm at work.", "Haskell", True),
        ("I haven't tried Haskell yet, but I write Elm at work.", "Elm", False),
        ("I’ve never owned a Vespa in my life.", "Vespa", True),
        ("We've been to Iceland twice.", "Iceland", False),
        # A verb of habit or feeling is no experience denied: its object is in the life.
        ("I never miss a rehearsal with the Bristol Chorale.", "Bristol Chorale", False),
        ("I've never felt better since joining the Otley Striders.", "Otley Striders", False),
        ("I went to Kyoto and never looked back.", "Kyoto", False),
    ],
)
def test_what_follows_a_negated_experience_is_unmeant(
    sentence: str, words: str, denied: bool
) -> None:
    assert unmeant(sentence, words.split()) is denied


@pytest.mark.parametrize(
    ("sentence", "words", "exclaimed"),
    [
        ("I'll cater the whole thing myself, God help me.", "God", True),
        ("Thank God the clinic was open.", "God", True),
        ("Oh my God, the kitchen flooded again.", "God", True),
        ("For heaven's sake, the train is late.", "heaven", True),
        ("Good Lord, what a week.", "Lord", True),
        ("Thank God Priya was there.", "Priya", False),
        ("We sing in the Lord Street chapel choir.", "Lord Street", False),
    ],
)
def test_an_exclamation_names_no_one(sentence: str, words: str, exclaimed: bool) -> None:
    assert unmeant(sentence, words.split()) is exclaimed


def test_a_denial_ends_with_its_clause() -> None:
    sentence = "I've never been to Lisbon but Marta has lived in Porto for years."
    (start, end) = denied_spans(sentence)[0]
    assert "Lisbon" in sentence[start:end] and "Porto" not in sentence[start:end]
    assert oath_spans("No exclamation here.") == []


def test_a_place_never_visited_is_not_proposed_a_place_visited_is() -> None:
    assert "Norway" not in labels("I have never been to Norway before, I'm a bit nervous.")
    assert "Japan" not in labels("Neither of us has ever been to Japan.")
    assert "Norway" in labels("I flew to Norway last spring with my sister.")
    assert "Japan" in labels("We went to Japan for our anniversary.")


def test_an_oath_is_no_card_and_the_name_beside_it_still_is() -> None:
    found = labels("I'll host the whole party at Ferngate Hall myself, God help me.")
    assert "God" not in found
    assert "Ferngate Hall" in found


def test_a_rule_subject_said_only_where_it_is_denied_is_dropped() -> None:
    def node(label: str, quote: str) -> NodeProposal:
        span = EvidenceSpan(message_id="m1", quote=quote)
        return NodeProposal(label=label, category="tool", evidence=(span,))

    denied = node("Kubernetes", "I have never used Kubernetes at work.")
    used = node("Terraform", "I have used Terraform at work for years.")
    assert unsaid([denied, used], set()) == {"Kubernetes"}
