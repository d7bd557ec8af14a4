"""Reads. Every selector takes the owner and filters on it; relations are preloaded."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connection
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    prefetch_related_objects,
)
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce, Left
from django.utils import timezone

from memory.cursors import Position
from memory.gate import (
    CandidateRef,
    NodeRef,
    RulesRef,
    Snapshot,
    SuppressionRef,
    proposal_keys,
)
from memory.keys import canonical_key, core_key, fold_key
from memory.models import (
    DETAIL_KINDS,
    AccessToken,
    Alias,
    Candidate,
    Edge,
    Episode,
    Erasure,
    Event,
    Evidence,
    MemoryRule,
    Node,
    NodeKeyWord,
    Receipt,
    ReceiptDay,
    Revision,
    Slice,
    Suppression,
    Transcript,
)
from memory.owned import OwnerRef, Person
from memory.proposals import AnyProposal, EventProposal
from memory.tombstones import Tombstone, same_name, tombstone
from memory.vocab import CandidateStatus, SuppressionReason, TranscriptStatus

T = TypeVar("T")

# Words too common to find "the existing node it may belong to" by.
_HINT_STOP = frozenset(
    "the a an of and or my our to in on at for with new old project app system".split()
)


def memory_rule_for(owner: Person) -> MemoryRule:
    """The owner's rules, or unsaved defaults (review mode, no includes or excludes)."""
    rule = MemoryRule.objects.filter(owner=owner).first()
    return rule if rule is not None else MemoryRule(owner=owner)


def rule_excludes(owner: OwnerRef) -> list[str]:
    """The terms the owner's memory rules exclude (none without rules)."""
    found = MemoryRule.objects.filter(owner=owner).values_list("excludes", flat=True).first()
    return [term for term in found or [] if isinstance(term, str)]


def active_suppressions(owner: OwnerRef, *, now: datetime) -> QuerySet[Suppression]:
    """Suppressions that block right now; the gate and cleanup agree on this definition."""
    return Suppression.objects.filter(owner=owner, lifted_at__isnull=True).filter(
        Q(suppressed_until__isnull=True) | Q(suppressed_until__gt=now)
    )


def _tombstone_of(s: Suppression) -> Tombstone:
    return tombstone(
        id=s.pk,
        label=s.label,
        key=s.canonical_key,
        signature=s.signature,
        vector=s.vector,
        vector_model=s.vector_model,
        exceptions=s.exceptions or (),
        exact_only=s.reason == SuppressionReason.CLEANUP,
    )


def suppressions_reached(
    owner: OwnerRef, keys: Iterable[str], *, now: datetime, reasons: Iterable[str] = ()
) -> list[Suppression]:
    """The suppressions in force that a label with one of ``keys`` can meet, oldest first:
    every one a person made (a name in other words may resemble any of them), and cleanup's
    junk suppressions only by their key or core key (they bind their own name, nothing like
    it). With ``reasons``, only those. One query, by the owner's key indexes and the owner's
    suppressions."""
    keys = set(keys) - {""}
    cores = {core_key(key) for key in keys}
    reach = ~Q(reason=SuppressionReason.CLEANUP)
    if keys:
        reach |= Q(canonical_key__in=keys | cores) | Q(core_key__in=cores)
    rows = active_suppressions(owner, now=now).filter(reach)
    if reasons:
        rows = rows.filter(reason__in=list(reasons))
    return list(rows.order_by("created_at", "id"))


def tombstones_of(suppressions: Iterable[Suppression]) -> tuple[Tombstone, ...]:
    """Suppressions as tombstones (:mod:`memory.tombstones`), in the order given."""
    return tuple(_tombstone_of(s) for s in suppressions)


def suppression_blocking(
    owner: OwnerRef, texts: Iterable[str], *, now: datetime
) -> Suppression | None:
    """The active suppression that refuses any of ``texts`` as a label or an alias, if one
    does: the same name (:func:`memory.tombstones.same_name`: its canonical, core or fold key
    is one of the suppression's keys: "Moonbeam" for a suppressed "Project Moonbeam", or one of
    its aliases). A name that only looks like one is not refused here: see
    :func:`memory.services.labels.label_check`. One query. Every path that gives a node a label
    or an alias asks this before it writes; the gate makes the same test on its snapshot."""
    keys = [k for k in map(canonical_key, texts) if k]
    if not keys:
        return None
    rows = suppressions_reached(owner, keys, now=now)
    by_id = {s.pk: s for s in rows}
    tombstones = tombstones_of(rows)
    for key in keys:
        found = same_name(key, tombstones)
        if found is not None:
            return by_id[found.id]
    return None


HINTS = 200  # nodes sharing words with a save's labels, read for the gate's hints


