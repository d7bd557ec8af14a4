"""Applying a :class:`~memory.gate.WritePlan`: one transaction, guarded by unique constraints.

The caller (``memory.services.ingest``) owns the transaction and the retry: a unique-key
collision with a concurrent writer raises ``IntegrityError`` out of :func:`plan_apply`, the
transaction rolls back, and the caller re-reads the snapshot and plans again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection
from django.db.models import Case, CharField, F, IntegerField, Q, Value, When

from memory.gate import PlannedCandidate, Target, WritePlan
from memory.keys import canonical_key
from memory.models import (
    Alias,
    Candidate,
    Edge,
    Event,
    Evidence,
    Node,
    Slice,
    Suppression,
    Transcript,
)
from memory.proposals import EvidenceSpan, dump_proposal
from memory.selectors import active_suppressions
from memory.services.bulk import insert_rows
from memory.services.history import Actor, History, update_rows
from memory.services.recall_index import recall_index_refresh
from memory.vocab import CandidateStatus, NodeOrigin, RevisionAction
from receipts.models import Receipt


@dataclass
class ApplyResult:
    """What was written, for the receipt's counts and its plan detail."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    updated_nodes: list[dict[str, Any]] = field(default_factory=list)
    slices: list[int] = field(default_factory=list)
    superseded: int = 0
    events: list[int] = field(default_factory=list)
    edges: list[int] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    bumped: list[dict[str, Any]] = field(default_factory=list)
    aliases: list[int] = field(default_factory=list)
    state_changes: list[dict[str, Any]] = field(default_factory=list)
    slice_rows: list[Slice] = field(default_factory=list)

    def counts(self, plan: WritePlan) -> dict[str, int]:
        return {
            "nodes": len(self.nodes),
            "nodes_updated": len(self.updated_nodes),
            "slices": len(self.slices),
            "superseded": self.superseded,
            "events": len(self.events),
            "edges": len(self.edges),
            "candidates": len(self.candidates),
            "candidate_bumps": len(self.bumped),
            "held": plan.held_count,
            "rejected": len(plan.rejected),
        }

    def detail(self) -> dict[str, Any]:
        return {
            "created": {
                "nodes": self.nodes,
                "slices": self.slices,
                "events": self.events,
                "edges": self.edges,
                "candidates": self.candidates,
                "aliases": self.aliases,
            },
            "updated": {
                "nodes": self.updated_nodes,
                "candidates": self.bumped,
                "superseded_slices": self.superseded,
                "state_changes": self.state_changes,
            },
        }


class EvidenceRow(NamedTuple):
    """One piece of evidence to write: what it justifies and the words quoted."""

    node_id: int | None
    slice_id: int | None
    event_id: int | None
    edge_id: int | None
    candidate_id: int | None
    message_id: str
    message_ts: datetime | None
    quote: str


def _evidence_rows(
    spans: tuple[EvidenceSpan, ...],
    *,
    node_id: int | None = None,
    slice_id: int | None = None,
    event_id: int | None = None,
    edge_id: int | None = None,
    candidate_id: int | None = None,
) -> list[EvidenceRow]:
    return [
        EvidenceRow(
            node_id, slice_id, event_id, edge_id, candidate_id, span.message_id, span.ts, span.quote
        )
        for span in spans
        if span.quote
    ]


def _write_evidence(
    rows: list[EvidenceRow],
    *,
    owner: Any,
    receipt: Receipt,
    transcript: Transcript | None,
    source: str,
    now: datetime,
) -> None:
    fixed = (owner.pk, receipt.pk, transcript.pk if transcript else None, source, now)
    insert_rows(
        Evidence,
        ("owner", "receipt", "transcript", "source", "created_at", *EvidenceRow._fields),
        (fixed + tuple(row) for row in _distinct(rows)),
    )


