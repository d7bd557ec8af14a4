"""Importing a chat export: each conversation stored as its own pending transcript.

The file is read from a stream, one conversation at a time (a 100 MB export is never in
memory whole). Each conversation becomes a :class:`~memory.models.Transcript` named by its
title, with its own times, processed like any upload: at once for a small export or a command,
else by ``ingest --pending`` workers.

An upload larger than ``UME_INLINE_UPLOAD_BYTES`` is not read in its request:
:func:`chat_import_defer` only streams its bytes into the database (in
:class:`~memory.models.ChatImportChunk` pieces, so a worker on any host can read them) and
records the import as ``waiting``. A pending worker claims it (:func:`chat_imports_read_pending`)
and reads it there, renewing its claim with every conversation and counting as it goes, so a
worker killed midway leaves a claim that another one takes over and resumes where it stopped.

A conversation that cannot be read gets its own ``rejected_input`` receipt and the others go
on; malformed JSON (nested too deeply included) stops the reading there, keeps what came before
and says so in the file's receipt. Whatever stops a reading, the file gets its receipt and the
import is marked failed: uploading the same file again retries it (from where it stopped). The
same file imported again once read is one ``duplicate`` receipt, and a conversation an earlier
export already brought is counted, not stored twice; one that was continued since is stored
with only its new messages (by message id), so every message is one episode.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import IO, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.imports.formats import (
    CHATGPT,
    CLAUDE,
    CLAUDE_MEMORIES,
    FORMAT_LABELS,
    GEMINI,
    UME,
    Conversation,
    ImportFormatError,
    detect_format,
    iter_export,
)
from memory.models import ChatImport, Outcome, Receipt, Transcript
from memory.owned import Person
from memory.selectors import SaidSoFar
from memory.services.bulk import claim_first
from memory.services.ingest import Run, process_group, store
from memory.services.receipts import receipt_write
from memory.services.stored_exports import store_chunks, stored_export
from memory.transcripts import MAX_MESSAGES
from memory.vocab import ImportState

log = logging.getLogger(__name__)
worker_log = logging.getLogger("ume.worker")

_HASH_CHUNK = 64 * 1024
# formats whose conversations and messages carry lasting ids (Gemini's are made of times)
_KEYED = (CHATGPT, CLAUDE, GEMINI)
MAX_ATTEMPTS = 5  # a reading that kills its worker this often is marked failed


class LostClaim(RuntimeError):
    """Another worker took over this reading (this one stalled past its lease): stop."""


@dataclass
class ImportResult:
    """What one export file became."""

    name: str
    chat_import: ChatImport | None
    ok: bool
    message: str
    receipt: Receipt | None = None  # the file's own receipt: duplicate or rejected
    broken: list[Receipt] = field(default_factory=list)  # one per unreadable conversation
    # New transcripts to process, by id: holding the rows would hold every conversation's text.
    transcript_ids: list[int] = field(default_factory=list)
    processed: list[Receipt] = field(default_factory=list)


def _file_receipt(
    owner: Person, source: str, name: str, outcome: str, started: float, **fields: Any
) -> Receipt:
    return receipt_write(
        owner=owner,
        source=source,
        outcome=outcome,
        subject=name,
        started=started,
        **fields,
    )


def _sha256(stream: IO[bytes], max_bytes: int) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    stream.seek(0)
    while chunk := stream.read(_HASH_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise ImportFormatError(f"{size:,}+ bytes is over the limit of {max_bytes:,} bytes")
        digest.update(chunk)
    stream.seek(0)
    return digest.hexdigest(), size


def export_format(stream: IO[bytes], name: str) -> str | None:
    """The export's format (:func:`~memory.imports.formats.detect_format`) when ``stream``
    is one, else None."""
    return detect_format(
        stream, name=name, max_element_bytes=int(settings.UME_MAX_TRANSCRIPT_BYTES)
    )


def describe(row: ChatImport) -> str:
    """One line for a person: what the export held and what became of it."""
    parts = [
        f"{FORMAT_LABELS.get(row.format, row.format)}: {row.conversations} conversation"
        + ("" if row.conversations == 1 else "s"),
        f"{row.stored} new",
    ]
    if row.duplicates:
        parts.append(f"{row.duplicates} already imported")
    if row.empty:
        parts.append(f"{row.empty} with nothing to read")
    if row.broken:
        parts.append(f"{row.broken} could not be read")
    skipped = sum(row.skipped.values())
    if skipped:
        detail = ", ".join(f"{k} {n}" for k, n in sorted(row.skipped.items()))
        parts.append(f"{skipped} messages skipped ({detail})")
    if row.attachments:
        parts.append(f"{row.attachments} attachments not read")
    return "; ".join(parts)


def chat_import_store(
    *,
    owner: Person,
    stream: IO[bytes],
    name: str,
    fmt: str,
    source: str,
    on_conversation: Callable[[int], None] | None = None,
    extractor: str | None = None,
) -> ImportResult:
    """Read the export now and store each conversation as a pending transcript. Process
    nothing. (A command, or an upload small enough to be read in its request.)

    ``on_conversation(position)`` is called after each conversation (a progress bar).
    Claude's memories are no conversations: they are proposed for review at once
    (:mod:`memory.services.claude_memories`), with ``extractor``.
    """
    if fmt == CLAUDE_MEMORIES:
        return _memories(owner, stream, name, source, extractor)
    if fmt == UME:
        return _whole_memory(owner, stream, name, source)
    started = time.perf_counter()
    try:
        sha, size = _sha256(stream, int(settings.UME_MAX_IMPORT_BYTES))
    except ImportFormatError as exc:
        return _refused(owner, source, name, started, exc)
    row = import_open(owner, name, fmt, source, started, (sha, size), ImportState.READING)
    if isinstance(row, ImportResult):
        return row
    # Claimed like a worker's reading: if this process dies midway, a worker finds the claim
    # stale and marks the import failed (its bytes were never stored), so it can be retried.
    return _read(
        row, stream, started=started, claimed_at=row.claimed_at, on_conversation=on_conversation
    )


def chat_import_defer(
    *, owner: Person, stream: IO[bytes], name: str, fmt: str, source: str
) -> ImportResult:
    """Keep the export's bytes for the pending workers and record the import as waiting:
    nothing is split here, so the request's work depends on the file's size only (one insert
    per :data:`~memory.services.stored_exports.CHUNK_BYTES`), never on its conversations. Claude's
    memories are small (held to the transcript limit) and always read at once."""
    if fmt == CLAUDE_MEMORIES:
        return _memories(owner, stream, name, source, None)
    started = time.perf_counter()
    try:
        sha, size = _sha256(stream, int(settings.UME_MAX_IMPORT_BYTES))
    except ImportFormatError as exc:
        return _refused(owner, source, name, started, exc)
    with transaction.atomic():
        row = import_open(owner, name, fmt, source, started, (sha, size), ImportState.WAITING)
        if isinstance(row, ImportResult):
            return row
        store_chunks(row, stream)
    worker_log.info(
        "export waiting",
        extra={"route": "import", "user_id": owner.pk, "chat_import_id": row.pk, "format": fmt},
    )
    message = (
        f"{name}: stored ({size:,} bytes); the export is read and its conversations processed "
        "by `manage.py ingest --pending`"
    )
    return ImportResult(name, row, True, message)


def _memories(
    owner: Person, stream: IO[bytes], name: str, source: str, extractor: str | None
) -> ImportResult:
    # Imported here: that module builds on this one.
    from memory.services.claude_memories import claude_memories_import

    return claude_memories_import(
        owner=owner, stream=stream, name=name, source=source, extractor=extractor
    )


def _whole_memory(owner: Person, stream: IO[bytes], name: str, source: str) -> ImportResult:
    # Imported here: that module builds on this one.
    from memory.exports.services import memory_import

    return memory_import(owner=owner, stream=stream, name=name, source=source)


def _refused(
    owner: Person, source: str, name: str, started: float, exc: ImportFormatError
) -> ImportResult:
    message = f"{name}: {exc}"
    receipt = _file_receipt(
        owner, source, name, Outcome.REJECTED_INPUT, started, error=message, summary=message
    )
    return ImportResult(name, None, False, message, receipt=receipt)


def import_open(
    owner: Person,
    name: str,
    fmt: str,
    source: str,
    started: float,
    file: tuple[str, int],
    state: str,
) -> ChatImport | ImportResult:
    """The import's row, claimed in ``state``, for a file of digest and size ``file``; or,
    for a file imported before, the result with its one ``duplicate`` receipt."""
    sha, size = file
    row, earlier = _claim_export(
        owner=owner, name=name, fmt=fmt, sha=sha, size=size, source=source, state=state
    )
    if earlier is not None:
        return _duplicate(owner, source, name, started, earlier)
    assert row is not None
    return row


def _duplicate(
    owner: Person, source: str, name: str, started: float, earlier: ChatImport
) -> ImportResult:
    message = f"{name}: already imported ({earlier.created_at:%Y-%m-%d %H:%M}); nothing new"
    receipt = _file_receipt(
        owner,
        source,
        name,
        Outcome.DUPLICATE,
        started,
        summary=message,
        detail={"chat_import": earlier.pk, "reason": "identical export already imported"},
    )
    return ImportResult(name, earlier, True, message, receipt=receipt)


def _read(
    row: ChatImport,
    stream: IO[bytes],
    *,
    started: float,
    claimed_at: datetime | None = None,
    on_conversation: Callable[[int], None] | None = None,
) -> ImportResult:
    """Read ``row``'s export from ``stream``, from ``row.position`` on (the conversations
    before it were stored by an earlier reading). Whatever stops it, the file gets a receipt
    and the import is marked failed; :class:`LostClaim` is the one exception let through."""
    owner, source, name, fmt = row.owner, row.source, row.name, row.format
    result = ImportResult(name, row, True, "")
    reading = _Reading(
        owner=owner, source=source, name=name, started=started, row=row, claimed_at=claimed_at
    )
    failure: tuple[str, str] | None = None
    try:
        stream.seek(0)
        for position, item in iter_export(
            stream, fmt=fmt, name=name, max_element_bytes=reading.max_bytes
        ):
            if position < row.position:
                continue  # stored by the reading this one took over from
            reading.conversation(position, item, result)
            if on_conversation is not None:
                on_conversation(position)
    except LostClaim:
        raise
    except ImportFormatError as exc:
        failure = (
            Outcome.REJECTED_INPUT,
            f"{exc}; reading stopped there, the conversations before it were kept",
        )
    except Exception as exc:  # a bug or a failing database: visible, and retried on re-upload
        log.exception("reading export %s failed", row.pk)
        failure = (
            Outcome.DB_WRITE_FAILED,
            f"reading stopped ({type(exc).__name__}: {exc}); the conversations before it were "
            "kept; upload the same file again to retry",
        )
    if failure is not None:
        outcome, row.error = failure
        message = f"{name}: {row.error}"
        result.receipt = _file_receipt(
            owner,
            source,
            name,
            outcome,
            started,
            error=message,
            summary=message[:500],
            detail={"chat_import": row.pk, "stored": row.stored, "conversation": row.position + 1},
        )
        result.ok = row.stored > 0
    reading.finish(fmt, failed=failure is not None)
    result.message = describe(row) + (f"; {row.error}" if row.error else "")
    if row.conversations == 0 and failure is None:
        result.ok = False
        result.message = f"{name}: the export holds no conversations"
    return result


def _claim_export(
    *, owner: Person, name: str, fmt: str, sha: str, size: int, source: str, state: str
) -> tuple[ChatImport | None, ChatImport | None]:
    """The import's row (new, or a failed import of the same file reopened to be read again),
    or the earlier import of the same file (the unique constraint settles two requests
    importing it at once)."""
    earlier = ChatImport.objects.for_owner(owner).filter(sha256=sha).first()
    if earlier is not None:
        reopened = ChatImport.objects.filter(pk=earlier.pk, state=ImportState.FAILED).update(
            state=state, error="", claimed_at=_claim_time(state), attempts=0
        )
        if not reopened:
            return None, earlier
        earlier.refresh_from_db()
        earlier.chunks.all().delete()
        return earlier, None
    try:
        with transaction.atomic():
            row = ChatImport.objects.create(
                owner=owner,
                name=name[:255],
                format=fmt,
                sha256=sha,
                size_bytes=size,
                source=source,
                state=state,
                claimed_at=_claim_time(state),
            )
    except IntegrityError:  # the same file, imported a moment ago by another request
        return None, ChatImport.objects.for_owner(owner).get(sha256=sha)
    return row, None


@dataclass
class _Reading:
    """One export being read: each conversation stored as a pending transcript, or counted
    as empty, a duplicate or broken (with a receipt of its own). Each conversation is stored
    in one transaction with the import's counts and position, so a reading that stops
    anywhere resumes exactly after the last conversation it stored."""

    owner: Person
    source: str
    name: str
    started: float
    row: ChatImport
    claimed_at: datetime | None = None  # a worker's claim, renewed with each conversation
    skipped: Counter[str] = field(default_factory=Counter)
    max_bytes: int = field(default_factory=lambda: int(settings.UME_MAX_TRANSCRIPT_BYTES))

    def __post_init__(self) -> None:
        self.skipped.update(self.row.skipped or {})

    def conversation(
        self, position: int, item: Conversation | ImportFormatError, result: ImportResult
    ) -> None:
        row = self.row
        with transaction.atomic():
            new_ids, broken = self._store(position, item)
            row.position = position + 1
            row.skipped = dict(self.skipped)
            self._save_progress()
        result.transcript_ids.extend(new_ids)
        result.broken.extend(broken)

    def _store(
        self, position: int, item: Conversation | ImportFormatError
    ) -> tuple[list[int], list[Receipt]]:
        row = self.row
        row.conversations += 1
        text, key, source_time = "", "", None
        if not isinstance(item, ImportFormatError):
            self.skipped.update(item.skipped)
            row.attachments += item.attachments
            key = _conversation_key(row.format, item)
            new = _new_messages(self.owner, key, item.messages) if key else item.messages
            if key and not new and item.messages:
                row.duplicates += 1  # every message of it is stored already
                return [], []
            continued = len(new) < len(item.messages)
            source_time = item.created_at
            if continued:
                item.messages = new
                source_time = _first_time(new) or item.updated_at or item.created_at
            text = item.transcript_json()
            if len(item.messages) > MAX_MESSAGES:
                item = ImportFormatError(
                    f"{item.title}: too many messages ({len(item.messages)} > {MAX_MESSAGES})"
                )
            elif len(text.encode("utf-8")) > self.max_bytes:
                item = ImportFormatError(f"{item.title}: over {self.max_bytes:,} bytes")
        if isinstance(item, ImportFormatError):
            row.broken += 1
            error = f"{self.name}: conversation {position + 1}: {item}"
            receipt = _file_receipt(
                self.owner,
                self.source,
                f"{self.name} #{position + 1}",
                Outcome.REJECTED_INPUT,
                self.started,
                error=error,
                summary=error[:500],
                detail={"chat_import": row.pk, "conversation": position + 1},
            )
            return [], [receipt]
        if not item.messages:
            row.empty += 1
            return [], []
        # Not ``inline``: the pending workers may process it, unless this import does first.
        run = Run.begin(self.owner, self.source, started=self.started)
        stored = store(run, text, name=item.title, source_time=source_time, inline=False)
        transcript = stored.transcript
        if not stored.created:
            row.duplicates += 1
            return [], []
        Transcript.objects.filter(pk=transcript.pk).update(chat_import=row, conversation_key=key)
        row.stored += 1
        return [transcript.pk], []

    def _save_progress(self) -> None:
        row = self.row
        fields = {
            name: getattr(row, name)
            for name in (
                "conversations",
                "stored",
                "duplicates",
                "empty",
                "broken",
                "skipped",
                "attachments",
                "position",
            )
        }
        rows = ChatImport.objects.filter(pk=row.pk)
        if self.claimed_at is not None:
            now = timezone.now()
            rows = rows.filter(claimed_at=self.claimed_at)
            fields["claimed_at"] = now
            if not rows.update(**fields):
                raise LostClaim(f"import {row.pk}: another worker took over this reading")
            self.claimed_at = row.claimed_at = now
            return
        if not rows.update(**fields):
            # Deleted meanwhile (delete all): what this conversation stored goes with it.
            raise ImportFormatError("the import was deleted while it was being read")

    def finish(self, fmt: str, *, failed: bool) -> None:
        row = self.row
        row.skipped = dict(self.skipped)
        row.state = ImportState.FAILED if failed else ImportState.READ
        rows = ChatImport.objects.filter(pk=row.pk)
        if self.claimed_at is not None:
            rows = rows.filter(claimed_at=self.claimed_at)
        with transaction.atomic():
            rows.update(
                state=row.state,
                error=row.error,
                skipped=row.skipped,
                position=row.position,
                claimed_at=None,
            )
            row.chunks.all().delete()  # read: its bytes are not needed any more
        worker_log.info(
            "export stored",
            extra={
                "route": "import",
                "user_id": self.owner.pk,
                "chat_import_id": row.pk,
                "format": fmt,
                "conversations": row.conversations,
                "stored": row.stored,
                "broken": row.broken,
            },
        )


def _claim_time(state: str) -> datetime | None:
    return timezone.now() if state == ImportState.READING else None


def _conversation_key(fmt: str, item: Conversation) -> str:
    """``format:id`` of a conversation whose export gives it a lasting id, else ""."""
    if fmt not in _KEYED or not item.external_id or item.external_id.startswith("#"):
        return ""
    return f"{fmt}:{item.external_id}"[:120]


def _new_messages(owner: Person, key: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of a conversation no transcript of the owner holds yet (by message id):
    a continued conversation gives only what was said since."""
    seen: set[str] = set()
    # The index on the key is partial (keys that are not ""): SQLite uses it only when the
    # query states its condition, else it reads every transcript of the owner, text and all,
    # once per conversation (an import's cost growing with the square of its size).
    for text in (
        Transcript.objects.for_owner(owner)
        .filter(conversation_key=key)
        .exclude(conversation_key="")
        .values_list("text", flat=True)
        .iterator()
    ):
        try:
            stored = json.loads(text).get("messages") or []
        except (ValueError, AttributeError, RecursionError):
            continue
        seen.update(str(m.get("id")) for m in stored if isinstance(m, dict))
    return [m for m in messages if str(m.get("id")) not in seen] if seen else messages


