"""Importing a ume export: a person's whole memory, from another ume or from this one after
"delete all" (docs/export.md, "Importing").

The file is read one line at a time (:class:`~memory.exports.format.ExportReader`) and
written in one transaction: a file that is cut short, of another version, too large, with a
row that breaks a rule or a reference to a row it does not hold, is refused with a
``rejected_input`` receipt saying which line and why, and nothing else is written. References
are resolved only against the rows of the file (another person's ids mean nothing here), by
an id map of two arrays per kind: 16 bytes a row, the only memory that grows with the file.

The memory must be empty: no memories, guesses, facts, conversations or history (receipts,
suppressions and rules may be there, as "delete all" leaves them). Rows keep everything
they had (their times, counts, states, revisions); new ids are given. Suppressions already
there (the same kind, key, reason and time) are not added twice, so the ones "delete all"
kept still bind once. Memory rules take the file's values.

Receipts are re-chained: appended to the person's chain here in the order of the chain they
came from, with their content unchanged, so ``verify_receipts`` checks them like any other.
Each keeps the hash it had there as ``origin_hash`` (hashed with it), and the import's own
receipt, written last, records the chain they came from: how many, which seqs, its head and
whether it verified from the file. Ids inside an imported receipt's detail are the old ume's:
such a receipt is a record, never undone here.

The same file imported again is one ``duplicate`` receipt (by its SHA-256, as chat exports;
"delete all" forgets it, so the file can be imported again after one). A file uploaded
larger than ``UME_INLINE_UPLOAD_BYTES`` is left to the pending workers
(:func:`memory_imports_run_pending`), which import it the same way.
"""

from __future__ import annotations

import logging
import time
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import IO, Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, models, transaction
from django.utils import timezone

from memory import receipt_chain
from memory.exports.format import (
    FORMAT,
    SNAPSHOT_NODE_KEYS,
    VERSION,
    ExportFormatError,
    ExportReader,
    OldChain,
    Section,
)
from memory.imports.formats import UME, ImportFormatError
from memory.keys import fold_key
from memory.models import (
    Alias,
    Candidate,
    ChatImport,
    Edge,
    Episode,
    Event,
    Evidence,
    MemoryRule,
    Node,
    Outcome,
    Page,
    Receipt,
    Revision,
    Slice,
    Source,
    Suppression,
    Transcript,
)
from memory.owned import Person
from memory.services.barrier import DeletionConflict, barrier_check
from memory.services.bulk import claim_first, insert_rows
from memory.services.imports import (
    ImportResult,
    _duplicate,
    _file_receipt,
    _sha256,
    chat_import_defer,
)
from memory.services.recall_index import recall_index_rebuild
from memory.services.receipts import receipt_write
from memory.services.stored_exports import stored_export
from memory.vocab import ImportState

log = logging.getLogger(__name__)

BATCH = 500  # rows per insert
BATCH_BYTES = 8 * 1024 * 1024  # or fewer, when their lines are long (conversations' text)
MAX_ATTEMPTS = 3  # a file whose import kills its worker this often is marked failed
#: The longest line read: a transcript (``UME_MAX_TRANSCRIPT_BYTES``) with its escapes.
LINE_OVERHEAD = 1024 * 1024

#: What must be empty to import: a memory is never merged into another.
MUST_BE_EMPTY: tuple[tuple[str, type[models.Model]], ...] = (
    ("memories", Node),
    ("aliases", Alias),
    ("facts", Slice),
    ("events", Event),
    ("links", Edge),
    ("notes", Page),
    ("guesses waiting or decided", Candidate),
    ("conversations", Transcript),
    ("messages", Episode),
    ("evidence", Evidence),
    ("history", Revision),
)
#: Sections written with their new ids kept (later sections point at them), by model.
KEPT: dict[str, type[models.Model]] = {
    "suppression": Suppression,
    "receipt": Receipt,
    "transcript": Transcript,
    "node": Node,
    "alias": Alias,
    "slice": Slice,
    "event": Event,
    "edge": Edge,
    "page": Page,
    "candidate": Candidate,
}
#: Sections nobody points at: plain multi-row inserts.
PLAIN: dict[str, type[models.Model]] = {
    "suppression": Suppression,
    "episode": Episode,
    "evidence": Evidence,
    "revision": Revision,
}


class ImportRefused(ValueError):
    """This memory cannot take the import (it is not empty); the message says why."""


def max_line_bytes() -> int:
    return 4 * int(settings.UME_MAX_TRANSCRIPT_BYTES) + LINE_OVERHEAD


