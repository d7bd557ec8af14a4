"""The JSON shapes the API and the MCP tools return (docs/clients.md, "The HTTP API").

A node is at least ``{id, label, category, state, aliases}``; a candidate at least ``{id,
label, category, status, confidence, evidence}``; a receipt is ``Receipt.as_json()``.

Each shape has a builder (``node_json``) and a pydantic model (``NodeOut``) that describes it
for ``/v1/openapi.json``. The API validates every answer against its schema, so the two cannot
drift apart: the schemas forbid unknown keys and declare their fields in the order the builders
write them (the answer's bytes are the builder's, key for key). Times are ISO 8601 strings, as
the builders write them; JSON-column contents (``counts``, ``detail``, ``snapshot``) are free
objects. The MCP tools build their results with the same builders, and publish these models
(the MCP-only wrappers are at the end) as their ``outputSchema``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, RootModel

from memory.cursors import cursor_encode
from memory.history import Entry
from memory.models import (
    Candidate,
    Edge,
    Event,
    MemoryRule,
    Node,
    Slice,
    Suppression,
    Transcript,
)
from memory.selectors import EVIDENCE_PER_ITEM, DetailPage

Time = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


def _utc_in_range(value: datetime) -> datetime:
    """A time without an offset is UTC (as in uploaded transcripts); one that cannot be
    expressed in UTC (year 9999 at -05:00, year 1 at +05:00) is refused, not a crash later."""
    if value.utcoffset() is None:
        value = value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("is out of range once converted to UTC") from exc
    return value


#: A moment a client sends (the API's and the MCP tools' input): UTC when it has no offset.
Moment = Annotated[datetime, AfterValidator(_utc_in_range)]


class Out(BaseModel):
    """An answer's shape: exactly these keys, in this order.

    A plain pydantic model, not a ninja ``Schema``: the answers are built as dicts, and a
    ``Schema`` runs every object through its Django attribute getter, which made validating a
    page of 500 nodes eight times slower."""

    model_config = ConfigDict(extra="forbid")


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


class NodeOut(Out):
    id: int
    label: str
    category: str
    state: str
    aliases: list[str]
    summary: str
    revision: int = Field(description="Send it back as If-Match to edit or delete.")
    mention_count: int
    session_count: int
    last_seen_at: Time | None
    created_at: Time | None
    updated_at: Time | None


def node_json(node: Node) -> dict[str, Any]:
    """Needs ``aliases`` prefetched (``node_list`` and ``node_get`` do)."""
    return {
        "id": node.pk,
        "label": node.label,
        "category": node.category,
        "state": node.state,
        "aliases": [a.alias for a in node.aliases.all()],
        "summary": node.summary,
        "revision": node.revision,
        "mention_count": node.mention_count,
        "session_count": node.session_count,
        "last_seen_at": _iso(node.last_seen_at),
        "created_at": _iso(node.created_at),
        "updated_at": _iso(node.updated_at),
    }


class SliceOut(Out):
    id: int
    text: str
    kind: str
    is_current: bool
    created_at: Time | None


def slice_json(row: Slice) -> dict[str, Any]:
    return {
        "id": row.pk,
        "text": row.text,
        "kind": row.kind,
        "is_current": row.is_current,
        "created_at": _iso(row.created_at),
    }


class EventOut(Out):
    id: int
    action: str
    text: str
    importance: str
    happened_at: Time | None
    happened_at_precision: str
    happened_at_source: str
    created_at: Time | None


def event_json(row: Event) -> dict[str, Any]:
    return {
        "id": row.pk,
        "action": row.action,
        "text": row.text,
        "importance": row.importance,
        "happened_at": _iso(row.happened_at),
        "happened_at_precision": row.happened_at_precision,
        "happened_at_source": row.happened_at_source,
        "created_at": _iso(row.created_at),
    }


class LinkEndOut(Out):
    id: int
    label: str
    category: str


class LinkOut(Out):
    id: int
    type: str = Field(description="The relation's type (part_of, uses, related_to, ...).")
    label: str = Field(
        description='The relation as it was named ("works on"), or "" when its type says it all.'
    )
    direction: Literal["out", "in"] = Field(
        description="out: this memory relates to the other; in: the other relates to this one."
    )
    node: LinkEndOut = Field(description="The memory at the other end.")
    created_at: Time | None


def link_json(edge: Edge, node_id: int) -> dict[str, Any]:
    """One of a node's links, seen from the node ``node_id`` (needs both ends loaded)."""
    out = edge.from_node_id == node_id
    other = edge.to_node if out else edge.from_node
    return {
        "id": edge.pk,
        "type": edge.type,
        "label": edge.label,
        "direction": "out" if out else "in",
        "node": {"id": other.pk, "label": other.label, "category": other.category},
        "created_at": _iso(edge.created_at),
    }


