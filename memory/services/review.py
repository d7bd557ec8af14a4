"""A person's decisions on candidates: promote, reject, reject and suppress similar, merge, undo.

"This guess was wrong" (:func:`candidate_reject`) and "stop proposing this"
(:func:`candidate_reject` with ``suppress=True``) are different verbs: only the second writes
a suppression, which the gate then checks at every entry point.

Each decision is taken under a row lock on the candidate and only from ``pending``, so a
double click or a second tab gets :class:`CandidateAlreadyDecided`, never a second write.
Each leaves a receipt (source ``review``) whose detail is what :func:`candidate_undo` reverts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memory.keys import canonical_key, core_key, fold_key, same_subject
from memory.models import (
    Alias,
    Candidate,
    Edge,
    Event,
    Evidence,
    Node,
    Outcome,
    Receipt,
    Slice,
    Source,
    Suppression,
)
from memory.owned import Person
from memory.policy import label_rejection
from memory.proposals import (
    AnyProposal,
    EdgeProposal,
    EventProposal,
    ProposalError,
    SliceProposal,
    dump_proposal,
    parse_proposals,
)
from memory.services.barrier import barrier_raise
from memory.services.history import History, delete_tree, update_rows
from memory.services.labels import LabelSuppressed, Refusal, label_refusal
from memory.services.recall_index import recall_index_refresh
from memory.services.receipts import receipt_finish, receipt_write
from memory.services.writers import (
    NewSlice,
    aliases_write,
    edges_write,
    events_write,
    node_states_write,
    slices_write,
)
from memory.tombstones import sign
from memory.vocab import (
    ACTION_STATE,
    SUPERSEDING_SLICE_KINDS,
    CandidateStatus,
    Category,
    NodeOrigin,
    NodeState,
    RevisionAction,
    SuppressionKind,
    SuppressionReason,
)


class ReviewError(ValueError):
    """A decision that cannot be taken; the message is fit to show the person."""


class SuppressedPromotion(ReviewError, LabelSuppressed):
    """A promotion refused: an active suppression covers the label it would give."""


class ResemblanceUndecided(ReviewError, LabelSuppressed):
    """A promotion that waits for the person: its label looks like something they asked to
    forget, and they have not said whether to lift that suppression or keep it and make this
    memory an exception (``resemblance="lift"`` or ``"keep"``)."""


#: A person's answer when a promotion looks like something they asked to forget.
RESEMBLANCE_CHOICES = ("lift", "keep")


class CandidateAlreadyDecided(ReviewError):
    def __init__(self, candidate: Candidate) -> None:
        super().__init__(
            f"“{candidate.label_guess}” was already {candidate.get_status_display().lower()}; "
            "nothing was changed"
        )
        self.candidate = candidate


@dataclass
class _Written:
    node: int | None = None
    node_created: bool = False
    slices: list[int] = field(default_factory=list)
    superseded: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    edges: list[int] = field(default_factory=list)
    aliases: list[int] = field(default_factory=list)
    state_before: str | None = None
    history: History | None = None
    #: The decision's receipt, created first: what the decision writes is marked with it.
    receipt: Receipt | None = None
    #: The batch the decision was taken in (:func:`candidates_batch`), if any.
    batch: str = ""

    def record(self, row: Any, action: str = RevisionAction.CREATED) -> None:
        assert self.history is not None
        self.history.add(row, action)

    @property
    def writing(self) -> tuple[History, Receipt]:
        assert self.history is not None and self.receipt is not None
        return self.history, self.receipt


def _lock_pending(candidate: Candidate) -> Candidate:
    locked = (
        Candidate.objects.for_owner(candidate.owner_id).select_for_update().get(pk=candidate.pk)
    )
    if locked.status != CandidateStatus.PENDING:
        raise CandidateAlreadyDecided(locked)
    return locked


def _review_receipt(
    owner: Person,
    *,
    outcome: str,
    subject: str,
    summary: str,
    detail: dict[str, Any],
    started: float,
    counts: dict[str, int],
) -> Receipt:
    return receipt_write(
        owner=owner,
        source=Source.REVIEW,
        outcome=outcome,
        subject=subject,
        summary=summary,
        detail=detail,
        counts=counts,
        started=started,
    )


def _receipt_open(owner: Person, *, subject: str) -> Receipt:
    """A decision's receipt, created before it writes so that every row it creates carries it
    (``created_receipt``), as an ingest's rows carry theirs; :func:`_receipt_close` fills it
    in once the decision is written, in the same transaction."""
    return receipt_write(owner=owner, source=Source.REVIEW, outcome=Outcome.WROTE, subject=subject)


def _receipt_close(
    receipt: Receipt,
    *,
    summary: str,
    detail: dict[str, Any],
    counts: dict[str, int],
    started: float,
) -> None:
    receipt_finish(receipt, summary=summary, detail=detail, counts=counts, started=started)


def _held(candidate: Candidate) -> list[AnyProposal]:
    # One by one: the batch limits of a save do not apply to what piled up over many saves,
    # and one unreadable object must not drop the others.
    held: list[AnyProposal] = []
    for item in candidate.held_objects or []:
        try:
            held += parse_proposals([item])
        except ProposalError:
            continue  # held objects are written by our own gate; unreadable ones are dropped
    return held


_COPULA = frozenset({"is", "was", "are", "named", "called", "the", "a", "an", "my"})


def restates(text: str, keys: set[str]) -> bool:
    """Does a fact only say a name ("Is Sofia Almeida" on the memory Sofia Almeida)? Such a
    fact tells nothing a label does not, and after a rename it would keep the old guess."""
    words = text.split()
    while words and words[0].lower() in _COPULA:
        words = words[1:]
    return bool(words) and canonical_key(" ".join(words)) in keys


def _materialize(
    candidate: Candidate, node: Node, written: _Written, now: datetime, *, change_state: bool = True
) -> None:
    """Write the slices, events and edges that waited on this candidate onto ``node``, one at
    a time in the order they were held, through :mod:`memory.services.writers`.

    A held fact that only restates the node's label or the candidate's guess is dropped. An
    event that implies a state ("paused") sets the node's state only with ``change_state``.
    """
    names = {node.canonical_key, candidate.canonical_key}
    owner = candidate.owner
    evidence: list[Evidence] = []
    # Where each quote came from (the candidate's own evidence rows, written at ingest), so
    # the details written now keep their source transcript, not only a message id.
    origin = {
        (row.message_id, row.quote): row
        for row in Evidence.objects.for_owner(owner).filter(candidate=candidate).order_by("-id")
    }
    for proposal in _held(candidate):
        target: dict[str, Any] = {}
        if isinstance(proposal, SliceProposal):
            if restates(proposal.text, names):
                continue
            target = _held_slice(node, proposal, written, now)
        elif isinstance(proposal, EventProposal):
            target = _held_event(node, proposal, written, now, change_state=change_state)
        elif isinstance(proposal, EdgeProposal):
            edge = _materialize_edge(candidate, node, proposal, written, now)
            if edge is None:
                continue
            target = {"edge": edge}
        evidence += [
            Evidence(
                owner=owner,
                source=origin[key].source if key in origin else "review",
                transcript_id=origin[key].transcript_id if key in origin else None,
                message_id=s.message_id,
                message_ts=s.ts,
                quote=s.quote,
                **target,
            )
            for s in proposal.evidence
            if s.quote
            for key in [(s.message_id, s.quote)]
        ]
    Evidence.objects.bulk_create(evidence)


def _held_slice(
    node: Node, proposal: SliceProposal, written: _Written, now: datetime
) -> dict[str, Any]:
    history, receipt = written.writing
    new = NewSlice(
        node.pk, proposal.text, proposal.kind, supersede=proposal.kind in SUPERSEDING_SLICE_KINDS
    )
    done = slices_write(owner=node.owner, slices=[new], receipt=receipt, now=now, history=history)
    written.superseded += done.retired
    (row,) = done.rows
    written.slices.append(row.pk)
    return {"slice": row, "node": node}


def _held_event(
    node: Node, proposal: EventProposal, written: _Written, now: datetime, *, change_state: bool
) -> dict[str, Any]:
    history, receipt = written.writing
    (row,) = events_write(
        owner=node.owner, events=[(node.pk, proposal)], receipt=receipt, now=now, history=history
    )
    written.events.append(row.pk)
    new_state = ACTION_STATE.get(proposal.action)
    if change_state and new_state and new_state != node.state:
        # No revision of its own: the decision records the node once, as it ends.
        node_states_write(owner=node.owner, states={node.pk: new_state}, now=now)
        node.state = new_state
    return {"event": row, "node": node}


def _materialize_edge(
    candidate: Candidate, node: Node, proposal: EdgeProposal, written: _Written, now: datetime
) -> Edge | None:
    own_keys = {candidate.canonical_key, node.canonical_key}
    from_key, to_key = canonical_key(proposal.from_label), canonical_key(proposal.to_label)
    # The edge may name this candidate by another spelling it was folded from ("pottery
    # classes" on the card "Pottery class"): one subject, memory.keys.same_subject.
    from_is_own = any(same_subject(from_key, key) for key in own_keys)
    other_key = to_key if from_is_own else from_key
    other = _node_by_key(candidate.owner, other_key)
    if other is None:
        # The other end is still waiting for review, maybe under another spelling: pass the
        # edge on to its candidate.
        waiting = next(
            (
                c
                for c in Candidate.objects.select_for_update()
                .for_owner(candidate.owner)
                .filter(fold_key=fold_key(other_key), status=CandidateStatus.PENDING)
                .order_by("id")
                if same_subject(c.canonical_key, other_key)
            ),
            None,
        )
        if waiting is not None and waiting.pk != candidate.pk:
            waiting.held_objects = [*waiting.held_objects, dump_proposal(proposal)]
            waiting.save(update_fields=["held_objects"])
        return None
    if other.pk == node.pk:
        return None
    source, dest = (node, other) if from_is_own else (other, node)
    if (
        Edge.objects.for_owner(candidate.owner)
        .filter(
            from_node=source,
            to_node=dest,
            type=proposal.type,
            label=proposal.label,
        )
        .exists()
    ):
        return None
    history, receipt = written.writing
    (edge,) = edges_write(
        owner=candidate.owner,
        edges=[(source.pk, dest.pk, proposal.type, proposal.label)],
        receipt=receipt,
        now=now,
        history=history,
    )
    written.edges.append(edge.pk)
    return edge


def _node_by_key(owner: Person, key: str) -> Node | None:
    node = Node.objects.for_owner(owner).filter(canonical_key=key).order_by("id").first()
    if node is None:
        alias = (
            Alias.objects.for_owner(owner).filter(canonical_key=key).select_related("node").first()
        )
        node = alias.node if alias else None
    return node


def _alias_free(owner: Person, key: str, now: datetime) -> bool:
    """May ``key`` become an alias? Not if it names another node, is an alias already, or the
    one label check refuses it (:func:`memory.services.labels.label_refusal`: a suppression
    names it or it looks like what one forgets, or the rules exclude it): an alias would let
    it back in through the side door."""
    return not (
        Alias.objects.for_owner(owner).filter(canonical_key=key).exists()
        or Node.objects.for_owner(owner).filter(canonical_key=key).exists()
        or label_refusal(owner, [key], now=now) is not None
    )


def _alias_from_guess(candidate: Candidate, node: Node, written: _Written) -> None:
    """Keep the candidate's own guess as an alias of ``node`` (checked free by the caller)."""
    history, _receipt = written.writing
    (alias_row,) = aliases_write(
        owner=candidate.owner,
        aliases=[(node.pk, candidate.label_guess, candidate.canonical_key)],
        history=history,
    )
    written.aliases.append(alias_row.pk)


