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
from django.db.models import Case, F, IntegerField, Value, When

from memory.gate import PlannedCandidate, Target, WritePlan
from memory.keys import canonical_key, fold_key
from memory.models import Candidate, Evidence, Node, Receipt, Suppression, Transcript
from memory.owned import Person
from memory.proposals import EvidenceSpan, dump_proposal
from memory.selectors import active_suppressions
from memory.services.bulk import JsonAppend, insert_rows, update_each
from memory.services.history import Actor, History
from memory.services.recall_index import recall_index_refresh
from memory.services.writers import (
    NewSlice,
    aliases_write,
    edges_write,
    events_write,
    node_states_write,
    slices_write,
)
from memory.triage import candidate_value
from memory.vocab import CandidateStatus, NodeOrigin, RevisionAction


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
    owner: Person,
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


@dataclass
class _Apply:
    """What the steps of one :func:`plan_apply` share: its inputs, the history it records,
    the result and the evidence it gathers, and the nodes it created (by key)."""

    owner: Person
    plan: WritePlan
    receipt: Receipt
    now: datetime
    history: History
    result: ApplyResult = field(default_factory=ApplyResult)
    evidence: list[EvidenceRow] = field(default_factory=list)
    created: dict[str, Node] = field(default_factory=dict)
    aliases: list[tuple[int, str, str]] = field(default_factory=list)
    #: When words with no time of their own were said: the transcript's time, else now.
    said_default: datetime | None = None

    def said(self, spans: tuple[EvidenceSpan, ...]) -> tuple[datetime, datetime]:
        """When the quoted words were said, earliest and latest (each message's own time)."""
        times = [s.ts for s in spans if s.ts is not None] or [self.said_default or self.now]
        return min(times), max(times)

    def node_id(self, target: Target) -> int:
        return target.node_id if target.node_id is not None else self.created[target.key].pk

    def touched(self) -> set[int]:
        """The nodes whose recall document this write changes."""
        plan = self.plan
        return (
            {n["id"] for n in self.result.nodes}
            | {u.node_id for u in plan.node_updates if u.new_aliases}
            | {self.node_id(s.target) for s in plan.new_slices}
            | {self.node_id(e.target) for e in plan.new_events}
        )


def plan_apply(
    *,
    owner: Person,
    plan: WritePlan,
    receipt: Receipt,
    now: datetime,
    transcript: Transcript | None = None,
    source: str = "command",
) -> ApplyResult:
    """Write ``plan`` for ``owner``. Must run inside ``transaction.atomic()``.

    A constant number of queries whatever the plan's size: each kind of object is written
    with one bulk statement (per batch), never one query per object. Slices, events, aliases,
    edges and state changes go through :mod:`memory.services.writers`, as a review's do."""
    history = History(owner_id=owner.pk, actor=Actor.ingest(receipt), now=now)
    step = _Apply(owner=owner, plan=plan, receipt=receipt, now=now, history=history)
    step.said_default = transcript.source_time if transcript is not None else None
    _create_nodes(step)
    _update_nodes(step)
    _create_aliases(step)
    _create_slices(step)
    _create_events(step)
    _create_edges(step)
    _create_candidates(step)
    _bump_candidates(step)
    if plan.suppression_hits:
        Suppression.objects.for_owner(owner).filter(pk__in=plan.suppression_hits).update(
            hit_count=F("hit_count") + 1, last_hit_at=now
        )
    _write_evidence(
        step.evidence, owner=owner, receipt=receipt, transcript=transcript, source=source, now=now
    )
    history.flush()
    recall_index_refresh(owner_id=owner.pk, nodes=step.touched())
    return step.result


def _create_nodes(step: _Apply) -> None:
    """The plan's new nodes, with their aliases queued for :func:`_create_aliases`."""
    created = Node.objects.bulk_create(
        [
            Node(
                owner=step.owner,
                label=planned.label,
                canonical_key=planned.key,
                category=planned.category,
                state=planned.state or "active",
                origin=NodeOrigin.EXTRACTED,
                mention_count=max(1, len(planned.evidence)),
                last_seen_at=step.now,
                created_receipt=step.receipt,
                created_at=step.now,
                updated_at=step.now,
            )
            for planned in step.plan.new_nodes
        ]
    )
    for planned, node in zip(step.plan.new_nodes, created, strict=True):
        step.created[planned.key] = node
        step.history.add(node, RevisionAction.CREATED)
        for alias in planned.aliases:
            alias_key = canonical_key(alias)
            if alias_key and alias_key != planned.key:
                step.aliases.append((node.pk, alias, alias_key))
        step.result.nodes.append(
            {"id": node.pk, "label": node.label, "on_behalf": planned.on_behalf}
        )
        step.evidence += _evidence_rows(planned.evidence, node_id=node.pk)


