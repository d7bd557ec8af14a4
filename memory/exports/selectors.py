"""The reads of an export: everything a person owns, streamed (docs/export.md).

Every read is scoped to its owner and ordered by id (receipts by their place in the chain),
and walked with ``.iterator()`` in chunks: a server-side cursor on PostgreSQL, ``fetchmany``
on SQLite, so memory holds one chunk of rows whatever their number. A transcript holds up to
``UME_MAX_TRANSCRIPT_BYTES`` of text, so those come a few at a time.

:func:`snapshot` makes the whole export one consistent read (``REPEATABLE READ`` on
PostgreSQL; a read transaction on SQLite, which in WAL mode blocks no writer): a save that
lands while a large export is written cannot leave a fact in the file whose node is not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, models, transaction
from django.db.models import BooleanField, Case, F, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from memory.exports.format import SECTIONS, Section, columns, dumps, encode, end, header
from memory.models import (
    Alias,
    Candidate,
    Edge,
    Episode,
    Event,
    Evidence,
    MemoryRule,
    Node,
    Page,
    Receipt,
    Revision,
    Slice,
    Suppression,
    Transcript,
)
from memory.owned import Person

#: The model each section is read from.
MODELS: dict[str, type[models.Model]] = {
    "rules": MemoryRule,
    "suppression": Suppression,
    "receipt": Receipt,
    "transcript": Transcript,
    "episode": Episode,
    "node": Node,
    "alias": Alias,
    "slice": Slice,
    "event": Event,
    "edge": Edge,
    "page": Page,
    "candidate": Candidate,
    "evidence": Evidence,
    "revision": Revision,
}
CHUNK = 500  # rows per fetch
#: Fewer rows per fetch where one row may be large (a transcript: up to 5 MB of text).
CHUNKS = {"transcript": 8, "receipt": 250}
#: Rows per fetch of each detail stream of the pages: eight streams are open at once.
PAGE_CHUNK = 200
PROGRESS_EVERY = 1000


def _rows(owner: Person, section: Section) -> models.QuerySet[Any]:
    rows = MODELS[section.type]._default_manager.for_owner(owner)  # type: ignore[attr-defined]
    if section.type == "candidate":
        rows = rows.annotate(
            reviewed_by_owner=Case(
                When(reviewed_by_id=F("owner_id"), then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
    if section.type == "receipt":
        return rows.order_by(F("seq").asc(nulls_first=True), "id").values_list(*columns(section))
    return rows.order_by("id").values_list(*columns(section))


def export_counts(owner: Person) -> dict[str, int]:
    """How many rows of each section ``owner`` has (one ``COUNT`` each)."""
    return {
        s.type: MODELS[s.type]._default_manager.for_owner(owner).count()  # type: ignore[attr-defined]
        for s in SECTIONS
    }


@contextmanager
def snapshot() -> Iterator[None]:
    """One consistent read for what runs inside: a read-only ``REPEATABLE READ`` transaction
    on PostgreSQL, a read transaction on SQLite. Inside a transaction already, that one."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def export_lines(
    owner: Person,
    *,
    on_rows: Callable[[int, str], None] | None = None,
    exported_at: datetime | None = None,
) -> Iterator[bytes]:
    """The export of ``owner``, line by line (each ends with a newline), in one consistent
    read. ``on_rows(n, type)`` is told every :data:`PROGRESS_EVERY` rows (a progress bar).

    The read starts at the first ``next()``: a response streams it from its own thread."""
    with snapshot():
        counts = export_counts(owner)
        yield dumps(
            header(
                owner=owner.get_username(),
                counts=counts,
                exported_at=exported_at or timezone.now(),
            )
        )
        written = dict.fromkeys(counts, 0)
        for section in SECTIONS:
            chunk = CHUNKS.get(section.type, CHUNK)
            for values in _rows(owner, section).iterator(chunk_size=chunk):
                yield dumps(encode(section, values))
                written[section.type] += 1
                if on_rows is not None and written[section.type] % PROGRESS_EVERY == 0:
                    on_rows(PROGRESS_EVERY, section.type)
            if on_rows is not None and written[section.type] % PROGRESS_EVERY:
                on_rows(written[section.type] % PROGRESS_EVERY, section.type)
        yield dumps(end(written))


# --- the Markdown pages: one per memory, its details merged in by node -------------------