def _settle_label(
    owner: Person, label: str, now: datetime, choice: str, category: str = ""
) -> dict[str, Any]:
    """The one label check of a promotion (:func:`memory.services.labels.label_refusal`). A
    name a suppression covers, or the rules exclude, is refused. A name that only looks like
    what a suppression forgets needs the person's ``choice``: ``lift`` the suppression (it stops
    binding at once, everywhere), or ``keep`` it and make this label an explicit exception of
    it; without one, :class:`ResemblanceUndecided`. Returns what was decided, for the receipt
    (and its undo). ``category`` is what the label is promoted as: a person named by one word
    of a forgotten place's name is someone else (:func:`memory.tombstones.resemblance`)."""
    refusal = label_refusal(owner, [label], now=now, category=category)
    if refusal is None:
        return {}
    if refusal.exact or refusal.suppression is None:
        raise SuppressedPromotion.of(refusal)
    if choice not in RESEMBLANCE_CHOICES:
        raise ResemblanceUndecided.of(refusal)
    return _resemblance_decide(refusal, choice, now)


def _resemblance_decide(refusal: Refusal, choice: str, now: datetime) -> dict[str, Any]:
    assert refusal.suppression is not None
    suppression = Suppression.objects.select_for_update().get(pk=refusal.suppression.pk)
    key = canonical_key(refusal.text)
    if choice == "lift":
        Suppression.objects.filter(pk=suppression.pk, lifted_at__isnull=True).update(lifted_at=now)
    elif key not in suppression.exceptions:
        suppression.exceptions = [*suppression.exceptions, key]
        suppression.save(update_fields=["exceptions"])
    return {
        "suppression": suppression.pk,
        "choice": choice,
        "key": key,
        "label": suppression.label,
        "why": refusal.why,
    }


