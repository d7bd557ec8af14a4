"""Claude's ``memories.json`` -> statements, then guesses to review: pure, no database.

Claude's data export carries, beside ``conversations.json``, what Claude remembers about the
person: a JSON list (one object per account; a lone object is read too) such as::

    [{"conversations_memory": "**Work context**\\n\\n- Alex is a nurse ...",
      "project_memories": {"<project uuid>": "Markdown about that project"},
      "account_uuid": "..."}]

Every key may be missing or empty. Each memory text is Markdown: headings (``## Work``, or a
line that is all bold, ``**Work context**``) name what follows, and every bullet, line and
sentence under them is one statement. A statement keeps where it came from in its id:
``conversations_memory:3`` or ``project:<uuid>:2`` (the id evidence shows beside the quote).

These are Claude's words about the person, not the person's own, so nothing in them is taken
as known: :func:`review_first` turns whatever the extractor found into candidates for a person
to review, each quoting the whole statement, never a node, fact or link written directly. The
gate then treats them like any other save's (an existing node or alias is mentioned again, a
pending candidate is bumped, a suppression refuses the label).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memory.imports.formats import ImportFormatError
from memory.markup import markup_to_text
from memory.proposals import (
    MAX_OBJECTS,
    MAX_TEXT,
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
    proposals_dedupe,
)
from memory.transcripts import Message

CONVERSATIONS = "conversations_memory"
PROJECTS = "project_memories"
REASON = "claude_memory"
MAX_STATEMENTS = 2000
SHOWN_NOT_UNDERSTOOD = 20

_HEADING = re.compile(r"^#{1,6}\s+")
_ALL_BOLD = re.compile(r"^(\*\*|__)[^*_]+\1:?$")
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
# A sentence ends at . ! or ? followed by a space and what starts a sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“'(])")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class Statement:
    """One thing Claude remembers, and where in the file it is."""

    id: str  # the evidence's message id: conversations_memory:3, project:<uuid>:2
    section: str  # conversations_memory or project_memories
    project: str  # the project's id, for a project's memory
    heading: str  # the Markdown heading it was under, if any
    text: str

    def as_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "section": self.section,
            "project": self.project,
            "heading": self.heading,
            "text": self.text,
        }


@dataclass
class MemoryExport:
    """What a ``memories.json`` held."""

    statements: list[Statement] = field(default_factory=list)
    accounts: int = 0
    sections: int = 0  # memory texts read: the account's, and each project's
    empty: int = 0  # memory texts that were missing or held nothing
    known: int = 0  # statements an earlier import proposed already (left out)

    def counts(self) -> dict[str, int]:
        return {
            "statements": len(self.statements),
            "already_imported": self.known,
            "accounts": self.accounts,
            "sections": self.sections,
            "empty_sections": self.empty,
        }


def split_statements(text: str) -> list[tuple[str, str]]:
    """(heading, statement) for every bullet, line and sentence of a Markdown memory text."""
    out: list[tuple[str, str]] = []
    heading = ""
    for raw in text.replace("\r\n", "\n").replace("\x00", "").split("\n"):
        line = raw.strip()
        if not line:
            continue
        if _HEADING.match(line) or _ALL_BOLD.match(line):
            heading = markup_to_text(_HEADING.sub("", line)).strip(" :*_")[:200]
            continue
        line = markup_to_text(_BULLET.sub("", line))
        for sentence in _SENTENCE_END.split(line):
            sentence = " ".join(sentence.split())
            if len(sentence) >= 3 and _LETTER.search(sentence):
                out.append((heading, sentence[:MAX_TEXT]))
    return out


def read_memories(elements: Iterable[Any]) -> MemoryExport:
    """The statements of every account's memory in ``elements`` (the file's list, or its one
    object). A memory text that is missing is counted as empty; anything that is not an
    account's memory object is an :class:`ImportFormatError` naming it."""
    export = MemoryExport()
    for index, element in enumerate(elements):
        if isinstance(element, ImportFormatError):
            raise ImportFormatError(f"memory entry {index + 1}: {element}")
        if not isinstance(element, dict):
            raise ImportFormatError(f"memory entry {index + 1} is not an object")
        export.accounts += 1
        texts: list[tuple[str, str, Any]] = [(CONVERSATIONS, "", element.get(CONVERSATIONS))]
        projects = element.get(PROJECTS)
        if isinstance(projects, dict):
            texts += [(PROJECTS, str(uid)[:40], value) for uid, value in projects.items()]
        elif projects not in (None, "", []):
            raise ImportFormatError(
                f"memory entry {index + 1}: {PROJECTS} should map project ids to text"
            )
        for section, project, value in texts:
            export.sections += 1
            found = split_statements(value) if isinstance(value, str) else []
            if not found:
                export.empty += 1
            prefix = f"project:{project}" if section == PROJECTS else CONVERSATIONS
            for number, (heading, sentence) in enumerate(found, start=1):
                export.statements.append(
                    Statement(f"{prefix}:{number}"[:64], section, project, heading, sentence)
                )
        if len(export.statements) > MAX_STATEMENTS:
            raise ImportFormatError(
                f"over {MAX_STATEMENTS:,} statements; split the memories into several files"
            )
    if export.accounts == 0:
        raise ImportFormatError("the file holds no memory entries")
    return export


