"""Long commands draw a progress bar on a terminal, and stay quiet under --json or a pipe."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from memory.progress import Progress
from memory.services.ingest import transcript_store
from ume.settings import BASE_DIR


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_counts_steps_and_ends_its_line() -> None:
    out = Terminal()
    progress = Progress.for_command(2, out, as_json=False)
    progress.step("first")
    assert "1/2" in out.getvalue() and "#" * 15 in out.getvalue()
    progress.step("second")
    assert "2/2" in out.getvalue() and out.getvalue().endswith("\n")
    progress.finish()
    assert out.getvalue().count("\n") == 1


@pytest.mark.parametrize(
    ("stream", "as_json"), [(Terminal(), True), (io.StringIO(), False)], ids=["json", "piped"]
)
def test_the_bar_is_silent_under_json_or_off_a_terminal(stream: Any, as_json: Any) -> None:
    progress = Progress.for_command(3, stream, as_json=as_json)
    for label in "abc":
        progress.clear()
        progress.step(label)
    progress.finish()
    assert stream.getvalue() == ""


@pytest.mark.django_db
def test_ingest_over_several_files_shows_the_bar_only_on_a_terminal(
    owner: User, tmp_path: Path
) -> None:
    paths = []
    for i in range(3):
        path = tmp_path / f"t{i}.txt"
        path.write_text(f"User: I started learning the oboe in week {i}.\n")
        paths.append(str(path))
    err, out = Terminal(), io.StringIO()
    call_command("ingest", *paths, user="owner", stdout=out, stderr=err)
    assert "3/3" in err.getvalue()
    assert out.getvalue().count("receipt") == 3
    err, out = Terminal(), io.StringIO()
    call_command("ingest", *paths, user="owner", json=True, stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert [json.loads(line)["outcome"] for line in out.getvalue().splitlines()] == [
        "duplicate"
    ] * 3


@pytest.mark.django_db
def test_ingest_pending_shows_the_bar_for_the_waiting_transcripts(owner: User) -> None:
    for i in range(2):
        transcript_store(
            owner=owner,
            text=f"User: I moved to Lyon in {2010 + i}.",
            name=f"u{i}.txt",
            source="upload",
            source_time=None,
        )
    err, out = Terminal(), io.StringIO()
    call_command("ingest", pending=True, stdout=out, stderr=err)
    assert "2/2" in err.getvalue()
    assert len(out.getvalue().splitlines()) == 2


@pytest.mark.django_db
def test_cleanup_and_the_evals_show_the_bar_on_a_terminal(owner: User) -> None:
    transcript_store(
        owner=owner, text="User: hello", name="h.txt", source="upload", source_time=None
    )
    err = Terminal()
    call_command("cleanup", stdout=io.StringIO(), stderr=err)
    assert "1/1" in err.getvalue()
    err = Terminal()
    call_command(
        "eval_extraction",
        str(BASE_DIR / "eval/fixtures/extraction_golden.json"),
        stdout=io.StringIO(),
        stderr=err,
    )
    fixtures = json.loads((BASE_DIR / "eval/fixtures/extraction_golden.json").read_text())
    total = len(fixtures["fixtures"] if isinstance(fixtures, dict) else fixtures)
    assert f"{total}/{total}" in err.getvalue()
    fixture = BASE_DIR / "eval/fixtures/retrieval_life.json"
    queries = len(json.loads(fixture.read_text())["queries"])
    err = Terminal()
    call_command("eval_retrieval", str(fixture), stdout=io.StringIO(), stderr=err)
    assert f"{queries}/{queries}" in err.getvalue()
    err = Terminal()
    call_command("eval_retrieval", str(fixture), json=True, stdout=io.StringIO(), stderr=err)
    assert err.getvalue() == ""


@pytest.mark.django_db
def test_ingest_of_a_chat_export_counts_its_conversations_on_the_bar(owner: User) -> None:
    export = BASE_DIR / "tests/fixtures/exports/claude_conversations.json"
    err, out = Terminal(), io.StringIO()
    call_command("ingest", str(export), user="owner", stdout=out, stderr=err)
    # one step per conversation processed, plus the file itself
    assert "3/3" in err.getvalue()
    assert "Claude export: 4 conversations; 2 new" in out.getvalue()


@pytest.mark.django_db
def test_cleanup_writes_a_line_per_step_on_a_terminal(owner: User) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from tests.factories import make_candidate

    make_candidate(owner=owner, label="Pottery", expires_at=timezone.now() - timedelta(days=1))
    err = Terminal()
    call_command("cleanup", stdout=io.StringIO(), stderr=err)
    lines = err.getvalue()
    # Planned, then done: each step on its own line with the time so far.
    assert "owner: candidates to expire: 1 (" in lines
    assert "owner: junk nodes: 0 (" in lines
    assert "owner: candidates expired: 1 (" in lines
    assert "owner: orphans deleted: 0 (" in lines
    err = Terminal()
    call_command("cleanup", json=True, stdout=io.StringIO(), stderr=err)
    assert err.getvalue() == ""
