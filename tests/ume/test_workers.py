"""A worker's start-up (ume/workers.py): what it loaded is frozen, what requests create is
still collected."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from collections.abc import Iterator

import pytest

from ume.settings import BASE_DIR
from ume.workers import freeze_loaded_objects


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


class _Node:
    other: _Node | None = None


def test_freezing_keeps_start_up_objects_out_of_collections_but_collects_later_garbage(
    unfrozen: None,
) -> None:
    frozen = freeze_loaded_objects()
    # a frozen object still dies when its last reference goes (another thread of this process
    # may drop one between the two calls), so the count can only have fallen since
    assert 0 < gc.get_freeze_count() <= frozen
    assert len(gc.get_objects()) < frozen  # a full collection no longer walks them
    # garbage made after start-up (a cycle, as ORM rows and querysets make) is collected
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None


@pytest.mark.parametrize("module", ["ume.wsgi", "ume.asgi"])
def test_each_web_entry_point_freezes_what_it_loaded(module: str) -> None:
    script = f"import gc, {module}; print(gc.get_freeze_count(), len(gc.get_objects()))"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ume.settings", "PYTHONWARNINGS": "ignore"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=BASE_DIR, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    frozen, tracked = map(int, out.stdout.split())
    # Django and the application: tens of thousands of objects, and few left to walk
    assert frozen > 50_000
    assert tracked < frozen // 10
