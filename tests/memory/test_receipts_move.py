"""Receipts moved from the ``receipts`` app to ``memory`` (``memory.0055_receipts_move``): a
database at the head before the move keeps its receipts, their per-day counts and their
content type (so permissions and admin log entries follow), with no table recreated."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memory.models import Receipt, ReceiptDay

BEFORE = [("memory", "0054_node_profile_indexes"), ("receipts", "0003_receipt_day_fill")]


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def _migrate_to_head() -> None:
    executor = _executor()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def before_the_move(transactional_db: None) -> Iterator[Any]:
    """The historical apps at the pre-move head; the database goes back to head afterwards,
    whatever the test did."""
    executor = _executor()
    executor.migrate(BEFORE)
    try:
        # The models as the database has them now: every migration still applied.
        loader = _executor().loader
        yield loader.project_state(list(loader.applied_migrations)).apps
    finally:
        _migrate_to_head()


def _tables() -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def _sql_of_the_move() -> list[str]:
    """The SQL the two migrations of the move would run from the pre-move head (none)."""
    executor = _executor()
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    moves = [migration for migration, _ in plan if (migration.app_label, migration.name) in MOVE]
    assert len(moves) == 2
    state = executor.loader.project_state(BEFORE)
    emitted: list[str] = []
    for migration in moves:
        with connection.schema_editor(collect_sql=True, atomic=False) as editor:
            state = migration.apply(state, editor, collect_sql=True)
        emitted += [line for line in editor.collected_sql if not line.startswith("--")]
    return emitted


def test_a_receipt_written_before_the_move_is_read_through_memory_after(
    before_the_move: Any,
) -> None:
    old = before_the_move
    assert {"receipts_receipt", "receipts_receiptday"} <= _tables()
    person = old.get_model("auth", "User").objects.create(username="ada")
    old_receipt = old.get_model("receipts", "Receipt").objects.create(
        owner_id=person.pk, source="api", outcome="wrote", summary="1 node (Boxing)"
    )
    old.get_model("receipts", "ReceiptDay").objects.create(
        owner_id=person.pk, day=date(2026, 11, 30), outcome="wrote", source="api", count=1
    )
    ContentType = old.get_model("contenttypes", "ContentType")
    content_type = ContentType.objects.get(app_label="receipts", model="receipt")
    Permission = old.get_model("auth", "Permission")
    permissions = set(Permission.objects.filter(content_type_id=content_type.pk))
    assert _sql_of_the_move() == []

    _migrate_to_head()

    receipt = Receipt.objects.get(pk=old_receipt.pk)
    assert (receipt.owner_id, receipt.outcome, receipt.summary) == (
        person.pk,
        "wrote",
        "1 node (Boxing)",
    )
    day = ReceiptDay.objects.for_owner(person.pk).get()
    assert (day.day, day.count) == (date(2026, 11, 30), 1)
    assert ContentType.objects.get(pk=content_type.pk).app_label == "memory"
    assert not ContentType.objects.filter(app_label="receipts").exists()
    assert permissions and permissions == set(
        Permission.objects.filter(content_type_id=content_type.pk)
    )
    assert (Receipt._meta.db_table, ReceiptDay._meta.db_table) == (
        "receipts_receipt",
        "receipts_receiptday",
    )

    # And back: the content types return to the receipts app, the rows stay.
    _executor().migrate(BEFORE)
    assert ContentType.objects.get(pk=content_type.pk).app_label == "receipts"
    assert old.get_model("receipts", "Receipt").objects.filter(pk=old_receipt.pk).exists()


MOVE = {("memory", "0055_receipts_move"), ("receipts", "0004_receipts_moved")}