class IdMap:
    """The new id of each row of one section, by its id in the file: two arrays, sorted by
    the file's id once the section is read (:meth:`seal`), searched by bisection."""

    def __init__(self) -> None:
        self.old = array("q")
        self.new = array("q")
        self.ordered = True

    def add(self, old: int, new: int) -> None:
        if self.old and old <= self.old[-1]:
            self.ordered = False
        self.old.append(old)
        self.new.append(new)

    def seal(self, plural: str) -> None:
        """Sort by the file's ids (they come in id order but for receipts, which come in
        chain order) and refuse an id given twice."""
        if self.ordered:
            return
        order = sorted(range(len(self.old)), key=self.old.__getitem__)
        self.old = array("q", (self.old[i] for i in order))
        self.new = array("q", (self.new[i] for i in order))
        self.ordered = True
        for i in range(1, len(self.old)):
            if self.old[i] == self.old[i - 1]:
                raise ExportFormatError(f"two {plural} have the id {self.old[i]}")

    def get(self, old: int) -> int | None:
        i = bisect_left(self.old, old)
        return self.new[i] if i < len(self.old) and self.old[i] == old else None


@dataclass
class _Importer:
    """One file being written into ``owner``'s memory, inside the caller's transaction."""

    owner: Person
    reader: ExportReader
    on_rows: Callable[[int, str], None] | None = None
    maps: dict[str, IdMap] = field(default_factory=lambda: {k: IdMap() for k in KEPT})
    counts: dict[str, int] = field(default_factory=dict)
    chain: OldChain = field(default_factory=OldChain)
    gone: dict[tuple[str, int], int] = field(default_factory=dict)
    gone_per_kind: Counter[str] = field(default_factory=Counter)
    # The suppressions already here (delete-all keeps them), by what tells one apart, with
    # their ids: a held guess of the file that names one points at it.
    kept_suppressions: dict[tuple[str, str, str, datetime], int] = field(default_factory=dict)
    skipped_suppressions: int = 0
    seqs: list[int] = field(default_factory=list)  # first and last seq of imported receipts
    section: Section | None = None
    batch: list[tuple[int, Any]] = field(default_factory=list)
    batch_bytes: int = 0

    def run(self) -> None:
        self.kept_suppressions = {
            (s.kind, s.canonical_key, s.reason, s.created_at): s.pk
            for s in Suppression.objects.for_owner(self.owner).only(
                "kind", "canonical_key", "reason", "created_at"
            )
        }
        for section, row in self.reader.rows():
            if section is not self.section:
                self._close_section()
                self.section = section
            where = f"line {self.reader.line} ({section.type} {row['id']})"
            self._add(section, row, where)
            self.batch_bytes += self.reader.line_bytes
            if len(self.batch) >= BATCH or self.batch_bytes >= BATCH_BYTES:
                self._flush()
        self._close_section()

    def _close_section(self) -> None:
        self._flush()
        if self.section is not None and self.section.type in self.maps:
            self.maps[self.section.type].seal(self.section.plural)

    def _add(self, section: Section, row: dict[str, Any], where: str) -> None:
        kind = section.type
        self.counts[section.plural] = self.counts.get(section.plural, 0) + 1
        if kind == "rules":
            _rules_write(self.owner, row)
            return
        values = self._values(section, row, where)
        if kind == "receipt":
            self.chain.add(row)
            values.update(_receipt_chain_values(row))
        elif kind == "candidate":
            values["reviewed_by_id"] = self.owner.pk if row["reviewed_by_owner"] else None
            # Derived from the key, folded as this version folds: a file from before a fold
            # rule changed (a slip of the fingers, a British spelling) carries the old one.
            values["fold_key"] = fold_key(row["canonical_key"])
        elif kind == "revision":
            values.update(self._revision_values(row))
        elif kind == "suppression":
            key = (row["kind"], row["canonical_key"], row["reason"], row["created_at"])
            if key in self.kept_suppressions:
                self.skipped_suppressions += 1
                self.maps["suppression"].add(row["id"], self.kept_suppressions[key])
                return
        self.batch.append((row["id"], values))

    def _values(self, section: Section, row: dict[str, Any], where: str) -> dict[str, Any]:
        """The model's values of ``row``: plain fields as they are, references mapped."""
        values: dict[str, Any] = {"owner_id": self.owner.pk}
        for f in section.fields:
            if f.kind in ("group", "number") or f.name == "reviewed_by_owner":
                continue
            value = row[f.name]
            if f.kind == "ref" and value is not None:
                found = self.maps[f.target].get(value)
                if found is None:
                    raise ExportFormatError(
                        f"{where}: {f.name} {value} is not a {f.target} of this file"
                    )
                value = found
            values[f.source] = value
        return values

    def _revision_values(self, row: dict[str, Any]) -> dict[str, Any]:
        """A revision's object and node: their rows here when the file holds them, else a
        deleted object's (a negative id: never one a live row has, and never reused)."""
        snapshot = dict(row["snapshot"])
        for key in SNAPSHOT_NODE_KEYS:
            if isinstance(snapshot.get(key), int) and not isinstance(snapshot[key], bool):
                snapshot[key] = self._object("node", snapshot[key])
        node = row["node"]
        return {
            "object_id": self._object(row["kind"], row["object"]),
            "node_id": None if node is None else self._object("node", node),
            "snapshot": snapshot,
        }

    def _object(self, kind: str, old: int) -> int:
        found = self.maps[kind].get(old)
        if found is not None:
            return found
        key = (kind, old)
        if key not in self.gone:
            self.gone_per_kind[kind] += 1
            self.gone[key] = -self.gone_per_kind[kind]
        return self.gone[key]

    def _flush(self) -> None:
        section, batch = self.section, self.batch
        if section is None or not batch:
            return
        self.batch, self.batch_bytes = [], 0
        if section.type in KEPT:
            made = KEPT[section.type]._default_manager.bulk_create(
                [KEPT[section.type](**values) for _old, values in batch]
            )
            id_map = self.maps[section.type]
            for (old, _values), obj in zip(batch, made, strict=True):
                id_map.add(old, obj.pk)
            if section.type == "receipt":
                self._seqs(made)
        else:
            names = list(batch[0][1])
            insert_rows(PLAIN[section.type], names, ([v[n] for n in names] for _o, v in batch))
        if self.on_rows is not None:
            self.on_rows(len(batch), section.type)

    def _seqs(self, made: list[Any]) -> None:
        seqs = [r.seq for r in made if r.seq is not None]
        if seqs:
            self.seqs = [self.seqs[0] if self.seqs else min(seqs), max(seqs)]

    def deleted_objects(self) -> int:
        return len(self.gone)


