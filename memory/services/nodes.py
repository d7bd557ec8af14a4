"""A person's edits to the graph: rename, recategorise, aliases, delete (with make-it-stick),
and suppressions (lift, add)."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.keys import canonical_key, core_key
from memory.models import Alias, Candidate, Evidence, Node, Suppression
from memory.owned import Person
from memory.policy import label_rejection
from memory.services.barrier import barrier_raise
from memory.services.history import History, delete_tree, record
from memory.services.labels import LabelSuppressed, label_admit
from memory.services.recall_index import recall_index_refresh
from memory.tombstones import sign
from memory.vocab import (
    CandidateStatus,
    Category,
    NodeState,
    RevisionAction,
    SuppressionKind,
    SuppressionReason,
)


class NodeEditError(ValueError):
    """An edit that cannot be made; the message is fit to show the person."""


#: The revision an edit is based on: one, any of several (an ``If-Match`` list), or none.
Expected = int | frozenset[int] | None


class SuppressedName(NodeEditError, LabelSuppressed):
    """A rename or alias refused: an active suppression covers the name."""


def _refuse_suppressed(owner_id: int, text: str, *, keep_suppression: bool = False) -> None:
    label_admit(owner_id, text, SuppressedName, keep_suppression=keep_suppression)


class StaleRevision(NodeEditError):
    """The node changed since the revision the edit was based on (optimistic concurrency)."""

    def __init__(self, node: Node, expected: int | frozenset[int]) -> None:
        if isinstance(expected, int):
            since = f"revision {expected}"
        elif expected:
            since = "revision " + " or ".join(str(n) for n in sorted(expected))
        else:
            since = "the version named (only a strong ETag of it matches)"
        super().__init__(
            f"“{node.label}” changed since {since}: it is at revision "
            f"{node.revision} now; nothing was changed"
        )
        self.node = node
        self.expected = expected


def _matches(revision: int, expected: Expected) -> bool:
    if expected is None:
        return True
    if isinstance(expected, int):
        return revision == expected
    return revision in expected


def _lock_current(node: Node, expected_revision: Expected) -> Node:
    """Lock ``node``'s row and return it as it is now; refuse a stale ``expected_revision``
    (a set of revisions: the node is at none of them).
    Inside a transaction: a concurrent edit with the same revision waits, then is refused."""
    locked = Node.objects.select_for_update().for_owner(node.owner_id).filter(pk=node.pk).first()
    if locked is None:
        raise NodeEditError("that memory was deleted meanwhile; nothing was changed")
    if expected_revision is not None and not _matches(locked.revision, expected_revision):
        raise StaleRevision(locked, expected_revision)
    return locked


def _clean_label(label: str) -> str:
    label = " ".join(label.split())
    if len(label) > 200:
        raise NodeEditError("a label is at most 200 characters")
    if not label or label_rejection(label):
        raise NodeEditError(f"“{label}” is not a usable label")
    return label


def node_update(
    *,
    node: Node,
    label: str | None = None,
    category: str | None = None,
    state: str | None = None,
    summary: str | None = None,
    expected_revision: Expected = None,
    action: str = RevisionAction.UPDATED,
    reason: str = "",
    keep_suppression: bool = False,
) -> Node:
    """Edit a node's label, category, state or summary. The old label stays as an alias.

    With ``expected_revision`` the edit is refused with :class:`StaleRevision` unless the node
    is still at that revision. A change records one revision (``action``, ``reason``). A new
    label passes the one label check (:mod:`memory.services.labels`); one that only looks like
    something the person asked to forget is let in with ``keep_suppression``, as that
    suppression's exception."""
    with transaction.atomic():
        node = _lock_current(node, expected_revision)
        return _node_update(node, label, category, state, summary, action, reason, keep_suppression)


