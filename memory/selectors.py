"""Reads. Every selector takes the owner and filters on it; relations are preloaded."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, F, Prefetch, Q, QuerySet

from memory.gate import (
    CandidateRef,
    NodeRef,
    RulesRef,
    Snapshot,
    SuppressionRef,
    proposal_keys,
)
from memory.keys import canonical_key
from memory.models import (
    Alias,
    Candidate,
    Edge,
    Episode,
    Event,
    Evidence,
    MemoryRule,
    Node,
    Slice,
    Suppression,
    Transcript,
)
from memory.proposals import AnyProposal, EventProposal
from memory.vocab import CandidateStatus

# Words too common to find "the existing node it may belong to" by.
_HINT_STOP = frozenset(
    "the a an of and or my our to in on at for with new old project app system".split()
)


def memory_rule_for(owner: Any) -> MemoryRule:
    """The owner's rules, or unsaved defaults (review mode, no includes or excludes)."""
    rule = MemoryRule.objects.filter(owner=owner).first()
    return rule if rule is not None else MemoryRule(owner=owner)


def active_suppressions(owner: Any, *, now: datetime) -> QuerySet[Suppression]:
    """Suppressions that block right now; the gate and cleanup agree on this definition."""
    return Suppression.objects.filter(owner=owner, lifted_at__isnull=True).filter(
        Q(suppressed_until__isnull=True) | Q(suppressed_until__gt=now)
    )


def gate_snapshot(owner: Any, proposals: Iterable[AnyProposal], *, now: datetime) -> Snapshot:
    """Everything the gate needs to judge ``proposals``, in a constant number of queries.

    Only rows the proposals can touch are loaded: nodes, aliases, pending candidates and
    suppressions whose canonical key is one the proposals name, plus nodes sharing a word
    with them (shown to the reviewer as "may belong to", never merged).
    """
    proposals = list(proposals)
    keys = proposal_keys(proposals)
    rule = memory_rule_for(owner)
    rules = RulesRef(
        includes=tuple(rule.includes or ()),
        excludes=tuple(rule.excludes or ()),
        capture_default=rule.capture_default,
    )
    base = Snapshot(
        now=now,
        rules=rules,
        auto_confidence=settings.UME_AUTO_CONFIDENCE,
        min_confidence=settings.UME_MIN_CONFIDENCE,
    )
    if not keys:
        return base

    words = sorted({w for k in keys for w in k.split() if len(w) > 2 and w not in _HINT_STOP})[:40]
    near = Q()
    for word in words:
        near |= Q(canonical_key=word) | Q(canonical_key__startswith=f"{word} ")
        near |= Q(canonical_key__endswith=f" {word}") | Q(canonical_key__contains=f" {word} ")
    exact = Q(canonical_key__in=keys) | Q(aliases__canonical_key__in=keys)
    # Exact matches decide identity: always loaded. Nodes that merely share a word are hints
    # for the reviewer, capped -- and they can never crowd an exact match out of the snapshot.
    node_rows = list(Node.objects.filter(owner=owner).filter(exact).distinct().order_by("id"))
    if words:
        seen = {n.id for n in node_rows}
        hints = Node.objects.filter(owner=owner).filter(near).order_by("id")[:500]
        node_rows += [n for n in hints if n.id not in seen]
    node_ids = [n.id for n in node_rows]
    alias_keys: dict[int, set[str]] = {}
    for node_id, alias_key in Alias.objects.filter(owner=owner, node_id__in=node_ids).values_list(
        "node_id", "canonical_key"
    ):
        alias_keys.setdefault(node_id, set()).add(alias_key)
    nodes = tuple(
        NodeRef(
            n.id, n.label, n.canonical_key, n.category, n.state, frozenset(alias_keys.get(n.id, ()))
        )
        for n in node_rows
    )
    matched = [n.id for n in nodes if n.key in keys or n.alias_keys & keys]

    # A pending candidate per key, else the latest expired one: a label mentioned again after
    # cleanup expired it is bumped back to pending (apply revives it), keeping its evidence and
    # counts, instead of starting a twin card.
    by_key: dict[str, Candidate] = {}
    for c in Candidate.objects.filter(
        owner=owner,
        status__in=[CandidateStatus.PENDING, CandidateStatus.EXPIRED],
        canonical_key__in=keys,
    ).order_by("-last_seen_at", "-id"):
        chosen = by_key.get(c.canonical_key)
        if chosen is None or (
            chosen.status != CandidateStatus.PENDING and c.status == CandidateStatus.PENDING
        ):
            by_key[c.canonical_key] = c
    candidates = tuple(
        CandidateRef(c.id, c.canonical_key, c.label_guess, c.category_guess)
        for c in by_key.values()
    )
    suppressions = tuple(
        SuppressionRef(s.id, s.kind, s.canonical_key, s.suppressed_until)
        for s in active_suppressions(owner, now=now).filter(canonical_key__in=keys)
    )
    edges = frozenset(
        Edge.objects.filter(
            owner=owner, from_node_id__in=matched, to_node_id__in=matched
        ).values_list("from_node_id", "to_node_id", "type")
    )
    slice_keys = frozenset(
        (node_id, kind, canonical_key(text))
        for node_id, kind, text in Slice.objects.filter(
            owner=owner, node_id__in=matched, is_current=True
        ).values_list("node_id", "kind", "text")
    )
    # Only events that could be duplicates of a proposed one: same node and same action.
    actions = {p.action for p in proposals if isinstance(p, EventProposal)}
    event_keys = frozenset(
        (node_id, action, canonical_key(text))
        for node_id, action, text in Event.objects.filter(
            owner=owner, node_id__in=matched, action__in=actions
        ).values_list("node_id", "action", "text")
    )
    return Snapshot(
        now=now,
        nodes=nodes,
        candidates=candidates,
        suppressions=suppressions,
        rules=rules,
        edges=edges,
        slice_keys=slice_keys,
        event_keys=event_keys,
        auto_confidence=base.auto_confidence,
        min_confidence=base.min_confidence,
    )


