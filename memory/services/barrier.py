"""The deletion barrier: a write accepted before a deletion must not land after it.

Deletions call :func:`barrier_raise` inside their transaction; writers call
:func:`barrier_check` inside theirs. Both lock the owner's barrier row, so on PostgreSQL the
two serialise: either the write commits first (and the deletion then removes what it wrote),
or the deletion commits first and the write sees a barrier newer than its start and aborts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.models import DeletionBarrier


class DeletionConflict(RuntimeError):
    """Something of this owner was deleted after the write started; the write is dropped."""

    def __init__(self, barrier_at: datetime) -> None:
        super().__init__(
            f"a deletion at {barrier_at.isoformat()} happened after this write started; "
            "nothing was written"
        )
        self.barrier_at = barrier_at


def _locked_row(owner: Any) -> DeletionBarrier | None:
    return DeletionBarrier.objects.select_for_update().filter(owner=owner).first()


def barrier_check(owner: Any, *, started_at: datetime) -> None:
    """Raise :class:`DeletionConflict` if a deletion happened after ``started_at``."""
    row = _locked_row(owner)
    if row is not None and row.barrier_at > started_at:
        raise DeletionConflict(row.barrier_at)


def barrier_raise(owner: Any, *, at: datetime | None = None) -> None:
    """Record that ``owner`` deleted something now. Call inside the deletion's transaction."""
    at = at or timezone.now()
    row = _locked_row(owner)
    if row is not None:
        row.barrier_at = max(row.barrier_at, at)
        row.save(update_fields=["barrier_at"])
        return
    try:
        with transaction.atomic():
            DeletionBarrier.objects.create(owner=owner, barrier_at=at)
    except IntegrityError:
        row = _locked_row(owner)
        assert row is not None
        row.barrier_at = max(row.barrier_at, at)
        row.save(update_fields=["barrier_at"])