_NEXT = "Pass it as ?cursor= to the node's slices (or events) route for the next page; null on the last."


class NodeDetailOut(NodeOut):
    slices: list[SliceOut] = Field(description="The first page of its facts, newest first.")
    events: list[EventOut] = Field(description="The first page of its events, newest first.")
    slice_count: int = Field(description="How many facts it has in all, current and superseded.")
    slices_next: str | None = Field(description=_NEXT)
    event_count: int = Field(description="How many events it has in all.")
    events_next: str | None = Field(description=_NEXT)
    links: list[LinkOut] = Field(description="Its links both ways, by type and name.")
    links_more: bool = Field(
        description="Whether it has more links than listed (the first 200 are)."
    )


def _next(kind: str, node_id: int, page: DetailPage[Any]) -> str | None:
    return cursor_encode(kind, node_id, page.after) if page.after is not None else None


def node_detail_json(
    node: Node,
    slices: DetailPage[Slice],
    events: DetailPage[Event],
    links: tuple[list[Edge], bool],
) -> dict[str, Any]:
    """The node with the first page of its facts and of its events, and its links."""
    return {
        **node_json(node),
        "slices": [slice_json(s) for s in slices.rows],
        "events": [event_json(e) for e in events.rows],
        "slice_count": slices.total,
        "slices_next": _next("slices", node.pk, slices),
        "event_count": events.total,
        "events_next": _next("events", node.pk, events),
        "links": [link_json(edge, node.pk) for edge in links[0]],
        "links_more": links[1],
    }


class NodeSlicesOut(Out):
    """A further page of a node's facts (``GET /v1/nodes/{id}/slices``)."""

    node: int
    slices: list[SliceOut]
    total: int = Field(description="How many facts the node has in all.")
    next: str | None = Field(description="The cursor of the next page; null on the last.")


class NodeEventsOut(Out):
    """A further page of a node's events (``GET /v1/nodes/{id}/events``)."""

    node: int
    events: list[EventOut]
    total: int = Field(description="How many events the node has in all.")
    next: str | None = Field(description="The cursor of the next page; null on the last.")


def node_slices_json(node_id: int, page: DetailPage[Slice]) -> dict[str, Any]:
    return {
        "node": node_id,
        "slices": [slice_json(s) for s in page.rows],
        "total": page.total,
        "next": _next("slices", node_id, page),
    }


def node_events_json(node_id: int, page: DetailPage[Event]) -> dict[str, Any]:
    return {
        "node": node_id,
        "events": [event_json(e) for e in page.rows],
        "total": page.total,
        "next": _next("events", node_id, page),
    }


class NodeRef(Out):
    id: int
    label: str


class EvidenceOut(Out):
    quote: str
    message_id: str
    source: str
    message_ts: Time | None


class HeldOut(Out):
    suppression_id: int
    label: str = Field(description="What the suppression forgets.")
    why: str


class CandidateOut(Out):
    id: int
    label: str
    category: str
    status: str
    confidence: float
    reason: str
    mention_count: int
    session_count: int
    first_seen_at: Time | None
    last_seen_at: Time | None
    expires_at: Time | None
    possible_existing_node: NodeRef | None
    held_objects: int = Field(description="Details held back until the candidate is decided.")
    evidence: list[EvidenceOut] = Field(description=f"The first {EVIDENCE_PER_ITEM} quotes.")
    evidence_count: int = Field(description="How many quotes there are in all.")
    held: HeldOut | None = Field(
        default=None,
        description="Held: it looks like something the person asked to forget; promote it "
        "with `resemblance` lift or keep.",
    )


def _held_json(candidate: Candidate) -> dict[str, Any] | None:
    held = candidate.held_by if candidate.resembles_id else None
    if held is None:
        return None
    return {"suppression_id": held.pk, "label": held.label, "why": candidate.held_why}


