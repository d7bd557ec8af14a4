"""The deletion barrier: a write accepted before a deletion never lands after it.

The clock ticks one millisecond per reading, so "before" and "after" are decided by the order
of events, not by how fast the machine is.
"""

from __future__ import annotations

import itertools
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.utils import timezone

from memory.models import Candidate, DeletionBarrier, Node, Receipt, Slice, Suppression
from memory.services import ingest as ingest_module
from memory.services.barrier import NEVER
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_proposals
from memory.services.nodes import node_delete
from tests.factories import make_node, make_user
from tests.faults import inside_the_ingest

DOC = [
    {
        "object": "slice",
        "on": "Boxing",
        "kind": "progress",
        "text": "three rounds on the bag",
        "confidence": 0.9,
        "evidence": [{"message_id": "M0", "quote": "I did three rounds on the bag"}],
    },
    {
        "object": "candidate",
        "label": "Pottery",
        "confidence": 0.6,
        "evidence": [{"message_id": "M0", "quote": "pottery, maybe"}],
    },
]


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    start = timezone.now()
    counter = itertools.count()
    lock = threading.Lock()

    def now() -> Any:
        with lock:
            return start + timedelta(milliseconds=next(counter))

    monkeypatch.setattr(timezone, "now", now)


def delete_during_snapshot(monkeypatch: Any, delete: Any) -> None:
    """Run ``delete`` once, after the ingest started and read its snapshot, before it writes."""
    real = ingest_module.gate_snapshot
    done: list[bool] = []

    def snapshot_then_delete(owner: Any, proposals: Any, *, now: Any) -> Any:
        snap = real(owner, proposals, now=now)
        if not done:
            done.append(True)
            delete()
        return snap

    monkeypatch.setattr(ingest_module, "gate_snapshot", snapshot_then_delete)


def nothing_landed(owner: Any) -> None:
    assert not Slice.objects.for_owner(owner).filter(text="three rounds on the bag").exists()
    assert not Candidate.objects.for_owner(owner).filter(label_guess="Pottery").exists()


# --- one connection (both backends) ---------------------------------------------------------