# --- reads for the dashboard, the API and the MCP tools -----------------------------------


def node_list(owner: Any, *, category: str = "", state: str = "", q: str = "") -> QuerySet[Node]:
    nodes = Node.objects.filter(owner=owner).prefetch_related("aliases")
    if category:
        nodes = nodes.filter(category=category)
    if state:
        nodes = nodes.filter(state=state)
    if q:
        key = canonical_key(q)
        if not key:  # "!!!" names nothing; an empty key would be inside every label
            return nodes.none()
        nodes = nodes.filter(
            Q(canonical_key__contains=key) | Q(aliases__canonical_key__contains=key)
        ).distinct()
    return nodes.order_by("label", "id")


def node_get(owner: Any, node_id: int) -> Node | None:
    return Node.objects.filter(owner=owner, pk=node_id).prefetch_related("aliases").first()


def candidate_queue(owner: Any, *, status: str = CandidateStatus.PENDING) -> QuerySet[Candidate]:
    """The review queue: newest activity first, with evidence and the possible node loaded."""
    return (
        Candidate.objects.filter(owner=owner, status=status)
        .select_related("possible_existing_node")
        .prefetch_related("evidence", "evidence__transcript")
        .order_by("-last_seen_at", "-id")
    )


def candidate_get(owner: Any, candidate_id: int) -> Candidate | None:
    return (
        Candidate.objects.filter(owner=owner, pk=candidate_id)
        .select_related("possible_existing_node", "promoted_node")
        .first()
    )


def pending_count(owner: Any) -> int:
    return Candidate.objects.filter(owner=owner, status=CandidateStatus.PENDING).count()


def suppression_list(owner: Any) -> QuerySet[Suppression]:
    return Suppression.objects.filter(owner=owner).order_by("-created_at", "-id")


# --- reads for the memory browser and the review dashboard ---------------------------------


def node_detail(owner: Any, node_id: int) -> Node | None:
    """One node with everything its page shows, in a constant number of queries."""
    evidence = Evidence.objects.select_related("transcript").order_by("created_at", "id")
    return (
        Node.objects.filter(owner=owner, pk=node_id)
        .prefetch_related(
            "aliases",
            Prefetch("slices", queryset=Slice.objects.order_by("-created_at", "-id")),
            Prefetch("slices__evidence", queryset=evidence),
            # The timeline: when it happened first (unknown dates last), then when ume learned it.
            Prefetch(
                "events",
                queryset=Event.objects.order_by(
                    F("happened_at").desc(nulls_last=True), "-created_at", "-id"
                ),
            ),
            Prefetch("events__evidence", queryset=evidence),
            Prefetch(
                "edges_out", queryset=Edge.objects.select_related("to_node").order_by("type", "id")
            ),
            Prefetch(
                "edges_in", queryset=Edge.objects.select_related("from_node").order_by("type", "id")
            ),
            Prefetch("edges_out__evidence", queryset=evidence),
            Prefetch("edges_in__evidence", queryset=evidence),
            Prefetch(
                "evidence",
                queryset=evidence.filter(slice__isnull=True, event__isnull=True, edge__isnull=True),
                to_attr="node_evidence",
            ),
        )
        .first()
    )


