"""Faults inside a write's transaction, injected by patching a real step of it.

:func:`inside_the_ingest` runs ``hook`` in the ingest's apply transaction, after every write
and before the receipt is completed (``memory.services.ingest._complete``): raising from it
exercises the rollback exactly as a database failure there would; blocking in it holds the
transaction open for the concurrency tests. The real step runs after the hook returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest

from memory.services import ingest as ingest_module


def inside_the_ingest(monkeypatch: pytest.MonkeyPatch, hook: Callable[[], None]) -> mock.Mock:
    """Run ``hook`` inside every ingest's apply transaction for the rest of the test."""

    def effect(*args: Any, **kwargs: Any) -> Any:
        hook()
        return mock.DEFAULT  # then the wrapped, real step

    step = mock.Mock(side_effect=effect, wraps=ingest_module._complete)
    monkeypatch.setattr(ingest_module, "_complete", step)
    return step
