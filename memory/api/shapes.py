"""The JSON shapes the API and the MCP tools return (DESIGN.md "Serving").

A node is at least ``{id, label, category, state, aliases}``; a candidate at least ``{id,
label, category, status, confidence, evidence}``; a receipt is ``Receipt.as_json()``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.history import Entry
from memory.models import Candidate, Event, MemoryRule, Node, Slice, Suppression, Transcript
from memory.selectors import EVIDENCE_PER_ITEM


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


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


def slice_json(row: Slice) -> dict[str, Any]:
    return {
        "id": row.pk,
        "text": row.text,
        "kind": row.kind,
        "is_current": row.is_current,
        "created_at": _iso(row.created_at),
    }


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


def node_detail_json(node: Node, slices: list[Slice], events: list[Event]) -> dict[str, Any]:
    return {
        **node_json(node),
        "slices": [slice_json(s) for s in slices],
        "events": [event_json(e) for e in events],
    }


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
    }


def _first_evidence(candidate: Candidate) -> list[Any]:
    if hasattr(candidate, "first_evidence"):
        return list(candidate.first_evidence)
    return list(candidate.evidence.order_by("created_at", "id")[:EVIDENCE_PER_ITEM])


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
