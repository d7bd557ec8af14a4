"""The proposer with a store: a subject said again in another conversation is evidence."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection

from memory import selectors
from memory.extractors.subjects.history import heard
from memory.models import Candidate, Episode, Transcript
from memory.selectors import recurring_subjects, said_before
from memory.services.ingest import ingest_text
from memory.vocab import CandidateStatus
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


def test_recurring_subjects_are_the_owners_memories_and_waiting_guesses(
    owner: Any, other_user: Any
) -> None:
    make_node(owner=owner, label="Bergen")
    make_candidate(owner=owner, label="Pottery Class")
    make_node(owner=other_user, label="Paris")
    make_candidate(owner=other_user, label="Lisbon")
    keys = {"bergen", "pottery classes", "paris", "lisbon", "oslo"}
    assert recurring_subjects(owner, keys) == {"bergen", "pottery classes"}
    assert recurring_subjects(owner, set()) == set()


def test_a_decided_guess_is_not_recurring(owner: Any) -> None:
    make_candidate(owner=owner, label="Kayak", status=CandidateStatus.REJECTED)
    assert recurring_subjects(owner, {"kayak"}) == set()


def _said(text: str, when: datetime) -> str:
    return json.dumps({"messages": [{"role": "user", "content": text, "ts": when.isoformat()}]})


def _conversations(owner: Any, *texts: str) -> None:
    """Each of ``texts`` said by ``owner`` in a conversation of its own, read by the rules."""
    when = datetime(2026, 3, 1, tzinfo=UTC)
    for number, text in enumerate(texts):
        ingest_text(owner=owner, text=_said(text, when), name=f"chat {number}", extractor="rules")


def test_a_card_said_again_in_another_conversation_is_one_card_with_both(owner: Any) -> None:
    _conversations(
        owner,
        "We took in a rescue axolotl called Biscuit.",
        "Biscuit chewed my favourite trainers, I can't stay mad at her.",
    )
    (card,) = Candidate.objects.for_owner(owner).filter(canonical_key="biscuit")
    assert card.session_count == 2 and card.mention_count >= 2
    assert card.reason == "proposed" and len(card.held_objects) >= 2


def test_a_card_said_again_in_the_other_english_spelling_is_one_card(owner: Any) -> None:
    _conversations(
        owner,
        "I joined the Colour Theory Society at the art college.",
        "The Color Theory Society meets on Thursdays, I never miss it.",
    )
    (card,) = Candidate.objects.for_owner(owner)
    assert card.label_guess == "Colour Theory Society" and card.fold_key == "color theory society"
    assert card.session_count == 2 and card.mention_count == 2


def test_said_before_reads_only_the_owners_own_earlier_messages(
    owner: Any, other_user: Any
) -> None:
    when = datetime(2026, 3, 1, tzinfo=UTC)
    ingest_text(
        owner=owner, text=_said("I fixed the allotment shed.", when), name="one", extractor="rules"
    )
    ingest_text(
        owner=other_user, text=_said("My allotment flooded.", when), name="x", extractor="rules"
    )
    texts, labels = said_before(owner, ["allot"])
    assert [text for _t, text in texts] == ["I fixed the allotment shed."] and labels == []
    (first,) = {t for t, _text in texts}
    assert said_before(owner, ["allot"], exclude_transcript=first) == ([], [])
    assert said_before(owner, ["ab"]) == ([], [])  # too short to look for
    make_candidate(owner=owner, label="Allotment Shed")
    make_candidate(owner=other_user, label="Allotment Gate")
    assert said_before(owner, ["allot"])[1] == [("Allotment Shed", "")]


def test_said_before_gives_each_waiting_guess_the_first_text_held_on_it(
    owner: Any, django_assert_num_queries: Any
) -> None:
    """Only the first held item is read from the database; a card whose first item holds no
    text (an edge, an odd item from an imported file) is read whole and gives its first text,
    in one more query, and a card that holds nothing gives ""."""
    held = {
        "Allotment Shed": [{"text": "shed roof"}, {"text": "later"}],
        "Allotment Gate": [{"kind": "edge"}, None, {"text": 5}, {"text": "the gate"}],
        "Allotment Plot": [],
        "Allotment Pond": [None],
    }
    for label, items in held.items():
        make_candidate(owner=owner, label=label, held_objects=items)
    with django_assert_num_queries(3):  # the messages, the guesses, the one read whole
        labels = dict(said_before(owner, ["allot"])[1])
    assert labels == {
        "Allotment Shed": "shed roof",
        "Allotment Gate": "the gate",
        "Allotment Plot": "",
        "Allotment Pond": "",
    }
    odd = ["Allotment Gate", "Allotment Pond"]
    Candidate.objects.for_owner(owner).filter(label_guess__in=odd).delete()
    with django_assert_num_queries(2):
        assert dict(said_before(owner, ["allot"])[1])["Allotment Shed"] == "shed roof"


def test_a_weak_subject_said_in_two_conversations_becomes_one_card(owner: Any) -> None:
    when = datetime(2026, 3, 1, tzinfo=UTC)
    said = (
        ("one", "My lungs hate me after the Snowdon hike."),
        ("two", "I still think about the Snowdon hike, my legs ached for days."),
    )
    ingest_text(owner=owner, text=_said(said[0][1], when), name="one", extractor="rules")
    assert not Candidate.objects.for_owner(owner).filter(canonical_key="snowdon hike").exists()
    ingest_text(owner=owner, text=_said(said[1][1], when), name="two", extractor="rules")
    (card,) = Candidate.objects.for_owner(owner).filter(canonical_key="snowdon hike")
    assert card.reason == "proposed" and card.status == CandidateStatus.PENDING


def _episodes(owner: Any, name: str, said: list[tuple[str, str, datetime]]) -> int:
    transcript = Transcript.objects.create(owner=owner, name=name, text="x", sha256=name)
    Episode.objects.bulk_create(
        Episode(
            owner=owner,
            transcript=transcript,
            message_id=f"m{seq}",
            seq=seq,
            role=role,
            text=text,
            said_at=when,
            learned_at=when,
        )
        for seq, (role, text, when) in enumerate(said)
    )
    return transcript.pk


def test_an_imports_said_so_far_answers_as_said_before(
    owner: Any, other_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import's index of what was said gives said_before's answer, in its order: ASCII
    letters in either case but no other letter (SQLite's LIKE: "CAFÉ" is not "café"), equal
    times by id, the newest first up to the limit, messages written since it last read and
    a deletion seen by ``check``."""
    monkeypatch.setattr(selectors, "SAID_BEFORE_LIMIT", 2)
    day = datetime(2026, 3, 1, tzinfo=UTC)
    later = datetime(2026, 3, 2, tzinfo=UTC)
    first = _episodes(
        owner,
        "one",
        [
            ("user", "My GARDEN shed is at the Café.", day),
            ("assistant", "Your garden sounds lovely.", day),
            ("user", "the CAFÉ opens at nine", day),
            ("user", "we watered the gardens", later),
        ],
    )
    _episodes(other_user, "theirs", [("user", "My garden flooded.", later)])
    second = _episodes(
        owner,
        "two",
        [("user", "Garden party today", day), ("user", "a shed with 100% rust_proof paint", day)],
    )
    said = selectors.SaidSoFar(owner)
    asks: list[tuple[list[str], int | None]] = [
        (["garden"], None),
        (["garden"], first),
        (["café", "shed"], second),
        (["CAFÉ"], None),
        (["100%", "rust_"], None),
        (["garden", "shed", "café", "ab"], None),
        (["nothing here"], None),
    ]

    def same() -> None:
        for needles, exclude in asks:
            expected = said_before(owner, needles, exclude_transcript=exclude)
            assert said(needles, exclude_transcript=exclude) == expected, needles

    same()
    assert said(["garden"])[0] == [
        (first, "we watered the gardens"),
        (first, "My GARDEN shed is at the Café."),
    ]  # the limit, of three: an equal time by id
    third = _episodes(owner, "three", [("user", "The garden CAFÉ and the shed", later)])
    make_candidate(owner=owner, label="Garden Shed")
    same()
    Episode.objects.filter(transcript_id=third).delete()
    said.check()
    same()
    Transcript.objects.filter(pk=second).delete()
    said.check()
    same()