def _receipt_chain_values(row: dict[str, Any]) -> dict[str, Any]:
    """An imported receipt's token (none: tokens stay behind) and the hash it had in the
    chain it came from (its content's digest there, for one made before chains)."""
    chain = row["chain"]
    origin = chain["content_hash"]
    if not origin:
        values = {name: row.get(name) for name in receipt_chain.HASHED}
        values.update(owner_id=chain["owner_id"], token_id=chain["token_id"])
        values[receipt_chain.ORIGIN] = chain["origin_hash"]
        origin = receipt_chain.digest(values)
    return {"token_id": None, "origin_hash": origin}


def _rules_write(owner: Person, row: dict[str, Any]) -> None:
    values = {k: v for k, v in row.items() if k != "id"}
    MemoryRule.objects.for_owner(owner).update_or_create(owner=owner, defaults=values)


def _require_empty(owner: Person) -> None:
    for what, model in MUST_BE_EMPTY:
        if model._default_manager.for_owner(owner).exists():  # type: ignore[attr-defined]
            raise ImportRefused(
                f"this memory already holds {what}: an export is imported into an empty "
                "memory only (delete all first, or import it for another person)"
            )


# --- the import, in one transaction -----------------------------------------------------


class _LostClaim(Exception):
    """Another worker took this import over (this one stalled past its lease)."""


class _Duplicate(Exception):
    def __init__(self, earlier: ChatImport) -> None:
        super().__init__("duplicate")
        self.earlier = earlier


@dataclass
class _Run:
    """What one import needs besides the file: who, through which door, its bookkeeping
    row (a worker's) or the file's hash to make one (``ingest``, a small upload)."""

    owner: Person
    name: str
    source: str
    started: float
    started_at: datetime
    sha: str = ""
    size: int = 0
    row: ChatImport | None = None
    on_rows: Callable[[int, str], None] | None = None