def node_facets(owner: Any) -> dict[str, dict[str, int]]:
    """How many nodes the owner has per category and per state (for the browser's filters)."""
    by_category: dict[str, int] = {}
    by_state: dict[str, int] = {}
    rows = Node.objects.filter(owner=owner).values_list("category", "state").annotate(n=Count("id"))
    for category, state, n in rows.order_by():
        by_category[category] = by_category.get(category, 0) + n
        by_state[state] = by_state.get(state, 0) + n
    return {"category": by_category, "state": by_state}


def node_picker(owner: Any, q: str, *, limit: int = 8) -> list[Node]:
    """Nodes to merge a candidate into, by label or alias (search as you type)."""
    if not canonical_key(q):
        return []
    return list(node_list(owner, q=q)[:limit])


def alias_get(owner: Any, alias_id: int) -> Alias | None:
    return Alias.objects.filter(owner=owner, pk=alias_id).select_related("node").first()


def suppression_get(owner: Any, suppression_id: int) -> Suppression | None:
    return Suppression.objects.filter(owner=owner, pk=suppression_id).first()


def candidates_pending_by_ids(owner: Any, ids: Iterable[int]) -> list[Candidate]:
    """The owner's candidates among ``ids`` that still wait for a decision (bulk actions)."""
    return list(
        Candidate.objects.filter(owner=owner, pk__in=list(ids), status=CandidateStatus.PENDING)
    )


def transcript_uploads(owner: Any, *, limit: int = 50) -> QuerySet[Transcript]:
    """The owner's uploaded transcripts, newest first, with their receipts (no text loaded)."""
    return (
        Transcript.objects.filter(owner=owner, source="upload")
        .select_related("receipt")
        .defer("text")
        .order_by("-created_at", "-id")[:limit]
    )


def graph_data(
    owner: Any, *, category: str = "", limit: int = 150
) -> tuple[list[Node], list[Edge]]:
    """The most-mentioned nodes (optionally of one category) and the edges among them."""
    nodes = Node.objects.filter(owner=owner)
    if category:
        nodes = nodes.filter(category=category)
    shown = list(nodes.order_by("-mention_count", "label", "id")[:limit])
    ids = [n.pk for n in shown]
    edges = list(
        Edge.objects.filter(owner=owner, from_node_id__in=ids, to_node_id__in=ids).order_by("id")
    )
    return shown, edges


def receipt_written(owner: Any, receipt_id: int) -> dict[str, Any]:
    """What a receipt wrote that still exists: nodes, slices, events, edges and candidates,
    and how many messages of its conversation are kept as episodes."""
    return {
        "episodes": Episode.objects.filter(owner=owner, transcript__receipt_id=receipt_id).count(),
        "nodes": list(Node.objects.filter(owner=owner, created_receipt_id=receipt_id)),
        "slices": list(
            Slice.objects.filter(owner=owner, created_receipt_id=receipt_id).select_related("node")
        ),
        "events": list(
            Event.objects.filter(owner=owner, created_receipt_id=receipt_id).select_related("node")
        ),
        "edges": list(
            Edge.objects.filter(owner=owner, created_receipt_id=receipt_id).select_related(
                "from_node", "to_node"
            )
        ),
        "candidates": list(
            Candidate.objects.filter(owner=owner, created_receipt_id=receipt_id).select_related(
                "promoted_node"
            )
        ),
    }


def nodes_by_ids(owner: Any, ids: Iterable[int]) -> dict[int, Node]:
    """The owner's nodes among ``ids``, with their aliases, by id (ids of others are dropped)."""
    nodes = Node.objects.filter(owner=owner, pk__in=list(ids)).prefetch_related("aliases")
    return {node.pk: node for node in nodes}


def transcript_get(owner: Any, transcript_id: int) -> Transcript | None:
    return (
        Transcript.objects.filter(owner=owner, pk=transcript_id).select_related("receipt").first()
    )


def node_slices(owner: Any, node_id: int) -> list[Slice]:
    """All of a node's slices, current and superseded, newest first."""
    return list(Slice.objects.filter(owner=owner, node_id=node_id).order_by("-created_at", "-id"))


def node_events(owner: Any, node_id: int) -> list[Event]:
    return list(Event.objects.filter(owner=owner, node_id=node_id).order_by("-created_at", "-id"))