@dataclass
class _ByNode:
    """Rows ordered by the node they belong to (``about``), read along with the nodes:
    :meth:`of` yields those of one node, so every node's details are walked once, in step
    with the nodes, one chunk in memory per stream."""

    rows: Iterator[dict[str, Any]]
    head: dict[str, Any] | None = None
    done: bool = False

    def of(self, node_id: int) -> Iterator[dict[str, Any]]:
        while True:
            if self.head is None and not self.done:
                self.head = next(self.rows, None)
                self.done = self.head is None
            if self.head is None or self.head["about"] > node_id:
                return
            row, self.head = self.head, None
            if row["about"] == node_id:
                yield row


def _stream(
    rows: models.QuerySet[Any], about: Any, order: tuple[Any, ...], *fields: str, **named: Any
) -> _ByNode:
    """``rows`` with the node each is about, ordered by it and then ``order``: ``fields``
    and ``named`` expressions as dicts."""
    values = rows.annotate(about=F(about) if isinstance(about, str) else about)
    ordered = values.filter(about__isnull=False).order_by("about", *order)
    return _ByNode(ordered.values("about", *fields, **named).iterator(chunk_size=PAGE_CHUNK))


@dataclass
class NodeDetails:
    """One node's readable details, each a stream of dicts (see :mod:`memory.exports.markdown`)."""

    node: dict[str, Any]
    aliases: Iterator[dict[str, Any]]
    facts: Iterator[dict[str, Any]]
    events: Iterator[dict[str, Any]]
    links_out: Iterator[dict[str, Any]]
    links_in: Iterator[dict[str, Any]]
    notes: Iterator[dict[str, Any]]
    evidence: Iterator[dict[str, Any]]


NODE_FIELDS = (
    "id",
    "label",
    "category",
    "state",
    "summary",
    "origin",
    "mention_count",
    "session_count",
    "last_seen_at",
    "created_at",
    "updated_at",
)


def node_details(owner: Person) -> Iterator[NodeDetails]:
    """Every node of ``owner`` in id order, each with its details (consume them before the
    next node: they are read in step with it). Call inside :func:`snapshot`."""
    by_id = ("id",)
    streams = {
        "aliases": _stream(Alias.objects.for_owner(owner), "node_id", by_id, "alias"),
        "facts": _stream(
            Slice.objects.for_owner(owner),
            "node_id",
            ("-is_current", "created_at", "id"),
            "text",
            "kind",
            "is_current",
            "created_at",
            "superseded_at",
        ),
        "events": _stream(
            Event.objects.for_owner(owner),
            "node_id",
            (F("happened_at").asc(nulls_last=True), "created_at", "id"),
            "action",
            "text",
            "importance",
            "happened_at",
            "happened_at_precision",
            "happened_at_source",
            "created_at",
        ),
        "links_out": _stream(
            Edge.objects.for_owner(owner),
            "from_node_id",
            by_id,
            "type",
            "label",
            other_id=F("to_node_id"),
            other_label=F("to_node__label"),
        ),
        "links_in": _stream(
            Edge.objects.for_owner(owner),
            "to_node_id",
            by_id,
            "type",
            "label",
            other_id=F("from_node_id"),
            other_label=F("from_node__label"),
        ),
        "notes": _stream(
            Page.objects.for_owner(owner),
            "node_id",
            by_id,
            "id",
            "title",
            "topic",
            "summary",
            "body",
        ),
        "evidence": _stream(
            Evidence.objects.for_owner(owner),
            Coalesce("node_id", "slice__node_id", "event__node_id", "edge__from_node_id"),
            by_id,
            "quote",
            "source",
            "message_ts",
            "created_at",
            said_in=F("transcript__name"),
        ),
    }
    nodes = Node.objects.for_owner(owner).order_by("id").values(*NODE_FIELDS)
    for node in nodes.iterator(chunk_size=PAGE_CHUNK):
        yield NodeDetails(node=node, **{name: s.of(node["id"]) for name, s in streams.items()})


def loose_notes(owner: Person) -> Iterator[dict[str, Any]]:
    """The pages (notes) of ``owner`` that belong to no node, in id order."""
    rows = Page.objects.for_owner(owner).filter(node__isnull=True).order_by("id")
    notes = rows.values("id", "title", "topic", "summary", "body")
    return (dict(note) for note in notes.iterator(chunk_size=CHUNK))
