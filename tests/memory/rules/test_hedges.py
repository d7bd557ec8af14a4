"""Hedges: a wish or a maybe is a candidate to review, never a clear statement."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.hedges import hedged
from memory.proposals import CandidateProposal
from tests.memory.rules.helpers import clause


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        ("I might try tennis", "Tennis", "habit"),
        ("thinking about learning Rust", "Rust", "skill"),
        ("I want to learn the piano", "Piano", "skill"),
        ("maybe we'll move to Porto", "Porto", "place"),
    ],
)
def test_hedges_are_candidates(text: Any, label: Any, category: Any) -> None:
    (found,) = hedged(clause(text))
    assert isinstance(found, CandidateProposal)
    assert (found.label, found.category, found.reason) == (label, category, "hedged")