def _update_nodes(step: _Apply) -> None:
    """Mentions and sessions of the nodes the plan merges into (one UPDATE for all of them),
    with their new aliases queued for :func:`_create_aliases`."""
    mentions: dict[int, int] = {}
    sessions: dict[int, int] = {}
    for update in step.plan.node_updates:
        mentions[update.node_id] = mentions.get(update.node_id, 0) + update.mentions
        sessions[update.node_id] = sessions.get(update.node_id, 0) + 1
        step.aliases += [(update.node_id, a, canonical_key(a)) for a in update.new_aliases]
        step.result.updated_nodes.append(
            {"id": update.node_id, "label": update.label, "mentions": update.mentions}
        )
        step.evidence += _evidence_rows(update.evidence, node_id=update.node_id)
    if not mentions:
        return

    def per_node(values: dict[int, int]) -> Case:
        return Case(
            *[When(pk=pk, then=Value(n)) for pk, n in values.items()],
            default=Value(0),
            output_field=IntegerField(),
        )

    Node.objects.for_owner(step.owner).filter(pk__in=list(mentions)).update(
        mention_count=F("mention_count") + per_node(mentions),
        session_count=F("session_count") + per_node(sessions),
        last_seen_at=step.now,
        updated_at=step.now,
    )


def _create_aliases(step: _Apply) -> None:
    rows = aliases_write(owner=step.owner, aliases=step.aliases, history=step.history)
    step.result.aliases = [row.pk for row in rows]


def _create_slices(step: _Apply) -> None:
    """New slices, in plan order (a superseding one retires those before it: see
    :func:`~memory.services.writers.slices_write`)."""
    planned = step.plan.new_slices
    written = slices_write(
        owner=step.owner,
        slices=[NewSlice(step.node_id(s.target), s.text, s.kind, s.supersede) for s in planned],
        receipt=step.receipt,
        now=step.now,
        history=step.history,
    )
    step.result.superseded += len(written.retired) + written.retired_new
    step.result.slices = [row.pk for row in written.rows]
    for planned_slice, row in zip(planned, written.rows, strict=True):
        step.evidence += _evidence_rows(
            planned_slice.evidence, slice_id=row.pk, node_id=row.node_id
        )


def _create_events(step: _Apply) -> None:
    planned = step.plan.new_events
    events = events_write(
        owner=step.owner,
        events=[(step.node_id(e.target), e) for e in planned],
        receipt=step.receipt,
        now=step.now,
        history=step.history,
    )
    for planned_event, event in zip(planned, events, strict=True):
        step.result.events.append(event.pk)
        step.evidence += _evidence_rows(
            planned_event.evidence, event_id=event.pk, node_id=event.node_id
        )
    _change_states(step, [(e.node_id, p.new_state) for p, e in zip(planned, events, strict=True)])


def _change_states(step: _Apply, changing: list[tuple[int, str | None]]) -> None:
    """The state changes the plan's events bring (started, paused, ...), in plan order: the
    nodes locked and read once, and one UPDATE for the nodes that changed. A node this save
    created keeps its one revision (re-taken with the state it ends with); any other changed
    node gets a revision."""
    wanted = [(pk, state) for pk, state in changing if state]
    if not wanted:
        return
    rows = {
        node.pk: node
        for node in Node.objects.select_for_update()
        .for_owner(step.owner)
        .filter(pk__in={pk for pk, _ in wanted})
        .order_by("pk")
    }
    current = {pk: (node.state, node.label) for pk, node in rows.items()}
    changed: dict[int, str] = {}
    for pk, new_state in wanted:
        before, label = current.get(pk, (None, ""))
        if before != new_state:
            current[pk] = (new_state, label)
            changed[pk] = new_state
            # The label, so the receipt can name the memory without a query.
            step.result.state_changes.append(
                {"node": pk, "label": label, "from": before, "to": new_state}
            )
    if not changed:
        return
    recorded = {r.object_id for r in step.history.rows if r.kind == "node"}
    fresh = [pk for pk in changed if pk not in recorded]
    node_states_write(owner=step.owner, states=changed, now=step.now, bump=fresh)
    for pk, state in changed.items():
        node = rows[pk]
        node.state = state
        if pk in recorded:
            step.history.refresh(node)
        else:
            node.revision += 1
            step.history.add(node, RevisionAction.UPDATED)


