"""History: one revision for every change of a node, slice, event, alias, edge or page.

Every service that changes one of those rows records a :class:`~memory.models.Revision` in
the same transaction, through this module: the row's new state as a compact snapshot (its own
fields only), the revision number (the row's ``revision`` column, bumped with the change) and
its parent, the action, who or what did it, and the reason. A deletion records a final
revision, so the history outlives the row until retention or delete-all removes it.

Who did it comes from :func:`acting`: the dashboard's middleware sets the signed-in person, the
API's token check and the MCP tool call set the token, an ingest records itself with its
receipt and cleanup with its run. A service called outside any of those records ``system``.

A write collects its revisions in a :class:`History` and writes them with one query, so the
queries of a write stay a constant number per object. See docs/architecture.md ("History").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from memory.models import AccessToken, Alias, Edge, Event, Node, Page, Revision, Slice
from memory.vocab import RevisionAction, RevisionActor

#: The models with a history, by the kind a revision names.
MODELS: dict[str, type[models.Model]] = {
    "node": Node,
    "slice": Slice,
    "event": Event,
    "alias": Alias,
    "edge": Edge,
    "page": Page,
}

#: What a snapshot keeps of each kind: the fields a person reads and a rollback restores,
#: never counts, timestamps of bookkeeping or evidence.
FIELDS: dict[str, tuple[str, ...]] = {
    "node": ("label", "category", "state", "summary"),
    "slice": ("node_id", "text", "kind", "is_current"),
    "event": (
        "node_id",
        "action",
        "text",
        "importance",
        "happened_at",
        "happened_at_precision",
        "happened_at_source",
    ),
    "alias": ("node_id", "alias"),
    "edge": ("from_node_id", "to_node_id", "type", "label"),
    "page": ("node_id", "title", "topic", "summary", "body"),
}


@dataclass(frozen=True)
class Actor:
    """Who or what makes a change (``memory.vocab.RevisionActor``)."""

    kind: str
    name: str = ""
    token_id: int | None = None
    receipt_id: int | None = None

    @classmethod
    def person(cls, user: Any) -> Actor:
        return cls(RevisionActor.PERSON, user.get_username())

    @classmethod
    def token(cls, token: Any) -> Actor:
        return cls(RevisionActor.TOKEN, token.name, token_id=token.pk)

    @classmethod
    def ingest(cls, receipt: Any) -> Actor:
        """A save, with its receipt: by the token that sent it, else by its source."""
        outer = current_actor()
        by = outer.name if outer.kind in (RevisionActor.TOKEN, RevisionActor.PERSON) else ""
        return cls(
            RevisionActor.INGEST,
            by or str(receipt.source),
            token_id=receipt.token_id,
            receipt_id=receipt.pk,
        )


SYSTEM = Actor(RevisionActor.SYSTEM, "ume")
_CURRENT: ContextVar[Actor | None] = ContextVar("ume_history_actor", default=None)
_REQUEST: ContextVar[Any] = ContextVar("ume_history_request", default=None)


@contextmanager
def acting(actor: Actor | None) -> Iterator[None]:
    """Changes made inside the block are recorded as ``actor``'s."""
    reset = _CURRENT.set(actor)
    try:
        yield
    finally:
        _CURRENT.reset(reset)


@contextmanager
def in_request(request: Any) -> Iterator[None]:
    """For the request's duration, changes are the request's: its API token's once the API
    has authenticated it, else its signed-in person's (``memory.middleware``)."""
    reset = _REQUEST.set(request)
    try:
        yield
    finally:
        _REQUEST.reset(reset)


def current_actor() -> Actor:
    actor = _CURRENT.get()
    if actor is not None:
        return actor
    request = _REQUEST.get()
    if request is not None:
        token = getattr(request, "auth", None)
        if isinstance(token, AccessToken):
            return Actor.token(token)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return Actor.person(user)
    return SYSTEM


def kind_of(row: models.Model) -> str:
    for kind, model in MODELS.items():
        if isinstance(row, model):
            return kind
    raise TypeError(f"{type(row).__name__} has no history")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def snapshot(kind: str, row: Any) -> dict[str, Any]:
    return {name: _plain(getattr(row, name)) for name in FIELDS[kind]}


def _node_of(kind: str, row: Any) -> int | None:
    if kind == "node":
        return int(row.pk)
    if kind == "edge":
        return int(row.from_node_id)
    return row.node_id  # type: ignore[no-any-return]


def enabled() -> bool:
    """``UME_HISTORY``: on unless turned off (only for the benchmark's comparison)."""
    return bool(getattr(settings, "UME_HISTORY", True))


