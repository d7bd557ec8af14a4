"""Exports left to the pending workers: the upload request only stores the file; a worker
splits it (claimed, resumable after a kill); bad JSON, huge first conversations and continued
conversations are handled there as when read at once."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from memory.models import ChatImport, ChatImportChunk, Episode, Receipt, Transcript
from memory.services import imports as import_services
from memory.services.imports import (
    chat_import_process,
    chat_import_store,
    chat_imports_read_pending,
)
from memory.services.ingest import ingest_pending
from tests.factories import make_user

pytestmark = pytest.mark.django_db
UPLOAD = reverse("review:upload")
EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


def claude_export(conversations: int, *, words: int, messages: int = 2) -> bytes:
    """``conversations`` Claude conversations; ``words`` sets each message's length."""
    return json.dumps(
        [
            {
                "uuid": f"conv-{i}",
                "name": f"Allotment diary {i}",
                "created_at": "2024-05-01T10:00:00Z",
                "chat_messages": [
                    {
                        "uuid": f"m{i}-{j}",
                        "sender": "human" if j % 2 == 0 else "assistant",
                        "text": f"Diary {i}.{j}: I planted broad beans. " + "mulch " * words,
                        "created_at": f"2024-05-01T10:{j:02d}:00Z",
                    }
                    for j in range(messages)
                ],
            }
            for i in range(conversations)
        ]
    ).encode()


def upload(client: Client, data: bytes, name: str = "conversations.json") -> Any:
    return client.post(
        UPLOAD, {"transcripts": [SimpleUploadedFile(name, data, "application/json")]}
    )


def test_the_upload_request_splits_nothing_and_a_worker_stores_the_same_rows(
    owner: User, settings: Settings
) -> None:
    """Two exports of about the same size, with 2 and 60 conversations: the requests make the
    same number of queries (one chunk insert; no transcript), then a worker stores what an
    upload read at once stores."""
    settings.UME_INLINE_UPLOAD_BYTES = 1000
    few, many = claude_export(2, words=1800), claude_export(60, words=30)
    assert abs(len(few) - len(many)) < len(many) // 4 and len(many) < 1024 * 1024
    counts, people = [], {}
    for person, data in (("few", few), ("many", many)):
        client = Client()
        people[person] = make_user(person)
        client.force_login(people[person])
        with CaptureQueriesContext(connection) as queries:
            response = upload(client, data)
        assert response.status_code == 200
        assert "processed by `manage.py ingest --pending`" in response.content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    assert not Transcript.objects.exists()
    assert ChatImportChunk.objects.count() == 2
    assert set(ChatImport.objects.values_list("state", flat=True)) == {"waiting"}

    results = chat_imports_read_pending()
    assert len(results) == 2 and not ChatImportChunk.objects.exists()  # read: bytes dropped
    ingest_pending(limit=100)
    worker = people["many"]
    # The same export read at once, for someone else: the same transcripts and receipts.
    inline = make_user("inline")
    result = chat_import_store(
        owner=inline,
        stream=io.BytesIO(many),
        name="conversations.json",
        fmt="claude",
        source="upload",
    )
    chat_import_process(result)

    def rows(person: User) -> tuple[Any, ...]:
        imported = ChatImport.objects.for_owner(person).get()
        return (
            sorted(
                Transcript.objects.for_owner(person).values_list("name", "status", "size_bytes")
            ),
            sorted(Receipt.objects.for_owner(person).values_list("subject", "outcome", "counts")),
            Episode.objects.for_owner(person).count(),
            (imported.state, imported.conversations, imported.stored, imported.position),
        )

    assert rows(worker) == rows(inline)
    assert rows(worker)[3] == ("read", 60, 60, 60)


class Killed(BaseException):
    """A worker dying mid-reading (not an error the reading could record)."""


