"""Reads. Every selector takes the owner and filters on it; relations are preloaded."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

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
    Event,
    MemoryRule,
    Node,
    Slice,
    Suppression,
)
from memory.proposals import AnyProposal
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
    node_rows = list(
        Node.objects.filter(owner=owner)
        .filter(exact | near if words else exact)
        .distinct()
        .order_by("id")[:500]
    )
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
    event_keys = frozenset(
        (node_id, action, canonical_key(text))
        for node_id, action, text in Event.objects.filter(
            owner=owner, node_id__in=matched
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