def test_an_imports_said_so_far_knows_which_texts_hold_a_needle_as_heard_finds_them(
    owner: Any,
) -> None:
    """Which of the last answer's texts hold each needle, as ``str.lower`` reads them (what
    ``heard`` finds by searching): from the rows the answer searched for ASCII texts; by
    reading again those LIKE reads otherwise (a letter outside ASCII: "ÉCOLE" is "école" to
    Python, not to LIKE); nothing known of a needle it did not search. ``heard`` counts the
    same with it as without."""
    day = datetime(2026, 3, 1, tzinfo=UTC)
    _episodes(
        owner,
        "one",
        [
            ("user", "My GARDEN shed is at the ÉCOLE garden.", day),
            ("user", "we watered the gardens", day),
            ("user", "the ÉCOLE opens at nine and the garden after", day),
        ],
    )
    _episodes(owner, "two", [("user", "I love my garden and the école", day)])
    said = selectors.SaidSoFar(owner)
    needles = {"garden": "garden", "ecole": "école", "shed": "shed"}
    texts, labels = said(needles.values())
    for needle in needles.values():
        searched = [at for at, (_t, text) in enumerate(texts) if needle in text.lower()]
        # elsewhere than SQLite each answer is said_before's, and nothing is known of it
        expected = searched if connection.vendor == "sqlite" else None
        assert said.holding(needle) == expected, needle
    assert said.holding("water") is None  # not looked for by this answer
    assert said.holding("Garden") is None  # no needle of the proposer's
    assert heard(texts, labels, needles, known=said.holding) == heard(texts, labels, needles)


