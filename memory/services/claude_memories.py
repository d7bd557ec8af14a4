"""Importing Claude's ``memories.json``: what Claude remembers, as guesses for a person to review.

The file is read whole (it is small: a few pages of text) and refused over
``UME_MAX_TRANSCRIPT_BYTES``. Its statements (:mod:`memory.imports.claude_memories`) go
through the configured extractor, and what it finds becomes candidates only
(:func:`~memory.imports.claude_memories.review_first`). Those are stored as one transcript of
already-extracted proposals, named after the file, and run through the same path as an
assistant's proposals (:func:`memory.services.ingest.process` with the
``proposals`` extractor): the gate against a fresh snapshot, the apply transaction, one
receipt. So evidence names the file and the statement's section, the review queue can filter
by it, and a suppression refuses a label here as anywhere.

The import is recorded like a chat export (:class:`~memory.models.ChatImport`, one
"conversation"): the same file imported again is one ``duplicate`` receipt; one whose
processing failed is retried by importing it again. Bad input (empty, binary, malformed JSON,
the wrong shape, an entry over the size limit) is one ``rejected_input`` receipt and nothing
else is written.
"""

from __future__ import annotations

import json
import time
from typing import IO

from django.conf import settings
from django.db import transaction

from memory.extractors import ExtractorFailed, get_extractor
from memory.imports.claude_memories import (
    SHOWN_NOT_UNDERSTOOD,
    MemoryExport,
    ReviewFirst,
    read_memories,
    review_first,
    statement_messages,
)
from memory.imports.formats import (
    CLAUDE_MEMORIES,
    ImportFormatError,
    iter_json_array,
)
from memory.models import ChatImport, Outcome, Receipt, Transcript
from memory.owned import Person
from memory.proposals import dump_proposal
from memory.services.imports import (
    ImportResult,
    _file_receipt,
    _refused,
    _sha256,
    import_open,
)
from memory.services.ingest import Run, process, store
from memory.vocab import ImportState, TranscriptStatus

_READERS = ("rules", "llm")
_FAILED = {Outcome.LLM_FAILED, Outcome.DB_WRITE_FAILED, Outcome.DELETION_CONFLICT}


def _read(stream: IO[bytes], max_bytes: int) -> MemoryExport:
    head = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    stream.seek(0)
    if not head:
        raise ImportFormatError("the file is empty")
    if head.startswith(b"{"):  # one account's memories on their own
        try:
            return read_memories([json.loads(stream.read(max_bytes + 1))])
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ImportFormatError(f"malformed JSON: {exc}") from exc
        except RecursionError as exc:
            raise ImportFormatError("malformed JSON: nested too deeply") from exc
    return read_memories(iter_json_array(stream, max_element_bytes=max_bytes))


def _propose(export: MemoryExport, extractor: str | None) -> ReviewFirst:
    """The configured extractor over the statements, turned review-first."""
    # The file holds statements, not proposals: "proposals" reads them with the default.
    name = next((n for n in (extractor, settings.UME_DEFAULT_EXTRACTOR) if n in _READERS), "rules")
    extract = get_extractor(name)
    return review_first(extract(statement_messages(export), source_time=None), export)


