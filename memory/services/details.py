"""A person's corrections of one detail of a memory: edit or delete a single fact (slice),
event, alias or link (edge), and undo that correction.

Every correction leaves a receipt (source ``review``) whose ``detail`` keeps the row as it was
(``before``) and, for an edit, as it became (``after``). :func:`detail_undo` puts the row back
from that record, but only while nothing else changed it since, so an undo never overwrites a
later correction.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from typing import Any

from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memory.keys import canonical_key
from memory.models import (
    DETAIL_KINDS,
    Alias,
    Edge,
    Event,
    Evidence,
    Node,
    Outcome,
    Receipt,
    Slice,
    Source,
)
from memory.owned import owned_rows
from memory.policy import label_rejection
from memory.services.barrier import barrier_raise
from memory.services.history import History, update_rows
from memory.services.labels import LabelSuppressed, suppressed_label
from memory.services.recall_index import recall_index_refresh
from memory.services.receipts import receipt_write
from memory.vocab import (
    DETAIL_NOUNS,
    SUPERSEDING_SLICE_KINDS,
    EdgeType,
    EventAction,
    RevisionAction,
    SliceKind,
    TimePrecision,
    TimeSource,
)

#: What a person may correct, by the name used in URLs and receipts, and what they call it.
KINDS = DETAIL_KINDS
NOUNS = DETAIL_NOUNS
#: The kinds whose evidence rows point at them (an alias has none of its own).
EVIDENCED = frozenset({"slice", "event", "edge"})
MAX_TEXT = 2000


class DetailError(ValueError):
    """A correction that cannot be made; the message is fit to show the person."""


class SuppressedAlias(DetailError, LabelSuppressed):
    """An alias refused: an active suppression covers the name."""


class DetailConflict(DetailError):
    """The detail changed since the form was rendered (its revision moved on): nothing was
    saved; the message shows the version saved meanwhile and the person's."""


# --- the stored record of a row ------------------------------------------------------------


def _dump(row: models.Model) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in row._meta.concrete_fields:
        value = f.value_from_object(row)
        out[f.attname] = value.astimezone(UTC).isoformat() if isinstance(value, datetime) else value
    return out