def test_a_subject_keyed_by_an_everyday_word_is_said_again_only_with_all_its_words(
    owner: Any,
) -> None:
    # "Supportive Community" is keyed by "support", which many conversations say: saying
    # "support" again is not saying the subject again. Saying the phrase again is.
    when = datetime(2026, 3, 1, tzinfo=UTC)
    for name, text in (
        ("one", "I support my sister's bakery every weekend."),
        ("two", "I need support with my CV, I am applying for jobs."),
        ("three", "Our supportive community met again on Tuesday."),
    ):
        ingest_text(owner=owner, text=_said(text, when), name=name, extractor="rules")
    cards = Candidate.objects.for_owner(owner)
    assert not cards.filter(label_guess="Supportive Community").exists()
    text = "I joined that supportive community last spring and it helps."
    ingest_text(owner=owner, text=_said(text, when), name="four", extractor="rules")
    (card,) = cards.filter(label_guess="Supportive Community")
    assert card.status == CandidateStatus.PENDING and card.reason == "proposed"


def test_a_kind_of_thing_said_again_is_still_a_kind(owner: Any) -> None:
    # A plural common noun names a kind ("marshmallows"), not one thing of the person's life:
    # saying it in a second conversation does not make it a card. One thing said again does.
    when = datetime(2026, 3, 1, tzinfo=UTC)
    for name, text in (
        ("one", "We roast marshmallows by the fire pit most Fridays.\nI weeded the allotment."),
        (
            "two",
            "The kids want marshmallows again, we always have some in the cupboard.\n"
            "The allotment flooded again and I lost the leeks.",
        ),
    ):
        ingest_text(owner=owner, text=_said(text, when), name=name, extractor="rules")
    labels = set(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert "Allotment" in labels and "Marshmallows" not in labels