def _node_update(
    node: Node,
    label: str | None,
    category: str | None,
    state: str | None,
    summary: str | None,
    action: str,
    reason: str,
    keep_suppression: bool = False,
) -> Node:
    fields: list[str] = []
    old_label, old_key = node.label, node.canonical_key
    if label is not None and label != node.label:
        new_label = _clean_label(label)
        new_key = canonical_key(new_label)
        if new_key != node.canonical_key:
            _refuse_suppressed(node.owner_id, new_label, keep_suppression=keep_suppression)
        node.label = new_label
        node.canonical_key = new_key
        fields += ["label", "canonical_key"]
    if category is not None and category != node.category:
        if category not in Category.values:
            raise NodeEditError(f"unknown category {category!r}")
        node.category = category
        fields.append("category")
    if state is not None and state != node.state:
        if state not in NodeState.values:
            raise NodeEditError(f"unknown state {state!r}")
        node.state = state
        fields.append("state")
    if summary is not None and summary != node.summary:
        if len(summary) > 4000:
            raise NodeEditError("a summary is at most 4000 characters")
        node.summary = summary.strip()
        fields.append("summary")
    if not fields:
        return node
    node.updated_at = timezone.now()
    node.revision += 1
    try:
        with transaction.atomic():
            if "canonical_key" in fields:
                if (
                    Alias.objects.for_owner(node.owner_id)
                    .filter(canonical_key=node.canonical_key)
                    .exclude(node=node)
                    .exists()
                ):
                    raise NodeEditError(f"“{node.label}” is already an alias of another memory")
                Alias.objects.filter(node=node, canonical_key=node.canonical_key).delete()
                history = History(owner_id=node.owner_id, reason=reason)
                for gone in Alias.objects.filter(node=node, canonical_key=node.canonical_key):
                    history.deleted(gone, reason=f"now the label of “{node.label}”")
                    gone.delete()
                if (
                    old_key != node.canonical_key
                    and not Alias.objects.for_owner(node.owner_id)
                    .filter(canonical_key=old_key)
                    .exists()
                ):
                    history.add(
                        Alias.objects.create(
                            owner_id=node.owner_id,
                            node=node,
                            alias=old_label,
                            canonical_key=old_key,
                        ),
                        RevisionAction.CREATED,
                        reason=f"the old label of “{node.label}”",
                    )
                history.flush()
            node.save(update_fields=[*fields, "updated_at", "revision"])
            record(node, action, reason=reason)
            recall_index_refresh(owner_id=node.owner_id, nodes=[node.pk])
    except IntegrityError as exc:
        node.revision -= 1
        raise NodeEditError(f"a {node.category} called “{node.label}” already exists") from exc
    return node


def alias_add(*, node: Node, alias: str, keep_suppression: bool = False) -> Alias:
    """Give ``node`` another name. Refused when it is another memory's label or an alias
    already, or the one label check refuses it (``keep_suppression``: see
    :func:`node_update`)."""
    text = _clean_label(alias)
    key = canonical_key(text)
    if key == node.canonical_key:
        raise NodeEditError(f"“{text}” is already this memory's label")
    other = (
        Node.objects.for_owner(node.owner_id).filter(canonical_key=key).exclude(pk=node.pk).first()
    )
    if other is not None:
        raise NodeEditError(
            f"“{text}” is the label of another memory ({other.label}); merge them instead"
        )
    _refuse_suppressed(node.owner_id, text, keep_suppression=keep_suppression)
    try:
        with transaction.atomic():
            row = Alias.objects.create(
                owner_id=node.owner_id, node=node, alias=text, canonical_key=key
            )
            record(row, RevisionAction.CREATED)
            recall_index_refresh(owner_id=node.owner_id, nodes=[node.pk])
            return row
    except IntegrityError as exc:
        raise NodeEditError(f"“{text}” is already an alias") from exc


def alias_remove(*, alias: Alias) -> None:
    with transaction.atomic():
        record_deleted = History(owner_id=alias.owner_id)
        record_deleted.deleted(alias)
        record_deleted.flush()
        alias.delete()
        recall_index_refresh(owner_id=alias.owner_id, nodes=[alias.node_id])


