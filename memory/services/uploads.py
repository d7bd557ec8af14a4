"""Uploads from the dashboard: several transcript files at once, each judged on its own.

A bad file (too large, binary, not UTF-8, empty, malformed JSON) gets a message fit to show
next to it and a ``rejected_input`` receipt; the other files of the same upload are kept.
A good file is stored as a pending :class:`~memory.models.Transcript`; small ones are processed
at once, larger ones wait for ``manage.py ingest --pending``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from memory.exports.services import memory_import_upload
from memory.imports.formats import UME
from memory.models import ChatImport, Outcome, Receipt, Source, Transcript
from memory.owned import Person
from memory.services.imports import (
    chat_import_defer,
    chat_import_process,
    chat_import_store,
    export_format,
)
from memory.services.ingest import Run, process, store
from memory.services.receipts import receipt_write
from memory.services.saves import SaveRefused, file_checked
from memory.transcripts import parse_transcript, transcript_format
from memory.vocab import TranscriptStatus

EXPORT_SUFFIXES = (".json", ".jsonl", ".ndjson")
_FAILED = {Outcome.LLM_FAILED, Outcome.DB_WRITE_FAILED, Outcome.DELETION_CONFLICT}


@dataclass(frozen=True)
class UploadResult:
    """What happened to one file of an upload."""

    name: str
    ok: bool
    message: str
    transcript: Transcript | None = None
    receipt: Receipt | None = None
    waiting: bool = False
    chat_import: ChatImport | None = None


def _reject(owner: Person, name: str, message: str, started: float) -> UploadResult:
    receipt = receipt_write(
        owner=owner,
        source=Source.UPLOAD,
        outcome=Outcome.REJECTED_INPUT,
        subject=name,
        summary=message,
        error=message,
        started=started,
    )
    return UploadResult(name=name, ok=False, message=message, receipt=receipt)


def transcript_upload_one(
    *, owner: Person, name: str, data: bytes, source_time: datetime | None = None
) -> UploadResult:
    run = Run.begin(owner, Source.UPLOAD)
    name = os.path.basename(name or "upload.txt")[:255] or "upload.txt"
    try:
        text = file_checked(data, name)
    except SaveRefused as exc:
        return _reject(owner, name, str(exc), run.started)
    stored = store(run, text, name=name, source_time=source_time)
    transcript = stored.transcript
    # A file an upload stored and failed to finish (the database failed, the request was
    # stopped) is this upload's to finish: nobody else processes it.
    if not stored.ours and transcript.status != TranscriptStatus.DONE:
        return UploadResult(
            name, True, f"Already uploaded ({transcript.status}); nothing new.", transcript
        )
    if stored.ours and len(data) > settings.UME_INLINE_UPLOAD_BYTES:
        message = (
            f"stored; files over {settings.UME_INLINE_UPLOAD_BYTES // 1024} KB are processed "
            "by `manage.py ingest --pending`"
        )
        return UploadResult(name, True, message, process(run, transcript, defer=True), waiting=True)
    receipt = process(run, transcript)
    transcript.refresh_from_db()
    ok = receipt.outcome not in _FAILED and receipt.outcome != Outcome.REJECTED_INPUT
    message = receipt.error or receipt.summary or receipt.get_outcome_display()
    if receipt.outcome == Outcome.DUPLICATE:
        message = "already uploaded; nothing new"
    elif receipt.outcome == Outcome.MEANINGFUL_NO_WRITE:
        message = f"{message}: {_why_nothing(text, name)}"
    return UploadResult(
        name,
        ok,
        f"Read as {transcript_format(text, name=name)}. {message[:1].upper()}{message[1:].rstrip('.')}.",
        transcript,
        receipt,
    )


def _why_nothing(text: str, name: str) -> str:
    """Why a readable file gave nothing to remember, fit to show next to it."""
    said = [m for m in parse_transcript(text, name=name) if m.role == "user"]
    if not said:
        return "no line is yours (only User:, Me: or Human: lines are read as your words)"
    return f"no memory found in what you said ({len(said)} message{'s' * (len(said) != 1)})"


def transcripts_upload(
    *, owner: Person, files: Iterable[UploadedFile], source_time: datetime | None = None
) -> list[UploadResult]:
    """Store each file as a pending transcript; process the small ones now. One result each.

    A file over the limit is refused by its size, before it is read into memory.
    """
    limit = settings.UME_MAX_TRANSCRIPT_BYTES
    results = []
    for upload in files:
        name = upload.name or "upload.txt"
        # Chat exports are JSON files: only those are opened to look for one, so an
        # oversized text file is still refused by its size without being read at all.
        fmt = export_format(upload, name) if name.lower().endswith(EXPORT_SUFFIXES) else None
        if fmt is not None:
            results.append(chat_export_upload(owner=owner, upload=upload, name=name, fmt=fmt))
            continue
        if upload.size is not None and upload.size > limit:
            message = f"{name}: {upload.size:,} bytes is over the limit of {limit:,} bytes"
            results.append(_reject(owner, name, message, time.perf_counter()))
            continue
        data = upload.read(limit + 1)
        results.append(
            transcript_upload_one(owner=owner, name=name, data=data, source_time=source_time)
        )
    return results


def _whole_memory(owner: Person, upload: UploadedFile, name: str) -> UploadResult:
    """ume's own export: a whole memory, imported into an empty one (now, or by the
    workers when it is large)."""
    result = memory_import_upload(owner=owner, stream=upload, name=name, size=upload.size or 0)
    return UploadResult(
        name,
        result.ok,
        result.message,
        receipt=result.receipt,
        waiting=result.ok and result.receipt is None,
        chat_import=result.chat_import,
    )


def chat_export_upload(*, owner: Person, upload: UploadedFile, name: str, fmt: str) -> UploadResult:
    """A whole chat export: one pending transcript per conversation.

    An export within ``UME_INLINE_UPLOAD_BYTES`` is read and processed at once. A larger one
    is not read here: its bytes are stored for the pending workers, which split it into
    conversations and process them; the result names the import, whose progress page shows
    how far they are."""
    name = os.path.basename(name)[:255] or "conversations.json"
    if fmt == UME:
        return _whole_memory(owner, upload, name)
    if (upload.size or 0) > settings.UME_INLINE_UPLOAD_BYTES:
        result = chat_import_defer(owner=owner, stream=upload, name=name, fmt=fmt, source="upload")
        return UploadResult(
            name,
            result.ok,
            result.message,
            receipt=result.receipt,
            waiting=result.receipt is None,
            chat_import=result.chat_import,
        )
    result = chat_import_store(owner=owner, stream=upload, name=name, fmt=fmt, source="upload")
    chat_import_process(result)
    return UploadResult(
        name, result.ok, result.message, receipt=result.receipt, chat_import=result.chat_import
    )
