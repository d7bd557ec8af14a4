"""Rolling a node, slice, event, alias, edge or page back to an earlier revision.

A rollback is a new change: it writes the earlier revision's content as a new revision
(action ``rolled_back``) and never rewrites history. It is refused, with a message fit to show,
when it would break an invariant (a label another memory has now, a suppressed label, a link
that exists already), when the object was deleted (history outlives a deletion, but a rollback
does not undo one), and when a deletion landed while it ran (the deletion barrier). Every
attempt leaves a receipt, the refused ones too. See docs/architecture.md ("History").
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memory.keys import canonical_key
from memory.models import Node, Outcome, Receipt, Revision, Source
from memory.owned import Person, owned_rows
from memory.services.barrier import DeletionConflict, barrier_check
from memory.services.details import DetailError, alias_key_free
from memory.services.history import MODELS, acting, current_actor, record
from memory.services.labels import LabelSuppressed, suppressed_label
from memory.services.nodes import NodeEditError, node_update
from memory.services.recall_index import recall_index_refresh
from memory.services.receipts import elapsed_ms, receipt_write
from memory.vocab import RevisionAction, RevisionKind

#: What a rollback restores of each kind: content, never structure (which node a fact is on,
#: which fact of a kind is current: superseding keeps that straight).
RESTORED: dict[str, tuple[str, ...]] = {
    "node": ("label", "category", "state", "summary"),
    "slice": ("text", "kind"),
    "event": (
        "action",
        "text",
        "importance",
        "happened_at",
        "happened_at_precision",
        "happened_at_source",
    ),
    "alias": ("alias",),
    "edge": ("type", "label"),
    "page": ("title", "topic", "summary", "body"),
}


class RollbackError(ValueError):
    """A rollback that cannot be made; the message is fit to show the person."""


class SuppressedRollback(RollbackError, LabelSuppressed):
    """A rollback refused: an active suppression covers the label it would restore."""


def _noun(kind: str) -> str:
    return str(RevisionKind(kind).label) if kind in RevisionKind.values else kind


def revision_rollback(
    *,
    owner: Person,
    kind: str,
    object_id: int,
    number: int,
    source: str = Source.REVIEW,
    token: Any = None,
) -> Receipt:
    """Make revision ``number`` of the object its current content again, as a new revision.

    Returns the rollback's receipt; raises :class:`RollbackError` (after writing a
    ``rejected_input`` receipt) when it is refused."""
    started = time.perf_counter()
    started_at = timezone.now()
    try:
        with transaction.atomic():
            return _rollback(owner, kind, object_id, number, source, token, started, started_at)
    except RollbackError as exc:
        receipt_write(
            owner=owner,
            source=source,
            token=token,
            outcome=Outcome.REJECTED_INPUT,
            subject=f"rollback {_noun(kind)} #{object_id} to revision {number}",
            summary=f"rollback refused: {exc}",
            error=str(exc),
            detail={"action": "rollback", "kind": kind, "id": object_id, "revision": number},
            started=started,
        )
        raise


def _rollback(
    owner: Person,
    kind: str,
    object_id: int,
    number: int,
    source: str,
    token: Any,
    started: float,
    started_at: Any,
) -> Receipt:
    if kind not in MODELS:
        raise RollbackError(f"unknown kind {kind!r}")
    noun = _noun(kind)
    target = (
        Revision.objects.for_owner(owner)
        .filter(kind=kind, object_id=object_id, number=number)
        .first()
    )
    if target is None:
        raise RollbackError(f"that {noun} has no revision {number}")
    if target.action == RevisionAction.DELETED:
        raise RollbackError(f"revision {number} records the deletion; choose an earlier one")
    try:
        barrier_check(owner, started_at=started_at)
    except DeletionConflict as exc:
        raise RollbackError(str(exc)) from exc
    model = MODELS[kind]
    row: Any = owned_rows(model, owner).select_for_update().filter(pk=object_id).first()
    if row is None:
        raise RollbackError(
            f"that {noun} was deleted; its history is kept, but a rollback does not bring "
            "back what was deleted"
        )
    if number >= row.revision:
        raise RollbackError(f"revision {number} is the current one; nothing to roll back")
    values = _values(kind, target.snapshot)
    if all(getattr(row, name) == value for name, value in values.items()):
        raise RollbackError(f"revision {number} has the same content as now; nothing to change")
    label = row.label if kind == "node" else _owner_label(kind, row)
    reason = f"rolled back to revision {number}"
    receipt = receipt_write(
        owner=owner,
        source=source,
        token=token,
        outcome=Outcome.WROTE,
        subject=f"rollback {noun}: {label}",
        summary=f"rolled a {noun} of “{label}” back to revision {number}",
        detail={
            "action": "rollback",
            "kind": kind,
            "id": object_id,
            "node": target.node_id,
            "revision": number,
            "new_revision": row.revision + 1,
        },
        counts={"rollbacks": 1},
    )
    with acting(replace(current_actor(), receipt_id=receipt.pk)):
        if kind == "node":
            _node(owner, row, values, reason)
        else:
            _detail(kind, row, values, reason)
    # Saved, not updated: the receipt gets its chain hash again (it is the chain's head still).
    receipt.duration_ms = elapsed_ms(started)
    receipt.save(update_fields=["duration_ms"])
    return receipt


def _values(kind: str, snap: dict[str, Any]) -> dict[str, Any]:
    values = {name: snap[name] for name in RESTORED[kind] if name in snap}
    if isinstance(values.get("happened_at"), str):
        values["happened_at"] = parse_datetime(values["happened_at"])
    return values


def _owner_label(kind: str, row: Any) -> str:
    node_id = row.from_node_id if kind == "edge" else row.node_id
    found = Node.objects.filter(pk=node_id).values_list("label", flat=True).first()
    return found or getattr(row, "title", "") or f"#{row.pk}"


def _node(owner: Person, node: Node, values: dict[str, Any], reason: str) -> None:
    key = canonical_key(values["label"])
    if key != node.canonical_key:
        hit = suppressed_label(owner, [values["label"]])
        if hit is not None:
            raise SuppressedRollback.of(hit)
        other = Node.objects.for_owner(owner).filter(canonical_key=key).exclude(pk=node.pk).first()
        if other is not None:
            raise RollbackError(
                f"“{values['label']}” is now the label of another memory ({other.label})"
            )
    try:
        node_update(node=node, **values, action=RevisionAction.ROLLED_BACK, reason=reason)
    except NodeEditError as exc:
        raise RollbackError(str(exc)) from exc


def _detail(kind: str, row: Any, values: dict[str, Any], reason: str) -> None:
    fields = [name for name, value in values.items() if getattr(row, name) != value]
    if kind == "alias":
        key = canonical_key(values["alias"])
        try:
            alias_key_free(row.owner_id, key, values["alias"], node_id=row.node_id, alias_id=row.pk)
        except LabelSuppressed as exc:
            raise SuppressedRollback(
                exc.text, exc.suppression, exact=exc.exact, why=exc.why, rule=exc.rule
            ) from exc
        except DetailError as exc:
            raise RollbackError(str(exc)) from exc
        row.canonical_key = key
        fields.append("canonical_key")
    for name in fields:
        setattr(row, name, values.get(name, getattr(row, name)))
    row.revision += 1
    try:
        with transaction.atomic():
            row.save(update_fields=[*fields, "revision"])
    except IntegrityError as exc:
        raise RollbackError(f"that {_noun(kind)} would clash with one that exists now") from exc
    record(row, RevisionAction.ROLLED_BACK, reason=reason)
    node_id = row.from_node_id if kind == "edge" else row.node_id
    recall_index_refresh(
        owner_id=row.owner_id,
        nodes=[node_id] if node_id and kind != "page" else [],
        **({"pages": [row.pk]} if kind == "page" else {}),
    )