def test_a_reading_killed_midway_is_resumed_by_another_worker(
    owner: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    client = Client()
    client.force_login(owner)
    upload(client, claude_export(8, words=5))
    row = ChatImport.objects.for_owner(owner).get()
    real = import_services._Reading.conversation

    def dies_at_the_fourth(self: Any, position: int, item: Any, result: Any) -> None:
        if position == 3:
            raise Killed
        real(self, position, item, result)

    monkeypatch.setattr(import_services._Reading, "conversation", dies_at_the_fourth)
    with pytest.raises(Killed):
        chat_imports_read_pending()
    monkeypatch.setattr(import_services._Reading, "conversation", real)
    row.refresh_from_db()
    assert (row.state, row.position, row.stored) == ("reading", 3, 3)
    assert chat_imports_read_pending() == []  # its claim still holds: nobody takes it over
    ChatImport.objects.filter(pk=row.pk).update(claimed_at=timezone.now() - timedelta(hours=1))
    (result,) = chat_imports_read_pending()
    row.refresh_from_db()
    assert (row.state, row.position, row.conversations, row.stored, row.duplicates) == (
        "read",
        8,
        8,
        8,
        0,
    )
    assert row.attempts == 2 and result.ok
    names = list(Transcript.objects.for_owner(owner).values_list("name", flat=True))
    assert sorted(names) == sorted(f"Allotment diary {i}" for i in range(8))


def deeply_nested(depth: int = 200_000) -> bytes:
    good = json.loads((EXPORTS / "claude_conversations.json").read_text())[1]
    nested = '{"uuid": "deep", "chat_messages": [' + "[" * depth + "]" * depth + "]}"
    return ("[" + json.dumps(good) + ", " + nested + "]").encode()


def ingest_json(path: Path) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("ingest", str(path), user="owner", json=True, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_deeply_nested_json_is_malformed_with_a_receipt_and_can_be_retried(
    owner: User, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(deeply_nested())
    lines = ingest_json(path)
    failed = [line for line in lines if line["outcome"] == "rejected_input"]
    assert len(failed) == 1 and "nested too deeply" in failed[0]["error"]
    row = ChatImport.objects.for_owner(owner).get()
    assert (row.state, row.stored, row.position) == ("failed", 1, 1)
    # Again: not "already imported" but read again from where it stopped, with a receipt.
    again = ingest_json(path)
    assert [line["outcome"] for line in again] == ["rejected_input"]
    assert "already imported" not in again[0]["summary"]
    row.refresh_from_db()
    assert (row.state, row.stored, row.duplicates) == ("failed", 1, 0)
    assert Transcript.objects.for_owner(owner).count() == 1


def test_deeply_nested_json_uploaded_is_read_by_a_worker_with_a_receipt(
    client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 1000
    owner_client = client
    owner_client.force_login(owner)
    response = upload(owner_client, deeply_nested())
    assert response.status_code == 200
    chat_imports_read_pending()
    receipt = Receipt.objects.for_owner(owner).get(outcome="rejected_input")
    assert "nested too deeply" in receipt.error
    assert ChatImport.objects.for_owner(owner).get().state == "failed"
    assert "already imported" not in upload(owner_client, deeply_nested()).content.decode()
    assert ChatImport.objects.for_owner(owner).get().state == "waiting"  # queued to be read again


@pytest.mark.parametrize("words", [600, 5000])  # over the limit; over four times the limit
def test_a_first_conversation_over_the_limit_fails_alone(
    owner: User, tmp_path: Path, settings: Settings, words: int
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 3000
    big = json.loads(claude_export(1, words=words))[0]
    big["name"] = "Too long"
    small = json.loads(claude_export(1, words=3))[0]
    small["uuid"] = "small"
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([big, small]))
    lines = ingest_json(path)
    outcomes = sorted(line["outcome"] for line in lines)
    assert len(lines) == 2 and "rejected_input" in outcomes, lines
    broken = Receipt.objects.for_owner(owner).get(outcome="rejected_input")
    assert "conversation 1" in broken.error and "bytes" in broken.error
    row = ChatImport.objects.for_owner(owner).get()
    assert (row.conversations, row.stored, row.broken, row.state) == (2, 1, 1, "read")


def test_a_continued_conversation_stores_only_its_new_messages(owner: User, tmp_path: Path) -> None:
    first = tmp_path / "conversations.json"
    first.write_bytes(claude_export(1, words=3, messages=4))
    ingest_json(first)
    newer = tmp_path / "newer.json"
    newer.write_bytes(claude_export(1, words=3, messages=7))
    lines = ingest_json(newer)
    assert [line["outcome"] for line in lines] != ["duplicate"]
    transcripts = Transcript.objects.for_owner(owner).order_by("pk")
    assert transcripts.count() == 2
    added = json.loads(transcripts.last().text)["messages"]  # type: ignore[union-attr]
    assert [m["id"] for m in added] == ["m0-4", "m0-5", "m0-6"]
    ids = list(Episode.objects.for_owner(owner).values_list("message_id", flat=True))
    assert sorted(ids) == sorted(f"m0-{j}" for j in range(7))  # one episode per message
    # the same export once more: nothing new at all
    again = tmp_path / "again.json"
    again.write_bytes(claude_export(1, words=3, messages=7) + b" ")
    ingest_json(again)
    assert Transcript.objects.for_owner(owner).count() == 2
    assert ChatImport.objects.for_owner(owner).get(name="again.json").duplicates == 1