def _resemblance_undo(owner: Person, decided: dict[str, Any]) -> None:
    """Take back a promotion's lift or keep: the suppression binds again, or the exception
    goes."""
    rows = Suppression.objects.for_owner(owner).filter(pk=int(decided.get("suppression") or 0))
    suppression = rows.select_for_update().first()
    if suppression is None:
        return
    if decided.get("choice") == "lift":
        rows.update(lifted_at=None)
    else:
        suppression.exceptions = [k for k in suppression.exceptions if k != decided.get("key")]
        suppression.save(update_fields=["exceptions"])


def _adopt(
    candidate: Candidate,
    node: Node,
    written: _Written,
    by: Any,
    status: str,
    now: datetime,
    *,
    change_state: bool = True,
) -> None:
    Evidence.objects.for_owner(candidate.owner).filter(candidate=candidate).update(node=node)
    _materialize(candidate, node, written, now, change_state=change_state)
    recall_index_refresh(owner_id=candidate.owner_id, nodes=[node.pk])
    candidate.status = status
    candidate.reviewed_at = now
    candidate.reviewed_by = by
    candidate.promoted_node = node
    candidate.save(update_fields=["status", "reviewed_at", "reviewed_by", "promoted_node"])


def _count(items: list[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _detail(action: str, candidate: Candidate, written: _Written, **extra: Any) -> dict[str, Any]:
    if written.batch:
        extra["batch"] = written.batch
    return {
        "action": action,
        "candidate": candidate.pk,
        "node": written.node,
        "node_created": written.node_created,
        "state_before": written.state_before,
        "created": {
            "slices": written.slices,
            "events": written.events,
            "edges": written.edges,
            "aliases": written.aliases,
        },
        "superseded": written.superseded,
        **extra,
    }


def candidate_promote(
    *,
    candidate: Candidate,
    by: Any,
    label: str | None = None,
    category: str | None = None,
    state: str | None = None,
    keep_guess: bool = False,
    batch: str = "",
    resemblance: str = "",
) -> Node:
    """Make the candidate a node (label, category and state as the person edited them).

    Its evidence becomes the node's provenance and its held details are written. If the
    label names an existing node exactly, the candidate is merged into that node instead.
    Under a new label the old guess becomes an alias only with ``keep_guess``: a guess the
    person corrected is not another name for the memory unless they say so. A label that
    looks like something the person asked to forget (a held card, or a label edited to such a
    name) is promoted only with ``resemblance``: ``"lift"`` the suppression or ``"keep"`` it
    with this label as its exception (:func:`_settle_label`); both are undone with the
    promotion.
    """
    started = time.perf_counter()
    label, category = _promote_checked(candidate, label, category, state)
    key = canonical_key(label)
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_pending(candidate)
        existing = _node_by_key(locked.owner, key)
        if existing is not None:
            node = _merge_locked(
                locked,
                existing,
                by=by,
                add_alias=keep_guess or key == locked.canonical_key,
                now=now,
                started=started,
                action="promote",
                batch=batch,
            )
        else:
            decided = _settle_label(
                locked.owner, label, now, resemblance, category or locked.category_guess
            )
            node = _promote_locked(
                locked,
                label=label,
                category=category,
                state=state,
                by=by,
                add_alias=keep_guess and key != locked.canonical_key,
                now=now,
                started=started,
                batch=batch,
                decided=decided,
            )
            node.refresh_from_db()
    candidate.refresh_from_db()
    return node


def _promote_checked(
    candidate: Candidate, label: str | None, category: str | None, state: str | None
) -> tuple[str, str]:
    """The label (whitespace folded) and category a promotion uses; ReviewError if unusable."""
    label = " ".join((label if label is not None else candidate.label_guess).split())
    if len(label) > 200:
        raise ReviewError("a label is at most 200 characters")
    if label_rejection(label):
        raise ReviewError(f"“{label}” is not a usable label")
    category = category or candidate.category_guess
    if category not in Category.values:
        raise ReviewError(f"unknown category {category!r}")
    if state and state not in NodeState.values:
        raise ReviewError(f"unknown state {state!r}")
    return label, category


def _promote_locked(
    locked: Candidate,
    *,
    label: str,
    category: str,
    state: str | None,
    by: Any,
    add_alias: bool,
    now: datetime,
    started: float,
    batch: str = "",
    decided: dict[str, Any] | None = None,
) -> Node:
    """A new node from the locked candidate, with what it held; its receipt is written first
    and marks every row created. ``decided``: the person's lift or keep of a suppression the
    label looked like, recorded in the receipt."""
    written = _Written(
        batch=batch,
        node_created=True,
        history=History(
            owner_id=locked.owner_id,
            reason=f"promoted from the guess “{locked.label_guess}”",
            now=now,
        ),
        receipt=_receipt_open(locked.owner, subject=f"promote: {label}"),
    )
    try:
        with transaction.atomic():
            node = Node.objects.create(
                owner=locked.owner,
                label=label,
                canonical_key=canonical_key(label),
                category=category,
                state=state or NodeState.ACTIVE,
                origin=NodeOrigin.PROMOTED,
                mention_count=locked.mention_count,
                session_count=locked.session_count,
                last_seen_at=locked.last_seen_at,
                created_receipt=written.receipt,
                created_at=now,
                updated_at=now,
            )
    except IntegrityError as exc:
        raise ReviewError(f"a {category} called “{label}” already exists") from exc
    written.node = node.pk
    if add_alias and _alias_free(locked.owner, locked.canonical_key, now):
        _alias_from_guess(locked, node, written)
    _adopt(locked, node, written, by, CandidateStatus.PROMOTED, now)
    if state and node.state != state:  # the person's choice wins over the held events'
        node_states_write(owner=locked.owner, states={node.pk: state}, now=now)
        node.state = state
    written.record(node, RevisionAction.PROMOTED)
    history, receipt = written.writing
    settled = ""
    if decided:
        verb = "lifted" if decided["choice"] == "lift" else "kept as an exception of"
        settled = f"; {verb} the suppression of “{decided['label']}”"
    _receipt_close(
        receipt,
        summary=f"promoted “{label}” ({category}); {_count(written.slices, 'fact')}, "
        f"{_count(written.events, 'event')}{settled}",
        detail=_detail("promote", locked, written, **({"resemblance": decided} if decided else {})),
        started=started,
        counts={
            "nodes": 1,
            "slices": len(written.slices),
            "events": len(written.events),
            "edges": len(written.edges),
        },
    )
    history.flush(receipt_id=receipt.pk)
    return node


def _merge_locked(
    locked: Candidate,
    node: Node,
    *,
    by: Any,
    add_alias: bool,
    now: datetime,
    started: float,
    action: str = "merge",
    change_state: bool = False,
    batch: str = "",
) -> Node:
    written = _Written(
        batch=batch,
        node=node.pk,
        state_before=node.state,
        history=History(
            owner_id=locked.owner_id, reason=f"merged the guess “{locked.label_guess}”", now=now
        ),
        receipt=_receipt_open(
            locked.owner, subject=f"{action}: {locked.label_guess} → {node.label}"
        ),
    )
    key = locked.canonical_key
    if add_alias and key != node.canonical_key and _alias_free(locked.owner, key, now):
        _alias_from_guess(locked, node, written)
    Node.objects.filter(pk=node.pk).update(
        mention_count=F("mention_count") + locked.mention_count,
        session_count=F("session_count") + locked.session_count,
        last_seen_at=max(node.last_seen_at, locked.last_seen_at),
        updated_at=now,
        revision=F("revision") + 1,
    )
    _adopt(locked, node, written, by, CandidateStatus.MERGED, now, change_state=change_state)
    node.refresh_from_db(fields=["state", "revision", "label", "category", "summary"])
    written.record(node, RevisionAction.MERGED)
    state_note = (
        f"; state {written.state_before} → {node.state}"
        if written.state_before != node.state
        else ""
    )
    history, receipt = written.writing
    _receipt_close(
        receipt,
        summary=f"merged “{locked.label_guess}” into “{node.label}”"
        + (" as an alias" if written.aliases else "")
        + f"; {_count(written.slices, 'fact')}, {_count(written.events, 'event')}"
        + state_note,
        detail=_detail(
            "merge", locked, written, mentions=locked.mention_count, sessions=locked.session_count
        ),
        started=started,
        counts={
            "nodes_updated": 1,
            "slices": len(written.slices),
            "events": len(written.events),
            "edges": len(written.edges),
        },
    )
    history.flush(receipt_id=receipt.pk)
    node.refresh_from_db()
    return node


def candidate_merge(
    *,
    candidate: Candidate,
    node: Node,
    by: Any,
    add_alias: bool = True,
    change_state: bool = False,
) -> Node:
    """Fold the candidate into an existing node of the same owner; its label becomes an alias.

    Its held facts and events are added to the node; an event that implies a state changes
    the node's state only with ``change_state`` (see :func:`merge_preview`).
    """
    if node.owner_id != candidate.owner_id:
        raise ReviewError("that node does not exist")
    started = time.perf_counter()
    with transaction.atomic():
        locked = _lock_pending(candidate)
        result = _merge_locked(
            locked,
            node,
            by=by,
            add_alias=add_alias,
            now=timezone.now(),
            started=started,
            change_state=change_state,
        )
    candidate.refresh_from_db()
    return result


@dataclass(frozen=True)
class MergePreview:
    """Everything a merge would change on its target, shown before the person confirms."""

    node: Node
    alias: str | None
    alias_refused: str
    slices: list[SliceProposal]
    events: list[EventProposal]
    edges: list[EdgeProposal]
    state_from: str
    state_to: str | None


def merge_preview(*, candidate: Candidate, node: Node, add_alias: bool = True) -> MergePreview:
    """What :func:`candidate_merge` would write on ``node``: the alias, the facts and events
    held on the candidate, its links, and the state its events imply (None: no change)."""
    now = timezone.now()
    names = {node.canonical_key, candidate.canonical_key}
    held = _held(candidate)
    slices = [p for p in held if isinstance(p, SliceProposal) and not restates(p.text, names)]
    events = [p for p in held if isinstance(p, EventProposal)]
    state_to = None
    for event in events:
        implied = ACTION_STATE.get(event.action)
        state_to = implied or state_to
    alias, refused = None, ""
    if add_alias and candidate.canonical_key != node.canonical_key:
        if _alias_free(candidate.owner, candidate.canonical_key, now):
            alias = candidate.label_guess
        else:
            refused = "it already names a memory or is suppressed"
    return MergePreview(
        node=node,
        alias=alias,
        alias_refused=refused,
        slices=slices,
        events=events,
        edges=[p for p in held if isinstance(p, EdgeProposal)],
        state_from=node.state,
        state_to=state_to if state_to and state_to != node.state else None,
    )


def candidate_reject(
    *,
    candidate: Candidate,
    by: Any,
    suppress: bool = False,
    until: datetime | None = None,
    forget: bool = False,
    batch: str = "",
) -> Suppression | None:
    """ "This guess was wrong" -- or, with ``suppress``, "stop proposing this" (a tombstone on
    the label that the gate checks as node and as candidate, until ``until`` or for ever).

    With ``forget`` ("and forget what was said about it") the suppression is permanent and
    also hides from recall every message that mentions the label. A plain suppression
    does not: suppressing a junk label must not hide every message containing that word."""
    started = time.perf_counter()
    now = timezone.now()
    if forget and until is not None:
        raise ReviewError("forgetting is permanent: it cannot end on a date")
    if until is not None and until <= now:
        raise ReviewError("a suppression must end in the future")
    suppress = suppress or forget
    action = "forget" if forget else "suppress" if suppress else "reject"
    with transaction.atomic():
        locked = _lock_pending(candidate)
        suppression = None
        if suppress:
            suppression = Suppression.objects.create(
                owner=locked.owner,
                kind=SuppressionKind.CANDIDATE,
                canonical_key=locked.canonical_key,
                core_key=core_key(locked.canonical_key),
                label=locked.label_guess,
                **sign(
                    locked.label_guess,
                    aliases=_spellings(locked),
                    category=locked.category_guess,
                ),
                reason=SuppressionReason.FORGOTTEN if forget else SuppressionReason.REJECTED,
                source=f"review:candidate:{locked.pk}",
                suppressed_until=until,
                created_at=now,
            )
        locked.status = CandidateStatus.SUPPRESSED if suppress else CandidateStatus.REJECTED
        locked.reviewed_at = now
        locked.reviewed_by = by
        locked.save(update_fields=["status", "reviewed_at", "reviewed_by"])
        summaries = {
            "forget": f"rejected “{locked.label_guess}” and forgot what was said about it",
            "suppress": f"rejected “{locked.label_guess}” and suppressed similar"
            + (f" until {until:%Y-%m-%d}" if until else ""),
            "reject": f"rejected “{locked.label_guess}”",
        }
        _review_receipt(
            locked.owner,
            outcome=Outcome.WROTE if suppress else Outcome.MEANINGFUL_NO_WRITE,
            subject=f"{action}: {locked.label_guess}",
            summary=summaries[action],
            detail={
                "action": action,
                "candidate": locked.pk,
                "suppression": suppression.pk if suppression else None,
                **({"batch": batch} if batch else {}),
            },
            started=started,
            counts={"suppressions": 1 if suppress else 0},
        )
    candidate.refresh_from_db()
    return suppression


def _spellings(candidate: Candidate) -> list[str]:
    """The other spellings a card was folded from (the subjects its held details were said
    on: "Pottery classes" on "Pottery class"): other names of what a suppression forgets."""
    names = []
    for item in candidate.held_objects or []:
        on = item.get("on") if isinstance(item, dict) else None
        if isinstance(on, str) and canonical_key(on) not in ("", candidate.canonical_key):
            names.append(on)
    return list(dict.fromkeys(names))


def candidate_held_delete(
    *, candidate: Candidate, texts: Iterable[str], source: str, token: Any = None
) -> list[str]:
    """Delete the facts held on a pending candidate whose text is one of ``texts`` (compared
    by :func:`~memory.keys.canonical_key`); returns the texts deleted.

    A deletion like any other: it raises the owner's deletion barrier and leaves a receipt
    (``source``, ``token``) listing what it took away; nothing deleted, no write and no
    receipt. Refused (:class:`CandidateAlreadyDecided`) once the candidate was decided.
    """
    started = time.perf_counter()
    keys = {canonical_key(t) for t in texts}
    with transaction.atomic():
        locked = _lock_pending(candidate)
        kept, removed = [], []
        for held in locked.held_objects or []:
            is_fact = isinstance(held, dict) and held.get("object") == "slice"
            if is_fact and canonical_key(str(held.get("text", ""))) in keys:
                removed.append(held)
            else:
                kept.append(held)
        if not removed:
            return []
        barrier_raise(locked.owner, at=timezone.now())
        locked.held_objects = kept
        locked.save(update_fields=["held_objects"])
        deleted = [str(held.get("text", "")) for held in removed]
        receipt_write(
            owner=locked.owner,
            source=source,
            token=token,
            outcome=Outcome.WROTE,
            subject=f"delete held facts: {locked.label_guess}",
            summary=(
                f"deleted {_count(deleted, 'fact')} waiting for review with "
                f"“{locked.label_guess}”: " + "; ".join(f"“{t}”" for t in deleted)
            ),
            detail={"action": "held_delete", "candidate_id": locked.pk, "removed": removed},
            counts={"held_deleted": len(removed)},
            started=started,
        )
    candidate.refresh_from_db()
    return deleted


def candidate_undo(*, candidate: Candidate, by: Any) -> Candidate:
    """Take back the last decision on ``candidate`` if it is recent and nothing built on it."""
    now = timezone.now()
    with transaction.atomic():
        locked = (
            Candidate.objects.for_owner(candidate.owner_id).select_for_update().get(pk=candidate.pk)
        )
        if locked.status == CandidateStatus.PENDING:
            raise ReviewError(f"“{locked.label_guess}” has no decision to undo")
        receipt = (
            Receipt.objects.for_owner(locked.owner)
            .select_for_update()
            .filter(
                source=Source.REVIEW,
                detail__candidate=locked.pk,
                undone_at__isnull=True,
            )
            .order_by("-created_at", "-id")
            .first()
        )
        if receipt is None or receipt.created_at < now - timedelta(
            seconds=settings.UME_UNDO_SECONDS
        ):
            raise ReviewError("that decision is too old to undo")
        # Undo deletes rows an in-flight ingest may be building on: it is a deletion.
        barrier_raise(locked.owner, at=now)
        _undo_written(locked, receipt, now)
        clash = (
            Candidate.objects.for_owner(locked.owner)
            .filter(canonical_key=locked.canonical_key, status=CandidateStatus.PENDING)
            .exclude(pk=locked.pk)
        )
        if clash.exists():
            raise ReviewError(
                f"“{locked.label_guess}” was proposed again meanwhile; review the new card instead"
            )
        locked.status = CandidateStatus.PENDING
        locked.reviewed_at = None
        locked.reviewed_by = None
        locked.promoted_node = None
        locked.save(update_fields=["status", "reviewed_at", "reviewed_by", "promoted_node"])
        receipt.undone_at = now
        receipt.save(update_fields=["undone_at"])
    candidate.refresh_from_db()
    return candidate


def _undo_written(locked: Candidate, receipt: Receipt, now: datetime) -> None:
    """Revert what the decision of ``receipt`` wrote: its suppression, the node it created
    (with everything on it) or what it added to the node it merged into, the slices it
    superseded and the evidence it moved; each change with its revision."""
    detail = receipt.detail
    created = detail.get("created", {})
    if detail.get("suppression"):
        Suppression.objects.for_owner(locked.owner).filter(pk=detail["suppression"]).delete()
    if detail.get("resemblance"):
        _resemblance_undo(locked.owner, detail["resemblance"])
    history = History(
        owner_id=locked.owner_id,
        reason=f"undo of the decision on “{locked.label_guess}”",
        receipt_id=receipt.pk,
        now=now,
    )
    node_id = detail.get("node")
    if node_id and detail.get("node_created"):
        # Everything on it goes with it: one final revision each.
        delete_tree(locked.owner_id, [node_id], history)
    for model, name in (
        (Slice, "slices"),
        (Event, "events"),
        (Edge, "edges"),
        (Alias, "aliases"),
    ):
        rows = model.objects.for_owner(locked.owner).filter(pk__in=created.get(name, []))
        if not (node_id and detail.get("node_created")):
            for row in rows:
                history.deleted(row)
        rows.delete()
    update_rows(
        list(Slice.objects.for_owner(locked.owner).filter(pk__in=detail.get("superseded", []))),
        history,
        RevisionAction.RESTORED,
        is_current=True,
        superseded_at=None,
    )
    Evidence.objects.for_owner(locked.owner).filter(candidate=locked).update(node=None)
    if node_id and detail.get("node_created"):
        Node.objects.for_owner(locked.owner).filter(pk=node_id).delete()
    elif node_id:
        updates: dict[str, Any] = {
            "mention_count": F("mention_count") - detail.get("mentions", 0),
            "session_count": F("session_count") - detail.get("sessions", 0),
        }
        if detail.get("state_before"):
            updates["state"] = detail["state_before"]
        target = (
            Node.objects.for_owner(locked.owner)
            .filter(pk=node_id, mention_count__gte=detail.get("mentions", 0))
            .first()
        )
        if target is not None:
            update_rows([target], history, RevisionAction.RESTORED, **updates)
    history.flush()
    if node_id:
        recall_index_refresh(owner_id=locked.owner_id, nodes=[node_id])
