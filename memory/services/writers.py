"""Writers of the details of a memory: slices, events, aliases, edges and node states.

Two write paths create these rows from proposals, and both call the functions here, so they
cannot drift apart: applying an ingest's plan (:func:`memory.services.apply.plan_apply`, many
rows at once) and a person's promotion or merge of a candidate
(:mod:`memory.services.review`, the details held on it, one at a time). The write path as a
whole (gate, plan, apply, receipts, history, the deletion barrier) is described in
``docs/architecture.md``.

Every writer:

- runs inside the caller's transaction; the caller holds the locks it needs (a pending
  candidate, the deletion barrier) and owns the receipt;
- marks what it creates with that receipt (``created_receipt``), so a receipt can always list
  and undo what it wrote;
- writes with one statement per kind whatever the number of rows (a bulk INSERT or UPDATE),
  never one query per row;
- records one revision per changed row in the caller's :class:`History`, which the caller
  flushes once with the receipt.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.db import connection
from django.db.models import Case, CharField, F, IntegerField, Q, Value, When

from memory.models import Alias, Edge, Event, Node, Receipt, Slice
from memory.owned import Person
from memory.services.history import History, update_rows
from memory.vocab import RevisionAction


@dataclass(frozen=True)
class NewSlice:
    """A fact to write on a node; ``supersede``: it replaces the current facts of its kind."""

    node_id: int
    text: str
    kind: str
    supersede: bool = False


@dataclass
class SlicesWritten:
    rows: list[Slice]
    #: Stored slices this write made not current (for an undo to restore).
    retired: list[int]
    #: Slices of this same write already superseded by a later one of it (written retired).
    retired_new: int


class EventFields(Protocol):
    """What an event is written from: a planned event or a held :class:`EventProposal`."""

    @property
    def action(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def importance(self) -> str: ...
    @property
    def happened_at(self) -> datetime | None: ...
    @property
    def happened_at_precision(self) -> str: ...
    @property
    def happened_at_source(self) -> str: ...


def slices_write(
    *,
    owner: Person,
    slices: Sequence[NewSlice],
    receipt: Receipt,
    now: datetime,
    history: History,
) -> SlicesWritten:
    """Write ``slices`` in order. A superseding slice retires the current slices of its node
    and kind, including those written before it by this same call: the stored ones locked in
    one query and retired in one UPDATE (each with its revision), and the earlier ones of this
    call written retired (their one revision says so)."""
    superseding = {(s.node_id, s.kind) for s in slices if s.supersede}
    retired = _slices_retire(owner, superseding, now=now, history=history)
    rows: list[Slice] = []
    retired_later: set[tuple[int, str]] = set()  # pairs a later slice of this call supersedes
    for new in reversed(slices):
        later = (new.node_id, new.kind) in retired_later
        if new.supersede:
            retired_later.add((new.node_id, new.kind))
        rows.append(
            Slice(
                owner=owner,
                node_id=new.node_id,
                text=new.text,
                kind=new.kind,
                is_current=not later,
                superseded_at=now if later else None,
                created_receipt=receipt,
                created_at=now,
            )
        )
    created = Slice.objects.bulk_create(rows[::-1]) if rows else []
    for row in created:
        history.add(row, RevisionAction.CREATED)
    return SlicesWritten(
        rows=created,
        retired=[row.pk for row in retired],
        retired_new=sum(1 for row in created if not row.is_current),
    )


def _slices_retire(
    owner: Person, pairs: set[tuple[int, str]], *, now: datetime, history: History
) -> list[Slice]:
    if not pairs:
        return []
    # Scoped through the owner's nodes, not by an owner condition beside them: without
    # table statistics, SQLite reads that from the owner's index, every slice of the
    # person, instead of the (node, kind, is_current) index.
    retire = Q()
    for node_id, kind in sorted(pairs):
        retire |= Q(node_id=node_id, kind=kind)
    nodes = sorted({node_id for node_id, _kind in pairs})
    owned = Node.objects.for_owner(owner).filter(id__in=nodes).values("id")
    # Locked in id order where rows are locked (PostgreSQL), so that two saves never
    # wait on each other's rows. SQLite locks the whole database instead, and there an
    # ORDER BY id makes its planner (without table statistics) walk the owner's index,
    # every slice of the person, to find these few: no order there.
    locked = (
        Slice.objects.select_for_update()
        .filter(node_id__in=owned, is_current=True)
        .filter(retire)
        .order_by()
    )
    if connection.features.has_select_for_update:
        locked = locked.order_by("pk")
    current = sorted(locked, key=lambda row: row.pk)
    update_rows(current, history, RevisionAction.SUPERSEDED, is_current=False, superseded_at=now)
    return current


def events_write(
    *,
    owner: Person,
    events: Sequence[tuple[int, EventFields]],
    receipt: Receipt,
    now: datetime,
    history: History,
) -> list[Event]:
    """Write each ``(node id, event)``; one INSERT."""
    if not events:
        return []
    rows = Event.objects.bulk_create(
        [
            Event(
                owner=owner,
                node_id=node_id,
                action=event.action,
                text=event.text,
                importance=event.importance,
                happened_at=event.happened_at,
                happened_at_precision=event.happened_at_precision,
                happened_at_source=event.happened_at_source,
                created_receipt=receipt,
                created_at=now,
            )
            for node_id, event in events
        ]
    )
    for row in rows:
        history.add(row, RevisionAction.CREATED)
    return rows


def aliases_write(
    *, owner: Person, aliases: Sequence[tuple[int, str, str]], history: History
) -> list[Alias]:
    """Write each ``(node id, alias, canonical key)``; one INSERT. The caller has checked
    that each key is free (the unique constraint refuses a twin)."""
    if not aliases:
        return []
    rows = Alias.objects.bulk_create(
        [
            Alias(owner=owner, node_id=node_id, alias=alias, canonical_key=key)
            for node_id, alias, key in aliases
        ]
    )
    for row in rows:
        history.add(row, RevisionAction.CREATED)
    return rows


def edges_write(
    *,
    owner: Person,
    edges: Sequence[tuple[int, int, str, str]],
    receipt: Receipt,
    now: datetime,
    history: History,
) -> list[Edge]:
    """Write each ``(from node id, to node id, type, label)``; one INSERT."""
    if not edges:
        return []
    rows = Edge.objects.bulk_create(
        [
            Edge(
                owner=owner,
                from_node_id=source,
                to_node_id=dest,
                type=type_,
                label=label,
                created_receipt=receipt,
                created_at=now,
            )
            for source, dest, type_, label in edges
        ]
    )
    for row in rows:
        history.add(row, RevisionAction.CREATED)
    return rows


def node_states_write(
    *, owner: Person, states: dict[int, str], now: datetime, bump: Collection[int] = ()
) -> None:
    """Set each node's state (and ``updated_at``) with one UPDATE; the nodes in ``bump`` also
    move to their next revision, which the caller records. A node whose revision this write
    records anyway (created or merged by it) is not bumped: it keeps that one revision."""
    if not states:
        return
    values: dict[str, Any] = {
        "state": Case(
            *[When(pk=pk, then=Value(state)) for pk, state in states.items()],
            output_field=CharField(),
        ),
        "updated_at": now,
    }
    if bump:
        values["revision"] = Case(
            When(pk__in=list(bump), then=F("revision") + 1),
            default=F("revision"),
            output_field=IntegerField(),
        )
    Node.objects.for_owner(owner).filter(pk__in=list(states)).update(**values)
