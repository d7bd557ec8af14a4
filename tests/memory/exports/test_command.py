"""``manage.py export --user U [--out PATH] [--json]``: the file on standard output, or a
folder with it and a Markdown page per memory; in bounded memory, with a progress bar only
on a terminal. The peak is pinned well below the size of what is written (the figures at
100,000 nodes are ``python -m eval.export_bench``'s, in docs/benchmarks.md)."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from eval.bench import seed_corpus, seed_episodes
from memory.exports import services
from memory.exports.folder import export_folder
from memory.exports.services import memory_import
from memory.models import Node
from memory.services.ingest import transcript_store
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes
from tests.memory.exports.roundtrip import parse
from ume.settings import BASE_DIR

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


def _database_url() -> str:
    """The URL of the database this test runs on (the test database, not the configured one)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user, host, port = db.get("USER") or "", db.get("HOST") or "", db.get("PORT") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_the_export_is_read_in_bounded_memory(tmp_path: Path) -> None:
    owner = make_user("measured")
    rng = random.Random(11)
    seed_corpus(owner, 5000, rng)
    seed_episodes(owner, 5000, rng)
    env = {**os.environ, "DATABASE_URL": _database_url(), "UME_DB_POOL_MAX": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.memory.exports.measure", "measured", str(tmp_path)],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    size, peak, folder_peak = figures["bytes"], figures["peak"], figures["folder_peak"]
    print(f"export {size:,} bytes: peak {peak:,}; with pages {folder_peak:,}")
    # one page per memory (the seeded conversations add the people and places they name)
    assert size > 7_000_000 and figures["pages"] == Node.objects.for_owner(owner).count() >= 5000
    assert peak < size / 5, (peak, size)
    assert folder_peak < size / 5, (folder_peak, size)


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
