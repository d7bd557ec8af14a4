"""The write gate: proposals plus a snapshot of what exists -> a frozen :class:`WritePlan`.

Pure: no ORM calls, no clock, no settings. Everything it needs is in the :class:`Snapshot`
(built by ``memory.selectors.gate_snapshot``); everything it decides is in the plan, which
``memory.services.apply.plan_apply`` writes in one transaction.

For each proposed object, in the order nodes, candidates, events, slices, edges:

1. every label is cleaned first (:func:`memory.policy.clean_label`: balanced HTML or Markdown
   removed, entities decoded), so the key, the stored label and any suppression agree; junk,
   bad titles and bad labels (fragments such as "Going", "Taste of", "D Tracker</b>") are
   rejected; memory-rule excludes, then includes, are applied to every text the object
   carries (label, text, references, evidence quotes);
2. an exact canonical-key or alias match merges into that existing node (never fuzzy
   similarity: "UML" does not merge into "UML College Society");
3. a label already planned in this batch converges on that planned object;
4. an active suppression on the key, or on another spelling of the same name (the same
   :func:`memory.keys.core_key`: "Moonbeam" for a suppressed "Project Moonbeam"), rejects it
   as ``suppressed_blocked`` -- wherever a label could enter the store: a new node, a node
   created on behalf of an event or slice, a new candidate, a candidate bump, an alias;
5. a pending candidate with the same key is bumped;
6. otherwise a new candidate (``capture_default=review``), or a new node where the rules say
   ``auto`` and the confidence is high -- except a label that looks like something a
   suppression forgets without being its name (:func:`memory.tombstones.resemblance`: a shared
   distinctive word, a nickname of a forgotten person, close in meaning): that is always a
   candidate, *held* with the suppression it resembles and why, so the person decides; such
   an alias is refused (``resembles_forgotten``). Events, slices and edges on a label that only exists
   as a candidate are held on that candidate and written when a person promotes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from memory.keys import canonical_key, core_key, fold_key, same_subject, titles_differ
from memory.policy import clean_label, label_rejection, rules_rejection
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.tombstones import Resemblance, Tombstone, named_beside, resemblance, same_name
from memory.vocab import (
    ACTION_STATE,
    SUPERSEDING_SLICE_KINDS,
    CaptureDefault,
    EdgeType,
    RejectReason,
)

_EDGE_TYPES = frozenset(EdgeType.values)
_ORDER = {"node": 0, "candidate": 1, "event": 2, "slice": 3, "edge": 4}


# --- the snapshot -------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeRef:
    id: int
    label: str
    key: str
    category: str
    state: str
    alias_keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class CandidateRef:
    id: int
    key: str
    label: str
    category: str


@dataclass(frozen=True)
class SuppressionRef:
    id: int
    kind: str
    key: str
    until: datetime | None = None


@dataclass(frozen=True)
class RulesRef:
    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    capture_default: str = CaptureDefault.REVIEW.value


@dataclass(frozen=True)
class Snapshot:
    """What exists, as far as the proposals can touch it, at ``now``."""

    now: datetime
    nodes: tuple[NodeRef, ...] = ()
    candidates: tuple[CandidateRef, ...] = ()
    suppressions: tuple[SuppressionRef, ...] = ()
    rules: RulesRef = RulesRef()
    edges: frozenset[tuple[int, int, str, str]] = frozenset()  # from, to, type, label
    slice_keys: frozenset[tuple[int, str, str]] = frozenset()  # (node id, kind, text key), current
    event_keys: frozenset[tuple[int, str, str]] = frozenset()  # (node id, action, text key)
    auto_confidence: float = 0.8
    min_confidence: float = 0.5
    candidate_floor: float = 0.3
    # What the suppressions in force forget, and how close in meaning a name must be to one of
    # them to be held ("looks like something you asked to forget"; memory.tombstones).
    tombstones: tuple[Tombstone, ...] = ()
    resemblance_floor: float = 0.5

    @classmethod
    def empty(cls, *, now: datetime, **overrides: object) -> Snapshot:
        return cls(now=now, **overrides)  # type: ignore[arg-type]


# --- the plan -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where a slice, event or edge goes: an existing node (``node_id``) or a planned one."""

    key: str
    label: str
    node_id: int | None = None