def candidate_json(candidate: Candidate) -> dict[str, Any]:
    """Needs ``evidence`` prefetched (``candidate_queue`` does) to stay one query per page."""
    possible = candidate.possible_existing_node
    return {
        "id": candidate.pk,
        "label": candidate.label_guess,
        "category": candidate.category_guess,
        "status": candidate.status,
        "confidence": candidate.confidence,
        "reason": candidate.reason,
        "mention_count": candidate.mention_count,
        "session_count": candidate.session_count,
        "first_seen_at": _iso(candidate.first_seen_at),
        "last_seen_at": _iso(candidate.last_seen_at),
        "expires_at": _iso(candidate.expires_at),
        "possible_existing_node": (
            {"id": possible.pk, "label": possible.label} if possible is not None else None
        ),
        "held_objects": len(candidate.held_objects or []),
        "evidence": [
            {
                "quote": e.quote,
                "message_id": e.message_id,
                "source": e.source,
                "message_ts": _iso(e.message_ts),
            }
            for e in _first_evidence(candidate)
        ],
        # The quotes above are the first few; this is how many there are in all.
        "evidence_count": (
            candidate.evidence_count
            if hasattr(candidate, "evidence_count")
            else candidate.evidence.count()
        ),
        "held": _held_json(candidate),
    }


def _first_evidence(candidate: Candidate) -> list[Any]:
    if hasattr(candidate, "first_evidence"):
        return list(candidate.first_evidence)
    return list(candidate.evidence.order_by("created_at", "id")[:EVIDENCE_PER_ITEM])


class SuppressionOut(Out):
    id: int
    kind: str
    label: str
    reason: str
    source: str
    active: bool
    created_at: Time | None
    suppressed_until: Time | None
    lifted_at: Time | None
    hit_count: int
    last_hit_at: Time | None


def suppression_json(row: Suppression, *, now: datetime) -> dict[str, Any]:
    return {
        "id": row.pk,
        "kind": row.kind,
        "label": row.label,
        "reason": row.reason,
        "source": row.source,
        "active": row.is_active_at(now),
        "created_at": _iso(row.created_at),
        "suppressed_until": _iso(row.suppressed_until),
        "lifted_at": _iso(row.lifted_at),
        "hit_count": row.hit_count,
        "last_hit_at": _iso(row.last_hit_at),
    }


class RulesOut(Out):
    custom_instructions: str
    includes: list[str]
    excludes: list[str]
    custom_categories: list[str]
    capture_default: str
    auto_collect: bool
    retention_days: int | None
    episodes: bool
    updated_at: Time | None


def rules_json(rule: MemoryRule) -> dict[str, Any]:
    return {
        "custom_instructions": rule.custom_instructions,
        "includes": list(rule.includes or []),
        "excludes": list(rule.excludes or []),
        "custom_categories": list(rule.custom_categories or []),
        "capture_default": rule.capture_default,
        "auto_collect": rule.auto_collect,
        "retention_days": rule.retention_days,
        "episodes": rule.episodes,
        "updated_at": _iso(rule.updated_at) if rule.pk else None,
    }


class ReceiptOut(Out):
    """``Receipt.as_json()``: what ``ingest --json`` prints."""

    receipt_id: int
    outcome: str
    counts: dict[str, Any] = Field(description="What was written, by kind.")
    rejected: list[dict[str, Any]] = Field(description="What the gate refused, and why.")
    source: str
    summary: str
    error: str
    duration_ms: int
    created_at: Time


class ReceiptDetailOut(ReceiptOut):
    detail: dict[str, Any] = Field(description="What was deleted, reverted and kept.")


class TranscriptOut(Out):
    id: int
    name: str
    status: str
    size_bytes: int
    source: str
    source_time: Time | None
    created_at: Time | None
    processed_at: Time | None
    attempts: int
    error: str
    receipt: ReceiptOut | None


def transcript_json(row: Transcript) -> dict[str, Any]:
    """Needs ``receipt`` selected (``transcript_get`` does)."""
    return {
        "id": row.pk,
        "name": row.name,
        "status": row.status,
        "size_bytes": row.size_bytes,
        "source": row.source,
        "source_time": _iso(row.source_time),
        "created_at": _iso(row.created_at),
        "processed_at": _iso(row.processed_at),
        "attempts": row.attempts,
        "error": row.error,
        "receipt": row.receipt.as_json() if row.receipt is not None else None,
    }


class ActorOut(Out):
    type: str
    name: str
    token_id: int | None


class ChangeOut(Out):
    field: str
    before: Any
    after: Any