def gate_snapshot(owner: Person, proposals: Iterable[AnyProposal], *, now: datetime) -> Snapshot:
    """Everything the gate needs to judge ``proposals``, in a constant number of queries.

    Only rows the proposals can touch are loaded: nodes, aliases and pending candidates whose
    canonical key is one the proposals name, plus nodes sharing a word with them (shown to the
    reviewer as "may belong to", never merged); and the suppressions they can meet
    (:func:`suppressions_reached`: every one a person made, as a tombstone the gate compares
    names in other words with; cleanup's by key or core key).
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

    nodes = _snapshot_nodes(owner, keys)
    matched = [n.id for n in nodes if n.key in keys or n.alias_keys & keys]
    candidates = _snapshot_candidates(owner, keys)
    reached = suppressions_reached(owner, keys, now=now)
    suppressions = tuple(
        SuppressionRef(s.id, s.kind, s.canonical_key, s.suppressed_until) for s in reached
    )
    edges, slice_keys, event_keys = (
        _snapshot_details(owner, matched, proposals)
        if matched
        else (frozenset(), frozenset(), frozenset())
    )
    return Snapshot(
        now=now,
        nodes=nodes,
        candidates=candidates,
        suppressions=suppressions,
        tombstones=tombstones_of(reached),
        resemblance_floor=settings.UME_FORGET_MEANING_FLOOR,
        rules=rules,
        edges=edges,
        slice_keys=slice_keys,
        event_keys=event_keys,
        auto_confidence=base.auto_confidence,
        min_confidence=base.min_confidence,
    )


def _snapshot_nodes(owner: Person, keys: frozenset[str] | set[str]) -> tuple[NodeRef, ...]:
    """The nodes a save's keys name (by key or alias), then the "may belong to" hints."""
    words = sorted({w for k in keys for w in k.split() if len(w) > 2 and w not in _HINT_STOP})[:40]
    # Exact matches decide identity: always loaded. Nodes that merely share a word are hints
    # for the reviewer, capped -- and they can never crowd an exact match out of the snapshot.
    # Every lookup is by an index of what it matches (key, alias key, key word, node id):
    # an OR across the alias join, or the owner's filter next to a list of ids (SQLite,
    # without statistics, then prefers the owner's index), walks every node of the owner.
    # Ids come from the owner's own rows; the owner is checked again on what is read.
    aliased = set(
        Alias.objects.filter(owner=owner, canonical_key__in=keys).values_list("node_id", flat=True)
    )
    hint_ids: list[int] = []
    if words:
        # Nodes whose key has one of these words, those sharing the most words first (then
        # the oldest), at most HINTS: an index lookup by word (NodeKeyWord), counted in the
        # database, not a LIKE scan over every key of the owner. A word common to thousands
        # of labels does not bring thousands of rows into the save.
        hint_ids = list(
            NodeKeyWord.objects.filter(owner=owner, word__in=words)
            .values("node_id")
            .annotate(shared=Count("word"))
            .order_by("-shared", "node_id")
            .values_list("node_id", flat=True)[:HINTS]
        )
    # One read: by key (the owner's key index) or by id (the primary key). No ORDER BY:
    # Node's default, the label, would be served by walking the owner's label index. Only
    # the columns the gate reads, as tuples: up to 500 hints are read per save, and model
    # instances (with their dates parsed) cost more than the query.
    columns = ("id", "owner_id", "label", "canonical_key", "category", "state")
    by_id = {
        row[0]: row
        for row in Node.objects.filter(
            Q(owner=owner, canonical_key__in=keys) | Q(id__in=aliased | set(hint_ids))
        )
        .order_by()
        .values_list(*columns)
        if row[1] == owner.pk
    }
    exact = {pk for pk, row in by_id.items() if row[3] in keys or pk in aliased}
    node_rows = [by_id[pk] for pk in sorted(exact)]
    node_rows += [by_id[pk] for pk in hint_ids if pk in by_id and pk not in exact]
    node_ids = [row[0] for row in node_rows]
    alias_keys: dict[int, set[str]] = {}
    aliases = Alias.objects.filter(node_id__in=node_ids) if node_ids else Alias.objects.none()
    for node_id, alias_key, alias_owner in aliases.values_list(
        "node_id", "canonical_key", "owner_id"
    ):
        if alias_owner == owner.pk:
            alias_keys.setdefault(node_id, set()).add(alias_key)
    return tuple(
        NodeRef(pk, label, key, category, state, frozenset(alias_keys.get(pk, ())))
        for pk, _owner, label, key, category, state in node_rows
    )


def _snapshot_candidates(
    owner: Person, keys: frozenset[str] | set[str]
) -> tuple[CandidateRef, ...]:
    """A pending candidate per key, else the latest expired one: a label mentioned again after
    cleanup expired it is bumped back to pending (apply revives it), keeping its evidence and
    counts, instead of starting a twin card. Also the pending ones another spelling of the
    same subject made (same fold key, :func:`memory.keys.fold_key`): the gate folds into them."""
    by_key: dict[str, tuple[CandidateRef, str]] = {}
    folds = {fold_key(key) for key in keys}
    waiting = {CandidateStatus.PENDING, CandidateStatus.EXPIRED}
    # Only the columns the gate reads: a candidate's held details grow with every mention.
    # The owner in each branch and the status told here: so SQLite reads the few rows of the
    # key and the fold key indexes (a union of the two), not every guess of the owner.
    for pk, key, label, category, status, fold in (
        Candidate.objects.filter(
            Q(owner=owner, canonical_key__in=keys) | Q(owner=owner, fold_key__in=folds)
        )
        .order_by("-last_seen_at", "-id")
        .values_list("id", "canonical_key", "label_guess", "category_guess", "status", "fold_key")
    ):
        if not (
            (status in waiting and key in keys)
            or (status == CandidateStatus.PENDING and fold in folds)
        ):
            continue
        chosen = by_key.get(key)
        if chosen is None or (
            chosen[1] != CandidateStatus.PENDING and status == CandidateStatus.PENDING
        ):
            by_key[key] = (CandidateRef(pk, key, label, category), status)
    return tuple(ref for ref, _status in by_key.values())