def _claim(run: _Run) -> ChatImport:
    """The import's row: the worker's (still its claim), else a new one; the same file
    imported before is a :class:`_Duplicate`."""
    if run.row is not None:
        claimed = ChatImport.objects.filter(
            pk=run.row.pk, state=ImportState.READING, claimed_at=run.row.claimed_at
        ).update(position=0)  # locks it (PostgreSQL) until this import commits
        if not claimed:
            raise _LostClaim(run.row.pk)
        return run.row
    earlier = ChatImport.objects.for_owner(run.owner).filter(sha256=run.sha).first()
    if earlier is not None:
        raise _Duplicate(earlier)
    try:
        with transaction.atomic():
            return ChatImport.objects.create(
                owner=run.owner,
                name=run.name[:255],
                format=UME,
                sha256=run.sha,
                size_bytes=run.size,
                source=run.source,
                state=ImportState.READING,
            )
    except IntegrityError:  # the same file, imported a moment ago by another request
        raise _Duplicate(ChatImport.objects.for_owner(run.owner).get(sha256=run.sha)) from None


def _write(run: _Run, stream: IO[bytes]) -> Receipt:
    """Everything, in the caller's transaction; the import's receipt (written last)."""
    row = _claim(run)
    barrier_check(run.owner, started_at=run.started_at)
    _require_empty(run.owner)
    reader = ExportReader(
        stream, max_bytes=int(settings.UME_MAX_IMPORT_BYTES), max_line_bytes=max_line_bytes()
    )
    importer = _Importer(run.owner, reader, on_rows=run.on_rows)
    importer.run()
    recall_index_rebuild(owner_id=run.owner.pk)
    transcripts = importer.counts.get("transcripts", 0)
    ChatImport.objects.filter(pk=row.pk).update(
        state=ImportState.READ,
        claimed_at=None,
        conversations=transcripts,
        stored=transcripts,
        position=reader.line,
        error="",
    )
    row.chunks.all().delete()
    return receipt_write(
        owner=run.owner,
        source=run.source,
        outcome=Outcome.WROTE,
        subject=run.name,
        counts=importer.counts,
        detail=_detail(run, row, reader, importer),
        summary=_summary(reader.header, importer),
        started=run.started,
    )


def _detail(run: _Run, row: ChatImport, reader: ExportReader, imp: _Importer) -> dict[str, Any]:
    seqs: list[int | None] = [*imp.seqs] or [None, None]
    return {
        "action": "memory_import",
        "format": FORMAT,
        "version": VERSION,
        "chat_import": row.pk,
        "sha256": row.sha256,
        "exported_at": reader.header.get("exported_at"),
        "exported_by": str(reader.header.get("owner", ""))[:150],
        "suppressions_already_here": imp.skipped_suppressions,
        "deleted_objects_in_history": imp.deleted_objects(),
        "receipts": {
            "imported": imp.counts.get("receipts", 0),
            "first_seq": seqs[0],
            "last_seq": seqs[-1],
            "old_chain": imp.chain.as_json(),
        },
    }


def _summary(head: dict[str, Any], imp: _Importer) -> str:
    c = imp.counts
    shown = ", ".join(
        f"{c.get(key, 0):,} {word}"
        for key, word in (
            ("nodes", "memories"),
            ("slices", "facts"),
            ("events", "events"),
            ("edges", "links"),
            ("candidates", "guesses"),
            ("suppressions", "suppressions"),
            ("receipts", "receipts"),
            ("transcripts", "conversations"),
        )
    )
    chain = imp.chain
    said = (
        "the receipts chain it came with verifies"
        if not chain.problem
        else f"the receipts chain it came with does not verify ({chain.problem} at "
        f"#{chain.problem_seq})"
    )
    when = str(head.get("exported_at", ""))[:10]
    return f"imported a ume export of {when}: {shown}; {said}"


def _import(run: _Run, stream: IO[bytes]) -> ImportResult | None:
    """Write the file in one transaction; whatever refuses it, a receipt saying why. None
    when a worker lost its claim to another (which imports it)."""
    try:
        with transaction.atomic():
            receipt = _write(run, stream)
    except _LostClaim:
        log.warning("import %s: claim lost to another worker; stopped", run.name)
        return None
    except _Duplicate as dup:
        return _duplicate(run.owner, run.source, run.name, run.started, dup.earlier)
    except (ExportFormatError, ImportRefused, ImportFormatError) as exc:
        return _failed(run, Outcome.REJECTED_INPUT, f"{exc}; nothing was imported")
    except DeletionConflict as exc:
        return _failed(run, Outcome.DELETION_CONFLICT, str(exc))
    except IntegrityError as exc:
        # Only a file changed by hand gets here (two memories with one key, say).
        message = f"the file breaks a rule of the database ({exc}); nothing was imported"
        return _failed(run, Outcome.REJECTED_INPUT, message)
    except DatabaseError as exc:
        log.exception("import of %s failed", run.name)
        message = f"the database failed ({type(exc).__name__}); nothing was imported, try again"
        return _failed(run, Outcome.DB_WRITE_FAILED, message)
    message = receipt.summary
    return ImportResult(run.name, run.row, True, message, receipt=receipt)


