"""Build a clause the way the registry does, and summarise what a family proposes."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extractors import patterns as p
from memory.extractors.rules.base import Clause
from memory.proposals import AnyProposal, EventProposal, NodeProposal, SliceProposal

ANCHOR = datetime(2026, 5, 12, 18, 0, tzinfo=UTC)


def clause(text: str, sentence: str | None = None) -> Clause:
    return Clause(p.strip_fillers(text), sentence or text, "M0", None, ANCHOR)


def nodes(found: list[AnyProposal]) -> list[tuple[str, str]]:
    return [(x.label, x.category) for x in found if isinstance(x, NodeProposal)]


def events(found: list[AnyProposal]) -> list[EventProposal]:
    return [x for x in found if isinstance(x, EventProposal)]


def slices(found: list[AnyProposal]) -> list[SliceProposal]:
    return [x for x in found if isinstance(x, SliceProposal)]