def _snapshot_details(
    owner: Person, matched: list[int], proposals: list[AnyProposal]
) -> tuple[
    frozenset[tuple[int, int, str, str]],
    frozenset[tuple[int, str, str]],
    frozenset[tuple[int, str, str]],
]:
    """What the matched nodes already hold: their links, current facts and events (by key),
    so that the gate does not propose them twice."""
    edges = frozenset(
        Edge.objects.filter(
            owner=owner, from_node_id__in=matched, to_node_id__in=matched
        ).values_list("from_node_id", "to_node_id", "type", "label")
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
    return edges, slice_keys, event_keys


# --- reads for the dashboard, the API and the MCP tools -----------------------------------


def node_list(owner: Person, *, category: str = "", state: str = "", q: str = "") -> QuerySet[Node]:
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


def node_named(owner: Person, label: str) -> Node | None:
    """The owner's node that ``label`` names exactly, by its label or one of its aliases."""
    key = canonical_key(label)
    if not key:
        return None
    node = Node.objects.filter(owner=owner, canonical_key=key).order_by("id").first()
    if node is None:
        alias = Alias.objects.filter(owner=owner, canonical_key=key).select_related("node").first()
        node = alias.node if alias else None
    return node


def node_get(owner: Person, node_id: int) -> Node | None:
    return Node.objects.filter(owner=owner, pk=node_id).prefetch_related("aliases").first()


QUEUE_ORDER = {
    # Worth the person's time first (memory.triage.candidate_value), read in index order.
    "value": ("-value", "-id"),
    "recent": ("-last_seen_at", "-id"),
    "confidence": ("-confidence", "-last_seen_at", "-id"),
    "least_confident": ("confidence", "-last_seen_at", "-id"),
}


def candidates_proposed_by(
    token: AccessToken,
    *,
    keys: Iterable[str] | None = None,
    containing: str = "",
    limit: int = 100,
) -> list[Candidate]:
    """The guesses waiting for review that saves made with ``token`` proposed (by the receipt
    that created them), of its owner only: those whose key is one of ``keys``, or whose key
    contains ``containing``. An assistant is shown what it proposed itself, marked as
    waiting (the reference memory server's tools, ``mcp_server.tools``); nobody else's."""
    rows = without_held(
        Candidate.objects.for_owner(token.owner).filter(
            status=CandidateStatus.PENDING, created_receipt__token=token
        ),
        token.owner,
        now=timezone.now(),
    )
    if keys is not None:
        rows = rows.filter(canonical_key__in=list(keys))
    elif containing:
        rows = rows.filter(canonical_key__contains=containing)
    else:
        return []
    return list(rows.order_by("label_guess", "id")[:limit])


def _held(owner: OwnerRef, now: datetime) -> Q:
    return Q(resembles__in=active_suppressions(owner, now=now).values("pk"))


def only_held(rows: QuerySet[Candidate], owner: OwnerRef, *, now: datetime) -> QuerySet[Candidate]:
    """Of the cards ``rows``, those held for the person: they look like what a suppression in
    force forgets (a lifted or expired one holds nothing, at once)."""
    return rows.filter(_held(owner, now))


def without_held(
    rows: QuerySet[Candidate], owner: OwnerRef, *, now: datetime
) -> QuerySet[Candidate]:
    """Of the cards ``rows``, those not held (:func:`only_held`): what an assistant may be
    shown as waiting for review. A card that looks like something the person asked to forget
    is shown to no one but the person until they decide."""
    return rows.exclude(_held(owner, now))


def candidate_queue(
    owner: Person,
    *,
    status: str = CandidateStatus.PENDING,
    category: str = "",
    transcript: int | None = None,
    sort: str = "recent",
) -> QuerySet[Candidate]:
    """The review queue (newest activity first unless ``sort`` says otherwise: ``value`` is
    the dashboard's, memory.triage), optionally
    of one category or with evidence from one source transcript; evidence and the possible
    node loaded."""
    queue = Candidate.objects.filter(owner=owner, status=status)
    if category:
        queue = queue.filter(category_guess=category)
    if transcript is not None:
        queue = queue.filter(
            pk__in=Evidence.objects.filter(owner=owner, transcript_id=transcript).values(
                "candidate_id"
            )
        )
    return (
        queue.select_related("possible_existing_node", "resembles")
        .annotate(evidence_count=Coalesce(_counted(Evidence, of="candidate_id"), 0))
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=Evidence.objects.select_related("transcript")
                .only(*_EVIDENCE_FIELDS, "quote", "candidate_id")
                .order_by("created_at", "id")[:EVIDENCE_PER_ITEM],
                to_attr="first_evidence",
            )
        )
        .order_by(*QUEUE_ORDER.get(sort, QUEUE_ORDER["recent"]))
    )


def queue_transcripts(owner: Person) -> list[tuple[int, str]]:
    """The owner's transcripts that pending guesses came from: (id, name), newest first.

    One ``EXISTS`` per transcript on the (transcript, candidate) index of the guesses'
    evidence, stopping at its first pending guess: it reads neither every pending guess's
    evidence nor the evidence of nodes (docs/architecture.md)."""
    pending = Evidence.objects.filter(
        transcript_id=OuterRef("pk"),
        candidate__isnull=False,
        candidate__owner=owner,
        candidate__status=CandidateStatus.PENDING,
    )
    rows = (
        Transcript.objects.filter(owner=owner)
        .filter(Exists(pending))
        .order_by("-created_at", "-id")
        .values_list("id", "name")
    )
    return list(rows)


def candidate_get(owner: Person, candidate_id: int) -> Candidate | None:
    return (
        Candidate.objects.filter(owner=owner, pk=candidate_id)
        .select_related("possible_existing_node", "promoted_node")
        .first()
    )


def pending_count(owner: Person) -> int:
    return Candidate.objects.filter(owner=owner, status=CandidateStatus.PENDING).count()