def statement_messages(export: MemoryExport) -> list[Message]:
    """The statements as messages the extractors read (only the person's turns are read, and
    every statement is about the person)."""
    return [Message(s.id, "user", s.text, None) for s in export.statements]


def _labels(proposal: AnyProposal) -> list[tuple[str, str]]:
    """(label, category) of every subject ``proposal`` names."""
    if isinstance(proposal, NodeProposal | CandidateProposal):
        return [(proposal.label, proposal.category)]
    if isinstance(proposal, SliceProposal | EventProposal):
        return [(proposal.on, proposal.category)]
    if isinstance(proposal, EdgeProposal):
        return [(proposal.from_label, "other"), (proposal.to_label, "other")]
    return []


@dataclass(frozen=True)
class ReviewFirst:
    """The candidates an import proposes, and the statements nothing was found in."""

    candidates: list[AnyProposal]
    not_understood: list[Statement]


def review_first(proposals: Iterable[AnyProposal], export: MemoryExport) -> ReviewFirst:
    """Every subject the extractor found, as a candidate quoting the statements it came from.

    Facts, events and links are not kept on their own: the statement a reviewer reads is the
    evidence, and promoting the candidate keeps it. At most ``MAX_OBJECTS`` candidates (the
    gate's batch limit); more is an :class:`ImportFormatError`.
    """
    by_id = {s.id: s for s in export.statements}
    out: list[AnyProposal] = []
    used: set[str] = set()
    for proposal in proposals:
        ids = [span.message_id for span in proposal.evidence if span.message_id in by_id]
        if not ids:
            continue
        spans = tuple(
            EvidenceSpan(message_id=mid, quote=by_id[mid].text) for mid in dict.fromkeys(ids)
        )
        used.update(ids)
        for label, category in _labels(proposal):
            if label.strip():
                out.append(
                    CandidateProposal(
                        label=label,
                        category=category,
                        reason=REASON,
                        confidence=proposal.confidence,
                        evidence=spans,
                    )
                )
    candidates = _one_per_label(proposals_dedupe(out))
    if len(candidates) > MAX_OBJECTS:
        raise ImportFormatError(
            f"{len(candidates):,} subjects to review is over the limit of {MAX_OBJECTS:,}; "
            "split the memories into several files"
        )
    missed = [s for s in export.statements if s.id not in used]
    return ReviewFirst(candidates, missed)


def _one_per_label(proposals: list[AnyProposal]) -> list[AnyProposal]:
    """One candidate per label: the first category named wins, the evidence is merged."""
    merged: dict[str, CandidateProposal] = {}
    for proposal in proposals:
        assert isinstance(proposal, CandidateProposal)
        key = " ".join(proposal.label.lower().split())
        first = merged.get(key)
        if first is None:
            merged[key] = proposal
            continue
        spans = {(s.message_id, s.quote): s for s in (*first.evidence, *proposal.evidence)}
        merged[key] = first.model_copy(
            update={
                "confidence": max(first.confidence, proposal.confidence),
                "evidence": tuple(spans.values()),
            }
        )
    return list(merged.values())
