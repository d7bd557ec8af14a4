"""The per-day receipt counts (``ReceiptDay``) equal a recount of the receipts after writes on
every path that creates, changes or deletes receipts, and the Saves chart reads them."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from memory.models import Candidate, MemoryRule, Outcome, Receipt, ReceiptDay, Source
from memory.selectors import receipts_per_day
from memory.services.cleanup import cleanup_run
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_proposals
from memory.services.review import candidate_promote, candidate_reject, candidate_undo

pytestmark = pytest.mark.django_db

DOC = [
    {"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95},
    {"object": "candidate", "label": "Chess", "confidence": 0.6},
    {"object": "candidate", "label": "Piano", "confidence": 0.6},
]


def recount() -> Counter[tuple[Any, ...]]:
    counts: Counter[tuple[Any, ...]] = Counter()
    for r in Receipt.objects.all():
        counts[(r.owner_id, timezone.localdate(r.created_at), r.outcome, r.source)] += 1
    return counts


def kept() -> Counter[tuple[Any, ...]]:
    rows = ReceiptDay.objects.values_list("owner_id", "day", "outcome", "source", "count")
    return Counter({(o, d, out, s): n for o, d, out, s, n in rows})


def assert_counts_match() -> None:
    assert ReceiptDay.objects.filter(count__lte=0).count() == 0
    assert kept() == recount()


def test_counts_equal_a_recount_after_writes_on_every_path(owner: User, other_user: User) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    first = ingest_proposals(owner=owner, objects=DOC, name="a.json", source="upload")
    ingest_proposals(owner=other_user, objects=DOC, name="b.json", source="api")
    ingest_proposals(owner=owner, objects=[], name="empty.json", source="upload")
    assert_counts_match()
    assert len(recount()) >= 3

    chess = Candidate.objects.for_owner(owner).get(label_guess="Chess")
    candidate_promote(candidate=chess, by=owner)
    piano = Candidate.objects.for_owner(owner).get(label_guess="Piano")
    candidate_reject(candidate=piano, by=owner)
    candidate_undo(candidate=piano, by=owner)
    assert_counts_match()

    receipt_undo(receipt=first)
    assert_counts_match()

    # Moved to another day and outcome: one receipt at a time, then in bulk.
    moved = Receipt.objects.for_owner(owner).first()
    assert moved is not None
    moved.created_at -= timedelta(days=3)
    moved.outcome = Outcome.DUPLICATE
    moved.save()
    Receipt.objects.for_owner(owner).filter(source=Source.REVIEW).update(
        created_at=timezone.now() - timedelta(days=40)
    )
    Receipt.objects.bulk_create(
        [Receipt(owner=owner, source=Source.MCP, outcome=Outcome.LLM_FAILED) for _ in range(3)]
    )
    assert_counts_match()

    MemoryRule.objects.for_owner(owner).update(retention_days=1)
    cleanup_run(now=timezone.now() + timedelta(days=30))
    assert_counts_match()

    gone = Receipt.objects.for_owner(owner).filter(source=Source.MCP).first()
    assert gone is not None
    gone.delete()
    Receipt.objects.for_owner(owner).filter(outcome=Outcome.LLM_FAILED).delete()
    assert_counts_match()

    memory_erase_all(owner=owner)
    assert_counts_match()
    assert Receipt.objects.for_owner(owner).count() == 1
    assert ReceiptDay.objects.for_owner(owner).count() == 1
    assert ReceiptDay.objects.for_owner(other_user).exists()


def test_a_changed_outcome_moves_the_count_without_a_read(owner: User) -> None:
    receipt = Receipt.objects.create(owner=owner, source=Source.API, outcome=Outcome.WROTE)
    again = Receipt.objects.get(pk=receipt.pk)
    again.outcome = Outcome.MEANINGFUL_NO_WRITE
    again.save(update_fields=["outcome"])
    day = timezone.localdate(receipt.created_at)

    assert receipts_per_day(owner, start=day, end=day) == {day: {"meaningful_no_write": 1}}
    assert_counts_match()


def test_the_chart_reads_the_counts_filtered_and_scoped_to_its_owner(
    owner: User, other_user: User
) -> None:
    now = timezone.now()
    today = timezone.localdate(now)
    for who, source, outcome, ago in [
        (owner, Source.API, Outcome.WROTE, 0),
        (owner, Source.API, Outcome.WROTE, 0),
        (owner, Source.MCP, Outcome.DUPLICATE, 0),
        (owner, Source.API, Outcome.WROTE, 2),
        (owner, Source.API, Outcome.WROTE, 40),
        (other_user, Source.API, Outcome.WROTE, 0),
    ]:
        Receipt.objects.create(
            owner=who, source=source, outcome=outcome, created_at=now - timedelta(days=ago)
        )
    start = today - timedelta(days=29)

    assert receipts_per_day(owner, start=start, end=today) == {
        today: {"wrote": 2, "duplicate": 1},
        today - timedelta(days=2): {"wrote": 1},
    }
    assert receipts_per_day(owner, start=start, end=today, source="mcp") == {
        today: {"duplicate": 1}
    }
    assert receipts_per_day(owner, start=start, end=today, outcome="wrote") == {
        today: {"wrote": 2},
        today - timedelta(days=2): {"wrote": 1},
    }
    assert receipts_per_day(owner, start=today, end=start) == {}


def test_the_migration_fills_the_counts_from_the_receipts(owner: User, other_user: User) -> None:
    from importlib import import_module

    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    for who in (owner, owner, other_user):
        Receipt.objects.create(owner=who, source=Source.API, outcome=Outcome.WROTE)
    ReceiptDay.objects.all().delete()
    fill = import_module("receipts.migrations.0003_receipt_day_fill").fill
    # The models as that migration sees them (in the receipts app, before the move to memory).
    at_fill = MigrationLoader(connection).project_state(("receipts", "0003_receipt_day_fill"))

    fill(at_fill.apps, None)

    assert_counts_match()


def test_bulk_writes_keep_the_counts_and_conflict_options_are_refused(owner: User) -> None:
    made = Receipt.objects.bulk_create(
        [Receipt(owner=owner, source=Source.API, outcome=Outcome.WROTE) for _ in range(4)]
    )
    for receipt in made[:2]:
        receipt.outcome = Outcome.DUPLICATE
    Receipt.objects.bulk_update(made[:2], ["outcome"])
    assert_counts_match()
    assert sum(kept().values()) == 4

    with pytest.raises(ValueError):
        Receipt.objects.bulk_create(
            [Receipt(owner=owner, source=Source.API, outcome=Outcome.WROTE)],
            ignore_conflicts=True,
        )
    assert_counts_match()


def test_writes_touching_more_days_than_one_statement_holds_are_counted(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memory.models.receipts.DAYS_PER_STATEMENT", 3)
    now = timezone.now()
    Receipt.objects.bulk_create(
        [
            Receipt(
                owner=owner,
                source=Source.API,
                outcome=Outcome.WROTE,
                created_at=now - timedelta(days=i),
            )
            for i in range(8)
        ]
    )
    assert ReceiptDay.objects.for_owner(owner).count() == 8
    Receipt.objects.for_owner(owner).update(outcome=Outcome.DUPLICATE)
    assert_counts_match()
    Receipt.objects.for_owner(owner).delete()
    assert not ReceiptDay.objects.for_owner(owner).exists()
