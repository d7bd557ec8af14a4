"""The receipts chain: every receipt hashed and linked, quiet edits found, deletions
checkpointed, the command's report and exit status (docs/architecture.md, "Receipts chain")."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.utils import timezone

from memory.models import Outcome, Receipt, ReceiptChain, ReceiptCheckpoint, Source
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_memory
from memory.services.receipt_chain import (
    CHECKPOINT_BAD,
    CONTENT_CHANGED,
    HEAD_CHANGED,
    MISSING,
    REORDERED,
    chain_verify,
    chain_verify_new,
)

pytestmark = pytest.mark.django_db


def receipt(owner: Any, n: int, **fields: Any) -> Receipt:
    values: dict[str, Any] = {
        "source": Source.API,
        "outcome": Outcome.WROTE,
        "subject": f"save {n}",
        "counts": {"slices": n},
        "detail": {"n": n, "words": ["a", "b"]},
        "summary": f"saved {n}",
    }
    values.update(fields)
    return Receipt.objects.create(owner=owner, **values)


def several(owner: Any, n: int = 4) -> list[Receipt]:
    return [receipt(owner, i) for i in range(1, n + 1)]


def test_receipts_are_chained_in_order_and_verify(owner: Any, other_user: Any) -> None:
    made = several(owner)
    theirs = receipt(other_user, 9)
    assert [r.seq for r in made] == [1, 2, 3, 4]
    assert made[0].prev_hash == ""
    assert all(b.prev_hash == a.content_hash for a, b in zip(made, made[1:], strict=False))
    stored = Receipt.objects.get(pk=made[2].pk)
    assert (stored.seq, stored.prev_hash, stored.content_hash) == (
        3,
        made[1].content_hash,
        made[2].content_hash,
    )
    assert theirs.seq == 1  # chains are per owner
    head = ReceiptChain.objects.for_owner(owner).get()
    assert (head.seq, head.head) == (4, made[-1].content_hash)
    report = chain_verify(owner)
    assert report.intact and report.receipts == 4 and report.last_seq == 4


TAMPER = [
    ("source", Source.UPLOAD),
    ("outcome", Outcome.DUPLICATE),
    ("extractor", "llm"),
    ("subject", "something else"),
    ("counts", {"slices": 99}),
    ("rejected", [{"reason": "made up"}]),
    ("reasons", {"made up": 1}),
    ("detail", {"n": 2, "words": ["a"]}),
    ("summary", "nothing happened"),
    ("error", "an error"),
    ("duration_ms", 12345),
    ("created_at", timezone.now() - timedelta(days=400)),
]


@pytest.mark.parametrize(("name", "value"), TAMPER, ids=[t[0] for t in TAMPER])
def test_an_update_of_any_hashed_field_is_found(owner: Any, name: str, value: Any) -> None:
    made = several(owner)
    Receipt.objects.filter(pk=made[1].pk).update(**{name: value})
    report = chain_verify(owner)
    assert (report.problem, report.seq, report.receipt_id) == (CONTENT_CHANGED, 2, made[1].pk)


def test_changing_owner_or_token_is_found(owner: Any, other_user: Any) -> None:
    from memory.models import AccessToken

    token = AccessToken.objects.create(owner=owner, name="t")
    made = several(owner)
    Receipt.objects.filter(pk=made[2].pk).update(token=token)
    assert chain_verify(owner).problem == CONTENT_CHANGED
    Receipt.objects.filter(pk=made[2].pk).update(token=None, owner=other_user)
    report = chain_verify(owner)
    assert (report.problem, report.seq) == (MISSING, 3)  # gone from this owner's chain
    assert not chain_verify(other_user).intact


@pytest.mark.parametrize("column", ["subject", "summary", "duration_ms", "seq", "prev_hash"])
def test_raw_sql_edits_are_found(owner: Any, column: str) -> None:
    made = several(owner)
    value: Any = {"subject": "x", "summary": "y", "duration_ms": 7, "seq": 40, "prev_hash": "0"}[
        column
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE receipts_receipt SET {column} = %s WHERE id = %s", [value, made[1].pk]
        )
    report = chain_verify(owner)
    assert not report.intact
    assert report.problem in (CONTENT_CHANGED, MISSING, REORDERED)
    assert report.seq in (2, 3)


def test_a_rehashed_receipt_breaks_the_link_after_it(owner: Any) -> None:
    from memory import receipt_chain

    made = several(owner)
    row = Receipt.objects.get(pk=made[1].pk)
    row.summary = "rewritten"
    new = receipt_chain.link(row.prev_hash, 2, receipt_chain.digest(row.chain_values()))
    Receipt.objects.filter(pk=row.pk).update(summary="rewritten", content_hash=new)
    report = chain_verify(owner)
    assert (report.problem, report.seq) == (REORDERED, 3)


def test_deleting_one_receipt_quietly_is_found(owner: Any) -> None:
    made = several(owner)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM receipts_receipt WHERE id = %s", [made[1].pk])
    report = chain_verify(owner)
    assert (report.problem, report.seq, report.receipt_id) == (MISSING, 2, made[2].pk)


def test_deleting_the_last_receipt_quietly_is_found(owner: Any) -> None:
    made = several(owner)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM receipts_receipt WHERE id = %s", [made[-1].pk])
    report = chain_verify(owner)
    assert (report.problem, report.seq) == (MISSING, 4)


def test_swapping_two_receipts_contents_or_places_is_found(owner: Any) -> None:
    made = several(owner)
    a, b = made[1], made[2]
    Receipt.objects.filter(pk=a.pk).update(subject=b.subject, summary=b.summary)
    Receipt.objects.filter(pk=b.pk).update(subject=a.subject, summary=a.summary)
    assert chain_verify(owner).problem == CONTENT_CHANGED
    Receipt.objects.filter(pk=a.pk).update(subject=a.subject, summary=a.summary)
    Receipt.objects.filter(pk=b.pk).update(subject=b.subject, summary=b.summary)
    assert chain_verify(owner).intact
    # Their places swapped, hashes and all.
    Receipt.objects.filter(pk=a.pk).update(seq=None)
    Receipt.objects.filter(pk=b.pk).update(seq=2, prev_hash=a.prev_hash)
    Receipt.objects.filter(pk=a.pk).update(seq=3, prev_hash=b.content_hash)
    report = chain_verify(owner)
    assert not report.intact and report.seq == 2


def test_a_deletion_leaves_a_signed_checkpoint_and_the_chain_verifies(owner: Any) -> None:
    made = several(owner, 6)
    Receipt.objects.filter(pk__in=[made[0].pk, made[1].pk, made[3].pk]).delete()
    made[4].delete()
    points = list(ReceiptCheckpoint.objects.for_owner(owner).order_by("id"))
    assert [p.removed for p in points] == [3, 1]
    assert points[0].runs == [[1, 2, made[1].content_hash], [4, 4, made[3].content_hash]]
    assert chain_verify(owner).intact
    receipt(owner, 7)
    report = chain_verify(owner)
    assert report.intact and report.receipts == 3


def test_a_forged_checkpoint_is_found(owner: Any) -> None:
    made = several(owner)
    Receipt.objects.filter(pk=made[1].pk).delete()
    point = ReceiptCheckpoint.objects.for_owner(owner).get()
    ReceiptCheckpoint.objects.filter(pk=point.pk).update(removed=5)
    report = chain_verify(owner)
    assert (report.problem, report.checkpoint_id) == (CHECKPOINT_BAD, point.pk)
    # A checkpoint made up to cover a quiet deletion does not pass either.
    ReceiptCheckpoint.objects.filter(pk=point.pk).update(removed=1)
    assert chain_verify(owner).intact
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM receipts_receipt WHERE id = %s", [made[2].pk])
    ReceiptCheckpoint.objects.create(
        owner=owner, removed=1, runs=[[3, 3, made[2].content_hash]], signature="0" * 64
    )
    assert chain_verify(owner).problem == CHECKPOINT_BAD


def test_delete_all_leaves_a_chain_that_verifies(owner: Any) -> None:
    ingest_memory(owner=owner, text="I play the piano on Sundays.", source=Source.API)
    several(owner, 3)
    erased = memory_erase_all(owner=owner)
    assert Receipt.objects.for_owner(owner).count() == 1  # the delete-all's own receipt
    assert erased.seq == 5 and erased.prev_hash
    assert ReceiptCheckpoint.objects.for_owner(owner).exists()
    assert chain_verify(owner).intact
    ingest_memory(owner=owner, text="I run on Mondays.", source=Source.API)
    assert chain_verify(owner).intact


def test_ingest_fill_in_and_undo_keep_the_chain_whole(owner: Any) -> None:
    first = ingest_memory(owner=owner, text="I play the piano on Sundays.", source=Source.API)
    receipt(owner, 2)
    assert first.outcome == Outcome.WROTE and first.seq == 1
    undo = receipt_undo(receipt=first)
    first.refresh_from_db()
    assert first.undone_at is not None and undo.seq == 3
    report = chain_verify(owner)
    assert report.intact and report.receipts == 3


def test_bulk_created_receipts_are_chained(owner: Any, other_user: Any) -> None:
    receipt(owner, 1)
    rows = [
        Receipt(owner=o, source=Source.API, outcome=Outcome.WROTE, subject=f"bulk {i}")
        for i, o in enumerate([owner, other_user, owner, owner])
    ]
    Receipt.objects.bulk_create(rows)
    assert sorted(
        s or 0 for s in Receipt.objects.for_owner(owner).values_list("seq", flat=True)
    ) == [
        1,
        2,
        3,
        4,
    ]
    assert chain_verify(owner).intact and chain_verify(other_user).intact
    receipt(owner, 5)
    assert chain_verify(owner).receipts == 5


def test_a_save_costs_the_same_two_queries(owner: Any, django_assert_num_queries: Any) -> None:
    receipt(owner, 1)
    with django_assert_num_queries(2):  # the INSERT (which chains it) and the per-day count
        receipt(owner, 2)
    assert chain_verify(owner).intact


def test_the_saves_page_check_walks_only_new_receipts(
    owner: Any, django_assert_num_queries: Any
) -> None:
    several(owner, 3)
    first = chain_verify_new(owner)
    assert first.intact and first.receipts == 3
    assert ReceiptChain.objects.for_owner(owner).get().verified_seq == 3
    receipt(owner, 4)
    report = chain_verify_new(owner)
    assert report.intact and report.receipts == 4
    # Verified already: an edit before that point is the full walk's to find.
    Receipt.objects.for_owner(owner).filter(seq=1).update(summary="edited")
    assert chain_verify_new(owner).intact
    assert chain_verify(owner).problem == CONTENT_CHANGED
    Receipt.objects.for_owner(owner).filter(seq=4).update(summary="edited")
    receipt(owner, 5)
    ReceiptChain.objects.for_owner(owner).update(verified_seq=3)  # unsigned: not trusted
    assert chain_verify_new(owner).problem == CONTENT_CHANGED


def test_a_head_moved_by_hand_is_found(owner: Any) -> None:
    several(owner)
    ReceiptChain.objects.for_owner(owner).update(head="f" * 64)
    assert chain_verify(owner).problem == HEAD_CHANGED


def test_command_reports_each_owner_and_exits_non_zero_when_broken(
    owner: Any, other_user: Any
) -> None:
    made = several(owner)
    several(other_user, 2)
    out = StringIO()
    call_command("verify_receipts", stdout=out)
    assert "intact (4 receipts" in out.getvalue()
    Receipt.objects.filter(pk=made[2].pk).update(summary="quietly")
    out = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("verify_receipts", "--json", stdout=out)
    assert exit_.value.code == 1
    data = json.loads(out.getvalue())
    assert data["intact"] is False
    [mine] = [o for o in data["owners"] if o["user"] == owner.username]
    assert mine == {
        "user": owner.username,
        "intact": False,
        "receipts": 2,
        "last_seq": 2,
        "problem": CONTENT_CHANGED,
        "seq": 3,
        "receipt_id": made[2].pk,
        "checkpoint_id": None,
    }
    out = StringIO()
    call_command("verify_receipts", "--user", other_user.username, stdout=out)
    assert out.getvalue().strip() == f"{other_user.username}: intact (2 receipts, up to #2)"


@pytest.mark.django_db(transaction=True)
def test_two_saves_at_once_for_one_owner_do_not_fork_the_chain(
    owner: Any, is_postgres: bool
) -> None:
    if not is_postgres:
        pytest.skip("SQLite takes one writer at a time; the race needs PostgreSQL")
    receipt(owner, 0)
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def save(n: int) -> None:
        try:
            barrier.wait()
            for i in range(5):
                receipt(owner, n * 10 + i)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(n,)) for n in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    seqs = sorted(s or 0 for s in Receipt.objects.for_owner(owner).values_list("seq", flat=True))
    assert seqs == list(range(1, 22))
    assert chain_verify(owner).intact


def test_the_migration_chains_existing_receipts_in_created_at_order(owner: Any) -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("memory.migrations.0067_receipt_chain")
    now = timezone.now()
    late = receipt(owner, 1, created_at=now)
    early = receipt(owner, 2, created_at=now - timedelta(days=1))
    Receipt.objects.for_owner(owner).update(seq=None, prev_hash="", content_hash="")
    ReceiptChain.objects.for_owner(owner).delete()
    migration.backfill(apps, None)
    early.refresh_from_db()
    late.refresh_from_db()
    assert (early.seq, late.seq) == (1, 2)
    assert late.prev_hash == early.content_hash
    assert ReceiptChain.objects.for_owner(owner).get().head == late.content_hash
    assert chain_verify(owner).intact
    assert receipt(owner, 3).seq == 3
