"""Episodes: every conversation that enters ume keeps its messages, in the save's transaction."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from importlib import import_module
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from memory.models import Episode, Outcome, Transcript
from memory.services.episodes import episodes_delete, episodes_record
from memory.services.ingest import ingest_messages, ingest_pending, ingest_text
from memory.services.uploads import transcript_upload_one
from memory.transcripts import Message, episode_rows
from tests.factories import make_user
from tests.faults import inside_the_ingest

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


# --- the pure part ---------------------------------------------------------------------------


def test_said_at_is_the_message_time_else_source_time_else_ingest_time() -> None:
    ts = datetime(2026, 1, 2, 9, 30, tzinfo=UTC)
    source = datetime(2026, 1, 1, tzinfo=UTC)
    messages = [Message("a", "user", "with a time", ts), Message("b", "assistant", "without")]
    rows = episode_rows(messages, source_time=source, now=NOW)
    assert [(r.message_id, r.said_at) for r in rows] == [("a", ts), ("b", source)]
    rows = episode_rows(messages, source_time=None, now=NOW)
    assert rows[1].said_at == NOW


def test_empty_messages_are_skipped_and_repeated_ids_stay_unique() -> None:
    messages = [
        Message("x", "user", "first"),
        Message("y", "assistant", "   "),
        Message("x", "user", "second with the same id"),
    ]
    rows = episode_rows(messages, source_time=None, now=NOW)
    assert [(r.message_id, r.seq, r.text) for r in rows] == [
        ("x", 0, "first"),
        ("x#2", 2, "second with the same id"),
    ]


# --- every door a conversation comes in by ----------------------------------------------------


def test_command_ingest_keeps_every_message(owner: User, tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(
        "User: I moved to Lisbon in March.\nAssistant: How is it going?\nUser: Loving it."
    )
    call_command("ingest", str(path), "--user", owner.username, "--source-time", "2026-03-20")
    rows = list(Episode.objects.for_owner(owner).order_by("seq"))
    assert [(e.message_id, e.role, e.text) for e in rows] == [
        ("M0", "user", "I moved to Lisbon in March."),
        ("M1", "assistant", "How is it going?"),
        ("M2", "user", "Loving it."),
    ]
    assert all(e.said_at.date().isoformat() == "2026-03-20" for e in rows)
    assert all(e.transcript.owner_id == owner.pk for e in rows)


def test_api_conversation_uses_message_times(owner: User) -> None:
    ts = "2026-02-14T18:00:00+00:00"
    receipt = ingest_messages(
        owner=owner,
        messages=[
            {"role": "user", "content": "Dinner with Ana at the harbour.", "ts": ts},
            {"role": "assistant", "content": "Sounds lovely."},
        ],
        name="api conversation",
        source="api",
        source_time=datetime(2026, 2, 15, tzinfo=UTC),
    )
    assert receipt.outcome in {Outcome.WROTE, Outcome.MEANINGFUL_NO_WRITE}
    first, second = Episode.objects.for_owner(owner).order_by("seq")
    assert first.said_at == datetime(2026, 2, 14, 18, tzinfo=UTC)
    assert second.said_at == datetime(2026, 2, 15, tzinfo=UTC)
    assert first.transcript_id == receipt.detail["transcript"]


def test_a_save_with_nothing_to_keep_still_keeps_what_was_said(owner: User) -> None:
    receipt = ingest_text(owner=owner, text="User: hm, ok\nAssistant: Sure.", name="chat")
    assert receipt.outcome == Outcome.MEANINGFUL_NO_WRITE
    assert Episode.objects.for_owner(owner).count() == 2


def test_upload_small_now_and_large_by_pending_worker(owner: User, settings: Settings) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 200
    small = transcript_upload_one(owner=owner, name="a.txt", data=b"User: I adopted a cat.")
    assert small.ok and Episode.objects.filter(transcript=small.transcript).count() == 1
    big_text = "User: " + "I walk along the river every evening. " * 10
    big = transcript_upload_one(owner=owner, name="b.txt", data=big_text.encode())
    assert big.waiting and not Episode.objects.filter(transcript=big.transcript).exists()
    ingest_pending(limit=5)
    assert Episode.objects.filter(transcript=big.transcript).count() == 1


def test_repeating_a_save_writes_no_second_copy(owner: User) -> None:
    ingest_text(owner=owner, text="User: I play chess on Sundays.", name="one")
    again = ingest_text(owner=owner, text="User: I play chess on Sundays.", name="one")
    assert again.outcome == Outcome.DUPLICATE
    assert Episode.objects.for_owner(owner).count() == 1
    transcript = Transcript.objects.for_owner(owner).get()
    messages = [Message("M0", "user", "I play chess on Sundays.")]
    assert episodes_record(transcript=transcript, messages=messages) == []
    assert Episode.objects.for_owner(owner).count() == 1


def test_a_failed_write_rolls_back_the_episodes_too(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom() -> None:
        raise RuntimeError("disk on fire")

    inside_the_ingest(monkeypatch, boom)
    receipt = ingest_text(owner=owner, text="User: I started boxing.", name="x")
    assert receipt.outcome == Outcome.DB_WRITE_FAILED
    assert not Episode.objects.exists()


# --- deleting ---------------------------------------------------------------------------------


def test_delete_is_scoped_to_the_owner_and_to_the_transcripts_given(
    owner: User, other_user: User
) -> None:
    ingest_text(owner=owner, text="User: mine one", name="1")
    ingest_text(owner=owner, text="User: mine two", name="2")
    ingest_text(owner=other_user, text="User: theirs", name="3")
    first = Transcript.objects.for_owner(owner).get(name="1")
    theirs = Transcript.objects.for_owner(other_user).get()
    assert episodes_delete(owner=owner, transcript_ids=[first.pk, theirs.pk]) == 1
    assert list(Episode.objects.for_owner(owner).values_list("text", flat=True)) == ["mine two"]
    assert Episode.objects.for_owner(other_user).count() == 1
    later = timezone.now() + timedelta(seconds=1)
    assert episodes_delete(owner=owner, before=later) == 1
    assert Episode.objects.for_owner(other_user).count() == 1


# --- the data migration -----------------------------------------------------------------------


def test_backfill_gives_existing_transcripts_their_episodes(owner: User) -> None:
    chat = Transcript.objects.create(
        owner=owner,
        name="old.txt",
        text="User: I used to live in Porto.\nAssistant: Nice city.",
        sha256="a" * 64,
        status="done",
        source_time=datetime(2025, 6, 1, tzinfo=UTC),
    )
    proposals_only = Transcript.objects.create(
        owner=owner, name="p", text=json.dumps({"objects": []}), sha256="b" * 64, status="done"
    )
    waiting = Transcript.objects.create(
        owner=owner, name="w", text="User: not yet", sha256="c" * 64, status="pending"
    )
    migration = import_module("memory.migrations.0021_episodes_backfill")
    migration.backfill(django_apps, None)
    migration.backfill(django_apps, None)  # running twice adds nothing
    rows = list(Episode.objects.filter(transcript=chat).order_by("seq"))
    assert [(e.role, e.text) for e in rows] == [
        ("user", "I used to live in Porto."),
        ("assistant", "Nice city."),
    ]
    assert rows[0].said_at == datetime(2025, 6, 1, tzinfo=UTC)
    assert not Episode.objects.filter(transcript__in=[proposals_only, waiting]).exists()


def test_another_person_is_untouched_by_a_save(owner: User) -> None:
    other = make_user("someone")
    ingest_text(owner=owner, text="User: I collect stamps.", name="s")
    assert not Episode.objects.for_owner(other).exists()


def test_http_api_conversation_keeps_episodes(client: Client, owner: User) -> None:
    from django.core.cache import cache

    from memory.services.tokens import token_create

    cache.clear()
    secret = token_create(owner=owner, name="tool")[1]
    body = {"messages": [{"role": "user", "content": "My sister Ines lives in Braga."}]}
    response = client.post(
        "/v1/conversations",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert response.status_code == 200, response.content
    episode = Episode.objects.for_owner(owner).get()
    assert episode.text == "My sister Ines lives in Braga." and episode.role == "user"
    assert episode.transcript.source == "api" and episode.transcript.owner_id == owner.pk


# --- cleanup: retention and orphans -------------------------------------------------------------


def test_retention_deletes_old_episodes_and_cleanup_sweeps_orphans(
    owner: User, other_user: User
) -> None:
    from memory.models import MemoryRule
    from memory.services.cleanup import cleanup_user

    ingest_text(owner=owner, text="User: I planted tulips by the gate.", name="old")
    ingest_text(owner=owner, text="User: The tulips came up purple.", name="new")
    ingest_text(owner=other_user, text="User: I planted tulips too.", name="theirs")
    old = Transcript.objects.for_owner(owner).get(name="old")
    long_ago = timezone.now() - timedelta(days=40)
    Episode.objects.filter(transcript=old).update(learned_at=long_ago)
    Transcript.objects.filter(pk=old.pk).update(created_at=long_ago)
    MemoryRule.objects.create(owner=owner, retention_days=30)

    dry = cleanup_user(owner=owner, dry_run=True)
    assert dry.counts["episodes_deleted"] == 1 and Episode.objects.for_owner(owner).count() == 2
    report = cleanup_user(owner=owner)
    assert report.counts["episodes_deleted"] == 1
    assert report.counts["transcripts_deleted"] == 1  # transcripts, not their episodes too
    assert list(Episode.objects.for_owner(owner).values_list("text", flat=True)) == [
        "The tulips came up purple."
    ]
    # a transcript that is no longer a finished save: its episodes are orphans
    new = Transcript.objects.for_owner(owner).get(name="new")
    Transcript.objects.filter(pk=new.pk).update(status="failed")
    report = cleanup_user(owner=owner)
    assert report.counts["orphan_episodes_deleted"] == 1
    assert not Episode.objects.for_owner(owner).exists()
    assert Episode.objects.for_owner(other_user).count() == 1  # never another person's


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_every_indexed_episode_its_stem_line(owner: User) -> None:
    """``0068_speed_recalldoc_words`` fills in the stem line of episodes indexed before it."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from memory.models import RecallDoc
    from memory.recall.text import stem_line

    ingest_text(owner=owner, text="User: I play chess on Sundays.\nAssistant: Nice!", name="c")
    RecallDoc.objects.filter(kind="episode").update(words="")  # as written before it
    executor = MigrationExecutor(connection)
    executor.migrate([("memory", "0067_receipt_chain")])
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([("memory", "0068_speed_recalldoc_words")])
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    texts = dict(Episode.objects.for_owner(owner).values_list("id", "text"))
    docs = dict(RecallDoc.objects.filter(kind="episode").values_list("ref_id", "words"))
    assert docs == {pk: stem_line(text) for pk, text in texts.items()} and len(docs) == 2


def test_what_the_person_asked_not_to_keep_is_no_episode_and_never_recalled(
    owner: User,
) -> None:
    from memory.recall import EpisodeItem, recall

    ingest_messages(
        owner=owner,
        messages=[
            {"role": "user", "content": "Off the record: my sister Maren is pregnant with twins."},
            {"role": "assistant", "content": "Twins for Maren, how exciting!"},
            {"role": "user", "content": "I'm thinking of quitting the orchestra."},
            {"role": "user", "content": "Scratch that, forget I said it."},
            {"role": "assistant", "content": "Consider it forgotten."},
            {"role": "user", "content": "We booked the ferry to Orkney for June."},
        ],
        name="chat",
        source="api",
    )
    kept = list(Episode.objects.for_owner(owner).order_by("seq").values_list("seq", "text"))
    # The aside and its echo, the retracted message and the retraction, and the reply to it.
    assert kept == [(5, "We booked the ferry to Orkney for June.")]
    for question in ("is Maren pregnant?", "am I quitting the orchestra?"):
        found = recall(owner, question).items
        assert not [i for i in found if isinstance(i, EpisodeItem)], question
    assert any(isinstance(i, EpisodeItem) for i in recall(owner, "when is the Orkney ferry").items)
