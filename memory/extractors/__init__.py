"""Extractors turn messages into proposed objects. They propose; the gate disposes.

Contract: ``extract(messages, *, source_time) -> list[AnyProposal]``. An extractor never writes.
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
    """The extract function for ``name`` (``rules`` or ``llm``; ``proposals`` needs no extractor)."""
    if name == "rules":
        from memory.extractors.rules import extract
    elif name == "llm":
        from memory.extractors.llm import extract
    else:
        raise ValueError(f"unknown extractor {name!r}; choose one of {', '.join(EXTRACTORS)}")
    return extract


def user_messages(messages: Sequence[Message]) -> list[Message]:
    """Only the person's own turns are ever a source of memories."""
    return [m for m in messages if m.role == "user" and m.content.strip()]
