"""What recall returns (items and the result) and what ranking reads (documents and the
per-owner index). Pure data: no ORM."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

WHY_EXACT = "exact"
WHY_ALIAS = "alias"
WHY_LEXICAL = "lexical"
WHY_PROFILE = "profile"
WHY_SEMANTIC = "semantic"
WHY_EPISODE = "episode"

MAX_LIMIT = 50
SLICES_PER_ITEM = 5
EVENTS_PER_ITEM = 3
SLICES_PER_LINE = 3
EVENTS_PER_LINE = 2


@dataclass(frozen=True)
class SliceView:
    text: str
    kind: str


@dataclass(frozen=True)
class EventView:
    action: str
    text: str
    happened_at: datetime | None
    precision: str

    @property
    def date_text(self) -> str:
        """The date as precisely as it is known: ``2026``, ``2026-03``, ``2026-03-05``."""
        if self.happened_at is None:
            return ""
        when = self.happened_at
        if self.precision == "year":
            return f"{when:%Y}"
        if self.precision == "month":
            return f"{when:%Y-%m}"
        if self.precision == "week":
            return f"week of {when:%Y-%m-%d}"
        return f"{when:%Y-%m-%d}"

    def as_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "text": self.text,
            "happened_at": self.happened_at.isoformat() if self.happened_at else None,
            "precision": self.precision or None,
            "date": self.date_text or None,
        }


@dataclass(frozen=True)
class RecallItem:
    kind: str  # "node" or "page"
    id: int
    label: str  # a node's label, a page's title
    category: str
    state: str
    why: str
    score: float
    summary: str = ""
    slices: tuple[SliceView, ...] = ()
    events: tuple[EventView, ...] = ()
    node_id: int | None = None  # for a page: the node it is about
    # how sure recall is of this item, 0..1, comparable across questions
    # (memory.recall.confidence)
    confidence: float = 0.0

    def context_line(self) -> str:
        if self.kind == "page":
            return f"Page: {self.label} - {self.summary}" if self.summary else f"Page: {self.label}"
        head = f"{self.label} ({self.category.replace('_', ' ')}, {self.state})"
        parts = [s.text for s in self.slices[:SLICES_PER_LINE]]
        if not parts and self.summary:
            parts.append(self.summary.rstrip(". "))
        for event in self.events[:EVENTS_PER_LINE]:
            parts.append(f"{event.text} ({event.date_text})" if event.date_text else event.text)
        return f"{head} - {'; '.join(parts)}" if parts else head

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "id": self.id}
        if self.kind == "page":
            data.update(title=self.label, node_id=self.node_id)
        else:
            data.update(label=self.label, category=self.category, state=self.state)
        data.update(
            why=self.why,
            score=round(self.score, 4),
            confidence=round(self.confidence, 4),
            summary=self.summary,
        )
        if self.kind == "node":
            data["slices"] = [{"text": s.text, "kind": s.kind} for s in self.slices]
            data["events"] = [e.as_json() for e in self.events]
        return data


@dataclass(frozen=True)
class EpisodeItem:
    """One message, as recall returns it: what was said, by whom, when, and where."""

    id: int
    text: str
    role: str
    said_at: datetime
    transcript_id: int
    message_id: str
    why: str
    score: float
    reply_to: str = ""  # a few words of the message a short reply answers
    kind: str = "episode"
    confidence: float = 0.0  # as a RecallItem's

    @property
    def label(self) -> str:
        return self.text

    @property
    def category(self) -> str:
        return ""

    @property
    def state(self) -> str:
        return ""

    def context_line(self) -> str:
        who = "you" if self.role == "user" else self.role
        line = f'Said on {self.said_at:%Y-%m-%d} by {who}: "{_one_line(self.text)}"'
        if self.reply_to:
            line += f' (in reply to "{self.reply_to}")'
        return line

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "text": self.text,
            "role": self.role,
            "said_at": self.said_at.isoformat(),
            "transcript_id": self.transcript_id,
            "message_id": self.message_id,
            "why": self.why,
            "score": round(self.score, 4),
            "confidence": round(self.confidence, 4),
        }
        if self.reply_to:
            data["reply_to"] = self.reply_to
        return data


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class RecallResult:
    query: str
    items: tuple[RecallItem | EpisodeItem, ...]
    no_recall: bool
    reason: str
    context: str = ""
    context_truncated: bool = False

    def as_json(self) -> dict[str, Any]:
        """JSON-safe; the API and the MCP tools return it as is."""
        return {
            "query": self.query,
            "no_recall": self.no_recall,
            "reason": self.reason,
            "context": self.context,
            "context_truncated": self.context_truncated,
            "count": len(self.items),
            "items": [item.as_json() for item in self.items],
        }


# --- the per-owner index ---------------------------------------------------------------------


@dataclass(slots=True)
class Doc:
    """One node or page, as ranking sees it."""

    kind: str
    id: int
    label: str
    key: str  # the stored canonical key of the label or title
    category: str = ""
    state: str = ""
    summary: str = ""
    node_id: int | None = None
    mention_count: int = 0
    last_seen_at: datetime | None = None
    aliases: list[str] = field(default_factory=list)
    slices: list[tuple[str, str]] = field(default_factory=list)  # (text, kind), newest first
    event_texts: list[str] = field(default_factory=list)  # in no particular order
    fields: list[tuple[str, str]] = field(default_factory=list)  # (field name, text)


@dataclass
class OwnerIndex:
    """Everything recall reads for one owner, loaded in :data:`INDEX_QUERIES` queries."""

    docs: list[Doc]
    names: dict[str, list[tuple[Doc, str]]]  # canonical key -> [(doc, why)]
    # False when only the named rows are here: the engine then adds the lexical and semantic
    # candidates (:class:`Candidates`) before ranking.
    complete: bool = True


# One row of the inverted index, as the database returns it: ``(term, kind, ref_id, tf,
# length)``, where ``term`` occurs in document (kind, ref_id) with field-weighted frequency
# ``tf`` and the document's field-weighted length is ``length``. A plain tuple, not an
# object: recall reads a thousand or more per question, and none needs building.
Posting = tuple[str, str, int, float, float]


@dataclass(frozen=True)
class CorpusStats:
    docs: int = 0
    total_length: float = 0.0
    version: int = 0
    seq: int = 0  # the latest index write
    epoch: int = 0  # random, per statistics row
    model: str = ""  # the embedding model serving the owner's vectors (empty: the configured)

    @property
    def avg_length(self) -> float:
        return (self.total_length / self.docs) if self.docs else 1.0


@dataclass
class Candidates:
    """What the lexical and semantic lanes found, by (kind, id), before any row is read."""

    lexical: dict[tuple[str, int], float] = field(default_factory=dict)  # raw BM25
    semantic: dict[tuple[str, int], float] = field(default_factory=dict)  # cosine
    # The lanes fused (memory.recall.ranking.fused), kept once computed: the shortlist and
    # the final ranking both read it, and the lanes do not change after they are fused.
    fusion: dict[tuple[str, int], tuple[float, tuple[str, ...]]] | None = field(
        default=None, repr=False, compare=False
    )
