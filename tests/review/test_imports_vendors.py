"""Claude's memories and Gemini's Takeout on the upload page: recognised by their content,
imported at once (memories: as guesses in the review queue), a duplicate the second time,
bad files refused with a message, and each person's import their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from memory.models import Candidate, ChatImport, Node, Receipt, Transcript
from tests.factories import make_suppression

pytestmark = pytest.mark.django_db
UPLOAD = reverse("review:upload")
QUEUE = reverse("review:queue")
EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"


def upload(name: str, as_name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(as_name, (EXPORTS / name).read_bytes(), "application/json")


def test_memories_become_guesses_in_the_queue_with_their_source(
    owner_client: Client, owner: User
) -> None:
    make_suppression(owner=owner, label="Obsidian")
    response = owner_client.post(
        UPLOAD, {"transcripts": [upload("claude_memories.json", "memories.json")]}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Claude&#x27;s memories: 8 statements from 3 memory texts" in html
    assert "1 refused" in html
    assert not Node.objects.for_owner(owner).exists()
    assert not Candidate.objects.for_owner(owner).filter(label_guess="Obsidian").exists()
    queue = owner_client.get(QUEUE).content.decode()
    assert "Supabase" in queue
    # the card names the file and the section its quote came from
    assert "Claude&#x27;s memories (memories.json)" in queue
    assert "project:5f1d2c3b-0a9e-4c7d-8b6a-1e2f3a4b5c6d:2" in queue
    assert "I use Supabase for the database." in queue


def test_memories_over_the_inline_size_are_still_read_at_once(
    owner_client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    owner_client.post(UPLOAD, {"transcripts": [upload("claude_memories.json", "memories.json")]})
    row = ChatImport.objects.for_owner(owner).get()
    assert row.state == "read" and not row.chunks.exists()
    assert Candidate.objects.for_owner(owner).filter(label_guess="Django").exists()


def test_reuploading_memories_is_a_duplicate(owner_client: Client, owner: User) -> None:
    owner_client.post(UPLOAD, {"transcripts": [upload("claude_memories.json", "memories.json")]})
    candidates = Candidate.objects.count()
    html = owner_client.post(
        UPLOAD, {"transcripts": [upload("claude_memories.json", "memories.json")]}
    ).content.decode()
    assert "already imported" in html
    assert Candidate.objects.count() == candidates
    assert Receipt.objects.for_owner(owner).filter(outcome="duplicate").count() == 1


def test_a_gemini_takeout_is_split_into_conversations(owner_client: Client, owner: User) -> None:
    html = owner_client.post(
        UPLOAD, {"transcripts": [upload("gemini_my_activity.json", "MyActivity.json")]}
    ).content.decode()
    assert "Gemini Takeout: 2 conversations; 2 new" in html
    assert "2 messages skipped (activity 2)" in html and "1 attachments not read" in html
    row = ChatImport.objects.for_owner(owner).get()
    assert set(row.transcripts.values_list("status", flat=True)) == {"done"}
    again = owner_client.post(
        UPLOAD, {"transcripts": [upload("gemini_my_activity.json", "MyActivity.json")]}
    ).content.decode()
    assert "already imported" in again and Transcript.objects.count() == 2


def test_a_large_takeout_waits_for_the_workers(
    owner_client: Client, owner: User, settings: Settings
) -> None:
    from memory.services.ingest import ingest_pending

    settings.UME_INLINE_UPLOAD_BYTES = 100
    owner_client.post(UPLOAD, {"transcripts": [upload("gemini_my_activity.json", "x.json")]})
    row = ChatImport.objects.for_owner(owner).get()
    assert row.state == "waiting" and not row.transcripts.exists()
    ingest_pending(limit=10)
    row.refresh_from_db()
    assert (row.state, row.stored) == ("read", 2)
    assert set(row.transcripts.values_list("status", flat=True)) == {"done"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (b"[" + json.dumps({"conversations_memory": "I use Django."}).encode(), "malformed JSON"),
        (
            b'{"header": "Gemini Apps", "title": "Prompted hi", "time": "2025"}',
            "expected a JSON list",
        ),
    ],
)
def test_bad_files_are_refused_with_a_message(
    owner_client: Client, owner: User, data: bytes, message: str
) -> None:
    html = owner_client.post(
        UPLOAD, {"transcripts": [SimpleUploadedFile("memories.json", data, "application/json")]}
    ).content.decode()
    assert message in html
    assert not Transcript.objects.exists() and not Candidate.objects.exists()
    assert Receipt.objects.for_owner(owner).get().outcome == "rejected_input"


def test_another_person_sees_neither_the_import_nor_its_guesses(
    owner_client: Client, owner: User, other_user: User
) -> None:
    owner_client.post(UPLOAD, {"transcripts": [upload("claude_memories.json", "memories.json")]})
    row = ChatImport.objects.for_owner(owner).get()
    other = Client()
    other.force_login(other_user)
    assert "Supabase" not in other.get(QUEUE).content.decode()
    assert other.get(reverse("review:import-progress", args=[row.pk])).status_code == 404
