"""Extractors turn messages into proposed objects. They propose; the gate disposes.

Contract: ``extract(messages, *, source_time) -> list[AnyProposal]``. An extractor never writes.
``rules``, the offline default, is two passes: the rule recognisers
(:mod:`memory.extractors.rules`) read structure (dates, states, relations, sentences shaped the
way they know), then the subject proposer (:mod:`memory.extractors.subjects`) finds the subjects
they did not, from signals that hold on any wording. It also takes ``recurring``, a read-only
lookup of which subject keys the person already has, and ``history``, what they said of each
subject in earlier conversations (the ingest service passes both).
A failure of the outside world (the LLM endpoint) raises :class:`ExtractorFailed`; the ingest
service turns that into an ``llm_failed`` receipt and keeps the transcript retryable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memory.proposals import AnyProposal
from memory.transcripts import Message

EXTRACTORS = ("rules", "llm", "proposals")


class ExtractorFailed(RuntimeError):
    """The extractor could not produce a valid proposal (refused, malformed, timed out...)."""


Extractor = Callable[..., list[AnyProposal]]


def get_extractor(name: str) -> Extractor:
    """The extract function for ``name`` (``rules`` or ``llm``; ``proposals`` needs no
    extractor)."""
    if name == "rules":
        from memory.extractors.subjects import extract as offline_extract

        return offline_extract
    if name == "llm":
        from memory.extractors.llm import extract as llm_extract

        return llm_extract
    raise ValueError(f"unknown extractor {name!r}; choose one of {', '.join(EXTRACTORS)}")


def user_messages(messages: Sequence[Message]) -> list[Message]:
    """Only the person's own turns are ever a source of memories."""
    return [m for m in messages if m.role == "user" and m.content.strip()]