class History:
    """The revisions of one write, written together by :meth:`flush` (one query)."""

    def __init__(
        self,
        *,
        owner_id: int,
        actor: Actor | None = None,
        reason: str = "",
        receipt_id: int | None = None,
        now: datetime | None = None,
    ) -> None:
        self.owner_id = owner_id
        self.actor = actor or current_actor()
        self.reason = reason
        self.receipt_id = receipt_id or self.actor.receipt_id
        self.now = now or timezone.now()
        self.rows: list[Revision] = []
        self._seen: set[tuple[str, int, int]] = set()

    def add(self, row: Any, action: str, *, reason: str | None = None) -> None:
        """Record ``row`` as it is now; its ``revision`` is already the new number."""
        kind = kind_of(row)
        self._add(kind, row, int(row.revision), action, reason)

    def deleted(self, row: Any, *, reason: str | None = None) -> None:
        """Record the final revision of ``row``, which is being deleted."""
        kind = kind_of(row)
        self._add(kind, row, int(row.revision) + 1, RevisionAction.DELETED, reason)

    def _add(self, kind: str, row: Any, number: int, action: str, reason: str | None) -> None:
        if (kind, row.pk, number) in self._seen:
            return  # the same row met twice (a link deleted with both of its ends)
        self._seen.add((kind, row.pk, number))
        self.rows.append(
            Revision(
                owner_id=self.owner_id,
                kind=kind,
                object_id=row.pk,
                node_id=_node_of(kind, row),
                number=number,
                parent=number - 1 if number > 1 else None,
                action=action,
                actor=self.actor.kind,
                actor_name=self.actor.name[:150],
                token_id=self.actor.token_id,
                receipt_id=self.receipt_id,
                reason=(self.reason if reason is None else reason)[:255],
                snapshot=snapshot(kind, row),
                created_at=self.now,
            )
        )

    def refresh(self, row: Any) -> bool:
        """Re-take the snapshot of ``row`` if this write already recorded it (a node created
        and then changed by the same write keeps one revision). False if it did not."""
        kind = kind_of(row)
        for pending in self.rows:
            if pending.kind == kind and pending.object_id == row.pk:
                pending.snapshot = snapshot(kind, row)
                return True
        return False

    def flush(self, *, receipt_id: int | None = None) -> list[Revision]:
        """Write what was recorded (nothing with ``UME_HISTORY`` off) and start afresh."""
        rows, self.rows = self.rows, []
        self._seen = set()
        if receipt_id is not None:
            for row in rows:
                row.receipt_id = receipt_id
        if rows and enabled():
            Revision.objects.bulk_create(rows)
        return rows


def record(
    row: Any,
    action: str,
    *,
    reason: str = "",
    actor: Actor | None = None,
    receipt_id: int | None = None,
) -> None:
    """Record one change of one row (its ``revision`` already bumped)."""
    history = History(owner_id=row.owner_id, actor=actor, reason=reason, receipt_id=receipt_id)
    history.add(row, action)
    history.flush()


def update_rows(
    rows: list[Any], history: History, action: str, *, reason: str | None = None, **values: Any
) -> int:
    """Set ``values`` on the loaded ``rows`` with one UPDATE, bump their revision and record
    each. A row this write already recorded (created, then superseded by the same save) keeps
    its one revision, re-taken. Returns how many rows the UPDATE changed."""
    if not rows:
        return 0
    model = type(rows[0])
    kind = kind_of(rows[0])
    pending = {r.object_id for r in history.rows if r.kind == kind}
    fresh = [r for r in rows if r.pk not in pending]
    again = [r for r in rows if r.pk in pending]
    done = 0
    if fresh:
        done += model._default_manager.filter(pk__in=[r.pk for r in fresh]).update(
            **values, revision=F("revision") + 1
        )
    if again:
        done += model._default_manager.filter(pk__in=[r.pk for r in again]).update(**values)
    for row in rows:
        for name, value in values.items():
            setattr(row, name, value)
        if row.pk in pending:
            history.refresh(row)
        else:
            row.revision += 1
            history.add(row, action, reason=reason)
    return int(done)


def delete_tree(owner_id: int, node_ids: Iterable[int], history: History) -> None:
    """Record the final revisions of what deleting ``node_ids`` removes: their aliases, slices,
    events and links (by cascade), then the nodes themselves. Call before deleting; four reads
    and the nodes' own, whatever their number."""
    ids = list(node_ids)
    if not ids or not enabled():
        return
    for model in (Alias, Slice, Event):
        for row in (
            model._default_manager.for_owner(owner_id).filter(node_id__in=ids).order_by("pk")
        ):
            history.deleted(row)
    for edge in (
        Edge.objects.for_owner(owner_id)
        .filter(Q(from_node_id__in=ids) | Q(to_node_id__in=ids))
        .order_by("pk")
    ):
        history.deleted(edge)
    for node in Node.objects.for_owner(owner_id).filter(pk__in=ids).order_by("pk"):
        history.deleted(node)