def _first_time(messages: list[dict[str, Any]]) -> datetime | None:
    for message in messages:
        if message.get("ts"):
            try:
                return datetime.fromisoformat(message["ts"])
            except ValueError:
                return None
    return None


# --- the pending workers' side ---------------------------------------------------------------


def _lease() -> timedelta:
    return timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)


def _claim_next(now: datetime) -> ChatImport | None:
    """A waiting import, else one whose reader stopped renewing its claim (killed), claimed
    for this worker: locked with SKIP LOCKED, then a conditional UPDATE (any backend)."""
    stale = now - _lease()
    # An import whose reading killed its worker too often is failed, visibly, with a receipt.
    for row in (
        ChatImport.objects.exclude(format=UME)
        .filter(state=ImportState.READING, claimed_at__lt=stale, attempts__gte=MAX_ATTEMPTS)
        .select_related("owner")
    ):
        if ChatImport.objects.filter(pk=row.pk, claimed_at=row.claimed_at).update(
            state=ImportState.FAILED,
            claimed_at=None,
            error=f"gave up after {MAX_ATTEMPTS} attempts: the worker stopped before finishing",
        ):
            _file_receipt(
                row.owner,
                row.source,
                row.name,
                Outcome.DB_WRITE_FAILED,
                time.perf_counter(),
                error=f"{row.name}: gave up after {MAX_ATTEMPTS} attempts to read it",
                summary=f"{row.name}: gave up after {MAX_ATTEMPTS} attempts to read it",
                detail={"chat_import": row.pk, "stored": row.stored},
            )
            row.chunks.all().delete()
    # ume's own exports are imported whole by memory.exports.services, never read here.
    chats = ChatImport.objects.exclude(format=UME)
    claimed: ChatImport | None = claim_first(
        (
            chats.filter(state=ImportState.WAITING).order_by("created_at", "id"),
            chats.filter(
                state=ImportState.READING, claimed_at__lt=stale, attempts__lt=MAX_ATTEMPTS
            ).order_by("claimed_at", "id"),
        ),
        state=ImportState.READING,
        now=now,
    )
    return claimed