def _transcript_text(export: MemoryExport, found: ReviewFirst) -> str:
    """The stored transcript: the statements as the file gave them, and the proposals."""
    return json.dumps(
        {
            "title": "Claude's memories",
            "memories": [s.as_json() for s in export.statements],
            "objects": [dump_proposal(p) for p in found.candidates],
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def claude_memories_import(
    *, owner: Person, stream: IO[bytes], name: str, source: str, extractor: str | None = None
) -> ImportResult:
    """Read ``memories.json`` now and propose what it says for review; one receipt."""
    started = time.perf_counter()
    max_bytes = int(settings.UME_MAX_TRANSCRIPT_BYTES)
    try:
        sha, size = _sha256(stream, max_bytes)
        export = _read(stream, max_bytes)
        if not export.statements:
            raise ImportFormatError("the file holds no memories (every memory text is empty)")
    except ImportFormatError as exc:
        return _refused(owner, source, name, started, exc)
    row = import_open(
        owner, name, CLAUDE_MEMORIES, source, started, (sha, size), ImportState.READING
    )
    if isinstance(row, ImportResult):
        return row
    seen = _seen_statements(owner)
    known = [s for s in export.statements if s.text in seen]
    if len(known) == len(export.statements):
        return _nothing_new(row, started, len(known))
    export.statements = [s for s in export.statements if s.text not in seen]
    export.known = len(known)
    try:
        found = _propose(export, extractor)
    except (ImportFormatError, ExtractorFailed) as exc:
        failed = isinstance(exc, ExtractorFailed)
        return _stopped(row, started, str(exc), Outcome.LLM_FAILED if failed else None)
    run = Run.begin(owner, source, extractor="proposals", started=started)
    transcript = _store(run, row, export, found)
    receipt = process(run, transcript)
    return _finish(row, transcript, receipt, export, found)


KEY = CLAUDE_MEMORIES  # the conversation key of every memories transcript


def _seen_statements(owner: Person) -> set[str]:
    """The statements earlier memory imports of ``owner`` proposed (and finished)."""
    seen: set[str] = set()
    for text in (
        Transcript.objects.for_owner(owner)
        .filter(conversation_key=KEY, status=TranscriptStatus.DONE)
        .values_list("text", flat=True)
        .iterator()
    ):
        try:
            stored = json.loads(text).get("memories") or []
        except (ValueError, AttributeError, RecursionError):
            continue
        seen.update(str(m.get("text")) for m in stored if isinstance(m, dict))
    return seen


def _nothing_new(row: ChatImport, started: float, known: int) -> ImportResult:
    """Every statement of the file was proposed by an earlier import: one duplicate receipt."""
    message = f"{row.name}: all {known} statements were imported before; nothing new"
    ChatImport.objects.filter(pk=row.pk).update(
        conversations=1, duplicates=1, position=1, state=ImportState.READ, claimed_at=None
    )
    receipt = _file_receipt(
        row.owner,
        row.source,
        row.name,
        Outcome.DUPLICATE,
        started,
        summary=message,
        detail={"chat_import": row.pk, "reason": "every statement already imported"},
    )
    row.refresh_from_db()
    return ImportResult(row.name, row, True, message, receipt=receipt)


def _store(run: Run, row: ChatImport, export: MemoryExport, found: ReviewFirst) -> Transcript:
    # ``inline``: processed here, never by the workers (they would not read it review-first).
    transcript = store(
        run, _transcript_text(export, found), name=f"Claude's memories ({row.name})"
    ).transcript
    Transcript.objects.filter(pk=transcript.pk).update(chat_import=row, conversation_key=KEY)
    return transcript


def _finish(
    row: ChatImport,
    transcript: Transcript,
    receipt: Receipt,
    export: MemoryExport,
    found: ReviewFirst,
) -> ImportResult:
    """Record what the file gave on its receipt and its import; the result to show."""
    memory = {
        **export.counts(),
        "understood": len(export.statements) - len(found.not_understood),
        "not_understood": len(found.not_understood),
        "not_understood_examples": [
            {"id": s.id, "text": s.text[:200]} for s in found.not_understood[:SHOWN_NOT_UNDERSTOOD]
        ],
    }
    failed = receipt.outcome in _FAILED or receipt.outcome == Outcome.REJECTED_INPUT
    same = receipt.outcome == Outcome.DUPLICATE  # the same statements, being proposed now
    with transaction.atomic():
        if not same:
            receipt.detail = {**(receipt.detail or {}), "memories": memory}
            Receipt.objects.filter(pk=receipt.pk).update(detail=receipt.detail)
        ChatImport.objects.filter(pk=row.pk).update(
            conversations=1,
            stored=0 if same else 1,
            duplicates=1 if same else 0,
            skipped={"not understood": memory["not_understood"]}
            if memory["not_understood"]
            else {},
            position=1,
            state=ImportState.FAILED if failed else ImportState.READ,
            error=receipt.error if failed else "",
            claimed_at=None,
        )
        if failed:
            # Retried by importing the file again, here, never by the workers: they would
            # read the stored proposals with their own extractor.
            Transcript.objects.filter(pk=transcript.pk).update(inline=True)
    row.refresh_from_db()
    counts = receipt.counts or {}
    message = (
        f"Claude's memories: {len(export.statements)} statements from {export.sections} "
        f"memory text{'s' * (export.sections != 1)}; "
        f"{counts.get('candidates', 0)} new to review, "
        f"{counts.get('candidate_bumps', 0)} already waiting for review, "
        f"{counts.get('nodes_updated', 0)} already known, "
        f"{counts.get('rejected', 0)} refused; "
        f"{memory['not_understood']} with nothing found"
        + (f"; {export.known} imported before" if export.known else "")
    )
    if failed:
        message = receipt.error or message
    return ImportResult(row.name, row, not failed, message, receipt=receipt, processed=[receipt])


def _stopped(row: ChatImport, started: float, error: str, outcome: str | None) -> ImportResult:
    """The statements could not be turned into proposals: the import fails (importing the
    file again retries it) with a receipt saying why; nothing else is written."""
    message = f"{row.name}: {error}"
    ChatImport.objects.filter(pk=row.pk).update(
        state=ImportState.FAILED, error=error, claimed_at=None
    )
    receipt = _file_receipt(
        row.owner,
        row.source,
        row.name,
        outcome or Outcome.REJECTED_INPUT,
        started,
        error=message,
        summary=message[:500],
        detail={"chat_import": row.pk, "retryable": outcome is not None},
    )
    row.refresh_from_db()
    return ImportResult(row.name, row, False, message, receipt=receipt)
