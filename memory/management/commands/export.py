"""``manage.py export --user U [--out PATH] [--json]``: a person's whole memory as ume's
export file (docs/export.md), on standard output, or with ``--out`` a folder holding it and a
Markdown page per memory. On a terminal it draws a progress bar on stderr; quiet under
``--json`` or when stderr is not a terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.exports.folder import ExportFolderError, export_folder
from memory.exports.selectors import export_counts, export_lines
from memory.owned import Person
from memory.progress import Progress

WRITE_BYTES = 64 * 1024  # lines gathered per write to standard output


class Command(BaseCommand):
    help = (
        "Export everything a person owns as ume's JSON Lines export (standard output), or "
        "with --out a folder with that file and a Markdown page per memory."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="username of the owner")
        parser.add_argument("--out", help="a new (or empty) folder to write the export into")
        parser.add_argument(
            "--json", action="store_true", help="no progress; with --out, print a JSON summary"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        owner = get_user_model().objects.filter(username=opts["user"]).first()
        if owner is None:
            raise CommandError(f"unknown user {opts['user']!r}")
        counts = export_counts(owner)
        total = sum(counts.values()) + (counts["node"] + counts["page"] if opts["out"] else 0)
        progress = Progress.for_command(total, self.stderr, as_json=opts["json"])

        def on_rows(n: int, kind: str) -> None:
            progress.step(kind, n)

        if opts["out"]:
            self.folder(owner, Path(opts["out"]), on_rows, as_json=opts["json"])
        else:
            self.lines(owner, on_rows)
        progress.finish()

    def folder(self, owner: Person, path: Path, on_rows: Any, *, as_json: bool) -> None:
        try:
            result = export_folder(owner, path, on_rows=on_rows)
        except ExportFolderError as exc:
            raise CommandError(str(exc)) from exc
        if as_json:
            self.stdout.write(json.dumps(result.as_json()))
            return
        self.stdout.write(
            f"{result.path}: {result.bytes:,} bytes in {result.path / 'memory.jsonl'} "
            f"({sum(result.counts.values()):,} rows) and {result.pages:,} Markdown pages"
        )

    def lines(self, owner: Person, on_rows: Any) -> None:
        """The file on standard output, as bytes where the stream takes them."""
        raw = getattr(self.stdout, "_out", self.stdout)
        binary = getattr(raw, "buffer", None)
        pending: list[bytes] = []
        size = 0
        try:
            for line in export_lines(owner, on_rows=on_rows):
                pending.append(line)
                size += len(line)
                if size >= WRITE_BYTES:
                    self._write(raw, binary, pending)
                    pending, size = [], 0
            self._write(raw, binary, pending)
            raw.flush()
        except BrokenPipeError as exc:
            raise CommandError("the output was closed before the export was written") from exc

    @staticmethod
    def _write(raw: Any, binary: Any, pending: list[bytes]) -> None:
        data = b"".join(pending)
        if binary is not None:
            binary.write(data)
        else:
            raw.write(data.decode("utf-8"))
