"""Running the project's migrations to a point and back, for the data migrations' tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def executor() -> MigrationExecutor:
    """A migration executor on the default connection, its graph read afresh."""
    runner = MigrationExecutor(connection)
    runner.loader.build_graph()
    return runner


def migrate(targets: list[tuple[str, str]]) -> None:
    """Migrate to ``targets`` (forwards or backwards)."""
    executor().migrate(targets)


def migrate_to_latest() -> None:
    runner = executor()
    runner.migrate(runner.loader.graph.leaf_nodes())


@contextmanager
def apps_before(targets: list[tuple[str, str]]) -> Iterator[Any]:
    """The historical apps at ``targets`` (just before the migration under test); back to the
    latest migrations afterwards, whatever the test did."""
    migrate(targets)
    try:
        loader = executor().loader
        yield loader.project_state(list(loader.applied_migrations)).apps
    finally:
        migrate_to_latest()