def suppression_list(owner: Person) -> QuerySet[Suppression]:
    return Suppression.objects.filter(owner=owner).order_by("-created_at", "-id")


# --- reads for the memory browser and the review dashboard ---------------------------------


# What a page shows of one piece of evidence: never the transcript's text, only its name and
# time, and the head of the quote (a quote can be as long as a message).
EVIDENCE_PER_ITEM = 5
EVIDENCE_PAGE = 20
QUOTE_CHARS = 400
_EVIDENCE_FIELDS = (
    "id",
    "source",
    "message_id",
    "message_ts",
    "created_at",
    "receipt_id",
    "node_id",
    "slice_id",
    "event_id",
    "edge_id",
    "transcript__id",
    "transcript__name",
    "transcript__source_time",
)


def evidence_rows() -> QuerySet[Evidence]:
    """Evidence as pages show it: ``quote_head`` instead of the quote, the transcript's name and
    time instead of the transcript."""
    return (
        Evidence.objects.select_related("transcript")
        .only(*_EVIDENCE_FIELDS)
        .annotate(quote_head=Left("quote", QUOTE_CHARS + 1))
        .order_by("created_at", "id")
    )


# How many facts (current, and superseded) and events the node page shows until the person
# asks for all of them: the page stays fast for a memory with hundreds of each.
DETAIL_LIMIT = 50


def _counted(model: Any, *, of: str = "node_id", **filters: Any) -> Subquery:
    """How many ``model`` rows of the outer row (through ``of``) match ``filters``: a
    subquery, evaluated for the rows shown only, so counting does not join and group every
    row of the owner."""
    return Subquery(
        model.objects.filter(**{of: OuterRef("pk")}, **filters)
        .order_by()
        .values(of)
        .annotate(n=Count("id"))
        .values("n")[:1]
    )


def node_detail(owner: Person, node_id: int, *, everything: bool = False) -> Node | None:
    """One node with everything its page shows, in a constant number of queries.

    The newest ``DETAIL_LIMIT`` current facts (``node.current_slices``), superseded facts
    (``node.old_slices``) and events (``node.shown_events``, in timeline order), or all of
    them with ``everything``; ``node.current_count``, ``old_count`` and ``event_count`` say
    how many there are. Each fact, event and link carries its evidence count and its first
    ``EVIDENCE_PER_ITEM`` quotes (a sliced prefetch: one query whatever the number of rows);
    the node's own evidence is paged by :func:`node_evidence_page`.

    The facts and events of the one node are read with a plain ``LIMIT``: a sliced
    ``Prefetch`` would build a window query for them, whose compiling cost more than the
    rest of the read.
    """
    first = evidence_rows()[:EVIDENCE_PER_ITEM]
    counted = Count("evidence")
    node = (
        Node.objects.filter(owner=owner, pk=node_id)
        .annotate(
            current_count=Coalesce(_counted(Slice, is_current=True), 0),
            old_count=Coalesce(_counted(Slice, is_current=False), 0),
            event_count=Coalesce(_counted(Event), 0),
        )
        .prefetch_related(
            "aliases",
            Prefetch(
                "edges_out",
                queryset=Edge.objects.select_related("to_node")
                .annotate(evidence_count=counted)
                .order_by("type", "id"),
            ),
            Prefetch(
                "edges_in",
                queryset=Edge.objects.select_related("from_node")
                .annotate(evidence_count=counted)
                .order_by("type", "id"),
            ),
            Prefetch("edges_out__evidence", queryset=first, to_attr="first_evidence"),
            Prefetch("edges_in__evidence", queryset=first, to_attr="first_evidence"),
        )
        .first()
    )
    if node is None:
        return None
    shown = slice(None) if everything else slice(DETAIL_LIMIT)
    facts = (
        Slice.objects.filter(owner=owner, node=node)
        .annotate(evidence_count=counted)
        .order_by("-created_at", "-id")
    )
    # The timeline: when it happened first (unknown dates last), then when ume learned it.
    events = (
        Event.objects.filter(owner=owner, node=node)
        .annotate(evidence_count=counted)
        .order_by(F("happened_at").desc(nulls_last=True), "-created_at", "-id")
    )
    rows: dict[str, list[Any]] = {
        "current_slices": list(facts.filter(is_current=True)[shown]),
        "old_slices": list(facts.filter(is_current=False)[shown]),
        "shown_events": list(events[shown]),
    }
    for name, items in rows.items():
        setattr(node, name, items)
        for item in items:  # the node these were read for: no query to reach it
            item.node = node
        prefetch_related_objects(
            items, Prefetch("evidence", queryset=first, to_attr="first_evidence")
        )
    return node


def node_evidence(
    owner: Person, node_id: int, *, of: str = "", item_id: int = 0
) -> QuerySet[Evidence]:
    """The quotes behind a node, newest first: its own (``of=""``), or those of one of its
    facts, events or links (``of`` is ``slice``, ``event`` or ``edge``)."""
    rows = evidence_rows().filter(owner=owner).order_by("-created_at", "-id")
    if of == "slice":
        return rows.filter(slice_id=item_id, slice__node_id=node_id)
    if of == "event":
        return rows.filter(event_id=item_id, event__node_id=node_id)
    if of == "edge":
        return rows.filter(
            Q(edge__from_node_id=node_id) | Q(edge__to_node_id=node_id), edge_id=item_id
        )
    return rows.filter(node_id=node_id, slice__isnull=True, event__isnull=True, edge__isnull=True)