def node_delete(
    *,
    node: Node,
    stick: bool = True,
    source: str = "dashboard",
    expected_revision: Expected = None,
) -> list[Suppression]:
    """Delete a node with its slices, events, edges, aliases and evidence quotes.

    With ``stick`` (the default) its label and aliases are suppressed, so extraction cannot
    recreate it, and pending candidates with those labels are closed. Raises the owner's
    deletion barrier, so a write already in flight cannot bring it back. Each row deleted
    records its final revision; with ``expected_revision`` a stale node is refused
    (:class:`StaleRevision`).
    """
    now = timezone.now()
    suppressions: list[Suppression] = []
    with transaction.atomic():
        if expected_revision is not None:
            node = _lock_current(node, expected_revision)
        keys = {node.canonical_key: node.label}
        for alias in node.aliases.all():
            keys.setdefault(alias.canonical_key, alias.alias)
        barrier_raise(node.owner, at=now)
        if stick:
            names = list(keys.values())
            for key, label in keys.items():
                # Each name's suppression knows the others: the thing, by every name it had.
                others = [name for name in names if name != label]
                suppressions.append(
                    Suppression.objects.create(
                        owner_id=node.owner_id,
                        kind=SuppressionKind.NODE,
                        canonical_key=key,
                        core_key=core_key(key),
                        label=label,
                        **sign(label, aliases=others, category=node.category),
                        reason=SuppressionReason.DELETED,
                        source=f"{source}:node:{node.pk}",
                        created_at=now,
                    )
                )
            Candidate.objects.for_owner(node.owner_id).filter(
                canonical_key__in=list(keys), status=CandidateStatus.PENDING
            ).update(status=CandidateStatus.SUPPRESSED, reviewed_at=now)
        # The verbatim quotes go with it, now, not when cleanup next runs: its own, its facts',
        # its events' and its links'.
        Evidence.objects.for_owner(node.owner_id).filter(
            Q(node=node)
            | Q(slice__node=node)
            | Q(event__node=node)
            | Q(edge__from_node=node)
            | Q(edge__to_node=node),
        ).delete()
        node_id = node.pk
        history = History(owner_id=node.owner_id, reason="deleted" + (" for good" if stick else ""))
        delete_tree(node.owner_id, [node_id], history)
        history.flush()
        node.delete()
        recall_index_refresh(owner_id=node.owner_id, nodes=[node_id])
    return suppressions


def suppression_lift(*, suppression: Suppression) -> Suppression:
    if suppression.lifted_at is None:
        suppression.lifted_at = timezone.now()
        suppression.save(update_fields=["lifted_at"])
    return suppression


def suppressions_lift(*, suppressions: QuerySet[Suppression]) -> int:
    """Lift every suppression of ``suppressions`` that is not lifted yet, in one UPDATE (the
    admin's bulk action, across owners); returns how many were lifted. A lifted one keeps the
    time it was first lifted."""
    return suppressions.filter(lifted_at__isnull=True).update(lifted_at=timezone.now())


def suppression_save(*, suppression: Suppression) -> Suppression:
    """Save a suppression edited by hand (the admin): its key is always the label's
    :func:`~memory.keys.canonical_key`, never typed, so the gate matches it as it matches
    every other suppression."""
    suppression.canonical_key = canonical_key(suppression.label)
    suppression.core_key = core_key(suppression.canonical_key)
    signed = sign(suppression.label, aliases=suppression.signature.get("names", [])[1:])
    for name, value in signed.items():
        setattr(suppression, name, value)
    suppression.save()
    return suppression


def suppression_add(
    *, owner: Person, label: str, until: datetime | None = None, source: str = "manual"
) -> Suppression:
    """A person's own "never remember this"."""
    text = " ".join(label.split())
    key = canonical_key(text)
    if not key:
        raise NodeEditError("give a label to suppress")
    if len(key) > 200:  # the column; a folded key can be longer than the label
        raise NodeEditError("a label is at most 200 characters")
    with transaction.atomic():
        suppression = Suppression.objects.create(
            owner=owner,
            kind=SuppressionKind.NODE,
            canonical_key=key,
            core_key=core_key(key),
            label=text[:200],
            **sign(text[:200]),
            reason=SuppressionReason.MANUAL,
            source=source,
            suppressed_until=until,
        )
        # Pending guesses with that label could never be bumped or promoted again: close them.
        Candidate.objects.for_owner(owner).filter(
            canonical_key=key, status=CandidateStatus.PENDING
        ).update(status=CandidateStatus.SUPPRESSED, reviewed_at=timezone.now())
    return suppression
