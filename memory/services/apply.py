"""Applying a :class:`~memory.gate.WritePlan`: one transaction, guarded by unique constraints.

The caller (``memory.services.ingest``) owns the transaction and the retry: a unique-key
collision with a concurrent writer raises ``IntegrityError`` out of :func:`plan_apply`, the
transaction rolls back, and the caller re-reads the snapshot and plans again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F

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


def _evidence_rows(
    spans: tuple[EvidenceSpan, ...],
    *,
    owner: Any,
    receipt: Receipt,
    transcript: Transcript | None,
    source: str,
    **target: Any,
) -> list[Evidence]:
    rows = []
    for span in spans:
        if not span.quote:
            continue
        rows.append(
            Evidence(
                owner=owner,
                receipt=receipt,
                transcript=transcript,
                source=source,
                message_id=span.message_id,
                message_ts=span.ts,
                quote=span.quote,
                **target,
            )
        )
    return rows


def plan_apply(
    *,
    owner: Any,
    plan: WritePlan,
    receipt: Receipt,
    now: datetime,
    transcript: Transcript | None = None,
    source: str = "command",
) -> ApplyResult:
    """Write ``plan`` for ``owner``. Must run inside ``transaction.atomic()``."""
    result = ApplyResult()
    evidence: list[Evidence] = []
    ev = {"owner": owner, "receipt": receipt, "transcript": transcript, "source": source}
    node_by_key: dict[str, Node] = {}
    history = History(owner_id=owner.pk, actor=Actor.ingest(receipt), now=now)

    for planned in plan.new_nodes:
        node = Node.objects.create(
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
        node_by_key[planned.key] = node
        history.add(node, RevisionAction.CREATED)
        for alias in planned.aliases:
            alias_key = canonical_key(alias)
            if alias_key and alias_key != planned.key:
                alias_row = Alias.objects.create(
                    owner=owner, node=node, alias=alias, canonical_key=alias_key
                )
                history.add(alias_row, RevisionAction.CREATED)
                result.aliases.append(alias_row.pk)
        result.nodes.append({"id": node.pk, "label": node.label, "on_behalf": planned.on_behalf})
        evidence += _evidence_rows(planned.evidence, node=node, **ev)

    for update in plan.node_updates:
        Node.objects.filter(owner=owner, pk=update.node_id).update(
            mention_count=F("mention_count") + update.mentions,
            session_count=F("session_count") + 1,
            last_seen_at=now,
            updated_at=now,
        )
        for alias in update.new_aliases:
            alias_row = Alias.objects.create(
                owner=owner,
                node_id=update.node_id,
                alias=alias,
                canonical_key=canonical_key(alias),
            )
            history.add(alias_row, RevisionAction.CREATED)
            result.aliases.append(alias_row.pk)
        result.updated_nodes.append(
            {"id": update.node_id, "label": update.label, "mentions": update.mentions}
        )
        evidence += _evidence_rows(update.evidence, node_id=update.node_id, **ev)

    def node_id(target: Target) -> int:
        if target.node_id is not None:
            return target.node_id
        return node_by_key[target.key].pk

    for planned_slice in plan.new_slices:
        target_id = node_id(planned_slice.target)
        if planned_slice.supersede:
            current = list(
                Slice.objects.select_for_update().filter(
                    owner=owner, node_id=target_id, kind=planned_slice.kind, is_current=True
                )
            )
            result.superseded += update_rows(
                current, history, RevisionAction.SUPERSEDED, is_current=False, superseded_at=now
            )
        slice_row = Slice.objects.create(
            owner=owner,
            node_id=target_id,
            text=planned_slice.text,
            kind=planned_slice.kind,
            created_receipt=receipt,
            created_at=now,
        )
        history.add(slice_row, RevisionAction.CREATED)
        result.slices.append(slice_row.pk)
        evidence += _evidence_rows(planned_slice.evidence, slice=slice_row, node_id=target_id, **ev)

    for planned_event in plan.new_events:
        target_id = node_id(planned_event.target)
        event = Event.objects.create(
            owner=owner,
            node_id=target_id,
            action=planned_event.action,
            text=planned_event.text,
            importance=planned_event.importance,
            happened_at=planned_event.happened_at,
            happened_at_precision=planned_event.happened_at_precision,
            happened_at_source=planned_event.happened_at_source,
            created_receipt=receipt,
            created_at=now,
        )
        history.add(event, RevisionAction.CREATED)
        result.events.append(event.pk)
        if planned_event.new_state:
            target_node = Node.objects.select_for_update().filter(pk=target_id).first()
            before, label = (target_node.state, target_node.label) if target_node else (None, "")
            if target_node is not None and before != planned_event.new_state:
                if target_node.pk in {n.pk for n in node_by_key.values()}:
                    # Created by this very save: one revision, with the state it ends with.
                    Node.objects.filter(pk=target_id).update(
                        state=planned_event.new_state, updated_at=now
                    )
                    target_node.state = planned_event.new_state
                    history.refresh(target_node)
                else:
                    update_rows(
                        [target_node],
                        history,
                        RevisionAction.UPDATED,
                        state=planned_event.new_state,
                        updated_at=now,
                    )
                result.state_changes.append(
                    # The label, so the receipt can name the memory without a query.
                    {
                        "node": target_id,
                        "label": label,
                        "from": before,
                        "to": planned_event.new_state,
                    }
                )
        evidence += _evidence_rows(planned_event.evidence, event=event, node_id=target_id, **ev)

    for planned_edge in plan.new_edges:
        edge = Edge.objects.create(
            owner=owner,
            from_node_id=node_id(planned_edge.source),
            to_node_id=node_id(planned_edge.dest),
            type=planned_edge.type,
            created_receipt=receipt,
            created_at=now,
        )
        history.add(edge, RevisionAction.CREATED)
        result.edges.append(edge.pk)
        evidence += _evidence_rows(planned_edge.evidence, edge=edge, **ev)

    ttl = timedelta(days=settings.UME_CANDIDATE_TTL_DAYS)
    for planned_candidate in plan.new_candidates:
        candidate = _create_candidate(owner, planned_candidate, receipt=receipt, now=now, ttl=ttl)
        result.candidates.append({"id": candidate.pk, "label": candidate.label_guess})
        evidence += _evidence_rows(planned_candidate.evidence, candidate=candidate, **ev)

    for bump in plan.candidate_bumps:
        try:
            candidate = Candidate.objects.select_for_update().get(owner=owner, pk=bump.candidate_id)
        except Candidate.DoesNotExist:
            # Deleted between snapshot and apply (delete all, cleanup): plan again.
            raise CandidateDecided(bump.candidate_id) from None
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
        candidate.save(
            update_fields=[
                "status",
                "mention_count",
                "session_count",
                "last_seen_at",
                "expires_at",
                "held_objects",
            ]
        )
        result.bumped.append(
            {
                "id": candidate.pk,
                "label": candidate.label_guess,
                "mentions": bump.mentions,
                "held": len(bump.held),
                "revived": revived,
            }
        )
        evidence += _evidence_rows(bump.evidence, candidate=candidate, **ev)

    if plan.suppression_hits:
        Suppression.objects.filter(owner=owner, pk__in=plan.suppression_hits).update(
            hit_count=F("hit_count") + 1, last_hit_at=now
        )
    Evidence.objects.bulk_create(_distinct(evidence))
    history.flush()
    recall_index_refresh(
        owner_id=owner.pk,
        nodes={n["id"] for n in result.nodes}
        | {u.node_id for u in plan.node_updates if u.new_aliases}
        | {node_id(s.target) for s in plan.new_slices}
        | {node_id(e.target) for e in plan.new_events},
    )
    return result


def _distinct(rows: list[Evidence]) -> list[Evidence]:
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


def _create_candidate(
    owner: Any, planned: PlannedCandidate, *, receipt: Receipt, now: datetime, ttl: timedelta
) -> Candidate:
    return Candidate.objects.create(
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
