"""Faults inside a write's transaction, injected by patching a real step of it.

:func:`inside_the_ingest` runs ``hook`` in the ingest's apply transaction, after every write
and before the receipt is completed (``memory.services.ingest._complete``): raising from it
exercises the rollback exactly as a database failure there would; blocking in it holds the
transaction open for the concurrency tests. The real step runs after the hook returns.

:func:`database_outage` makes every statement fail as a database that went away does, from
the moment its ``start()`` is called (by a hook above, or by
:func:`after_the_transcript_is_stored`) until ``end()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from django.db import OperationalError, connection

from memory.services import ingest as ingest_module


def inside_the_ingest(monkeypatch: pytest.MonkeyPatch, hook: Callable[[], None]) -> mock.Mock:
    """Run ``hook`` inside every ingest's apply transaction for the rest of the test."""

    def effect(*args: Any, **kwargs: Any) -> Any:
        hook()
        return mock.DEFAULT  # then the wrapped, real step

    step = mock.Mock(side_effect=effect, wraps=ingest_module._complete)
    monkeypatch.setattr(ingest_module, "_complete", step)
    return step


class Outage:
    """The database gone away: while ``down``, every statement on the default connection
    fails with ``OperationalError`` as a dropped server connection does (transaction control
    still runs, so that the test's own transaction and savepoints unwind)."""

    CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK", "COMMIT", "BEGIN")

    def __init__(self) -> None:
        self.down = False
        self.refused = 0

    def start(self) -> None:
        self.down = True

    def end(self) -> None:
        self.down = False

    def __call__(self, execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        if self.down and not sql.lstrip().upper().startswith(self.CONTROL):
            self.refused += 1
            raise OperationalError("server closed the connection unexpectedly (simulated)")
        return execute(sql, *args)


@contextmanager
def database_outage() -> Iterator[Outage]:
    """An :class:`Outage` installed on the default connection for the ``with`` block; it
    starts when the test (or a hook) calls ``start()``."""
    outage = Outage()
    with connection.execute_wrapper(outage):
        yield outage


def after_the_transcript_is_stored(
    monkeypatch: pytest.MonkeyPatch, hook: Callable[[], None]
) -> mock.Mock:
    """Run ``hook`` just after a save's transcript is stored and committed
    (``memory.services.ingest.transcript_store``), before it is claimed or processed."""

    def effect(*args: Any, **kwargs: Any) -> Any:
        stored = real(*args, **kwargs)
        hook()
        return stored

    real = ingest_module.transcript_store
    step = mock.Mock(side_effect=effect)
    monkeypatch.setattr(ingest_module, "transcript_store", step)
    return step
