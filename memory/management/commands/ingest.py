"""``manage.py ingest PATH... --user U`` and ``ingest --pending``: transcripts to receipts."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.dateparse import parse_datetime

from memory.extractors import EXTRACTORS
from memory.services.ingest import ingest_bytes, ingest_pending
from receipts.models import Receipt


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


class Progress:
    """A one-line progress bar on a terminal; silent when output is piped or JSON."""

    def __init__(self, total: int, stream: Any, enabled: bool) -> None:
        self.total, self.stream, self.enabled, self.done = total, stream, enabled, 0

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:40]:<40}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


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
            for receipt in ingest_pending(limit=opts["limit"], extractor=opts["extractor"]):
                self.emit(receipt, receipt.subject, as_json)
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
        progress = Progress(
            len(paths), sys.stderr, enabled=not as_json and len(paths) > 1 and sys.stderr.isatty()
        )
        failures = 0
        for path in paths:
            try:
                data = path.read_bytes()
            except OSError as exc:
                failures += 1
                message = f"{path}: cannot read ({exc.strerror or exc})"
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
            progress.step(path.name)
            self.emit(receipt, str(path), as_json)
        if failures and failures == len(paths):
            raise CommandError(f"none of the {len(paths)} file(s) could be read")

    def emit(self, receipt: Receipt, path: str, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(receipt_json(receipt, path=path), ensure_ascii=False))
            return
        line = f"{path}: {receipt.outcome} - {receipt.summary} (receipt {receipt.pk}, {receipt.duration_ms} ms)"
        if receipt.error:
            self.stderr.write(f"{path}: {receipt.outcome} - {receipt.error}")
        else:
            self.stdout.write(line)
