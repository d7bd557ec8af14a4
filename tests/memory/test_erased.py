"""What a delete-all erased stays erased: the same conversation sent again (the same file, an
old export) is refused and not kept; a new conversation is read as new."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from memory.models import Candidate, ErasedConversation, Transcript
from memory.services.erase import memory_erase_all
from memory.services.erased import conversation_digests
from memory.services.imports import chat_import_process, chat_import_store
from memory.services.ingest import ingest_text
from memory.transcripts import Message

pytestmark = pytest.mark.django_db

SAID = "User: My sister Ana is moving to Porto.\nAssistant: Noted.\n"


def cards(owner: User) -> list[str]:
    return list(
        Candidate.objects.for_owner(owner)
        .filter(status="pending")
        .values_list("label_guess", flat=True)
    )


def test_the_same_conversation_after_a_delete_all_is_refused_and_not_kept(owner: User) -> None:
    ingest_text(owner=owner, text=SAID, name="first")
    assert cards(owner) == ["Ana"]
    memory_erase_all(owner=owner)
    assert ErasedConversation.objects.for_owner(owner).count() == 1
    again = ingest_text(owner=owner, text=SAID, name="first, sent again")
    assert again.outcome == "rejected_input" and "erased" in again.error
    assert cards(owner) == [] and not Transcript.objects.for_owner(owner).exists()


def test_an_old_export_holding_it_is_refused(owner: User) -> None:
    ingest_text(owner=owner, text=SAID, name="first")
    memory_erase_all(owner=owner)
    export = [
        {
            "uuid": "c1",
            "name": "Catching up",
            "created_at": "2026-01-05T09:00:00Z",
            "chat_messages": [
                {"uuid": "m1", "sender": "human", "text": "My sister Ana is moving to Porto."},
                {"uuid": "m2", "sender": "assistant", "text": "Noted."},
            ],
        }
    ]
    stored = chat_import_store(
        owner=owner,
        stream=io.BytesIO(json.dumps(export).encode()),
        name="conversations.json",
        fmt="claude",
        source="upload",
    )
    chat_import_process(stored)
    assert cards(owner) == []


def test_a_new_conversation_after_a_delete_all_is_read(owner: User) -> None:
    ingest_text(owner=owner, text=SAID, name="first")
    memory_erase_all(owner=owner)
    ingest_text(owner=owner, text="User: Quick update.\n" + SAID, name="a new chat")
    assert cards(owner) == ["Ana"]


def test_a_delete_all_that_removes_suppressions_removes_these_too(owner: User) -> None:
    ingest_text(owner=owner, text=SAID, name="first")
    memory_erase_all(owner=owner)
    memory_erase_all(owner=owner, keep_suppressions=False)
    assert not ErasedConversation.objects.for_owner(owner).exists()
    assert ingest_text(owner=owner, text=SAID, name="again").outcome == "wrote"


def test_the_digest_is_keyed_and_keeps_no_words() -> None:
    messages = [Message(id="1", role="user", content="My sister  Ana is moving to Porto.")]
    (digest,) = conversation_digests(messages)
    assert len(digest) == 64 and "ana" not in digest.lower()
    same = [Message(id="9", role="user", content="My sister Ana is moving to Porto.")]
    assert conversation_digests(same) == [digest]  # ids and spacing do not count
    with override_settings(SECRET_KEY="another-key-" * 4, SECRET_KEY_FALLBACKS=[]):
        assert conversation_digests(messages) != [digest]
    assert conversation_digests([Message(id="1", role="user", content="  ")]) == []
