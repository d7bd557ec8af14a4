"""An import's conversations processed in groups, one transaction each
(``memory.services.ingest.process_group``): what a group costs in queries, and that one
conversation failing inside a group fails alone (its receipt says so; the others land whole,
and nothing of the failing one is half written)."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.imports.formats import CHATGPT
from memory.models import Episode, Outcome, RecallDoc, Receipt, Transcript
from memory.services.barrier import barrier_hold
from memory.services.imports import ImportResult, chat_import_process, chat_import_store
from memory.services.ingest import Run, process_group, process_now
from memory.vocab import TranscriptStatus
from tests.memory.imports.test_import_rows import _conversation


def _import(owner: Any, conversations: list[dict[str, Any]]) -> ImportResult:
    result = chat_import_store(
        owner=owner,
        stream=io.BytesIO(json.dumps(conversations).encode()),
        name="conversations.json",
        fmt=CHATGPT,
        source="command",
    )
    assert len(result.transcript_ids) == len(conversations)
    return result


def _transcripts(result: ImportResult) -> list[Transcript]:
    rows = Transcript.objects.select_related("owner").in_bulk(result.transcript_ids)
    return [rows[pk] for pk in result.transcript_ids]


def _group_queries(owner: Any, size: int, turns: int = 2) -> int:
    transcripts = _transcripts(_import(owner, [_conversation(n, turns) for n in range(size)]))
    with CaptureQueriesContext(connection) as ctx:
        receipts = process_group(transcripts)
    assert [r.outcome for r in receipts] == [Outcome.WROTE] + [Outcome.WROTE] * (size - 1)
    return len(ctx.captured_queries)


def test_a_group_costs_a_fixed_part_and_the_same_queries_per_conversation(
    owner: Any, other_user: Any, User: Any
) -> None:
    # Every conversation says the same: the first only mentions a place, the second makes it
    # a card (said again in another conversation), and each one after adds to that card. So
    # the second costs what the others do and the card more; from the third on, each the same.
    one = _group_queries(owner, 1)
    three = _group_queries(other_user, 3)
    four = _group_queries(User.objects.create_user("fourth"), 4)
    six = _group_queries(User.objects.create_user("third"), 6, turns=40)
    per_conversation = four - three
    # longer conversations, more of them: the same queries each
    assert six == four + 2 * per_conversation
    second = three - one - per_conversation
    assert (one - per_conversation, per_conversation, second) == PINNED_GROUP_QUERIES


def _poison_episodes() -> None:
    """Make the database itself refuse an episode whose text says POISON (a trigger): a real
    database error in the middle of a group, no code of ours replaced."""
    table = connection.ops.quote_name(Episode._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE FUNCTION test_poison() RETURNS trigger AS $$ BEGIN "
                "IF NEW.text LIKE '%%POISON%%' THEN RAISE EXCEPTION 'poisoned episode'; END IF; "
                "RETURN NEW; END $$ LANGUAGE plpgsql"
            )
            cursor.execute(
                f"CREATE TRIGGER test_poison BEFORE INSERT ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION test_poison()"
            )
        else:
            cursor.execute(
                f"CREATE TRIGGER test_poison BEFORE INSERT ON {table} "
                "WHEN NEW.text LIKE '%POISON%' BEGIN SELECT RAISE(ABORT, 'poisoned episode'); END"
            )


def _poisoned(n: int) -> dict[str, Any]:
    conversation = _conversation(n, 2)
    message = conversation["mapping"][f"c{n}-m1"]["message"]
    message["content"]["parts"] = ["POISON: the database refuses this one."]
    return conversation


def test_a_database_error_in_one_conversation_fails_it_alone(
    owner: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="memory.services.ingest")
    result = _import(owner, [_conversation(0, 2), _poisoned(1), _conversation(2, 2)])
    _poison_episodes()
    receipts = chat_import_process(result)
    assert "a group of 3 transcripts rolled back" in caplog.text
    assert [r.outcome for r in receipts] == [
        Outcome.WROTE,
        Outcome.DB_WRITE_FAILED,
        Outcome.WROTE,
    ]
    # SQLite's trigger aborts as a constraint (retried, then given up), PostgreSQL's raises
    assert "poisoned episode" in receipts[1].error
    first, poisoned, last = _transcripts(result)
    assert [first.status, poisoned.status, last.status] == [
        TranscriptStatus.DONE,
        TranscriptStatus.FAILED,
        TranscriptStatus.DONE,
    ]
    # the others whole, with their index; nothing of the failing one
    by_transcript = {
        t.pk: Episode.objects.filter(transcript=t).count() for t in (first, poisoned, last)
    }
    assert by_transcript == {first.pk: 4, poisoned.pk: 0, last.pk: 4}
    episodes = set(Episode.objects.for_owner(owner).values_list("id", flat=True))
    docs = set(
        RecallDoc.objects.for_owner(owner).filter(kind="episode").values_list("ref_id", flat=True)
    )
    assert docs == episodes
    # one receipt each, the failing one's recorded after its rollback
    assert Receipt.objects.for_owner(owner).count() == 3
    assert poisoned.receipt_id == receipts[1].pk


def test_a_conversation_that_cannot_be_read_fails_alone_in_its_group(
    owner: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="memory.services.ingest")
    result = _import(owner, [_conversation(0, 2), _conversation(1, 2)])
    broken = Transcript.objects.create(
        owner=owner,
        name="broken.json",
        text="{not json",
        sha256="0" * 64,
        source="command",
        size_bytes=9,
    )
    result.transcript_ids.insert(1, broken.pk)
    receipts = chat_import_process(result)
    assert [r.outcome for r in receipts] == [
        Outcome.WROTE,
        Outcome.REJECTED_INPUT,
        Outcome.WROTE,
    ]
    assert "malformed JSON" in receipts[1].error
    broken.refresh_from_db()
    assert broken.status == TranscriptStatus.FAILED
    assert Episode.objects.for_owner(owner).count() == 8
    # a receipt of its own inside the group: the group was not rolled back and replayed
    assert "rolled back" not in caplog.text


def test_a_delete_all_requested_refuses_every_conversation_of_the_group(owner: Any) -> None:
    result = _import(owner, [_conversation(n, 2) for n in range(3)])
    barrier_hold(owner, at=timezone.now())
    receipts = chat_import_process(result)
    assert [r.outcome for r in receipts] == [Outcome.DELETION_CONFLICT] * 3
    assert not Episode.objects.for_owner(owner).exists()
    assert {t.status for t in _transcripts(result)} == {TranscriptStatus.FAILED}


def test_a_conversation_already_processed_is_a_duplicate_and_the_others_land(
    owner: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="memory.services.ingest")
    result = _import(owner, [_conversation(n, 2) for n in range(3)])
    done = _transcripts(result)[1]
    first = process_now(Run.begin(owner, done.source), done)
    receipts = chat_import_process(result)
    # it cannot be claimed inside the group: the group is processed one by one
    assert "is not free to claim" in caplog.text
    assert [r.outcome for r in receipts] == [Outcome.WROTE, Outcome.DUPLICATE, Outcome.WROTE]
    assert receipts[1].detail["original_receipt"] == first.pk
    assert Episode.objects.for_owner(owner).count() == 12


@pytest.mark.parametrize("size", [1, 2])
def test_receipts_come_in_order_whatever_the_group(owner: Any, size: int) -> None:
    result = _import(owner, [_conversation(n, 2) for n in range(size)])
    receipts = chat_import_process(result)
    assert [r.subject for r in receipts] == [f"Chat {n}" for n in range(size)]
    assert [r.pk for r in receipts] == sorted(r.pk for r in receipts)


# (queries of the group whatever its size, queries per conversation, the second
# conversation's, which makes the card): the barrier locked, the episodes read back and
# indexed once a group; each conversation claimed, read, gated, applied and receipted on its
# own. (21, 18) while a place said in a sentence a rule read was never a card of its own;
# since, a conversation adds to two cards (the sister, the place), four queries more.
PINNED_GROUP_QUERIES = (21, 22, 23)