def _create_edges(step: _Apply) -> None:
    planned = step.plan.new_edges
    edges = edges_write(
        owner=step.owner,
        edges=[(step.node_id(e.source), step.node_id(e.dest), e.type, e.label) for e in planned],
        receipt=step.receipt,
        now=step.now,
        history=step.history,
    )
    for planned_edge, edge in zip(planned, edges, strict=True):
        step.result.edges.append(edge.pk)
        step.evidence += _evidence_rows(planned_edge.evidence, edge_id=edge.pk)


def _create_candidates(step: _Apply) -> None:
    ttl = timedelta(days=settings.UME_CANDIDATE_TTL_DAYS)
    planned = step.plan.new_candidates
    candidates = Candidate.objects.bulk_create(
        [
            _new_candidate(
                step.owner,
                p,
                receipt=step.receipt,
                now=step.now,
                ttl=ttl,
                said=step.said(p.evidence),
            )
            for p in planned
        ]
    )
    for planned_candidate, candidate in zip(planned, candidates, strict=True):
        step.result.candidates.append({"id": candidate.pk, "label": candidate.label_guess})
        step.evidence += _evidence_rows(planned_candidate.evidence, candidate_id=candidate.pk)


def _bump_candidates(step: _Apply) -> None:
    """Pending (or expired) candidates mentioned again: locked in one query, written in one."""
    owner, plan, now, result = step.owner, step.plan, step.now, step.result
    ttl = timedelta(days=settings.UME_CANDIDATE_TTL_DAYS)
    if not plan.candidate_bumps:
        return
    wanted = {bump.candidate_id for bump in plan.candidate_bumps}
    # The held details are appended in the database (JsonAppend), never read here: that list
    # grows with every conversation that mentions the candidate again.
    locked = {
        c.pk: c
        for c in Candidate.objects.select_for_update()
        .for_owner(owner)
        .filter(pk__in=wanted)
        .defer("held_objects")
        .order_by("pk")
    }
    held: dict[int, list[dict[str, Any]]] = {pk: [] for pk in locked}
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
        held[candidate.pk] += [dump_proposal(p) for p in bump.held]
        _said_again(candidate, step.said(bump.evidence))
        result.bumped.append(
            {
                "id": candidate.pk,
                "label": candidate.label_guess,
                "mentions": bump.mentions,
                "held": len(bump.held),
                "revived": revived,
            }
        )
        step.evidence += _evidence_rows(bump.evidence, candidate_id=candidate.pk)
    for pk, candidate in locked.items():
        candidate.held_objects = (
            JsonAppend("held_objects", held[pk]) if held[pk] else F("held_objects")
        )
    update_each(
        list(locked.values()),
        [
            "status",
            "mention_count",
            "session_count",
            "last_seen_at",
            "expires_at",
            "held_objects",
            "first_said_at",
            "last_said_at",
            "value",
        ],
    )


def _said_again(candidate: Candidate, said: tuple[datetime, datetime]) -> None:
    """Widen the candidate's said range by ``said`` and set its value again (memory.triage):
    an old conversation imported late moves the first time back, never the last forward."""
    first, last = said
    candidate.first_said_at = min(candidate.first_said_at or first, first)
    candidate.last_said_at = max(candidate.last_said_at or last, last)
    candidate.value = candidate_value(
        sessions=candidate.session_count,
        mentions=candidate.mention_count,
        confidence=candidate.confidence,
        last_said=candidate.last_said_at,
    )


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


def plan_recheck(*, owner: Person, plan: WritePlan, now: datetime) -> None:
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
    owner: Person,
    planned: PlannedCandidate,
    *,
    receipt: Receipt,
    now: datetime,
    ttl: timedelta,
    said: tuple[datetime, datetime],
) -> Candidate:
    value = candidate_value(
        sessions=1, mentions=planned.mentions, confidence=planned.confidence, last_said=said[1]
    )
    return Candidate(
        owner=owner,
        label_guess=planned.label,
        canonical_key=planned.key,
        fold_key=fold_key(planned.key),
        category_guess=planned.category,
        confidence=planned.confidence,
        reason=planned.reason,
        first_seen_at=now,
        last_seen_at=now,
        mention_count=planned.mentions,
        held_objects=[dump_proposal(p) for p in planned.held],
        possible_existing_node_id=planned.possible_node_id,
        resembles_id=planned.resembles,
        held_why=planned.held_why[:200],
        expires_at=now + ttl,
        created_receipt=receipt,
        created_at=now,
        first_said_at=said[0],
        last_said_at=said[1],
        value=value,
    )