def _abandoned(row: ChatImport) -> ImportResult:
    error = "the reading stopped before finishing; upload the same file again to resume it"
    ChatImport.objects.filter(pk=row.pk, claimed_at=row.claimed_at).update(
        state=ImportState.FAILED, error=error, claimed_at=None
    )
    message = f"{row.name}: {error}"
    receipt = _file_receipt(
        row.owner,
        row.source,
        row.name,
        Outcome.DB_WRITE_FAILED,
        time.perf_counter(),
        error=message,
        summary=message,
        detail={"chat_import": row.pk, "stored": row.stored},
    )
    return ImportResult(row.name, row, False, message, receipt=receipt)


def chat_imports_read_pending(
    *, limit: int = 10, on_read: Callable[[ImportResult], None] | None = None
) -> list[ImportResult]:
    """Read the exports waiting for the workers (and resume readings a dead worker left), at
    most ``limit``. Their conversations then wait as transcripts, for the same workers."""
    results: list[ImportResult] = []
    while len(results) < limit:
        row = _claim_next(timezone.now())
        if row is None:
            break
        assert row.claimed_at is not None
        if not row.chunks.exists():
            # Read in a request that ended before finishing: its bytes were never kept.
            results.append(_abandoned(row))
            continue
        try:
            result = _read(
                row,
                stored_export(row),
                started=time.perf_counter(),
                claimed_at=row.claimed_at,
            )
        except LostClaim:
            log.warning("import %s: claim lost to another worker; stopped", row.pk)
            continue
        results.append(result)
        if on_read is not None:
            on_read(result)
    return results