def node_pair_counts(owner: Person) -> dict[tuple[str, str], int]:
    """How many nodes the owner has per (category, state): one pass over their nodes, from
    which the browser takes both its filters' counts and its page count."""
    rows = Node.objects.filter(owner=owner).values_list("category", "state").annotate(n=Count("id"))
    return {(category, state): n for category, state, n in rows.order_by()}


def node_facets(
    owner: Person, pairs: dict[tuple[str, str], int] | None = None
) -> dict[str, dict[str, int]]:
    """How many nodes the owner has per category and per state (for the browser's filters);
    from ``pairs`` (:func:`node_pair_counts`) when given, without another query."""
    by_category: dict[str, int] = {}
    by_state: dict[str, int] = {}
    for (category, state), n in (node_pair_counts(owner) if pairs is None else pairs).items():
        by_category[category] = by_category.get(category, 0) + n
        by_state[state] = by_state.get(state, 0) + n
    return {"category": by_category, "state": by_state}


def nodes_matching(
    pairs: dict[tuple[str, str], int], *, category: str = "", state: str = ""
) -> int:
    """How many nodes :func:`node_list` returns for ``category`` and ``state`` (no search)."""
    return sum(
        n
        for (node_category, node_state), n in pairs.items()
        if (not category or node_category == category) and (not state or node_state == state)
    )


def node_picker(owner: Person, q: str, *, limit: int = 8) -> list[Node]:
    """Nodes to merge a candidate into, by label or alias (search as you type)."""
    if not canonical_key(q):
        return []
    return list(node_list(owner, q=q)[:limit])


def alias_get(owner: Person, alias_id: int) -> Alias | None:
    return Alias.objects.filter(owner=owner, pk=alias_id).select_related("node").first()


def suppression_get(owner: Person, suppression_id: int) -> Suppression | None:
    return Suppression.objects.filter(owner=owner, pk=suppression_id).first()


def candidates_pending_by_ids(owner: Person, ids: Iterable[int]) -> list[Candidate]:
    """The owner's candidates among ``ids`` that still wait for a decision (bulk actions)."""
    return list(
        Candidate.objects.filter(
            owner=owner, pk__in=list(ids), status=CandidateStatus.PENDING
        ).order_by("id")
    )


def candidates_by_ids(owner: Person, ids: Iterable[int]) -> list[Candidate]:
    """The owner's candidates among ``ids``, whatever their status (undo of a bulk action)."""
    return list(Candidate.objects.filter(owner=owner, pk__in=list(ids)).order_by("id"))


def transcript_uploads(owner: Person, *, limit: int = 50) -> QuerySet[Transcript]:
    """The owner's uploaded transcripts, newest first, with their receipts (no text loaded).

    Conversations of a chat import are shown with their import instead."""
    return (
        Transcript.objects.filter(owner=owner, source="upload", chat_import__isnull=True)
        .select_related("receipt")
        .defer("text")
        .order_by("-created_at", "-id")[:limit]
    )


