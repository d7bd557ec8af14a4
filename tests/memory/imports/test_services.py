"""Importing whole chat exports through ``ingest``: one transcript and one receipt per
conversation, named by its title; re-imports are no-ops; a broken conversation fails alone."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from pytest_django import Settings

from memory.import_selectors import chat_import_progress
from memory.imports.formats import CHATGPT
from memory.models import ChatImport, Evidence, Receipt, Transcript
from memory.services.imports import chat_import_store
from memory.services.ingest import ingest_pending

pytestmark = pytest.mark.django_db
EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


def ingest_json(*paths: Path) -> list[dict]:
    out = io.StringIO()
    call_command("ingest", *map(str, paths), user="owner", json=True, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_chatgpt_export_becomes_one_transcript_and_receipt_per_conversation(owner: User) -> None:
    lines = ingest_json(EXPORTS / "chatgpt_conversations.json")
    receipts = Receipt.objects.for_owner(owner).order_by("pk")
    subjects = [r.subject for r in receipts]
    assert "Marathon training plan" in subjects and "Sourdough starter" in subjects
    assert len(lines) == len(subjects) == 3  # two conversations processed, one broken
    broken = receipts.get(outcome="rejected_input")
    assert "conversation 3" in broken.error and "Half-exported chat" in broken.error
    assert {line["receipt_id"] for line in lines} == {r.pk for r in receipts}
    assert any(line["path"].endswith("/ Marathon training plan") for line in lines)
    marathon = Transcript.objects.for_owner(owner).get(name="Marathon training plan")
    assert marathon.source_time is not None
    assert marathon.source_time.isoformat().startswith("2024-06-03")
    assert marathon.status == "done" and marathon.chat_import is not None
    row = marathon.chat_import
    assert (row.format, row.conversations, row.stored, row.empty, row.broken) == (
        CHATGPT,
        4,
        2,
        1,
        1,
    )
    assert row.skipped == {"system": 2, "hidden": 2, "empty": 1, "tool": 2}
    # evidence names the real conversation
    evidence = Evidence.objects.for_owner(owner).filter(transcript=marathon)
    assert evidence.exists()
    assert {getattr(e.transcript, "name", None) for e in evidence} == {"Marathon training plan"}
    assert marathon.receipt is not None
    assert marathon.receipt.detail["messages"] == 4


def test_reimporting_the_same_export_is_one_duplicate_receipt(owner: User) -> None:
    ingest_json(EXPORTS / "claude_conversations.json")
    transcripts = Transcript.objects.count()
    receipts = Receipt.objects.count()
    (line,) = ingest_json(EXPORTS / "claude_conversations.json")
    assert line["outcome"] == "duplicate"
    assert Transcript.objects.count() == transcripts
    assert Receipt.objects.count() == receipts + 1
    assert ChatImport.objects.for_owner(owner).count() == 1


def test_a_later_export_stores_only_the_new_conversations(owner: User, tmp_path: Path) -> None:
    ingest_json(EXPORTS / "claude_conversations.json")
    conversations = json.loads((EXPORTS / "claude_conversations.json").read_text())
    newer = tmp_path / "conversations.json"
    extra = {
        "uuid": "c1a0de00-0009-4000-9000-newer0000009",
        "name": "Booking the ferry",
        "created_at": "2024-11-01T10:00:00Z",
        "updated_at": "2024-11-01T10:00:00Z",
        "chat_messages": [
            {"uuid": "f1", "sender": "human", "text": "I booked the ferry to Tangier for May."}
        ],
    }
    newer.write_text(json.dumps([conversations[0], conversations[1], extra]))
    ingest_json(newer)
    row = ChatImport.objects.for_owner(owner).get(name="conversations.json", stored=1)
    assert (row.conversations, row.duplicates) == (3, 2)
    assert Transcript.objects.for_owner(owner).filter(name="Booking the ferry").count() == 1
    assert Transcript.objects.for_owner(owner).filter(name="Moving to Lisbon").count() == 1


def test_json_lines_and_plain_notes_go_through_ingest_too(owner: User, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Started a pottery class on Thursdays.\n")
    lines = ingest_json(EXPORTS / "greyhound.jsonl", notes)
    subjects = [Receipt.objects.get(pk=line["receipt_id"]).subject for line in lines]
    assert subjects == ["greyhound", "notes.txt"]
    greyhound = Transcript.objects.for_owner(owner).get(name="greyhound")
    assert greyhound.chat_import is not None and greyhound.source_time is not None
    assert greyhound.chat_import.skipped == {"system": 1, "tool": 1, "empty": 1}
    assert greyhound.source_time.isoformat() == "2025-02-02T09:00:00+00:00"
    assert Transcript.objects.for_owner(owner).get(name="notes.txt").chat_import is None


def test_malformed_json_midway_keeps_the_conversations_before_it(
    owner: User, tmp_path: Path
) -> None:
    good = json.loads((EXPORTS / "claude_conversations.json").read_text())[1]
    path = tmp_path / "conversations.json"
    path.write_text("[" + json.dumps(good) + ', {"uuid": "x", "chat_messages": [')
    lines = ingest_json(path)
    outcomes = sorted(line["outcome"] for line in lines)
    assert "rejected_input" in outcomes and len(lines) == 2
    rejected = next(line for line in lines if line["outcome"] == "rejected_input")
    assert "conversation 2" in rejected["error"] and "before it were kept" in rejected["error"]
    assert Transcript.objects.for_owner(owner).filter(name="Learning the cello").exists()


def _big_export(path: Path, conversations: int) -> int:
    with path.open("w") as fh:
        fh.write("[")
        for i in range(conversations):
            messages = [
                {
                    "uuid": f"m{i}-{j}",
                    "sender": "human" if j % 2 == 0 else "assistant",
                    "text": f"Conversation {i}, message {j}: " + "notes on the garden " * 40,
                    "created_at": "2024-05-01T10:00:00Z",
                }
                for j in range(12)
            ]
            conv = {
                "uuid": f"conv-{i}",
                "name": f"Garden diary {i}",
                "created_at": "2024-05-01T10:00:00Z",
                "chat_messages": messages,
            }
            fh.write(("," if i else "") + json.dumps(conv))
        fh.write("]")
    return path.stat().st_size


def test_a_large_export_is_read_as_a_stream_and_left_to_the_workers(
    owner: User, tmp_path: Path, settings: Settings
) -> None:
    path = tmp_path / "conversations.json"
    size = _big_export(path, 400)
    assert size > 4_000_000
    tracemalloc.start()
    with path.open("rb") as stream:
        result = chat_import_store(
            owner=owner, stream=stream, name=path.name, fmt="claude", source="upload"
        )
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # Never the whole file in memory: the peak stays a fraction of its size.
    assert peak < size / 4, (peak, size)
    print(f"export {size:,} bytes, peak traced memory while storing it {peak:,} bytes")
    assert result.chat_import is not None
    assert result.chat_import.stored == 400
    progress = chat_import_progress(owner, result.chat_import.pk)
    assert progress is not None
    assert (progress.done, progress.waiting, progress.failed, progress.finished) == (
        0,
        400,
        0,
        False,
    )
    ingest_pending(limit=150)
    progress = chat_import_progress(owner, result.chat_import.pk)
    assert progress is not None
    assert (progress.done, progress.waiting) == (150, 250)
    ingest_pending(limit=500)
    progress = chat_import_progress(owner, result.chat_import.pk)
    assert progress is not None
    assert (progress.done, progress.waiting, progress.finished, progress.percent) == (
        400,
        0,
        True,
        100,
    )
    assert Receipt.objects.for_owner(owner).filter(subject="Garden diary 7").count() == 1


def test_progress_is_scoped_to_its_owner(owner: User, other_user: User) -> None:
    with (EXPORTS / "claude_conversations.json").open("rb") as stream:
        result = chat_import_store(
            owner=owner, stream=stream, name="c.json", fmt="claude", source="upload"
        )
    assert result.chat_import is not None
    assert chat_import_progress(other_user, result.chat_import.pk) is None
    assert chat_import_progress(owner, result.chat_import.pk) is not None


def test_after_deleting_all_memory_the_same_export_is_refused(owner: User) -> None:
    """A delete-all that keeps suppressions (the default) keeps the erased conversations'
    digests: the same export sent again is refused with a receipt that says why, and nothing
    of it is kept (``memory.services.erased``)."""
    from memory.services.erase import memory_erase_all

    ingest_json(EXPORTS / "claude_conversations.json")
    receipt = memory_erase_all(owner=owner)
    assert receipt.counts["chat_imports"] == 1
    assert not Transcript.objects.for_owner(owner).exists()
    ingest_json(EXPORTS / "claude_conversations.json")
    assert not Transcript.objects.for_owner(owner).filter(name="Moving to Lisbon").exists()
    refused = Receipt.objects.for_owner(owner).filter(subject="Moving to Lisbon").latest("pk")
    assert refused.outcome == "rejected_input"
    assert "erased" in refused.error


def test_after_a_fresh_start_the_same_export_imports_again(owner: User) -> None:
    """A delete-all that also removes suppressions is a fresh start: the same export reads
    again."""
    from memory.services.erase import memory_erase_all

    ingest_json(EXPORTS / "claude_conversations.json")
    memory_erase_all(owner=owner, keep_suppressions=False)
    assert not Transcript.objects.for_owner(owner).exists()
    ingest_json(EXPORTS / "claude_conversations.json")
    assert Transcript.objects.for_owner(owner).filter(name="Moving to Lisbon").exists()
