"""``manage.py export --user U [--out PATH] [--json]``: the file on standard output, or a
folder with it and a Markdown page per memory; in bounded memory, with a progress bar only
on a terminal. The peak is pinned well below the size of what is written (the figures at
100,000 nodes are ``python -m eval.export_bench``'s, in docs/benchmarks.md)."""

from __future__ import annotations

import gc
import io
import json
import random
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from eval.bench import seed_corpus, seed_episodes
from memory.exports import services
from memory.exports.folder import export_folder
from memory.exports.selectors import export_lines
from memory.exports.services import memory_import
from memory.models import Node
from memory.services.ingest import transcript_store
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes
from tests.memory.exports.roundtrip import parse

pytestmark = pytest.mark.django_db


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_folder_holds_the_file_and_a_page_per_memory(
    owner: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "moving-day"
    printed = io.StringIO()
    call_command("export", user="owner", out=str(out), json=True, stdout=printed)
    summary = json.loads(printed.getvalue())
    data = (out / "memory.jsonl").read_bytes()
    head, rows, _end = parse(data)
    assert summary["counts"] == head["counts"] and summary["bytes"] == len(data)
    assert data.splitlines()[1:] == export_bytes("owner").splitlines()[1:]
    pages = sorted(p.name for p in (out / "memories").iterdir())
    assert len(pages) == head["counts"]["node"] == summary["pages"] - 1  # and one loose note
    assert [p.name for p in (out / "notes").iterdir()] == [
        f"ideas-for-the-spring-{rows['page'][1]['id']}.md"
    ]
    cello = (out / "memories" / f"cello-{rich['first'].pk}.md").read_text()
    assert cello.startswith("# Cello\n")
    assert "- State: Paused" in cello and "- Also called: my instrument" in cello
    assert "What I practise in the evenings." in cello
    assert "2025-01 (month, stated): started: I started learning the cello" in cello
    assert "## Note: Cello practice log" in cello
    assert "> I started learning the cello in January 2025." in cello
    # every link between pages leads to a page that is there
    index = (out / "index.md").read_text()
    for page in (out / "memories").iterdir():
        for target in re.findall(r"\]\(([^)]+\.md)\)", page.read_text()):
            assert (out / "memories" / target).is_file(), (page.name, target)
        assert f"(memories/{page.name})" in index
    lantern = next(p for p in (out / "memories").iterdir() if p.name.startswith("lantern-"))
    assert "→ related to (“shares evenings with”) [Cello]" in lantern.read_text()
    assert "- Earlier facts" not in cello and "## Earlier facts (replaced)" in lantern.read_text()


def test_markdown_in_what_was_said_stays_text(owner: Any, tmp_path: Path) -> None:
    make_node(owner=owner, label="[click](javascript:alert(1)) <b>bold</b>")
    export_folder(owner, tmp_path / "out")
    [page] = (tmp_path / "out" / "memories").iterdir()
    assert page.read_text().startswith("# \\[click\\](javascript:alert(1)) \\<b\\>bold\\</b\\>\n")


def test_the_folder_is_refused_where_something_is_already(
    owner: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep me")
    with pytest.raises(CommandError, match="already exists and is not an empty folder"):
        call_command("export", user="owner", out=str(tmp_path / "full"), stdout=io.StringIO())
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["full"]  # no half-written folder beside it
    with pytest.raises(CommandError, match="unknown user 'nobody'"):
        call_command("export", user="nobody", stdout=io.StringIO())


def test_progress_shows_on_a_terminal_only(owner: Any, rich: dict[str, Any]) -> None:
    terminal, piped = Terminal(), io.StringIO()
    call_command("export", user="owner", stdout=io.StringIO(), stderr=terminal)
    assert re.search(r"\] \d+/\d+", terminal.getvalue()) and terminal.getvalue().endswith("\n")
    call_command("export", user="owner", stdout=io.StringIO(), stderr=piped)
    quiet = Terminal()
    call_command("export", user="owner", json=True, stdout=io.StringIO(), stderr=quiet)
    assert piped.getvalue() == "" and quiet.getvalue() == ""


class _Counted:
    """A file that keeps nothing: what an export writes, counted."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> None:
        self.size += len(data)


def test_the_export_is_read_in_bounded_memory(owner: Any, tmp_path: Path) -> None:
    rng = random.Random(11)
    seed_corpus(owner, 5000, rng)
    seed_episodes(owner, 5000, rng)
    # A first export warms what a process builds once (imports, compiled patterns, caches):
    # what is measured is what an export holds, not what this worker had not yet loaded.
    export_folder(owner, tmp_path / "warm")
    gc.collect()
    sink = _Counted()
    tracemalloc.start()
    try:
        before, _peak = tracemalloc.get_traced_memory()
        for line in export_lines(owner):
            sink.write(line)
        _current, peak = tracemalloc.get_traced_memory()
        peak -= before
        gc.collect()
        tracemalloc.reset_peak()
        before, _peak = tracemalloc.get_traced_memory()
        folder = export_folder(owner, tmp_path / "out")
        _current, folder_peak = tracemalloc.get_traced_memory()
        folder_peak -= before
    finally:
        tracemalloc.stop()
    print(f"export {sink.size:,} bytes: peak {peak:,}; with pages {folder_peak:,}")
    # one page per memory (the seeded conversations add the people and places they name)
    assert sink.size > 7_000_000 and folder.pages == Node.objects.for_owner(owner).count() >= 5000
    assert peak < sink.size / 5, (peak, sink.size)
    assert folder_peak < sink.size / 5, (folder_peak, sink.size)


def test_an_import_holds_a_few_long_lines_at_a_time(
    owner: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Conversations are the long lines: written a batch of bounded bytes at a time."""
    for n in range(40):
        said = f"User: day {n} of the garden diary. " + "The beans climbed again. " * 12_000
        transcript_store(
            owner=owner, text=said, name=f"diary {n}", source="upload", source_time=None
        )
    path = tmp_path / "diary.jsonl"
    path.write_bytes(export_bytes("owner"))
    size = path.stat().st_size
    monkeypatch.setattr(services, "BATCH_BYTES", 512 * 1024)
    newcomer = make_user("newcomer")
    tracemalloc.start()
    try:
        with path.open("rb") as stream:
            result = memory_import(owner=newcomer, stream=stream, name=path.name, source="command")
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"import of {size:,} bytes: peak {peak:,}")
    assert result.ok and size > 10_000_000
    assert peak < size / 3, (peak, size)
