"""The proposer with a store: a subject said again in another conversation is evidence."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from memory.confidence import with_sessions
from memory.models import Candidate
from memory.selectors import recurring_subjects
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


def test_a_card_said_again_in_another_conversation_grows_surer(owner: Any) -> None:
    first = datetime(2026, 3, 1, tzinfo=UTC)
    ingest_text(
        owner=owner,
        text=_said("We took in a rescue greyhound called Biscuit.", first),
        name="one",
        extractor="subjects",
    )
    card = Candidate.objects.get(owner=owner, canonical_key="biscuit")
    before = card.confidence
    ingest_text(
        owner=owner,
        text=_said("Biscuit chewed my favourite trainers, I can't stay mad at her.", first),
        name="two",
        extractor="subjects",
    )
    card.refresh_from_db()
    assert card.session_count == 2 and card.mention_count >= 2
    assert card.confidence == max(before, with_sessions(before, 1, 2)) > before
    assert Candidate.objects.filter(owner=owner, canonical_key="biscuit").count() == 1


def test_with_sessions_only_raises_and_stays_a_probability() -> None:
    assert with_sessions(0.6, 1, 2) > 0.6
    assert with_sessions(0.6, 1, 1) == 0.6
    assert 0.0 < with_sessions(0.99, 1, 50) <= 1.0