def plan_apply(
    *,
    owner: Any,
    plan: WritePlan,
    receipt: Receipt,
    now: datetime,
    transcript: Transcript | None = None,
    source: str = "command",
) -> ApplyResult:
    """Write ``plan`` for ``owner``. Must run inside ``transaction.atomic()``.

    A constant number of queries whatever the plan's size: each kind of object is written
    with one bulk statement (per batch), never one query per object."""
    result = ApplyResult()
    evidence: list[EvidenceRow] = []
    history = History(owner_id=owner.pk, actor=Actor.ingest(receipt), now=now)

    created = Node.objects.bulk_create(
        [
            Node(
                owner=owner,
                label=planned.label,
                canonical_key=planned.key,
                category=planned.category,
                state=planned.state or "active",
                origin=NodeOrigin.EXTRACTED,
                mention_count=max(1, len(planned.evidence)),
                last_seen_at=now,
                created_receipt=receipt,
                created_at=now,
                updated_at=now,
            )
            for planned in plan.new_nodes
        ]
    )
    node_by_key: dict[str, Node] = {}
    aliases: list[Alias] = []
    for planned, node in zip(plan.new_nodes, created, strict=True):
        node_by_key[planned.key] = node
        history.add(node, RevisionAction.CREATED)
        for alias in planned.aliases:
            alias_key = canonical_key(alias)
            if alias_key and alias_key != planned.key:
                aliases.append(Alias(owner=owner, node=node, alias=alias, canonical_key=alias_key))
        result.nodes.append({"id": node.pk, "label": node.label, "on_behalf": planned.on_behalf})
        evidence += _evidence_rows(planned.evidence, node_id=node.pk)

    _update_nodes(owner, plan, now)
    for update in plan.node_updates:
        aliases += [
            Alias(
                owner=owner, node_id=update.node_id, alias=alias, canonical_key=canonical_key(alias)
            )
            for alias in update.new_aliases
        ]
        result.updated_nodes.append(
            {"id": update.node_id, "label": update.label, "mentions": update.mentions}
        )
        evidence += _evidence_rows(update.evidence, node_id=update.node_id)
    for alias_row in Alias.objects.bulk_create(aliases):
        history.add(alias_row, RevisionAction.CREATED)
        result.aliases.append(alias_row.pk)

    def node_id(target: Target) -> int:
        if target.node_id is not None:
            return target.node_id
        return node_by_key[target.key].pk

    _apply_slices(
        owner, plan, receipt=receipt, now=now, node_id=node_id, result=result, history=history
    )
    for planned_slice, slice_row in zip(plan.new_slices, result.slice_rows, strict=True):
        evidence += _evidence_rows(
            planned_slice.evidence, slice_id=slice_row.pk, node_id=slice_row.node_id
        )

    events = Event.objects.bulk_create(
        [
            Event(
                owner=owner,
                node_id=node_id(planned_event.target),
                action=planned_event.action,
                text=planned_event.text,
                importance=planned_event.importance,
                happened_at=planned_event.happened_at,
                happened_at_precision=planned_event.happened_at_precision,
                happened_at_source=planned_event.happened_at_source,
                created_receipt=receipt,
                created_at=now,
            )
            for planned_event in plan.new_events
        ]
    )
    for planned_event, event in zip(plan.new_events, events, strict=True):
        history.add(event, RevisionAction.CREATED)
        result.events.append(event.pk)
        evidence += _evidence_rows(planned_event.evidence, event_id=event.pk, node_id=event.node_id)
    _change_states(owner, plan, events, now=now, result=result, history=history)

    edges = Edge.objects.bulk_create(
        [
            Edge(
                owner=owner,
                from_node_id=node_id(planned_edge.source),
                to_node_id=node_id(planned_edge.dest),
                type=planned_edge.type,
                created_receipt=receipt,
                created_at=now,
            )
            for planned_edge in plan.new_edges
        ]
    )
    for planned_edge, edge in zip(plan.new_edges, edges, strict=True):
        history.add(edge, RevisionAction.CREATED)
        result.edges.append(edge.pk)
        evidence += _evidence_rows(planned_edge.evidence, edge_id=edge.pk)

    ttl = timedelta(days=settings.UME_CANDIDATE_TTL_DAYS)
    candidates = Candidate.objects.bulk_create(
        [
            _new_candidate(owner, planned, receipt=receipt, now=now, ttl=ttl)
            for planned in plan.new_candidates
        ]
    )
    for planned_candidate, candidate in zip(plan.new_candidates, candidates, strict=True):
        result.candidates.append({"id": candidate.pk, "label": candidate.label_guess})
        evidence += _evidence_rows(planned_candidate.evidence, candidate_id=candidate.pk)

    evidence += _bump_candidates(owner, plan, now=now, ttl=ttl, result=result)

    if plan.suppression_hits:
        Suppression.objects.filter(owner=owner, pk__in=plan.suppression_hits).update(
            hit_count=F("hit_count") + 1, last_hit_at=now
        )
    _write_evidence(
        evidence, owner=owner, receipt=receipt, transcript=transcript, source=source, now=now
    )
    history.flush()
    recall_index_refresh(
        owner_id=owner.pk,
        nodes={n["id"] for n in result.nodes}
        | {u.node_id for u in plan.node_updates if u.new_aliases}
        | {node_id(s.target) for s in plan.new_slices}
        | {node_id(e.target) for e in plan.new_events},
    )
    return result


