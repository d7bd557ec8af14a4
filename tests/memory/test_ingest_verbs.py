"""The one ingest surface (memory/services/ingest.py): a frozen run, then the two verbs,
store and process (now, or deferred to the workers); and the checks of an uploaded file
before anything is stored (memory/services/saves.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from memory.models import Outcome, Receipt, Transcript
from memory.services.ingest import Run, ingest_pending, process, store
from memory.services.saves import INVALID_INPUT, TOO_LARGE, SaveRefused, file_checked
from memory.vocab import TranscriptStatus

pytestmark = pytest.mark.django_db

CHAT = "User: I started learning the cello in March.\nAssistant: Lovely.\n"


def test_a_run_is_frozen_and_takes_the_deployments_extractor_unless_named(
    owner: User, settings: Settings
) -> None:
    settings.UME_DEFAULT_EXTRACTOR = "rules"
    run = Run.begin(owner, "api")
    assert (run.owner, run.source, run.extractor, run.token) == (owner, "api", "rules", None)
    assert Run.begin(owner, extractor="proposals").extractor == "proposals"
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.source = "mcp"  # type: ignore[misc]


def test_store_keeps_a_text_once_and_says_whose_it_is_to_process(owner: User) -> None:
    run = Run.begin(owner, "upload")
    first = store(run, CHAT, name="cello.txt")
    assert first.created and first.ours
    assert (first.transcript.source, first.transcript.inline) == ("upload", True)
    again = store(run, CHAT, name="cello again.txt")
    assert again.transcript.pk == first.transcript.pk and not again.created
    # Stored by a save that has not finished: an orphan is the next save's to process.
    assert again.ours
    receipt = process(run, first.transcript)
    assert receipt.outcome == Outcome.WROTE
    done = store(run, CHAT, name="cello a third time.txt")
    assert (done.created, done.ours) == (False, False)
    assert Transcript.objects.for_owner(owner).count() == 1


def test_the_same_text_is_stored_apart_under_another_key_and_for_another_owner(
    owner: User, other_user: User
) -> None:
    a = store(Run.begin(owner), CHAT, name="a", dedupe_key="2026-12-01")
    b = store(Run.begin(owner), CHAT, name="b", dedupe_key="2026-12-02")
    c = store(Run.begin(other_user), CHAT, name="c", dedupe_key="2026-12-01")
    assert len({a.transcript.pk, b.transcript.pk, c.transcript.pk}) == 3
    assert c.transcript.owner == other_user


def test_process_now_leaves_one_receipt_of_the_runs_door_and_token(owner: User) -> None:
    run = Run.begin(owner, "mcp", extractor="rules")
    stored = store(run, CHAT, name="cello.txt")
    receipt = process(run, stored.transcript)
    assert isinstance(receipt, Receipt)
    assert (receipt.source, receipt.extractor, receipt.owner) == ("mcp", "rules", owner)
    stored.transcript.refresh_from_db()
    assert stored.transcript.status == TranscriptStatus.DONE
    # Processed again: the same content is a duplicate, never written twice.
    assert process(run, stored.transcript).outcome == Outcome.DUPLICATE
    assert Receipt.objects.for_owner(owner).count() == 2


def test_deferring_hands_the_transcript_to_the_workers_who_process_it(owner: User) -> None:
    run = Run.begin(owner, "api")
    stored = store(run, CHAT, name="cello.txt")
    queued = process(run, stored.transcript, defer=True)
    assert isinstance(queued, Transcript)
    assert (queued.inline, queued.status) == (False, TranscriptStatus.PENDING)
    assert not Receipt.objects.for_owner(owner).exists()
    receipts = ingest_pending()
    assert [r.outcome for r in receipts] == [Outcome.WROTE]
    assert receipts[0].source == "api"


def test_an_inline_transcript_is_never_the_workers_until_it_is_deferred(owner: User) -> None:
    store(Run.begin(owner, "api"), CHAT, name="cello.txt")
    assert ingest_pending() == []


def test_an_imports_conversation_stored_not_inline_is_the_workers(owner: User) -> None:
    text = json.dumps({"messages": [{"role": "user", "content": CHAT.splitlines()[0][6:]}]})
    store(Run.begin(owner, "upload"), text, name="chat 1", inline=False)
    assert [r.outcome for r in ingest_pending()] == [Outcome.WROTE]


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (b"", INVALID_INPUT, "the file is empty"),
        (b"  \n\t ", INVALID_INPUT, "the file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", INVALID_INPUT, "binary"),
        (b"caf\xe9", INVALID_INPUT, "not valid UTF-8"),
        (b'[{"role": "user"', INVALID_INPUT, "malformed JSON"),
        (b"x" * 2001, TOO_LARGE, "over the limit of 2,000 bytes"),
    ],
)
def test_a_file_that_is_no_transcript_is_refused_with_its_reason(
    settings: Settings, data: bytes, code: str, words: str
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 2000
    with pytest.raises(SaveRefused) as refused:
        file_checked(data, "notes.txt")
    assert refused.value.code == code
    assert words in str(refused.value) and "notes.txt" in str(refused.value)


def test_a_file_of_messages_is_read_as_text() -> None:
    assert file_checked(("\ufeff" + CHAT).encode(), "cello.txt") == CHAT
