"""Importing a chat export: each conversation stored as its own pending transcript.

The file is read from a stream, one conversation at a time (a 100 MB export is never in
memory whole). Each conversation becomes a :class:`~memory.models.Transcript` named by its
title, with its own times, processed like any upload: at once for a small export or a command,
else by ``ingest --pending`` workers. A conversation that cannot be read gets its own
``rejected_input`` receipt and the others go on; malformed JSON stops the reading there, keeps
what came before and says so. The same file imported again is one ``duplicate`` receipt, and a
conversation an earlier export already brought is counted, not stored twice.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.db import IntegrityError, transaction

from memory.imports.formats import (
    FORMAT_LABELS,
    Conversation,
    ImportFormatError,
    detect_format,
    iter_export,
)
from memory.models import ChatImport, Outcome, Receipt, Transcript
from memory.owned import Person
from memory.services.ingest import ingest_transcript, transcript_store
from memory.transcripts import MAX_MESSAGES

log = logging.getLogger(__name__)
worker_log = logging.getLogger("ume.worker")

_HASH_CHUNK = 64 * 1024


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
    return Receipt.objects.create(
        owner=owner,
        source=source,
        outcome=outcome,
        subject=name[:255],
        duration_ms=max(0, int((time.perf_counter() - started) * 1000)),
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
    """``chatgpt``, ``claude`` or ``jsonl`` when ``stream`` is a chat export, else None."""
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
) -> ImportResult:
    """Read the export and store each conversation as a pending transcript. Process nothing.

    ``on_conversation(position)`` is called after each conversation (a progress bar).
    """
    started = time.perf_counter()
    try:
        sha, size = _sha256(stream, int(settings.UME_MAX_IMPORT_BYTES))
    except ImportFormatError as exc:
        message = f"{name}: {exc}"
        receipt = _file_receipt(
            owner, source, name, Outcome.REJECTED_INPUT, started, error=message, summary=message
        )
        return ImportResult(name, None, False, message, receipt=receipt)
    row, earlier = _claim_export(owner=owner, name=name, fmt=fmt, sha=sha, size=size, source=source)
    if earlier is not None:
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
    assert row is not None
    result = ImportResult(name, row, True, "")
    reading = _Reading(owner=owner, source=source, name=name, started=started, row=row)
    try:
        for position, item in iter_export(
            stream, fmt=fmt, name=name, max_element_bytes=reading.max_bytes
        ):
            reading.conversation(position, item, result)
            if on_conversation is not None:
                on_conversation(position)
    except ImportFormatError as exc:
        row.error = f"{exc}; reading stopped there, the conversations before it were kept"
        message = f"{name}: {row.error}"
        result.receipt = _file_receipt(
            owner,
            source,
            name,
            Outcome.REJECTED_INPUT,
            started,
            error=message,
            summary=message[:500],
            detail={"chat_import": row.pk, "stored": row.stored},
        )
        result.ok = row.stored > 0
    reading.finish(fmt)
    result.message = describe(row) + (f"; {row.error}" if row.error else "")
    if row.conversations == 0 and not row.error:
        result.ok = False
        result.message = f"{name}: the export holds no conversations"
    return result


def _claim_export(
    *, owner: Person, name: str, fmt: str, sha: str, size: int, source: str
) -> tuple[ChatImport | None, ChatImport | None]:
    """The new import's row, or the earlier import of the same file (the unique constraint
    settles two requests importing it at once)."""
    earlier = ChatImport.objects.for_owner(owner).filter(sha256=sha).first()
    if earlier is not None:
        return None, earlier
    try:
        with transaction.atomic():
            row = ChatImport.objects.create(
                owner=owner,
                name=name[:255],
                format=fmt,
                sha256=sha,
                size_bytes=size,
                source=source,
            )
    except IntegrityError:  # the same file, imported a moment ago by another request
        return None, ChatImport.objects.for_owner(owner).get(sha256=sha)
    return row, None


@dataclass
class _Reading:
    """One export being read: each conversation stored as a pending transcript, or counted
    as empty, a duplicate or broken (with a receipt of its own)."""

    owner: Person
    source: str
    name: str
    started: float
    row: ChatImport
    skipped: Counter[str] = field(default_factory=Counter)
    max_bytes: int = field(default_factory=lambda: int(settings.UME_MAX_TRANSCRIPT_BYTES))

    def conversation(
        self, position: int, item: Conversation | ImportFormatError, result: ImportResult
    ) -> None:
        row = self.row
        row.conversations += 1
        text = ""
        if not isinstance(item, ImportFormatError):
            self.skipped.update(item.skipped)
            row.attachments += item.attachments
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
            result.broken.append(
                _file_receipt(
                    self.owner,
                    self.source,
                    f"{self.name} #{position + 1}",
                    Outcome.REJECTED_INPUT,
                    self.started,
                    error=error,
                    summary=error[:500],
                    detail={"chat_import": row.pk, "conversation": position + 1},
                )
            )
        elif not item.messages:
            row.empty += 1
        else:
            transcript, created = transcript_store(
                owner=self.owner,
                text=text,
                name=item.title,
                source=self.source,
                source_time=item.created_at,
            )
            if created:
                Transcript.objects.filter(pk=transcript.pk).update(chat_import=row)
                row.stored += 1
                result.transcript_ids.append(transcript.pk)
            else:
                row.duplicates += 1

    def finish(self, fmt: str) -> None:
        row = self.row
        row.skipped = dict(self.skipped)
        row.save(
            update_fields=[
                "conversations",
                "stored",
                "duplicates",
                "empty",
                "broken",
                "skipped",
                "attachments",
                "error",
            ]
        )
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


def chat_import_process(
    result: ImportResult,
    *,
    extractor: str | None = None,
    on_done: Callable[[Receipt], None] | None = None,
) -> list[Receipt]:
    """Process the new transcripts of an import now (a command, or a small upload)."""
    for pk in result.transcript_ids:
        transcript = Transcript.objects.select_related("owner").get(pk=pk)
        receipt = ingest_transcript(transcript=transcript, extractor=extractor)
        result.processed.append(receipt)
        if on_done is not None:
            on_done(receipt)
    return result.processed