def _update_nodes(owner: Any, plan: WritePlan, now: datetime) -> None:
    """Mentions and sessions of the nodes the plan merges into: one UPDATE for all of them."""
    mentions: dict[int, int] = {}
    sessions: dict[int, int] = {}
    for update in plan.node_updates:
        mentions[update.node_id] = mentions.get(update.node_id, 0) + update.mentions
        sessions[update.node_id] = sessions.get(update.node_id, 0) + 1
    if not mentions:
        return

    def per_node(values: dict[int, int]) -> Case:
        return Case(
            *[When(pk=pk, then=Value(n)) for pk, n in values.items()],
            default=Value(0),
            output_field=IntegerField(),
        )

    Node.objects.filter(owner=owner, pk__in=list(mentions)).update(
        mention_count=F("mention_count") + per_node(mentions),
        session_count=F("session_count") + per_node(sessions),
        last_seen_at=now,
        updated_at=now,
    )


def _apply_slices(
    owner: Any,
    plan: WritePlan,
    *,
    receipt: Receipt,
    now: datetime,
    node_id: Any,
    result: ApplyResult,
    history: History,
) -> None:
    """New slices, in plan order. A superseding slice retires the current slices of its node
    and kind, including those this plan wrote before it: the stored ones locked in one query
    and retired in one UPDATE (each with its revision), and the plan's own earlier ones are
    written retired (their one revision says so)."""
    targets = [node_id(s.target) for s in plan.new_slices]
    superseding = {
        (target, s.kind) for target, s in zip(targets, plan.new_slices, strict=True) if s.supersede
    }
    if superseding:
        # Scoped through the owner's nodes, not by an owner condition beside them: without
        # table statistics, SQLite reads that from the owner's index, every slice of the
        # person, instead of the (node, kind, is_current) index.
        retire = Q()
        for target, kind in sorted(superseding):
            retire |= Q(node_id=target, kind=kind)
        nodes = sorted({target for target, _kind in superseding})
        owned = Node.objects.filter(owner=owner, id__in=nodes).values("id")
        # Locked in id order where rows are locked (PostgreSQL), so that two saves never
        # wait on each other's rows. SQLite locks the whole database instead, and there an
        # ORDER BY id makes its planner (without table statistics) walk the owner's index,
        # every slice of the person, to find these few: no order there.
        locked = (
            Slice.objects.select_for_update()
            .filter(node_id__in=owned, is_current=True)
            .filter(retire)
            .order_by()
        )
        if connection.features.has_select_for_update:
            locked = locked.order_by("pk")
        current = sorted(locked, key=lambda row: row.pk)
        result.superseded += update_rows(
            current, history, RevisionAction.SUPERSEDED, is_current=False, superseded_at=now
        )
    rows: list[Slice] = []
    retired_later: set[tuple[int, str]] = set()  # pairs a later slice of the plan supersedes
    for target, planned in reversed(list(zip(targets, plan.new_slices, strict=True))):
        later = (target, planned.kind) in retired_later
        if planned.supersede:
            retired_later.add((target, planned.kind))
        result.superseded += int(later)
        rows.append(
            Slice(
                owner=owner,
                node_id=target,
                text=planned.text,
                kind=planned.kind,
                is_current=not later,
                superseded_at=now if later else None,
                created_receipt=receipt,
                created_at=now,
            )
        )
    result.slice_rows = Slice.objects.bulk_create(rows[::-1])
    for row in result.slice_rows:
        history.add(row, RevisionAction.CREATED)
    result.slices = [row.pk for row in result.slice_rows]


def _change_states(
    owner: Any,
    plan: WritePlan,
    events: list[Event],
    *,
    now: datetime,
    result: ApplyResult,
    history: History,
) -> None:
    """The state changes the plan's events bring (started, paused, ...), in plan order: the
    nodes locked and read once, and one UPDATE for the nodes that changed. A node this save
    created keeps its one revision (re-taken with the state it ends with); any other changed
    node gets a revision."""
    changing = [
        (event.node_id, planned.new_state)
        for planned, event in zip(plan.new_events, events, strict=True)
        if planned.new_state
    ]
    if not changing:
        return
    rows = {
        node.pk: node
        for node in Node.objects.select_for_update()
        .filter(owner=owner, pk__in={pk for pk, _ in changing})
        .order_by("pk")
    }
    current = {pk: (node.state, node.label) for pk, node in rows.items()}
    changed: dict[int, str] = {}
    for pk, new_state in changing:
        before, label = current.get(pk, (None, ""))
        if before != new_state:
            current[pk] = (new_state, label)
            changed[pk] = new_state
            # The label, so the receipt can name the memory without a query.
            result.state_changes.append(
                {"node": pk, "label": label, "from": before, "to": new_state}
            )
    if not changed:
        return
    recorded = {r.object_id for r in history.rows if r.kind == "node"}
    fresh = [pk for pk in changed if pk not in recorded]
    Node.objects.filter(owner=owner, pk__in=list(changed)).update(
        state=Case(
            *[When(pk=pk, then=Value(state)) for pk, state in changed.items()],
            output_field=CharField(),
        ),
        revision=Case(
            When(pk__in=fresh, then=F("revision") + 1),
            default=F("revision"),
            output_field=IntegerField(),
        ),
        updated_at=now,
    )
    for pk, state in changed.items():
        node = rows[pk]
        node.state = state
        if pk in recorded:
            history.refresh(node)
        else:
            node.revision += 1
            history.add(node, RevisionAction.UPDATED)