class RevisionOut(Out):
    kind: str
    id: int
    node: int | None
    revision: int
    parent: int | None
    action: str
    actor: ActorOut
    receipt_id: int | None
    reason: str
    created_at: Time | None
    snapshot: dict[str, Any] = Field(description="The object's fields after the change.")
    changes: list[ChangeOut]
    restorable: bool


def revision_json(entry: Entry) -> dict[str, Any]:
    """One revision of a history (``memory.history.timeline``)."""
    r = entry.revision
    return {
        "kind": r.kind,
        "id": r.object_id,
        "node": r.node_id,
        "revision": r.number,
        "parent": r.parent,
        "action": r.action,
        "actor": {"type": r.actor, "name": r.actor_name, "token_id": r.token_id},
        "receipt_id": r.receipt_id,
        "reason": r.reason,
        "created_at": _iso(r.created_at),
        "snapshot": r.snapshot,
        "changes": [
            {"field": c.field, "before": c.before, "after": c.after} for c in entry.changes
        ],
        "restorable": entry.restorable,
    }


# --- recall (``RecallResult.as_json()``, memory/recall/items.py) ------------------------------


class RecallSliceOut(Out):
    text: str
    kind: str


class RecallEventOut(Out):
    action: str
    text: str
    happened_at: Time | None
    precision: str | None
    date: str | None = Field(description="As precisely as it is known: 2026, 2026-03, ...")


class RecallNodeOut(Out):
    kind: Literal["node"]
    id: int
    label: str
    category: str
    state: str
    why: str = Field(description="The lanes that matched, joined with +.")
    score: float
    confidence: float = Field(
        ge=0,
        le=1,
        description=(
            "How sure recall is of this item, 0..1, comparable across questions: names, the"
            " question's words it holds weighted by rarity, closeness in meaning, lanes that"
            " agree (docs/recall-quality.md)."
        ),
    )
    summary: str
    slices: list[RecallSliceOut]
    events: list[RecallEventOut]


class RecallPageOut(Out):
    kind: Literal["page"]
    id: int
    title: str
    node_id: int | None
    why: str
    score: float
    confidence: float = Field(
        ge=0,
        le=1,
        description=(
            "How sure recall is of this item, 0..1, comparable across questions: names, the"
            " question's words it holds weighted by rarity, closeness in meaning, lanes that"
            " agree (docs/recall-quality.md)."
        ),
    )
    summary: str


class RecallEpisodeOut(Out):
    kind: Literal["episode"]
    id: int
    text: str
    role: str
    said_at: Time
    transcript_id: int
    message_id: str
    why: str
    score: float
    confidence: float = Field(
        ge=0,
        le=1,
        description=(
            "How sure recall is of this item, 0..1, comparable across questions: names, the"
            " question's words it holds weighted by rarity, closeness in meaning, lanes that"
            " agree (docs/recall-quality.md)."
        ),
    )
    reply_to: str = Field(
        default="",
        description="A few words of the message a short reply answers; only on such replies.",
    )


class RecallOut(Out):
    """Answered with ``exclude_unset``: an episode without ``reply_to`` has no such key."""

    query: str
    no_recall: bool
    reason: str = Field(
        description=(
            "Why: matched, broad_profile, no_match, nothing_close (something matched, too"
            " weakly to offer), smalltalk, utility_query, empty_query."
        )
    )
    context: str = Field(description="The items as lines of text, ready for a prompt.")
    context_truncated: bool
    count: int
    items: list[
        Annotated[RecallNodeOut | RecallPageOut | RecallEpisodeOut, Field(discriminator="kind")]
    ]


# --- the answers of the writes ----------------------------------------------------------------


class QueuedOut(Out):
    """A save left to the pending workers (``202``)."""

    status: Literal["queued"]
    status_url: str
    transcript: TranscriptOut


class ErasureOut(Out):
    """A delete-all left to the pending workers."""

    id: int
    state: Literal["waiting", "deleting", "done"]
    keep_suppressions: bool
    counts: dict[str, int] = Field(description="Rows deleted so far, by kind.")
    requested_at: Time
    finished_at: Time | None
    receipt: ReceiptDetailOut | None = Field(description="The one receipt left, once done.")


class ErasureQueuedOut(Out):
    """A delete-all left to the pending workers (``202``)."""

    status: Literal["queued"]
    status_url: str
    erasure: ErasureOut