@dataclass(frozen=True)
class PlannedNode:
    key: str
    label: str
    category: str
    state: str | None
    aliases: tuple[str, ...]
    confidence: float
    evidence: tuple[EvidenceSpan, ...]
    on_behalf: bool = False


@dataclass(frozen=True)
class NodeUpdate:
    """A mention of an existing node: touch it, add aliases, possibly change its state."""

    node_id: int
    label: str
    new_aliases: tuple[str, ...]
    mentions: int
    evidence: tuple[EvidenceSpan, ...]


@dataclass(frozen=True)
class PlannedSlice:
    target: Target
    text: str
    kind: str
    supersede: bool
    evidence: tuple[EvidenceSpan, ...]

    @property
    def target_label(self) -> str:
        return self.target.label


@dataclass(frozen=True)
class PlannedEvent:
    target: Target
    action: str
    text: str
    importance: str
    happened_at: datetime | None
    happened_at_precision: str
    happened_at_source: str
    new_state: str | None
    evidence: tuple[EvidenceSpan, ...]

    @property
    def target_label(self) -> str:
        return self.target.label


@dataclass(frozen=True)
class PlannedEdge:
    source: Target
    dest: Target
    type: str
    evidence: tuple[EvidenceSpan, ...]
    label: str = ""


@dataclass(frozen=True)
class PlannedCandidate:
    key: str
    label: str
    category: str
    confidence: float
    reason: str
    possible_node_id: int | None
    held: tuple[AnyProposal, ...]
    evidence: tuple[EvidenceSpan, ...]
    mentions: int = 1
    # Held: the suppression it looks like, and why ("looks like something you asked to forget").
    resembles: int | None = None
    held_why: str = ""


@dataclass(frozen=True)
class CandidateBump:
    candidate_id: int
    key: str
    label: str
    mentions: int
    held: tuple[AnyProposal, ...]
    evidence: tuple[EvidenceSpan, ...]


@dataclass(frozen=True)
class Rejection:
    kind: str
    label: str
    reason: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "label": self.label, "reason": self.reason}


