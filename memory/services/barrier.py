"""The deletion barrier: a write accepted before a deletion must not land after it.

Deletions call :func:`barrier_raise` inside their transaction; writers call
:func:`barrier_check` inside theirs. Both lock the owner's barrier row, so on PostgreSQL the
two serialise: either the write commits first (and the deletion then removes what it wrote),
or the deletion commits first and the write sees a barrier newer than its start and aborts.

The row must exist for there to be something to lock: it is created with the user (and by a
data migration for users from before), and :func:`_locked_row` creates it if it is still
missing. Two transactions creating it at once serialise on its unique key, so even a person's
very first deletion waits for writes in flight.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.models import DeletionBarrier
from memory.owned import Person


class DeletionConflict(RuntimeError):
    """Something of this owner was deleted after the write started (or all of it is being
    deleted); the write is dropped."""

    def __init__(self, barrier_at: datetime, *, erasing: bool = False) -> None:
        super().__init__(
            f"all memory is being deleted (asked at {barrier_at.isoformat()}); nothing was "
            "written, save again once the deletion is done"
            if erasing
            else f"a deletion at {barrier_at.isoformat()} happened after this write started; "
            "nothing was written"
        )
        self.barrier_at = barrier_at


# "Nothing deleted yet": older than any write.
NEVER = datetime(1970, 1, 1, tzinfo=UTC)


def barrier_ensure(owner: Person) -> None:
    """Create ``owner``'s barrier row if it is missing (with the user, and as a fallback)."""
    if DeletionBarrier.objects.for_owner(owner).exists():
        return
    try:
        with transaction.atomic():
            DeletionBarrier.objects.create(owner=owner, barrier_at=NEVER)
    except IntegrityError:
        pass  # created meanwhile by another transaction, which has committed


def _locked_row(owner: Person) -> DeletionBarrier:
    row = DeletionBarrier.objects.select_for_update().for_owner(owner).first()
    if row is None:
        # On PostgreSQL a concurrent creator makes this wait for its commit, then fail on the
        # unique key: from then on the row exists and we lock it.
        barrier_ensure(owner)
        row = DeletionBarrier.objects.for_owner(owner).select_for_update().get()
    return row


def barrier_check(owner: Person, *, started_at: datetime) -> None:
    """Raise :class:`DeletionConflict` if a deletion happened after ``started_at``, or while a
    requested delete-all waits for the workers (from its request until it is done)."""
    barrier_refuse(barrier_lock(owner), started_at=started_at)


def barrier_lock(owner: Person) -> DeletionBarrier:
    """Lock ``owner``'s barrier row for this transaction and return it: until the transaction
    ends no deletion commits, so a writer of several saves in one transaction checks each
    against this one row (:func:`barrier_refuse`)."""
    return _locked_row(owner)


def barrier_refuse(row: DeletionBarrier, *, started_at: datetime) -> None:
    """:func:`barrier_check` against a row locked by :func:`barrier_lock`."""
    if row.erasing_since is not None:
        raise DeletionConflict(row.erasing_since, erasing=True)
    if row.barrier_at > started_at:
        raise DeletionConflict(row.barrier_at)


def barrier_hold(owner: Person, *, at: datetime) -> None:
    """A delete-all was requested at ``at``: every write is refused until
    :func:`barrier_release`. Call inside the request's transaction."""
    row = _locked_row(owner)
    row.barrier_at = max(row.barrier_at, at)
    if row.erasing_since is None:
        row.erasing_since = at
    row.save(update_fields=["barrier_at", "erasing_since"])


def barrier_release(owner: Person, *, at: datetime) -> None:
    """The delete-all is done: writes that started before ``at`` still abort, later ones go
    on. Call inside the transaction that finishes it."""
    row = _locked_row(owner)
    row.barrier_at = max(row.barrier_at, at)
    row.erasing_since = None
    row.save(update_fields=["barrier_at", "erasing_since"])


def barrier_raise(owner: Person, *, at: datetime | None = None) -> None:
    """Record that ``owner`` deleted something now. Call inside the deletion's transaction."""
    at = at or timezone.now()
    row = _locked_row(owner)
    row.barrier_at = max(row.barrier_at, at)
    row.save(update_fields=["barrier_at"])