def _load(model: type[models.Model], data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in model._meta.concrete_fields:
        if f.attname not in data:
            continue
        value = data[f.attname]
        if isinstance(f, models.DateTimeField) and isinstance(value, str):
            value = parse_datetime(value)
        values[f.attname] = value
    return values


def describe(kind: str, data: dict[str, Any]) -> str:
    """A one-line description of a stored row, for receipts and messages."""
    if kind == "slice":
        return f"“{data.get('text', '')}”"
    if kind == "event":
        action = (
            EventAction(data["action"]).label if data.get("action") in EventAction.values else ""
        )
        return f"{action}: “{data.get('text', '')}”" if action else f"“{data.get('text', '')}”"
    if kind == "alias":
        return f"“{data.get('alias', '')}”"
    if kind == "edge":
        kind_label = EdgeType(data["type"]).label if data.get("type") in EdgeType.values else ""
        return kind_label
    return ""


def _node_of(kind: str, row: models.Model) -> Node:
    return row.from_node if isinstance(row, Edge) else row.node  # type: ignore[attr-defined]


def _receipt(
    row: models.Model,
    *,
    kind: str,
    action: str,
    summary: str,
    started: float,
    node: Node,
    source: str = Source.REVIEW,
    token: Any = None,
    **detail: Any,
) -> Receipt:
    noun = NOUNS[kind]
    return receipt_write(
        owner_id=row.owner_id,  # type: ignore[attr-defined]
        source=source,
        token=token,
        outcome=Outcome.WROTE,
        subject=f"{action} {noun}: {node.label}",
        summary=summary,
        detail={
            "action": f"detail_{action}",
            "kind": kind,
            "id": detail.pop("row_id", row.pk),
            "node": node.pk,
            "node_label": node.label,
            **detail,
        },
        counts={f"{noun}s_{'edited' if action == 'edit' else 'deleted'}": 1},
        started=started,
    )


# --- edits --------------------------------------------------------------------------------


def _clean_text(text: str, what: str) -> str:
    text = " ".join((text or "").split())
    if not text:
        raise DetailError(f"{what} cannot be empty")
    if len(text) > MAX_TEXT:
        raise DetailError(f"{what} is at most {MAX_TEXT} characters")
    return text


def _check_revision(row: models.Model, kind: str, changes: dict[str, Any], expected: int) -> None:
    """Inside the edit's transaction: lock the row and refuse the edit if its revision is no
    longer the one the form was rendered from."""
    model = type(row)
    current = model._default_manager.select_for_update().filter(pk=row.pk).first()
    if current is None:
        raise DetailError(f"that {NOUNS[kind]} was deleted meanwhile; nothing was saved")
    if current.revision != expected:  # type: ignore[attr-defined]
        yours = {**_dump(current), **changes}
        raise DetailConflict(
            f"this {NOUNS[kind]} was changed since you opened it; nothing was saved. "
            f"Saved meanwhile: {describe(kind, _dump(current))}; yours: {describe(kind, yours)}"
        )


def _save_edit(
    row: models.Model,
    kind: str,
    changes: dict[str, Any],
    started: float,
    expected_revision: int | None = None,
) -> Receipt | None:
    """Apply ``changes`` to ``row`` and leave a receipt; None when nothing changed. With
    ``expected_revision``, a row that changed since is refused (:class:`DetailConflict`)."""
    if expected_revision is not None:
        with transaction.atomic():
            _check_revision(row, kind, changes, expected_revision)
            return _save_edit(row, kind, changes, started)
    changed = {k: v for k, v in changes.items() if getattr(row, k) != v}
    if not changed:
        return None
    before = _dump(row)
    for name, value in changed.items():
        setattr(row, name, value)
    row.revision += 1  # type: ignore[attr-defined]
    node = _node_of(kind, row)
    with transaction.atomic():
        try:
            with transaction.atomic():
                row.save(update_fields=[*changed, "revision"])
        except IntegrityError as exc:
            row.revision -= 1  # type: ignore[attr-defined]
            raise DetailError(_clash(kind, row)) from exc
        after = _dump(row)
        _reindex(kind, after)
        history = History(owner_id=row.owner_id)  # type: ignore[attr-defined]
        history.add(row, RevisionAction.UPDATED)
        receipt = _receipt(
            row,
            kind=kind,
            action="edit",
            summary=f"changed a {NOUNS[kind]} of “{node.label}”: "
            f"{describe(kind, before)} → {describe(kind, after)}",
            started=started,
            node=node,
            before=before,
            after=after,
            fields=sorted(changed),
        )
        history.flush(receipt_id=receipt.pk)
        return receipt


def _clash(kind: str, row: models.Model) -> str:
    if kind == "alias":
        return f"“{row.alias}” already names a memory"  # type: ignore[attr-defined]
    if kind == "edge":
        return "that link already exists"
    return "that change clashes with another row"


def slice_update(
    *, slice: Slice, text: str, kind: str, expected_revision: int | None = None
) -> Receipt | None:
    """Correct one fact's wording or kind (in place: a correction is not new history)."""
    started = time.perf_counter()
    if kind not in SliceKind.values:
        raise DetailError(f"unknown kind {kind!r}")
    changes = {"text": _clean_text(text, "a fact"), "kind": kind}
    return _save_edit(slice, "slice", changes, started, expected_revision)


def event_update(
    *,
    event: Event,
    text: str,
    action: str,
    happened_on: date | None = None,
    expected_revision: int | None = None,
) -> Receipt | None:
    """Correct one event: its wording, what happened, and the day it happened (None: unknown)."""
    started = time.perf_counter()
    if action not in EventAction.values:
        raise DetailError(f"unknown action {action!r}")
    changes: dict[str, Any] = {"text": _clean_text(text, "an event"), "action": action}
    current_day = timezone.localtime(event.happened_at).date() if event.happened_at else None
    if happened_on != current_day:
        if happened_on is None:
            changes |= {
                "happened_at": None,
                "happened_at_precision": "",
                "happened_at_source": TimeSource.UNKNOWN,
            }
        else:
            changes |= {
                "happened_at": timezone.make_aware(
                    datetime(happened_on.year, happened_on.month, happened_on.day, 12)
                ),
                "happened_at_precision": TimePrecision.DAY,
                "happened_at_source": TimeSource.USER,
            }
    return _save_edit(event, "event", changes, started, expected_revision)


def alias_update(
    *, alias: Alias, text: str, expected_revision: int | None = None
) -> Receipt | None:
    """Correct an alias's spelling; it must still name no other memory."""
    started = time.perf_counter()
    text = _clean_text(text, "an alias")
    if len(text) > 200:
        raise DetailError("an alias is at most 200 characters")
    if label_rejection(text):
        raise DetailError(f"“{text}” is not a usable name")
    key = canonical_key(text)
    alias_key_free(alias.owner_id, key, text, node_id=alias.node_id, alias_id=alias.pk)
    changes = {"alias": text, "canonical_key": key}
    return _save_edit(alias, "alias", changes, started, expected_revision)


def alias_key_free(
    owner_id: int, key: str, text: str, *, node_id: int, alias_id: int | None
) -> None:
    node = Node.objects.for_owner(owner_id).filter(canonical_key=key).first()
    if node is not None:
        if node.pk == node_id:
            raise DetailError(f"“{text}” is already this memory's label")
        raise DetailError(f"“{text}” is the label of another memory ({node.label})")
    aliases = Alias.objects.for_owner(owner_id).filter(canonical_key=key)
    if alias_id is not None:
        aliases = aliases.exclude(pk=alias_id)
    if aliases.exists():
        raise DetailError(f"“{text}” is already an alias")
    hit = suppressed_label(owner_id, [text])
    if hit is not None:
        raise SuppressedAlias.of(hit)


def edge_update(*, edge: Edge, type: str, expected_revision: int | None = None) -> Receipt | None:
    """Correct what kind of link joins two memories."""
    started = time.perf_counter()
    if type not in EdgeType.values:
        raise DetailError(f"unknown link type {type!r}")
    return _save_edit(edge, "edge", {"type": type}, started, expected_revision)


def _reindex(kind: str, data: dict[str, Any]) -> None:
    """Recall's document of the node a fact, event or alias belongs to follows the change (a
    link is not part of any document)."""
    if kind != "edge" and data.get("node_id"):
        recall_index_refresh(owner_id=data["owner_id"], nodes=[data["node_id"]])


# --- deletes ------------------------------------------------------------------------------


def detail_delete(
    *, row: Slice | Event | Alias | Edge, source: str = Source.REVIEW, token: Any = None
) -> Receipt:
    """Delete one fact, event, alias or link; its evidence rows stay (unlinked) for undo.

    Deleting the current fact of a kind that supersedes (progress, preference) makes the
    fact it had replaced current again: the newer one was the mistake. The receipt is the
    person's (source ``review``) unless ``source`` and ``token`` name the assistant that asked
    (MCP's ``delete_observations`` and ``delete_relations``); either can be undone.
    """
    started = time.perf_counter()
    kind = next(name for name, model in KINDS.items() if isinstance(row, model))
    node = _node_of(kind, row)
    before = _dump(row)
    evidence = (
        list(
            Evidence.objects.for_owner(row.owner_id)
            .filter(**{kind: row})
            .values_list("pk", flat=True)
        )
        if kind in EVIDENCED
        else []
    )
    restored: list[int] = []
    history = History(owner_id=row.owner_id)
    with transaction.atomic():
        # A deletion: a write already in flight must not build on the deleted row.
        barrier_raise(row.owner, at=timezone.now())
        if isinstance(row, Slice) and row.is_current and row.kind in SUPERSEDING_SLICE_KINDS:
            previous = (
                Slice.objects.filter(node_id=row.node_id, kind=row.kind, is_current=False)
                .order_by("-superseded_at", "-created_at", "-id")
                .first()
            )
            if previous is not None:
                update_rows(
                    [previous],
                    history,
                    RevisionAction.RESTORED,
                    reason="the newer fact was deleted",
                    is_current=True,
                    superseded_at=None,
                )
                restored.append(previous.pk)
        history.deleted(row)
        row.delete()
        _reindex(kind, before)
        receipt = _receipt(
            row,
            kind=kind,
            action="delete",
            summary=f"deleted a {NOUNS[kind]} of “{node.label}”: {describe(kind, before)}",
            started=started,
            node=node,
            source=source,
            token=token,
            before=before,
            row_id=before["id"],
            evidence=evidence,
            restored=restored,
        )
        history.flush(receipt_id=receipt.pk)
        return receipt


# --- undo ---------------------------------------------------------------------------------


#: Who corrects single details: a person on the node page, an assistant over MCP.
DETAIL_SOURCES = frozenset({Source.REVIEW, Source.MCP})


def is_detail_receipt(receipt: Receipt) -> bool:
    return receipt.source in DETAIL_SOURCES and str(receipt.detail.get("action", "")).startswith(
        "detail_"
    )


def detail_undo(*, receipt: Receipt) -> Receipt:
    """Put back what one correction changed. Refused when it was undone already, when the
    row changed again since, or when putting it back would clash with what exists now."""
    if not is_detail_receipt(receipt):
        raise DetailError("that receipt is not a correction of a single detail")
    detail = receipt.detail
    kind, model = detail["kind"], KINDS[detail["kind"]]
    with transaction.atomic():
        locked = Receipt.objects.for_owner(receipt.owner_id).select_for_update().get(pk=receipt.pk)
        if locked.undone_at is not None:
            raise DetailError("that change was undone already")
        history = History(
            owner_id=locked.owner_id, reason=f"undo of receipt #{locked.pk}", receipt_id=locked.pk
        )
        if detail["action"] == "detail_edit":
            _undo_edit(locked, kind, model, history)
        else:
            _undo_delete(locked, kind, model, history)
        _reindex(kind, detail["before"])
        history.flush()
        locked.undone_at = timezone.now()
        locked.save(update_fields=["undone_at"])
    return locked


def _undo_edit(receipt: Receipt, kind: str, model: type[models.Model], history: History) -> None:
    detail = receipt.detail
    row = owned_rows(model, receipt.owner_id).filter(pk=detail["id"]).first()
    if row is None:
        raise DetailError(f"that {NOUNS[kind]} no longer exists")
    if _dump(row) != detail["after"]:
        raise DetailError(f"that {NOUNS[kind]} was changed again since; undo that first")
    before = _load(model, detail["before"])
    if kind == "alias" and before["canonical_key"] != detail["after"]["canonical_key"]:
        alias_key_free(
            receipt.owner_id,
            before["canonical_key"],
            before["alias"],
            node_id=before["node_id"],
            alias_id=row.pk,
        )
    attnames = {f.name: f.attname for f in model._meta.concrete_fields}
    for name in detail["fields"]:
        setattr(row, attnames[name], before[attnames[name]])
    row.revision += 1  # type: ignore[attr-defined]
    try:
        with transaction.atomic():
            row.save(update_fields=[*detail["fields"], "revision"])
    except IntegrityError as exc:
        raise DetailError(_clash(kind, row)) from exc
    history.add(row, RevisionAction.RESTORED)


def _undo_delete(receipt: Receipt, kind: str, model: type[models.Model], history: History) -> None:
    detail = receipt.detail
    values = _load(model, detail["before"])
    # Its history goes on: after the revision that recorded its deletion.
    values["revision"] = int(values.get("revision") or 1) + 2
    if values.get("owner_id") != receipt.owner_id:
        raise DetailError("that change belongs to someone else")
    node_ids = [values[k] for k in ("node_id", "from_node_id", "to_node_id") if k in values]
    if Node.objects.for_owner(receipt.owner_id).filter(pk__in=node_ids).count() != len(node_ids):
        raise DetailError(f"the memory this {NOUNS[kind]} belonged to was deleted")
    if kind == "alias":
        alias_key_free(
            receipt.owner_id,
            values["canonical_key"],
            values["alias"],
            node_id=values["node_id"],
            alias_id=None,
        )
    if kind == "slice" and values.get("is_current") and detail.get("restored"):
        update_rows(
            list(Slice.objects.filter(pk__in=detail["restored"], is_current=True)),
            history,
            RevisionAction.SUPERSEDED,
            is_current=False,
            superseded_at=timezone.now(),
        )
    try:
        with transaction.atomic():
            row = model(**values)
            row.save(force_insert=True)
    except IntegrityError as exc:
        raise DetailError(_clash(kind, model(**values))) from exc
    history.add(row, RevisionAction.RESTORED)
    if kind in EVIDENCED and detail.get("evidence"):
        Evidence.objects.for_owner(receipt.owner_id).filter(
            pk__in=detail["evidence"], **{f"{kind}__isnull": True}
        ).update(**{kind: row})