@pytest.mark.django_db
def test_a_node_deleted_mid_ingest_drops_the_write_with_a_conflict_receipt(
    owner: User, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    delete_during_snapshot(monkeypatch, lambda: node_delete(node=boxing))

    receipt = ingest_proposals(owner=owner, objects=DOC, name="chat", source="api")

    assert receipt.outcome == "deletion_conflict"
    assert "deletion" in receipt.error and "nothing was written" in receipt.error
    nothing_landed(owner)
    assert not Node.objects.for_owner(owner).exists()


@pytest.mark.django_db
def test_delete_all_mid_ingest_drops_the_write(
    owner: User, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_node(owner=owner, label="Boxing")
    delete_during_snapshot(monkeypatch, lambda: memory_erase_all(owner=owner))

    receipt = ingest_proposals(owner=owner, objects=DOC, name="chat", source="api")

    assert receipt.outcome == "deletion_conflict"
    nothing_landed(owner)
    assert not Node.objects.for_owner(owner).exists()
    assert sorted(Receipt.objects.for_owner(owner).values_list("outcome", flat=True)) == [
        "deletion_conflict",
        "wrote",  # the delete-all receipt
    ]


@pytest.mark.django_db
def test_an_undo_mid_ingest_drops_the_write(
    owner: User, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_node(owner=owner, label="Boxing")
    earlier = ingest_proposals(owner=owner, objects=DOC[1:], name="earlier", source="api")
    assert earlier.outcome == "wrote"
    delete_during_snapshot(monkeypatch, lambda: receipt_undo(receipt=earlier, suppress=False))

    receipt = ingest_proposals(owner=owner, objects=DOC, name="chat", source="api")

    assert receipt.outcome == "deletion_conflict"
    nothing_landed(owner)


@pytest.mark.django_db
def test_a_write_started_after_the_deletion_lands(
    owner: User, other_user: User, ticking: None
) -> None:
    node_delete(node=make_node(owner=owner, label="Running"))
    make_node(owner=owner, label="Boxing")

    receipt = ingest_proposals(owner=owner, objects=DOC, name="chat", source="api")

    assert receipt.outcome == "wrote"
    assert Slice.objects.for_owner(owner).filter(text="three rounds on the bag").exists()


@pytest.mark.django_db
def test_another_users_deletion_does_not_drop_my_write(
    owner: User, other_user: User, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_node(owner=owner, label="Boxing")
    theirs = make_node(owner=other_user, label="Boxing")
    delete_during_snapshot(monkeypatch, lambda: node_delete(node=theirs))

    receipt = ingest_proposals(owner=owner, objects=DOC, name="chat", source="api")

    assert receipt.outcome == "wrote"
    # My barrier is the one every user gets at creation, untouched by their deletion.
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at == NEVER


# --- two connections (PostgreSQL) -----------------------------------------------------------

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs two real connections and row locks: runs on PostgreSQL "
    "(DATABASE_URL=postgres://...); the same orderings on one connection are tested above",
)


class Writer(threading.Thread):
    """An ingest on its own database connection."""

    def __init__(self, owner: Any) -> None:
        super().__init__()
        self.owner = owner
        self.receipt: Receipt | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.receipt = ingest_proposals(
                owner=self.owner, objects=DOC, name="chat", source="api"
            )
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
        finally:
            connections.close_all()


@needs_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("deletion", ["node_delete", "erase_all"])
def test_an_ingest_in_flight_on_another_connection_does_not_land_after_a_deletion(
    deletion: Any, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = make_user("racer")
    boxing = make_node(owner=owner, label="Boxing")
    snapshotted, deleted = threading.Event(), threading.Event()
    real = ingest_module.gate_snapshot

    def snapshot_then_wait(o: Any, proposals: Any, *, now: Any) -> Any:
        snap = real(o, proposals, now=now)
        if not snapshotted.is_set():
            snapshotted.set()
            assert deleted.wait(30), "the deletion never happened"
        return snap

    monkeypatch.setattr(ingest_module, "gate_snapshot", snapshot_then_wait)
    writer = Writer(owner)
    writer.start()
    try:
        assert snapshotted.wait(30)
        if deletion == "node_delete":
            node_delete(node=boxing)  # this test's own connection; commits
        else:
            memory_erase_all(owner=owner)
    finally:
        deleted.set()
        writer.join(30)

    assert writer.error is None
    assert writer.receipt is not None and writer.receipt.outcome == "deletion_conflict"
    nothing_landed(owner)
    assert not Node.objects.for_owner(owner).exists()


def wait_for_lock_wait(timeout: float = 30.0) -> None:
    """Block until some other backend of this database waits on a lock."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("no backend ever waited on a lock")


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_deletion_waits_for_a_write_already_committing_then_removes_it(
    ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = make_user("racer")
    boxing = make_node(owner=owner, label="Boxing")
    DeletionBarrier.objects.for_owner(owner).update(barrier_at=timezone.now())
    written, release = threading.Event(), threading.Event()

    def hold_inside_the_transaction() -> None:
        written.set()
        assert release.wait(30)

    inside_the_ingest(monkeypatch, hold_inside_the_transaction)
    writer = Writer(owner)
    writer.start()
    deleter_errors: list[BaseException] = []

    def delete() -> None:
        try:
            node_delete(node=boxing)
        except BaseException as exc:  # noqa: BLE001 - reported below
            deleter_errors.append(exc)
        finally:
            connections.close_all()

    deleter = threading.Thread(target=delete)
    try:
        assert written.wait(30)  # the write holds the barrier row, its rows not yet committed
        deleter.start()
        wait_for_lock_wait()  # the deletion queues behind it
    finally:
        release.set()
        writer.join(30)
        deleter.join(30)

    assert writer.error is None and not deleter_errors
    assert writer.receipt is not None and writer.receipt.outcome == "wrote"
    # The write committed first; the deletion then removed the node with what was written on it.
    assert not Node.objects.for_owner(owner).exists()
    assert not Slice.objects.for_owner(owner).exists()
    assert Suppression.objects.for_owner(owner).filter(label="Boxing").exists()


# --- a person's first deletion ---------------------------------------------------------------


@pytest.mark.django_db
def test_every_user_gets_a_barrier_row_that_says_nothing_was_deleted() -> None:
    user = make_user("newcomer")
    assert DeletionBarrier.objects.for_owner(user).get().barrier_at == NEVER


@needs_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("row", ["created_with_the_user", "missing"])
def test_a_first_deletion_waits_for_a_write_in_flight_then_removes_it(
    row: Any, ticking: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = make_user("first-timer")
    make_node(owner=owner, label="Boxing")
    if row == "missing":  # a user from before barrier rows were created with the user
        DeletionBarrier.objects.for_owner(owner).delete()
    written, release = threading.Event(), threading.Event()

    def hold_inside_the_transaction() -> None:
        written.set()
        assert release.wait(30)

    inside_the_ingest(monkeypatch, hold_inside_the_transaction)
    writer = Writer(owner)
    writer.start()
    deleter_errors: list[BaseException] = []

    def delete_all() -> None:
        try:
            memory_erase_all(owner=owner)
        except BaseException as exc:  # noqa: BLE001 - reported below
            deleter_errors.append(exc)
        finally:
            connections.close_all()

    deleter = threading.Thread(target=delete_all)
    try:
        assert written.wait(30)
        deleter.start()
        wait_for_lock_wait()  # the person's first deletion queues behind the write
    finally:
        release.set()
        writer.join(30)
        deleter.join(30)

    assert writer.error is None and not deleter_errors
    assert writer.receipt is not None and writer.receipt.outcome == "wrote"
    nothing_landed(owner)
    assert not Node.objects.for_owner(owner).exists()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_delete_all_in_a_burst_of_saves_leaves_nothing_without_its_receipt() -> None:
    from memory.models import Evidence
    from memory.services.ingest import ingest_messages

    owner = make_user("bursty")
    start = threading.Barrier(11, timeout=30)
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def save(n: int) -> None:
        try:
            start.wait()
            for i in range(3):
                text = f"I started learning the cello {n}-{i} last week. I use Logic Pro {n}."
                receipt = ingest_messages(
                    owner=owner,
                    messages=[{"role": "user", "content": text}],
                    name=f"burst {n} {i}",
                    source="api",
                )
                outcomes.append(receipt.outcome)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    def erase() -> None:
        try:
            start.wait()
            time.sleep(0.05)  # mid-burst
            memory_erase_all(owner=owner)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(n,)) for n in range(10)]
    threads.append(threading.Thread(target=erase))
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert not errors
    assert len(outcomes) == 30
    assert set(outcomes) <= {"wrote", "deletion_conflict", "meaningful_no_write"}
    receipts = set(Receipt.objects.for_owner(owner).values_list("pk", flat=True))
    # Whatever survived was written after the deletion, by a save whose receipt survived too.
    for model in (Candidate, Evidence):
        kept = model.objects.for_owner(owner)
        orphans = [
            row.pk
            for row in kept
            if getattr(row, "created_receipt_id" if model is Candidate else "receipt_id")
            not in receipts
        ]
        assert not orphans, f"{model.__name__} rows outlived their receipts: {orphans}"