@dataclass(frozen=True)
class WritePlan:
    new_nodes: tuple[PlannedNode, ...] = ()
    node_updates: tuple[NodeUpdate, ...] = ()
    new_slices: tuple[PlannedSlice, ...] = ()
    new_events: tuple[PlannedEvent, ...] = ()
    new_edges: tuple[PlannedEdge, ...] = ()
    new_candidates: tuple[PlannedCandidate, ...] = ()
    candidate_bumps: tuple[CandidateBump, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    suppression_hits: tuple[int, ...] = ()

    @property
    def has_writes(self) -> bool:
        return bool(
            self.new_nodes
            or self.node_updates
            or self.new_slices
            or self.new_events
            or self.new_edges
            or self.new_candidates
            or self.candidate_bumps
        )

    @property
    def held_count(self) -> int:
        return sum(len(c.held) for c in self.new_candidates) + sum(
            len(b.held) for b in self.candidate_bumps
        )

    def reason_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for rejection in self.rejected:
            counts[rejection.reason] = counts.get(rejection.reason, 0) + 1
        return counts


# --- the gate -----------------------------------------------------------------------------


@dataclass
class _Pending:
    """Mutable accumulators while the gate walks the proposals; frozen at the end."""

    nodes: dict[str, PlannedNode] = field(default_factory=dict)
    updates: dict[int, NodeUpdate] = field(default_factory=dict)
    slices: list[PlannedSlice] = field(default_factory=list)
    events: list[PlannedEvent] = field(default_factory=list)
    edges: list[PlannedEdge] = field(default_factory=list)
    candidates: dict[str, PlannedCandidate] = field(default_factory=dict)
    bumps: dict[int, CandidateBump] = field(default_factory=dict)
    rejected: list[Rejection] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    slice_keys: set[tuple[str, str, str]] = field(default_factory=set)
    event_keys: set[tuple[str, str, str]] = field(default_factory=set)
    edge_keys: set[tuple[str, str, str, str]] = field(default_factory=set)
    alias_keys: set[str] = field(default_factory=set)  # aliases this batch adds, any node


class _Gate:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snap = snapshot
        self.out = _Pending()
        self.by_key: dict[str, list[NodeRef]] = {}
        self.by_alias: dict[str, NodeRef] = {}
        for node in sorted(snapshot.nodes, key=lambda n: n.id):
            self.by_key.setdefault(node.key, []).append(node)
            for alias_key in node.alias_keys:
                self.by_alias.setdefault(alias_key, node)
        self.pending = {c.key: c for c in snapshot.candidates}
        # Fold key -> keys of the candidates (pending, or planned in this batch) with it: a
        # new spelling of the same subject joins that card (see waiting_key).
        self.folds: dict[str, list[str]] = {}
        for c in snapshot.candidates:
            self.folds.setdefault(fold_key(c.key), []).append(c.key)
        # Word -> positions in snapshot.nodes of the nodes whose key has it, for hint_for.
        self.by_word: dict[str, list[int]] = {}
        self.node_words: list[set[str]] = []
        for position, node in enumerate(snapshot.nodes):
            other = {w for w in node.key.split() if len(w) > 1}
            self.node_words.append(other)
            for word in other:
                self.by_word.setdefault(word, []).append(position)
        self.resembling: dict[tuple[str, str], Resemblance | None] = {}
        self.spoken: dict[str, Resemblance] = {}
        self.suppressions: dict[str, SuppressionRef] = {}
        self.suppressed_cores: dict[str, SuppressionRef] = {}
        for s in snapshot.suppressions:
            if s.until is None or s.until > snapshot.now:
                self.suppressions.setdefault(s.key, s)
                self.suppressed_cores.setdefault(core_key(s.key), s)

    # -- lookups

    def existing(self, key: str, category: str | None = None) -> NodeRef | None:
        nodes = self.by_key.get(key)
        if nodes:
            for node in nodes:
                if node.category == category:
                    return node
            return nodes[0]
        return self.by_alias.get(key)

    def waiting_key(self, key: str) -> str | None:
        """The key of the candidate waiting for review (planned in this batch, or pending)
        that ``key`` is one subject with: the key itself, or another spelling of the subject
        (:func:`memory.keys.same_subject`: "pottery classes" joins "pottery class", "my
        sister ana" joins "ana", "uml college society" never joins "uml"). None if none."""
        if key in self.out.candidates or key in self.pending:
            return key
        for other in self.folds.get(fold_key(key), ()):
            if same_subject(key, other):
                return other
        return None

    def suppressed(self, *keys: str) -> bool:
        """Whether a suppression refuses one of ``keys``: by the key itself, by its core key
        (another spelling of the same name), or by a key of what a tombstone forgets (its
        aliases, fold keys: :func:`memory.tombstones.same_name`). Records the hit."""
        for key in keys:
            hit = self.suppressions.get(key) or self.suppressed_cores.get(core_key(key))
            if hit is not None and titles_differ(key, hit.key):
                hit = None  # "Mrs Okafor" is not a suppressed "Mr Okafor"
            found = hit.id if hit is not None else None
            if found is None:
                same = same_name(key, self.snap.tombstones)
                found = same.id if same is not None else None
            if found is not None:
                if found not in self.out.hits:
                    self.out.hits.append(found)
                return True
        return False

    def resembles(self, key: str, label: str = "", category: str = "") -> Resemblance | None:
        """The suppression in force that ``key`` looks like without being its name (a shared
        distinctive word, a variant of a person's name, close in meaning, initials written
        in capitals in its ``label`` as proposed), or whose forgotten thing a fact or event
        proposed on ``key`` names (:meth:`speak`), if any: such a label is held for the
        person, never written or proposed silently."""
        if (key, category) not in self.resembling:
            said = label if canonical_key(label) == key else key
            found = resemblance(
                said, self.snap.tombstones, floor=self.snap.resemblance_floor, category=category
            )
            self.resembling[key, category] = (
                found if found is not None and not found.exact else None
            )
        return self.resembling[key, category] or self.spoken.get(key)

    def speak(self, proposals: Sequence[AnyProposal]) -> None:
        """What the facts and events of this batch say about the labels they are on: a label
        whose facts name a forgotten thing beside the label itself ("Stepdad", with "Gregor
        Halloway is coming for dinner" after Gregor Halloway was forgotten), is that thing
        said again under another name, and is held like a name that looks like it. A fact
        that names it only in the label's own words ("We hired Mensah Plumbing" after Ravi
        Mensah was forgotten) leaves the label to :meth:`resembles`."""
        if not self.snap.tombstones:
            return
        for p in proposals:
            if not isinstance(p, (EventProposal, SliceProposal)):
                continue
            key = canonical_key(p.on)
            if not key or key in self.spoken:
                continue
            t = named_beside(p.text, p.on, self.snap.tombstones)
            if t is not None and key not in t.exceptions:
                self.spoken[key] = Resemblance(t, False, f"what it says names “{t.label}”")

    def reject(self, kind: str, label: str, reason: str) -> None:
        self.out.rejected.append(Rejection(kind, label, reason))

    def screen(self, obj: AnyProposal, kind: str, label: str) -> bool:
        """Label and memory-rule checks common to every object. True if it may go on."""
        reason = label_rejection(label)
        if reason is None:
            rules = self.snap.rules
            reason = rules_rejection(
                obj.texts(), includes=rules.includes, excludes=rules.excludes, label=label
            )
        if reason is not None:
            self.reject(kind, label, reason)
            return False
        return True

    def hint_for(self, key: str) -> int | None:
        """An existing node that shares words with ``key``: shown to the reviewer, never merged."""
        words = {w for w in key.split() if len(w) > 1}
        best: tuple[float, int] | None = None
        # Only nodes sharing a word can score, visited in snapshot order (the first of equal
        # scores wins): an index by word instead of a pass over every node per label.
        positions = sorted({p for w in words for p in self.by_word.get(w, ())})
        for position in positions:
            node = self.snap.nodes[position]
            other = self.node_words[position]
            if not words or not other or node.key == key:
                continue
            shared = len(words & other)
            score = shared / min(len(words), len(other)) + shared / len(words | other)
            if shared and (best is None or score > best[0]):
                best = (score, node.id)
        return best[1] if best else None

    def claim_alias(self, alias: str, known: set[str], node: NodeRef | None = None) -> bool:
        """May ``alias`` be added to a node whose label and aliases are ``known``?

        One node per alias key (the store's unique constraint), never an unusable label, and
        never a suppressed one: an alias is a way for a label to enter the store.
        """
        alias_key = canonical_key(alias)
        if not alias_key or alias_key in known or label_rejection(alias) is not None:
            return False
        if (
            alias_key in self.by_key
            or alias_key in self.by_alias
            or alias_key in self.out.nodes
            or alias_key in self.out.alias_keys
        ):
            return False
        if self.suppressed(alias_key):
            self.reject("alias", alias, RejectReason.SUPPRESSED_BLOCKED.value)
            return False
        if self.resembles(alias_key, alias) is not None:
            self.reject("alias", alias, RejectReason.RESEMBLES_FORGOTTEN.value)
            return False
        self.out.alias_keys.add(alias_key)
        if node is not None:  # later mentions in this batch find the node by it
            self.by_alias[alias_key] = node
        return True

    # -- identities

    def touch(
        self, node: NodeRef, evidence: tuple[EvidenceSpan, ...], aliases: Sequence[str] = ()
    ) -> Target:
        update = self.out.updates.get(node.id)
        known = set(node.alias_keys) | {node.key}
        new_aliases = list(update.new_aliases) if update else []
        for alias in aliases:
            if self.claim_alias(alias, known, node):
                new_aliases.append(alias)
        self.out.updates[node.id] = NodeUpdate(
            node_id=node.id,
            label=node.label,
            new_aliases=tuple(new_aliases),
            mentions=(update.mentions + 1) if update else 1,
            evidence=(update.evidence if update else ()) + evidence,
        )
        return Target(node.key, node.label, node.id)

    def add_candidate(
        self,
        *,
        kind: str,
        label: str,
        key: str,
        category: str,
        confidence: float,
        reason: str,
        evidence: tuple[EvidenceSpan, ...],
        held: tuple[AnyProposal, ...] = (),
    ) -> bool:
        """New candidate or bump. False (and a rejection) when the label is suppressed.

        A label that is one subject with a waiting candidate (:meth:`waiting_key`) adds its
        mention and evidence to that card instead of making another."""
        folded = self.waiting_key(key)
        if folded is not None and folded != key:
            if self.suppressed(key):
                self.reject(kind, label, RejectReason.SUPPRESSED_BLOCKED.value)
                return False
            key = folded
        planned = self.out.candidates.get(key)
        if planned is not None:
            self.out.candidates[key] = replace(
                planned,
                confidence=max(planned.confidence, confidence),
                held=planned.held + held,
                evidence=planned.evidence + evidence,
                # a detail held on the label is not another mention of it
                mentions=planned.mentions + (0 if held else 1),
            )
            return True
        if self.suppressed(key):
            self.reject(kind, label, RejectReason.SUPPRESSED_BLOCKED.value)
            return False
        existing = self.pending.get(key)
        if existing is not None:
            bump = self.out.bumps.get(existing.id)
            self.out.bumps[existing.id] = CandidateBump(
                candidate_id=existing.id,
                key=key,
                label=existing.label,
                mentions=(bump.mentions + (0 if held else 1)) if bump else 1,
                held=(bump.held if bump else ()) + held,
                evidence=(bump.evidence if bump else ()) + evidence,
            )
            return True
        if confidence < self.snap.candidate_floor:
            self.reject(kind, label, RejectReason.LOW_CONFIDENCE.value)
            return False
        self.folds.setdefault(fold_key(key), []).append(key)
        like = self.resembles(key, label, category)
        self.out.candidates[key] = PlannedCandidate(
            key=key,
            label=label,
            category=category,
            confidence=confidence,
            reason=reason,
            possible_node_id=self.hint_for(key),
            held=held,
            evidence=evidence,
            resembles=like.tombstone.id if like is not None else None,
            held_why=like.why if like is not None else "",
        )
        return True

    def auto(self, confidence: float) -> bool:
        return (
            self.snap.rules.capture_default == CaptureDefault.AUTO.value
            and confidence >= self.snap.auto_confidence
        )

    def node(self, p: NodeProposal) -> None:
        if not self.screen(p, "node", p.label):
            return
        key = canonical_key(p.label)
        alias_keys = [canonical_key(a) for a in p.aliases]
        for probe in (key, *alias_keys):
            existing = self.existing(probe, p.category)
            if existing is not None:
                self.touch(
                    existing, p.evidence, (p.label, *p.aliases) if probe != key else p.aliases
                )
                return
        planned = self.out.nodes.get(key)
        if planned is not None:
            self.out.nodes[key] = replace(
                planned,
                aliases=planned.aliases + tuple(a for a in p.aliases if self.claim_alias(a, {key})),
                evidence=planned.evidence + p.evidence,
                confidence=max(planned.confidence, p.confidence),
                state=planned.state or p.state,
            )
            return
        if key not in self.out.candidates and self.suppressed(key, *alias_keys):
            self.reject("node", p.label, RejectReason.SUPPRESSED_BLOCKED.value)
            return
        if (
            self.auto(p.confidence)
            and self.waiting_key(key) is None
            and not self.resembles(key, p.label, p.category)
        ):
            aliases = tuple(a for a in p.aliases if self.claim_alias(a, {key}))
            self.out.nodes[key] = PlannedNode(
                key, p.label, p.category, p.state, aliases, p.confidence, p.evidence
            )
            return
        weak = p.confidence < self.snap.min_confidence
        if weak and self.waiting_key(key) is None:
            self.reject("node", p.label, RejectReason.LOW_CONFIDENCE.value)
            return
        self.add_candidate(
            kind="node",
            label=p.label,
            key=key,
            category=p.category,
            confidence=p.confidence,
            reason="new_identity",
            evidence=p.evidence,
        )

    def candidate(self, p: CandidateProposal) -> None:
        if not self.screen(p, "candidate", p.label):
            return
        key = canonical_key(p.label)
        existing = self.existing(key, p.category)
        if existing is not None:
            self.touch(existing, p.evidence)
            return
        planned = self.out.nodes.get(key)
        if planned is not None:
            self.out.nodes[key] = replace(planned, evidence=planned.evidence + p.evidence)
            return
        self.add_candidate(
            kind="candidate",
            label=p.label,
            key=key,
            category=p.category,
            confidence=p.confidence,
            reason=p.reason or "proposed",
            evidence=p.evidence,
        )

    def subject(self, p: EventProposal | SliceProposal, kind: str, no_node: str) -> Target | None:
        """Resolve ``p.on``; create the node on its behalf, or hold ``p`` on a candidate."""
        label = p.on
        reason = label_rejection(label) if label.strip() else no_node
        if reason is not None:
            self.reject(kind, label, no_node if reason == RejectReason.JUNK_LABEL.value else reason)
            return None
        key = canonical_key(label)
        existing = self.existing(key, p.category)
        if existing is not None:
            return self.touch(existing, p.evidence)
        planned = self.out.nodes.get(key)
        if planned is not None:
            return Target(key, planned.label)
        if self.waiting_key(key) is not None:
            self.add_candidate(
                kind=kind,
                label=label,
                key=key,
                category=p.category,
                confidence=p.confidence,
                reason="new_identity",
                evidence=p.evidence,
                held=(p,),
            )
            return None
        if self.suppressed(key):
            self.reject(kind, label, RejectReason.SUPPRESSED_BLOCKED.value)
            return None
        if self.auto(p.confidence) and not self.resembles(key, label, p.category):
            self.out.nodes[key] = PlannedNode(
                key, label, p.category, None, (), p.confidence, p.evidence, on_behalf=True
            )
            return Target(key, label)
        self.add_candidate(
            kind=kind,
            label=label,
            key=key,
            category=p.category,
            confidence=p.confidence,
            reason="new_identity",
            evidence=p.evidence,
            held=(p,),
        )
        return None

    def detail_screen(self, p: EventProposal | SliceProposal, kind: str) -> bool:
        if not p.text.strip():
            self.reject(kind, p.on, RejectReason.EMPTY_TEXT.value)
            return False
        rules = self.snap.rules
        reason = rules_rejection(
            p.texts(), includes=rules.includes, excludes=rules.excludes, label=p.on
        )
        if reason is None and p.confidence < self.snap.min_confidence:
            reason = RejectReason.LOW_CONFIDENCE.value
        if reason is not None:
            self.reject(kind, p.on, reason)
            return False
        return True

    def place(
        self,
        p: EventProposal | SliceProposal,
        kind: str,
        facet: str,
        seen: set[tuple[str, str, str]],
        stored: frozenset[tuple[int, str, str]],
    ) -> Target | None:
        """Screen a slice or event, resolve its subject, and drop it if it is already known
        (same subject, same action or kind, same text) in this batch or in the store."""
        if not self.detail_screen(p, kind):
            return None
        no_node = RejectReason.EVENT_NO_NODE if kind == "event" else RejectReason.SLICE_NO_NODE
        target = self.subject(p, kind, no_node.value)
        if target is None:
            return None
        text_key = canonical_key(p.text)
        if (target.key, facet, text_key) in seen or (
            target.node_id is not None and (target.node_id, facet, text_key) in stored
        ):
            self.reject(kind, p.on, RejectReason.DUPLICATE.value)
            return None
        seen.add((target.key, facet, text_key))
        return target

    def event(self, p: EventProposal) -> None:
        target = self.place(p, "event", p.action, self.out.event_keys, self.snap.event_keys)
        if target is None:
            return
        self.out.events.append(
            PlannedEvent(
                target=target,
                action=p.action,
                text=p.text,
                importance=p.importance,
                happened_at=p.happened_at,
                happened_at_precision=p.happened_at_precision,
                happened_at_source=p.happened_at_source,
                new_state=ACTION_STATE.get(p.action),
                evidence=p.evidence,
            )
        )

    def slice(self, p: SliceProposal) -> None:
        target = self.place(p, "slice", p.kind, self.out.slice_keys, self.snap.slice_keys)
        if target is None:
            return
        self.out.slices.append(
            PlannedSlice(target, p.text, p.kind, p.kind in SUPERSEDING_SLICE_KINDS, p.evidence)
        )

    def endpoint(self, label: str) -> Target | None:
        key = canonical_key(label)
        if not key:
            return None
        existing = self.existing(key)
        if existing is not None:
            return Target(existing.key, existing.label, existing.id)
        planned = self.out.nodes.get(key)
        return Target(key, planned.label) if planned is not None else None

    def edge(self, p: EdgeProposal) -> None:
        label = f"{p.from_label} -> {p.to_label}"
        rules = self.snap.rules
        reason = rules_rejection(p.texts(), includes=rules.includes, excludes=rules.excludes)
        if reason is None and p.confidence < self.snap.min_confidence:
            reason = RejectReason.LOW_CONFIDENCE.value
        if reason is None and p.type not in _EDGE_TYPES:
            reason = RejectReason.INVALID_EDGE_TYPE.value
        if reason is not None:
            self.reject("edge", label, reason)
            return
        source, dest = self.endpoint(p.from_label), self.endpoint(p.to_label)
        if source is None or dest is None:
            self.hold_edge(p, label, source, dest)
            return
        if source.key == dest.key:
            self.reject("edge", label, RejectReason.EDGE_SELF_LOOP.value)
            return
        dedupe = (source.key, dest.key, p.type, p.label)
        stored = (
            source.node_id is not None
            and dest.node_id is not None
            and (source.node_id, dest.node_id, p.type, p.label) in self.snap.edges
        )
        if dedupe in self.out.edge_keys or stored:
            self.reject("edge", label, RejectReason.DUPLICATE.value)
            return
        self.out.edge_keys.add(dedupe)
        self.out.edges.append(PlannedEdge(source, dest, p.type, p.evidence, p.label))

    def hold_edge(
        self, p: EdgeProposal, label: str, source: Target | None, dest: Target | None
    ) -> None:
        """An end that exists only as a candidate holds the edge until a person promotes it.

        When both ends are candidates the edge waits on the first; promoting it passes the
        edge on to the other (see ``memory.services.review``).
        """
        missing = [end for end, t in ((p.from_label, source), (p.to_label, dest)) if t is None]
        keys = [canonical_key(end) for end in missing]
        waiting = [self.waiting_key(k) for k in keys]
        if all(waiting):
            key = waiting[0] or keys[0]
            planned = self.out.candidates.get(key)
            self.add_candidate(
                kind="edge",
                label=missing[0],
                key=key,
                category=planned.category if planned else self.pending[key].category,
                confidence=p.confidence,
                reason="new_identity",
                evidence=p.evidence,
                held=(p,),
            )
            return
        self.reject("edge", label, RejectReason.EDGE_ENDPOINT_MISSING.value)

    def freeze(self) -> WritePlan:
        out = self.out
        return WritePlan(
            new_nodes=tuple(out.nodes.values()),
            node_updates=tuple(out.updates.values()),
            new_slices=tuple(out.slices),
            new_events=tuple(out.events),
            new_edges=tuple(out.edges),
            new_candidates=tuple(out.candidates.values()),
            candidate_bumps=tuple(out.bumps.values()),
            rejected=tuple(out.rejected),
            suppression_hits=tuple(out.hits),
        )


def clean_labels(p: AnyProposal) -> AnyProposal:
    """``p`` with every label it carries cleaned by :func:`memory.policy.clean_label`."""
    if isinstance(p, NodeProposal):
        update: dict[str, object] = {
            "label": clean_label(p.label),
            "aliases": tuple(clean_label(a) for a in p.aliases),
        }
    elif isinstance(p, CandidateProposal):
        update = {"label": clean_label(p.label)}
    elif isinstance(p, EdgeProposal):
        update = {"from_label": clean_label(p.from_label), "to_label": clean_label(p.to_label)}
    else:
        update = {"on": clean_label(p.on)}
    return p.model_copy(update=update)


def plan_writes(proposals: Iterable[AnyProposal], snapshot: Snapshot) -> WritePlan:
    """Decide what to write. Pure and deterministic for a given input."""
    gate = _Gate(snapshot)
    cleaned = [clean_labels(p) for p in proposals]
    gate.speak(cleaned)
    ordered = sorted(enumerate(cleaned), key=lambda item: (_ORDER[item[1].object], item[0]))
    for _, proposal in ordered:
        if isinstance(proposal, NodeProposal):
            gate.node(proposal)
        elif isinstance(proposal, CandidateProposal):
            gate.candidate(proposal)
        elif isinstance(proposal, EventProposal):
            gate.event(proposal)
        elif isinstance(proposal, SliceProposal):
            gate.slice(proposal)
        else:
            gate.edge(proposal)
    return gate.freeze()


def proposal_keys(proposals: Iterable[AnyProposal]) -> set[str]:
    """Every canonical key a batch of proposals can touch (for building the snapshot)."""
    keys: set[str] = set()
    for p in proposals:
        if isinstance(p, NodeProposal):
            labels: tuple[str, ...] = (p.label, *p.aliases)
        elif isinstance(p, CandidateProposal):
            labels = (p.label,)
        elif isinstance(p, EdgeProposal):
            labels = (p.from_label, p.to_label)
        else:
            labels = (p.on,)
        keys.update(k for k in (canonical_key(label) for label in labels) if k)
    return keys