def graph_data(
    owner: Person, *, category: str = "", limit: int = 150
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


def receipt_written(owner: Person, receipt: Receipt) -> dict[str, Any]:
    """What a receipt wrote that still exists: nodes, slices, events, edges, aliases and
    candidates, plus ``merged_into``: the existing node a review decision added to, and
    ``episodes``: how many messages of its conversation are kept as what was said.

    An ingest marks its rows with ``created_receipt``; a review decision (promote, merge)
    lists the rows it wrote in its detail instead, so both are read. A receipt imported with
    a ume export lists the ids of the ume it came from: only its ``created_receipt`` rows are.
    """
    detail = receipt.detail if isinstance(receipt.detail, dict) and not receipt.origin_hash else {}
    created = detail.get("created") if detail.get("candidate") else None
    created = created if isinstance(created, dict) else {}

    def ids(name: str) -> list[int]:
        return [i for i in created.get(name, []) if isinstance(i, int)]

    node_ids = [detail["node"]] if created and detail.get("node_created") else []
    by_receipt = Q(created_receipt_id=receipt.pk)
    merged_into = (
        [detail["node"]]
        if created and detail.get("node") and not detail.get("node_created")
        else []
    )
    return {
        "episodes": Episode.objects.filter(owner=owner, transcript__receipt_id=receipt.pk).count(),
        "nodes": list(Node.objects.filter(Q(pk__in=node_ids) | by_receipt, owner=owner)),
        "merged_into": list(Node.objects.filter(owner=owner, pk__in=merged_into)),
        "slices": list(
            Slice.objects.filter(Q(pk__in=ids("slices")) | by_receipt, owner=owner).select_related(
                "node"
            )
        ),
        "events": list(
            Event.objects.filter(Q(pk__in=ids("events")) | by_receipt, owner=owner).select_related(
                "node"
            )
        ),
        "edges": list(
            Edge.objects.filter(Q(pk__in=ids("edges")) | by_receipt, owner=owner).select_related(
                "from_node", "to_node"
            )
        ),
        "aliases": list(
            Alias.objects.filter(owner=owner, pk__in=ids("aliases")).select_related("node")
        ),
        "candidates": list(
            Candidate.objects.filter(owner=owner, created_receipt_id=receipt.pk).select_related(
                "promoted_node"
            )
        ),
    }


def nodes_by_ids(owner: Person, ids: Iterable[int]) -> dict[int, Node]:
    """The owner's nodes among ``ids``, with their aliases, by id (ids of others are dropped)."""
    nodes = Node.objects.filter(owner=owner, pk__in=list(ids)).prefetch_related("aliases")
    return {node.pk: node for node in nodes}


def transcript_get(owner: Person, transcript_id: int) -> Transcript | None:
    return (
        Transcript.objects.filter(owner=owner, pk=transcript_id)
        .select_related("receipt")
        .defer("text")
        .first()
    )


@dataclass(frozen=True)
class DetailPage(Generic[T]):
    """One page of a node's facts or events: the rows, how many there are in all, and where
    the next page starts (``None`` on the last page)."""

    rows: list[T]
    total: int
    after: Position | None


def _keyset_page(
    rows: QuerySet[Any], *, after: Position | None, limit: int, oldest_first: bool
) -> DetailPage[Any]:
    """``limit`` rows of ``rows`` in (created_at, id) order, strictly past ``after``: a
    position, not an offset, so a page costs the same deep in the list and no row is handed
    out twice or skipped when rows are added between pages. Two queries: the page (one row
    more, to know whether another follows) and the count."""
    total = rows.count()
    if after is not None:
        moment, row_id = after
        if oldest_first:
            past = Q(created_at__gt=moment) | Q(created_at=moment, id__gt=row_id)
        else:
            past = Q(created_at__lt=moment) | Q(created_at=moment, id__lt=row_id)
        rows = rows.filter(past)
    order = ("created_at", "id") if oldest_first else ("-created_at", "-id")
    page = list(rows.order_by(*order)[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    last = page[-1] if more else None
    return DetailPage(page, total, (last.created_at, last.pk) if last is not None else None)


def node_slices_page(
    owner: Person,
    node_id: int,
    *,
    after: Position | None = None,
    limit: int = DETAIL_LIMIT,
    current_only: bool = False,
    oldest_first: bool = False,
) -> DetailPage[Slice]:
    """One page of a node's facts, current and superseded (or ``current_only``), newest first
    (or ``oldest_first``): what the API's node and MCP's observations page through."""
    rows = Slice.objects.filter(owner=owner, node_id=node_id)
    if current_only:
        rows = rows.filter(is_current=True)
    return _keyset_page(rows, after=after, limit=limit, oldest_first=oldest_first)


def nodes_with_facts(owner: Person, ids: Iterable[int], *, limit: int = DETAIL_LIMIT) -> list[Node]:
    """The owner's nodes among ``ids`` by label, each with ``fact_count`` (its current facts)
    and the first page of them, oldest first (``first_facts``, ``limit`` rows and one more to
    tell whether another page follows): the MCP graph's entities, in three queries whatever
    the number of nodes or facts. A further page is :func:`node_slices_page`."""
    first = Slice.objects.filter(is_current=True).order_by("created_at", "id")[: limit + 1]
    return list(
        Node.objects.filter(owner=owner, pk__in=list(ids))
        .annotate(fact_count=Coalesce(_counted(Slice, is_current=True), 0))
        .prefetch_related(Prefetch("slices", queryset=first, to_attr="first_facts"))
        .order_by("label", "id")
    )


LINK_LIMIT = 200


def node_links(owner: Person, node_id: int, *, limit: int = LINK_LIMIT) -> tuple[list[Edge], bool]:
    """The node's links both ways (its own relations and those pointing at it), by type and
    label, each with both ends loaded: the first ``limit`` and whether more follow, in one
    query whatever their number."""
    rows = list(
        Edge.objects.filter(owner=owner)
        .filter(Q(from_node_id=node_id) | Q(to_node_id=node_id))
        .select_related("from_node", "to_node")
        .order_by("type", "label", "id")[: limit + 1]
    )
    return rows[:limit], len(rows) > limit


def node_events_page(
    owner: Person, node_id: int, *, after: Position | None = None, limit: int = DETAIL_LIMIT
) -> DetailPage[Event]:
    """One page of a node's events, the newest ume learned first."""
    rows = Event.objects.filter(owner=owner, node_id=node_id)
    return _keyset_page(rows, after=after, limit=limit, oldest_first=False)


def detail_get(owner: Person, kind: str, row_id: int) -> Any:
    """One fact, event, alias or link of the owner (with its node), or None."""
    model = DETAIL_KINDS.get(kind)
    if model is None:
        return None
    related = ("from_node", "to_node") if kind == "edge" else ("node",)
    return model._default_manager.filter(owner=owner, pk=row_id).select_related(*related).first()


def transcripts_waiting_count() -> int:
    """Transcripts waiting for ``ingest --pending`` (every owner: the workers serve them all)."""
    return Transcript.objects.filter(status=TranscriptStatus.PENDING).count()


def node_history(owner: Person, node_id: int, *, limit: int = 100) -> list[Revision]:
    """The revisions of a node and of its aliases, facts, events and links, newest first.
    Outlives the node: a deleted node's history is read the same way."""
    return list(
        Revision.objects.filter(owner=owner, node_id=node_id).order_by("-created_at", "-id")[:limit]
    )


def revision_parents(owner: Person, revisions: list[Revision]) -> dict[tuple[str, int, int], Any]:
    """The parents of ``revisions`` that are not among them (one query, none if all are)."""
    have = {(r.kind, r.object_id, r.number) for r in revisions}
    wanted = {
        (r.kind, r.object_id, r.parent)
        for r in revisions
        if r.parent and (r.kind, r.object_id, r.parent) not in have
    }
    if not wanted:
        return {}
    match = Q()
    for kind, object_id, number in wanted:
        match |= Q(kind=kind, object_id=object_id, number=number)
    return {(r.kind, r.object_id, r.number): r for r in Revision.objects.filter(match, owner=owner)}


def revision_get(owner: Person, kind: str, object_id: int, number: int) -> Revision | None:
    return Revision.objects.filter(
        owner=owner, kind=kind, object_id=object_id, number=number
    ).first()


# --- receipts (the Saves page, the API) ---------------------------------------------------


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def receipt_list(
    owner: Person,
    *,
    outcome: str = "",
    source: str = "",
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[Receipt]:
    """Receipts newest first, filtered; ``start`` and ``end`` are whole local days."""
    receipts = Receipt.objects.for_owner(owner).select_related("token")
    if outcome:
        receipts = receipts.filter(outcome=outcome)
    if source:
        receipts = receipts.filter(source=source)
    if start:
        receipts = receipts.filter(created_at__gte=_day_start(start))
    if end:
        receipts = receipts.filter(created_at__lt=_day_start(end + timedelta(days=1)))
    return receipts.order_by("-created_at", "-id")


def receipts_per_day(
    owner: Person, *, start: date, end: date, outcome: str = "", source: str = ""
) -> dict[date, dict[str, int]]:
    """``{day: {outcome: count}}`` over ``start``..``end`` (local days), in one query.

    Reads the per-day counts every receipt write keeps (``ReceiptDay``): at most a row per
    day, outcome and source, however many receipts the month has."""
    if end < start:
        return {}
    rows = ReceiptDay.objects.for_owner(owner).filter(day__gte=start, day__lte=end)
    if outcome:
        rows = rows.filter(outcome=outcome)
    if source:
        rows = rows.filter(source=source)
    per_day: dict[date, dict[str, int]] = {}
    for day, outcome_name, n in (
        rows.values_list("day", "outcome").annotate(n=Sum("count")).order_by()
    ):
        if n:
            per_day.setdefault(day, {})[outcome_name] = n
    return per_day


def receipt_get(owner: Person, receipt_id: int) -> Receipt | None:
    return Receipt.objects.for_owner(owner).filter(pk=receipt_id).select_related("token").first()


def erasure_get(owner: Person, erasure_id: int) -> Erasure | None:
    """One delete-all of ``owner`` left to the workers, with its receipt once done."""
    return Erasure.objects.for_owner(owner).filter(pk=erasure_id).select_related("receipt").first()


def recurring_subjects(owner: OwnerRef, keys: Iterable[str]) -> set[str]:
    """Of the canonical ``keys``, those the owner already has as a memory or a waiting guess
    (the same key, or for a guess the same folded key): a subject said again in another
    conversation. One query each, on indexed columns; read by the subject proposer."""
    keys = {k for k in keys if k}
    if not keys:
        return set()
    folds = {fold_key(k): k for k in keys}
    found = set(
        Node.objects.for_owner(owner)
        .filter(canonical_key__in=keys)
        .values_list("canonical_key", flat=True)
    )
    waiting = {CandidateStatus.PENDING, CandidateStatus.EXPIRED}
    # The status is told here, not in the query: beside it, SQLite (without statistics) reads
    # the guesses through the owner's status index, every waiting guess of the owner per
    # conversation, instead of the few the fold key index finds.
    for fold, status in (
        Candidate.objects.for_owner(owner)
        .filter(fold_key__in=list(folds))
        .order_by()
        .values_list("fold_key", "status")
    ):
        if status in waiting:
            found.add(folds[fold])
    return found & keys


# How many of the person's earlier messages the subject proposer reads for one transcript.
SAID_BEFORE_LIMIT = 5000


def said_before(
    owner: OwnerRef, needles: Iterable[str], *, exclude_transcript: int | None = None
) -> tuple[list[tuple[int, str]], list[tuple[str, str]]]:
    """What the person said before that may name one of the subjects ``needles`` spell
    (case-insensitive substrings, :func:`memory.extractors.subjects.phrases.needle`): their own
    messages of other transcripts that contain one, newest first (``(transcript id, text)``,
    at most :data:`SAID_BEFORE_LIMIT`), and the guesses waiting for review (or expired) whose
    label contains one, as ``(label, the first text held on it)``. Two queries; the subject
    proposer decides which really do."""
    needles = sorted({n for n in needles if len(n) >= 3})
    if not needles:
        return [], []
    said = Q()
    named = Q()
    for n in needles:
        said |= Q(text__icontains=n)
        named |= Q(label_guess__icontains=n)
    # The role first: SQLite tests the conditions in the order written, and the other side's
    # messages (about ten times as long) need no substring search (a third of the CPU time).
    episodes = Episode.objects.for_owner(owner).filter(role="user").filter(said)
    if exclude_transcript is not None:
        episodes = episodes.exclude(transcript_id=exclude_transcript)
    texts = list(
        episodes.order_by("-said_at").values_list("transcript_id", "text")[:SAID_BEFORE_LIMIT]
    )
    return texts, _waiting_labels(owner, named)


def _waiting_labels(owner: OwnerRef, named: Q) -> list[tuple[str, str]]:
    """The labels of the owner's waiting (or expired) guesses that match ``named``, newest
    first, each with the first text held on it. The database hands over only the first held
    item (a card said in many conversations holds hundreds, and decoding them all was a sixth
    of a large import); the few cards whose first item holds no text are read whole, in one
    more query, so the answer is :func:`_first_text`'s."""
    waiting = [CandidateStatus.PENDING, CandidateStatus.EXPIRED]
    rows = list(
        Candidate.objects.for_owner(owner)
        .filter(named, status__in=waiting)
        .order_by("-last_seen_at")
        .values_list(
            "pk",
            "label_guess",
            KeyTransform("0", "held_objects"),
            ExpressionWrapper(Q(held_objects=[]), output_field=BooleanField()),
        )
    )
    texts = {pk: _first_text([first]) for pk, _label, first, _empty in rows}
    unread = [pk for pk, _label, _first, empty in rows if not (empty or texts[pk])]
    if unread:
        for pk, held in Candidate.objects.filter(pk__in=unread).values_list("pk", "held_objects"):
            texts[pk] = _first_text(held)
    return [(label, texts[pk]) for pk, label, _first, _empty in rows]


class SaidSoFar:
    """:func:`said_before` for the conversations of one import, the same answer without a
    query over every earlier message per conversation (which made an import's cost grow
    with the square of its size): the person's own messages are read once, then only those
    written since (by id), and each needle is looked for once per message, its matches kept.

    SQLite only, whose ``icontains`` this reproduces (``LIKE``: upper and lower case are the
    same for ASCII letters only) as it orders (its ``owner, -said_at`` index, equal times by
    id); elsewhere each call is :func:`said_before`. The caller keeps it true: :meth:`check`
    in each transaction before use (a message deleted since, e.g. by a delete-all, reads
    everything again), :meth:`reset` after a rollback (ids may be given again)."""

    def __init__(self, owner: Person) -> None:
        self.owner = owner
        self.reset()

    def reset(self) -> None:
        self._answer: dict[int, int] = {}  # the last answer's texts: row -> position
        self._answered: list[str] = []  # their texts
        self._unlike: frozenset[int] = frozenset()  # those ``str.lower`` reads unlike LIKE
        self._searched: frozenset[str] = frozenset()  # the needles the last answer looked for
        self._last = 0  # the highest id read
        self._transcripts: list[int] = []  # per message, in id order
        self._said_at: list[datetime] = []
        self._texts: list[str] = []
        self._starts: list[int] = []  # where each message starts in _lowered
        self._lowered = bytearray()  # the messages, ASCII letters lowered, NUL between them
        self._found: dict[bytes, tuple[array[int], int]] = {}  # needle: (messages, read up to)

    def check(self) -> None:
        """Read everything again if a message read was deleted since (one count; none
        before the first read)."""
        if not self._last:
            return
        kept = Episode.objects.for_owner(self.owner).filter(role="user", id__lte=self._last)
        if kept.count() != len(self._texts):
            self.reset()

    def __call__(
        self, needles: Iterable[str], *, exclude_transcript: int | None = None
    ) -> tuple[list[tuple[int, str]], list[tuple[str, str]]]:
        needles = sorted({n for n in needles if len(n) >= 3})
        self._answer, self._answered = {}, []
        self._unlike, self._searched = frozenset(), frozenset()
        if connection.vendor != "sqlite" or any("\0" in n for n in needles):
            return said_before(self.owner, needles, exclude_transcript=exclude_transcript)
        if not needles:
            return [], []
        self._read()
        rows: set[int] = set()
        for n in needles:
            rows.update(self._matches(n.encode().lower()))
        order = sorted(r for r in rows if self._transcripts[r] != exclude_transcript)
        order.sort(key=self._said_at.__getitem__, reverse=True)  # stable: equal times by id
        order = order[:SAID_BEFORE_LIMIT]
        texts = [(self._transcripts[r], self._texts[r]) for r in order]
        self._answer = {row: at for at, row in enumerate(order)}
        self._answered = [text for _transcript, text in texts]
        self._unlike = frozenset(at for at, text in enumerate(self._answered) if _unlike_like(text))
        self._searched = frozenset(needles)
        named = Q()
        for n in needles:
            named |= Q(label_guess__icontains=n)
        return texts, _waiting_labels(self.owner, named)

    def holding(self, needle: str) -> list[int] | None:
        """The positions, in order, of the last answer's texts that hold ``needle`` as
        ``str.lower`` reads them (what :func:`memory.extractors.subjects.history.heard`
        would find by searching them), from the rows this answer already searched; None when
        it did not search ``needle`` (the caller searches the texts itself)."""
        if needle not in self._searched or needle != needle.lower():
            return None
        rows, _upto = self._found.get(needle.encode().lower(), (array("l"), 0))
        found = {self._answer[r] for r in rows if r in self._answer} - self._unlike
        found.update(at for at in self._unlike if needle in self._answered[at].lower())
        return sorted(found)

    def _read(self) -> None:
        for pk, transcript, said_at, text in (
            Episode.objects.for_owner(self.owner)
            .filter(role="user", id__gt=self._last)
            .order_by("id")
            .values_list("id", "transcript_id", "said_at", "text")
        ):
            self._last = pk
            self._transcripts.append(transcript)
            self._said_at.append(said_at)
            self._texts.append(text)
            self._starts.append(len(self._lowered))
            # LIKE reads a text up to a NUL, if it holds one
            self._lowered += text.partition("\0")[0].encode().lower() + b"\0"

    def _matches(self, needle: bytes) -> array[int]:
        """The messages that hold ``needle``, those read since its last look searched."""
        rows, upto = self._found.get(needle, (array("l"), 0))
        if upto < len(self._starts):
            at = self._lowered.find(needle, self._starts[upto])
            while at != -1:
                row = bisect_right(self._starts, at) - 1
                rows.append(row)
                if row + 1 == len(self._starts):
                    break
                at = self._lowered.find(needle, self._starts[row + 1])  # the next message on
            self._found[needle] = (rows, len(self._starts))
        return rows


def _unlike_like(text: str) -> bool:
    """Whether ``str.lower`` may find in ``text`` what SQLite's LIKE does not: a letter
    outside ASCII (LIKE folds ASCII letters only) or a NUL (LIKE reads up to it)."""
    return not text.isascii() or "\0" in text


def _first_text(held: Any) -> str:
    for item in held or []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            return str(item["text"])
    return ""