def _bump_candidates(
    owner: Any,
    plan: WritePlan,
    *,
    now: datetime,
    ttl: timedelta,
    result: ApplyResult,
) -> list[EvidenceRow]:
    """Pending (or expired) candidates mentioned again: locked in one query, written in one."""
    if not plan.candidate_bumps:
        return []
    wanted = {bump.candidate_id for bump in plan.candidate_bumps}
    locked = {
        c.pk: c
        for c in Candidate.objects.select_for_update()
        .filter(owner=owner, pk__in=wanted)
        .order_by("pk")
    }
    evidence: list[EvidenceRow] = []
    for bump in plan.candidate_bumps:
        candidate = locked.get(bump.candidate_id)
        if candidate is None:
            # Deleted between snapshot and apply (delete all, cleanup): plan again.
            raise CandidateDecided(bump.candidate_id)
        revived = candidate.status == CandidateStatus.EXPIRED
        if revived:
            # Mentioned again after cleanup expired it: back in the queue with its history. A
            # pending twin created meanwhile trips the one-pending constraint and we plan again.
            candidate.status = CandidateStatus.PENDING
        elif candidate.status != CandidateStatus.PENDING:
            # Decided by a person between snapshot and apply: plan again on fresh state.
            raise CandidateDecided(candidate.pk)
        candidate.mention_count += bump.mentions
        candidate.session_count += 1
        candidate.last_seen_at = now
        candidate.expires_at = now + ttl
        candidate.held_objects = list(candidate.held_objects) + [
            dump_proposal(p) for p in bump.held
        ]
        result.bumped.append(
            {
                "id": candidate.pk,
                "label": candidate.label_guess,
                "mentions": bump.mentions,
                "held": len(bump.held),
                "revived": revived,
            }
        )
        evidence += _evidence_rows(bump.evidence, candidate_id=candidate.pk)
    Candidate.objects.bulk_update(
        list(locked.values()),
        [
            "status",
            "mention_count",
            "session_count",
            "last_seen_at",
            "expires_at",
            "held_objects",
        ],
    )
    return evidence


def _distinct(rows: list[EvidenceRow]) -> list[EvidenceRow]:
    """One row per target, message and quote: a candidate's own span and the span of a detail it
    holds are often the same words, and must not show as two pieces of evidence."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for row in rows:
        key = (
            row.node_id,
            row.slice_id,
            row.event_id,
            row.edge_id,
            row.candidate_id,
            row.message_id,
            row.quote,
        )
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


class CandidateDecided(RuntimeError):
    """A candidate the plan would bump was decided meanwhile; the caller plans again."""


def plan_recheck(*, owner: Any, plan: WritePlan, now: datetime) -> None:
    """Inside the apply transaction: if a label this plan would let in was suppressed after the
    snapshot was read (a person clicked "stop proposing this" meanwhile), plan again."""
    keys = {n.key for n in plan.new_nodes} | {c.key for c in plan.new_candidates}
    keys |= {b.key for b in plan.candidate_bumps}
    keys |= {canonical_key(a) for n in plan.new_nodes for a in n.aliases}
    keys |= {canonical_key(a) for u in plan.node_updates for a in u.new_aliases}
    keys.discard("")
    if keys and active_suppressions(owner, now=now).filter(canonical_key__in=keys).exists():
        raise CandidateDecided("a label in this plan was suppressed meanwhile")


def _new_candidate(
    owner: Any, planned: PlannedCandidate, *, receipt: Receipt, now: datetime, ttl: timedelta
) -> Candidate:
    return Candidate(
        owner=owner,
        label_guess=planned.label,
        canonical_key=planned.key,
        category_guess=planned.category,
        confidence=planned.confidence,
        reason=planned.reason,
        first_seen_at=now,
        last_seen_at=now,
        mention_count=planned.mentions,
        held_objects=[dump_proposal(p) for p in planned.held],
        possible_existing_node_id=planned.possible_node_id,
        expires_at=now + ttl,
        created_receipt=receipt,
        created_at=now,
    )