def _failed(run: _Run, outcome: str, error: str) -> ImportResult:
    message = f"{run.name}: {error}"
    if run.row is not None:  # a worker's: failed for good, visibly (uploading it retries)
        with transaction.atomic():
            ChatImport.objects.filter(pk=run.row.pk, claimed_at=run.row.claimed_at).update(
                state=ImportState.FAILED, error=error[:2000], claimed_at=None
            )
            run.row.chunks.all().delete()
    receipt = _file_receipt(
        run.owner,
        run.source,
        run.name,
        outcome,
        run.started,
        error=message,
        summary=message[:500],
        detail={"action": "memory_import", "retryable": outcome == Outcome.DB_WRITE_FAILED},
    )
    return ImportResult(run.name, run.row, False, message, receipt=receipt)


def memory_import(
    *,
    owner: Person,
    stream: IO[bytes],
    name: str,
    source: str,
    on_rows: Callable[[int, str], None] | None = None,
) -> ImportResult:
    """Import the export in ``stream`` into ``owner``'s memory now (``ingest``, or an upload
    small enough for its request). ``on_rows(n, type)`` is told as rows are written."""
    run = _Run(owner, name, source, time.perf_counter(), timezone.now(), on_rows=on_rows)
    try:
        run.sha, run.size = _sha256(stream, int(settings.UME_MAX_IMPORT_BYTES))
    except ImportFormatError as exc:
        return _failed(run, Outcome.REJECTED_INPUT, f"{exc}; nothing was imported")
    stream.seek(0)
    result = _import(run, stream)
    assert result is not None  # only a worker's claim can be lost
    return result


def memory_import_upload(*, owner: Person, stream: IO[bytes], name: str, size: int) -> ImportResult:
    """An export uploaded on the Upload page: the same file again is a ``duplicate``; one
    into a memory that is not empty is refused at once; otherwise imported now within
    ``UME_INLINE_UPLOAD_BYTES``, else stored for the pending workers
    (:func:`memory_imports_run_pending`), whose import page shows when it is done."""
    run = _Run(owner, name, Source.UPLOAD, time.perf_counter(), timezone.now())
    try:
        sha, _size = _sha256(stream, int(settings.UME_MAX_IMPORT_BYTES))
    except ImportFormatError as exc:
        return _failed(run, Outcome.REJECTED_INPUT, f"{exc}; nothing was imported")
    earlier = ChatImport.objects.for_owner(owner).filter(sha256=sha).first()
    if earlier is not None and earlier.state != ImportState.FAILED:
        return _duplicate(owner, Source.UPLOAD, name, run.started, earlier)
    try:
        _require_empty(owner)
    except ImportRefused as exc:
        return _failed(run, Outcome.REJECTED_INPUT, f"{exc}; nothing was imported")
    if size <= settings.UME_INLINE_UPLOAD_BYTES:
        return memory_import(owner=owner, stream=stream, name=name, source=Source.UPLOAD)
    result = chat_import_defer(owner=owner, stream=stream, name=name, fmt=UME, source=Source.UPLOAD)
    if result.receipt is None:
        result.message = (
            f"{name}: stored ({size:,} bytes); the whole memory in it is imported by "
            "`manage.py ingest --pending`"
        )
    return result


# --- the pending workers' side -----------------------------------------------------------


def memory_imports_run_pending(*, limit: int = 10) -> list[ImportResult]:
    """Import the exports uploaded for the workers, at most ``limit``; a claim another worker
    died on is taken over once its lease is over (its transaction was rolled back)."""
    results: list[ImportResult] = []
    stale = timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)
    while len(results) < limit:
        now = timezone.now()
        ume = ChatImport.objects.filter(format=UME)
        row = claim_first(
            (
                ume.filter(state=ImportState.WAITING).order_by("created_at", "id"),
                ume.filter(state=ImportState.READING, claimed_at__lt=now - stale).order_by(
                    "claimed_at", "id"
                ),
            ),
            state=ImportState.READING,
            now=now,
        )
        if row is None:
            break
        run = _Run(row.owner, row.name, row.source, time.perf_counter(), now, row=row)
        if row.attempts > MAX_ATTEMPTS:
            error = f"gave up after {MAX_ATTEMPTS} attempts: the import kept stopping its worker"
            results.append(_failed(run, Outcome.DB_WRITE_FAILED, error))
            continue
        result = _import(run, stored_export(row))
        if result is not None:
            results.append(result)
    return results