class UploadOut(TranscriptOut):
    duplicate: bool = Field(description="True when this content was stored before.")


class DeletedOut(Out):
    deleted: int
    stick: bool
    suppressions: list[SuppressionOut]


class RollbackOut(Out):
    receipt: ReceiptOut
    node: NodeOut | None


class DecisionOut(Out):
    """A promote or a merge: the candidate after it, and the node it went to."""

    candidate: CandidateOut
    node: NodeOut


class RejectOut(Out):
    candidate: CandidateOut
    suppression: SuppressionOut | None


# --- the MCP tools' answers (mcp_server/tools.py) ---------------------------------------------
# Each tool publishes its model as its ``outputSchema`` (mcp_server/server.py), and the SDK
# validates the tool's structured content against it. A tool that does what a route does
# answers with the route's models: recall's answer itself, a receipt, a candidate, a revision.
# Only the wrappers are the tools' own, where their answers always differed from the route's
# (a count instead of a page, the forgotten memory instead of its suppressions).


class McpQueuedOut(Out):
    """A save too large to process in one call, left to the pending workers."""

    status: Literal["queued"]
    transcript_id: int
    size_bytes: int


class McpSavedOut(RootModel[ReceiptOut | McpQueuedOut]):
    """``save_memory`` and ``save_conversation``: the receipt, or where the save waits."""

    # An MCP outputSchema has an object at its root (the union's arms are both objects).
    model_config = ConfigDict(json_schema_extra={"type": "object"})


class ForgottenNodeOut(Out):
    id: int
    label: str
    category: str


class ForgottenCandidateOut(Out):
    candidate_id: int
    label: str
    category: str


class McpForgottenOut(Out):
    """``forget_memory``: the memory deleted (or the label waiting for review rejected)."""

    forgotten: ForgottenNodeOut | ForgottenCandidateOut
    stick: bool
    suppressed_labels: list[str]


class McpHistoryOut(Out):
    node: int
    revisions: list[RevisionOut]


class McpRollbackOut(Out):
    receipt: ReceiptOut


class McpPendingOut(Out):
    count: int
    candidates: list[CandidateOut]


# --- the reference memory server's tools (their names and keys) ---


class EntityStatusOut(Out):
    name: str
    status: Literal["stored", "pending_review", "rejected"]
    reason: str = Field(default="", description="Why it was rejected; only when it was.")


class McpEntitiesOut(Out):
    entities: list[EntityStatusOut]
    receipt: ReceiptOut | None


class RelationOut(Out):
    from_: str = Field(alias="from")
    to: str
    relationType: str  # noqa: N815 -- the reference server's key


class McpRelationsOut(Out):
    relations: list[RelationOut]
    receipt: ReceiptOut | None


class ObservationsAddedOut(Out):
    entityName: str  # noqa: N815
    addedObservations: list[str]  # noqa: N815
    pendingReview: bool  # noqa: N815


class McpObservationsAddedOut(Out):
    results: list[ObservationsAddedOut]
    receipt: ReceiptOut | None


class McpEntitiesDeletedOut(Out):
    deleted: list[str]
    withdrawn_candidates: list[str]
    not_found: list[str]


class ObservationsDeletedOut(Out):
    entityName: str  # noqa: N815
    deletedObservations: list[str]  # noqa: N815


class McpObservationsDeletedOut(Out):
    results: list[ObservationsDeletedOut]


class McpRelationsDeletedOut(Out):
    deleted: list[RelationOut]


class EntityOut(Out):
    name: str
    entityType: str  # noqa: N815
    observations: list[str] = Field(description="A page of its current facts, oldest first.")
    observationCount: int = Field(  # noqa: N815
        description="How many current facts it has in all."
    )
    nextCursor: str | None = Field(  # noqa: N815
        description="Call open_nodes with this entity's name and this cursor for the next "
        "page of its observations; null on the last."
    )
    pendingReview: bool = Field(  # noqa: N815
        default=False,
        description="True for an entity this token proposed that waits for the person's "
        "review: not a memory yet, and shown to no other token.",
    )


class McpGraphOut(Out):
    """``search_nodes`` and ``open_nodes``: entities and the relations among them."""

    entities: list[EntityOut]
    relations: list[RelationOut]


class McpWholeGraphOut(McpGraphOut):
    """``read_graph``: the graph, what waits for review, and whether the graph was cut."""

    pendingReview: list[str]  # noqa: N815
    truncated: bool