# An import's transcripts are processed in groups, one transaction each
# (:func:`~memory.services.ingest.process_group`): at most this many conversations, and of
# about this many bytes of transcript (a group's texts are held at once; its write lock, on
# SQLite, holds other writers for as long as it runs).
GROUP_CONVERSATIONS = 25
GROUP_BYTES = 1_000_000


def chat_import_process(
    result: ImportResult,
    *,
    extractor: str | None = None,
    on_done: Callable[[Receipt], None] | None = None,
) -> list[Receipt]:
    """Process the new transcripts of an import now (a command, or a small upload), in order
    and in groups of :data:`GROUP_CONVERSATIONS` (:func:`~memory.services.ingest.
    process_group`: each conversation gated, applied and receipted on its own, one commit
    per group). ``on_done`` is called with each receipt once its group has committed."""
    ids = result.transcript_ids
    said: SaidSoFar | None = None  # what the person said before, read once for the import
    for start in range(0, len(ids), GROUP_CONVERSATIONS):
        for group in _groups(ids[start : start + GROUP_CONVERSATIONS]):
            said = said or SaidSoFar(group[0].owner)
            for receipt in process_group(group, extractor=extractor, said=said):
                result.processed.append(receipt)
                if on_done is not None:
                    on_done(receipt)
    return result.processed


def _groups(ids: list[int]) -> Iterator[list[Transcript]]:
    """The transcripts of ``ids``, in order, in groups of at most :data:`GROUP_BYTES` of text
    (one transcript at least): their sizes read first, then each group's rows in one query."""
    sizes = dict(Transcript.objects.filter(pk__in=ids).values_list("pk", "size_bytes"))
    group: list[int] = []
    held = 0
    for pk in ids:
        if pk not in sizes:
            raise Transcript.DoesNotExist(f"transcript {pk} of the import is gone")
        if group and held + sizes[pk] > GROUP_BYTES:
            yield _rows(group)
            group, held = [], 0
        group.append(pk)
        held += sizes[pk]
    if group:
        yield _rows(group)


def _rows(ids: list[int]) -> list[Transcript]:
    rows = Transcript.objects.select_related("owner").in_bulk(ids)
    if len(rows) < len(ids):
        raise Transcript.DoesNotExist("a transcript of the import is gone")
    return [rows[pk] for pk in ids]
