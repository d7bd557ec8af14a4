"""``export --out PATH``: a folder with the export file and a Markdown page per memory.

The folder holds ``memory.jsonl`` (the export, what another ume imports), ``index.md`` (every
memory, linked), ``memories/<name>-<id>.md`` (one page per memory) and ``notes/`` (notes that
belong to no memory). Both halves come from one consistent read (:func:`snapshot`), so the
pages say what the file holds. It is written in a hidden folder beside ``PATH`` and renamed
into place when complete: a failed export leaves nothing half-written under ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from memory.exports.markdown import (
    MEMORIES,
    NOTES,
    index_head,
    index_line,
    index_note,
    node_page,
    node_path,
    note_page,
    note_path,
)
from memory.exports.selectors import (
    export_counts,
    export_lines,
    loose_notes,
    node_details,
    snapshot,
)
from memory.owned import Person

EXPORT_FILE = "memory.jsonl"
INDEX_FILE = "index.md"
PAGES_EVERY = 1000  # pages per progress step


class ExportFolderError(ValueError):
    """The folder cannot be written where asked; the message says why."""


@dataclass
class FolderExport:
    """What ``export --out`` wrote."""

    path: Path
    counts: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    pages: int = 0

    def as_json(self) -> dict[str, object]:
        return {
            "out": str(self.path),
            "file": str(self.path / EXPORT_FILE),
            "bytes": self.bytes,
            "pages": self.pages,
            "counts": self.counts,
        }


def _target(path: Path) -> Path:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ExportFolderError(f"{path} already exists and is not an empty folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportFolderError(f"cannot create {path.parent}: {exc.strerror or exc}") from exc
    return path


def export_folder(
    owner: Person, path: Path, *, on_rows: Callable[[int, str], None] | None = None
) -> FolderExport:
    """Write ``owner``'s export and pages to the folder ``path`` (new, or empty)."""
    target = _target(Path(path))
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    result = FolderExport(path=target)
    try:
        with snapshot():
            result.counts = export_counts(owner)
            with (work / EXPORT_FILE).open("wb") as out:
                for line in export_lines(owner, on_rows=on_rows):
                    out.write(line)
                result.bytes = out.tell()
            result.pages = _pages(owner, work, result.counts, on_rows)
        if target.exists():
            target.rmdir()  # empty, checked above
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return result


def _pages(
    owner: Person,
    work: Path,
    counts: dict[str, int],
    on_rows: Callable[[int, str], None] | None,
) -> int:
    """One page per memory and per note of no memory, and the index; how many pages."""
    (work / MEMORIES).mkdir()
    (work / NOTES).mkdir()
    pages = 0
    with (work / INDEX_FILE).open("w", encoding="utf-8") as index:
        index.write(index_head(owner.get_username(), timezone.now(), counts))
        for details in node_details(owner):
            node = details.node
            with (work / node_path(node["label"], node["id"])).open("w", encoding="utf-8") as out:
                out.writelines(
                    node_page(
                        node,
                        aliases=details.aliases,
                        facts=details.facts,
                        events=details.events,
                        links_out=details.links_out,
                        links_in=details.links_in,
                        notes=details.notes,
                        evidence=details.evidence,
                    )
                )
            index.write(index_line(node))
            pages += 1
            if on_rows is not None and pages % PAGES_EVERY == 0:
                on_rows(PAGES_EVERY, "page")
        first = True
        for note in loose_notes(owner):
            if first:
                index.write("\n## Notes\n\n")
                first = False
            with (work / note_path(note["title"], note["id"])).open("w", encoding="utf-8") as out:
                out.writelines(note_page(note))
            index.write(index_note(note))
            pages += 1
    if on_rows is not None and pages % PAGES_EVERY:
        on_rows(pages % PAGES_EVERY, "page")
    return pages
