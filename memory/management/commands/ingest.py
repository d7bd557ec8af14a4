"""``manage.py ingest PATH... --user U`` and ``ingest --pending``: transcripts, chat exports and
ume's own export (a whole memory, docs/export.md) to receipts."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.dateparse import parse_datetime

from memory.exports.format import announced_rows
from memory.exports.services import memory_import
from memory.extractors import EXTRACTORS
from memory.imports.formats import UME
from memory.models import Receipt
from memory.owned import Person
from memory.progress import Progress
from memory.selectors import transcripts_waiting_count
from memory.services.imports import chat_import_process, chat_import_store, export_format
from memory.services.ingest import ingest_bytes, ingest_pending
from ume.logs import request_context


def parse_source_time(value: str) -> datetime:
    moment = (
        parse_datetime(value)
        if "T" in value or " " in value
        else parse_datetime(f"{value}T00:00:00")
    )
    if moment is None:
        raise CommandError(f"--source-time {value!r} is not an ISO 8601 date or time")
    if moment.tzinfo is None:
        from datetime import UTC

        moment = moment.replace(tzinfo=UTC)
    return moment


def receipt_json(receipt: Receipt, **extra: Any) -> dict[str, Any]:
    data = receipt.as_json()
    data.update(extra)
    return data


class Command(BaseCommand):
    help = "Run transcripts through the extractor and the write gate; one receipt each."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", help="transcript files (text, Markdown or JSON)")
        parser.add_argument("--user", help="username of the owner (required with paths)")
        parser.add_argument("--extractor", choices=EXTRACTORS, default=None)
        parser.add_argument("--source-time", help="when the conversation happened (ISO 8601)")
        parser.add_argument("--pending", action="store_true", help="process uploaded transcripts")
        parser.add_argument("--limit", type=int, default=50, help="with --pending: at most N")
        parser.add_argument(
            "--json", action="store_true", help="print JSON only, one receipt per line"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        as_json = opts["json"]
        if opts["pending"]:
            if opts["paths"]:
                raise CommandError("give either paths or --pending, not both")
            if opts["limit"] < 1:
                raise CommandError("--limit must be at least 1")
            progress = Progress.for_command(
                min(opts["limit"], transcripts_waiting_count()), self.stderr, as_json=as_json
            )

            def done(receipt: Receipt) -> None:
                progress.clear()
                self.emit(receipt, receipt.subject, as_json)
                progress.step(receipt.subject)

            with request_context():
                ingest_pending(limit=opts["limit"], extractor=opts["extractor"], on_done=done)
            progress.finish()
            return
        if not opts["paths"]:
            raise CommandError("give one or more transcript paths, or --pending")
        if not opts["user"]:
            raise CommandError("--user is required with paths")
        owner = get_user_model().objects.filter(username=opts["user"]).first()
        if owner is None:
            raise CommandError(f"unknown user {opts['user']!r}")
        source_time = parse_source_time(opts["source_time"]) if opts["source_time"] else None
        paths = [Path(p) for p in opts["paths"]]
        progress = Progress.for_command(len(paths), self.stderr, as_json=as_json)
        failures = 0
        for path in paths:
            try:
                with path.open("rb") as stream:
                    fmt = export_format(stream, path.name)
                    if fmt == UME:
                        self.ingest_memory(owner, stream, path, as_json, progress)
                        continue
                    if fmt is not None:
                        self.ingest_export(owner, stream, path, fmt, opts, progress)
                        continue
                    data = stream.read()
            except OSError as exc:
                failures += 1
                message = f"{path}: cannot read ({exc.strerror or exc})"
                progress.clear()
                if as_json:
                    self.stdout.write(json.dumps({"path": str(path), "error": message}))
                else:
                    self.stderr.write(message)
                progress.step(path.name)
                continue
            receipt = ingest_bytes(
                owner=owner,
                data=data,
                name=path.name,
                source="command",
                extractor=opts["extractor"],
                source_time=source_time,
            )
            progress.clear()
            self.emit(receipt, str(path), as_json)
            progress.step(path.name)
        if failures and failures == len(paths):
            raise CommandError(f"none of the {len(paths)} file(s) could be read")

    def ingest_export(
        self,
        owner: Person,
        stream: BinaryIO,
        path: Path,
        fmt: str,
        opts: dict[str, Any],
        progress: Progress,
    ) -> None:
        """A chat export: one transcript and one receipt per conversation, processed now."""
        as_json = opts["json"]
        result = chat_import_store(
            owner=owner,
            stream=stream,
            name=path.name,
            fmt=fmt,
            source="command",
            extractor=opts["extractor"],
        )
        progress.add(len(result.transcript_ids))
        for receipt in [*result.broken, *([result.receipt] if result.receipt else [])]:
            progress.clear()
            self.emit(receipt, str(path), as_json)

        def done(receipt: Receipt) -> None:
            progress.clear()
            self.emit(receipt, f"{path} / {receipt.subject}", as_json)
            progress.step(receipt.subject)

        chat_import_process(result, extractor=opts["extractor"], on_done=done)
        progress.clear()
        if not as_json:
            self.stdout.write(f"{path}: {result.message}")
        progress.step(path.name)

    def ingest_memory(
        self, owner: Person, stream: BinaryIO, path: Path, as_json: bool, progress: Progress
    ) -> None:
        """ume's own export: the whole memory in one transaction, one receipt."""
        progress.add(announced_rows(stream))
        result = memory_import(
            owner=owner,
            stream=stream,
            name=path.name,
            source="command",
            on_rows=lambda n, kind: progress.step(kind, n),
        )
        progress.clear()
        if result.receipt is not None:
            self.emit(result.receipt, str(path), as_json)
        progress.step(path.name)

    def emit(self, receipt: Receipt, path: str, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(receipt_json(receipt, path=path), ensure_ascii=False))
            return
        line = f"{path}: {receipt.outcome} - {receipt.summary} (receipt {receipt.pk}, {receipt.duration_ms} ms)"
        if receipt.error:
            self.stderr.write(f"{path}: {receipt.outcome} - {receipt.error}")
        else:
            self.stdout.write(line)
