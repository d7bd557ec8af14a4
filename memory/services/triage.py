"""Deciding many guesses at once, taking such a batch back, and bringing expired guesses back.

A **batch** (:func:`candidates_batch`) promotes, rejects, or rejects and suppresses a
selection or a group of the review queue. Each guess is decided by the same service as a
single decision (:mod:`memory.services.review`), so each leaves its own receipt, revisions
and suppression exactly as one decided on its card would, and can still be undone on its
card; those receipts carry the batch's key. The batch then leaves one receipt of its own
(source ``review``, ``detail.action`` = ``batch``) listing what it decided and what it
skipped, and :func:`batch_undo` takes all of it back at once through
:func:`memory.services.review.candidate_undo`, within ``UME_UNDO_SECONDS`` like any decision.
The batch is one transaction; a guess that cannot be decided (decided meanwhile, a
suppressed label, a label that would merge into an existing memory unseen) is skipped and
listed, and the others go on.

**Restoring** (:func:`candidates_restore`) is the undo of an expiry: cleanup expired a guess
(its receipt says which, and why: ``memory.services.cleanup``); a person brings it back to
the queue, and cleanup will not expire it again as a one-off.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory.models import Candidate, Outcome, Receipt, Source
from memory.owned import Person
from memory.selectors import node_named
from memory.services.receipts import receipt_write
from memory.services.review import (
    ReviewError,
    candidate_promote,
    candidate_reject,
    candidate_undo,
)
from memory.vocab import CandidateStatus

#: The most guesses one batch decides: a batch is one request and one transaction.
BATCH_MAX = 500
BATCH_ACTIONS = ("promote", "reject", "suppress")
_DONE = {"promote": "promoted", "reject": "rejected", "suppress": "rejected and suppressed"}


@dataclass
class Batch:
    """What a batch did: its receipt (None when it decided nothing), the guesses decided and
    those skipped with the reason."""

    action: str
    receipt: Receipt | None
    done: list[Candidate] = field(default_factory=list)
    skipped: list[tuple[Candidate, str]] = field(default_factory=list)


def _quoted(candidates: list[Candidate], limit: int = 5) -> str:
    """“Alpha”, “Beta” and “Gamma”; past ``limit``, “Alpha”, … and 7 more."""
    names = [f"“{c.label_guess}”" for c in candidates[:limit]]
    if len(candidates) > limit:
        return f"{', '.join(names)} and {len(candidates) - limit} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _decide(
    candidate: Candidate, action: str, *, by: Any, until: datetime | None, key: str
) -> None:
    if action == "promote":
        existing = node_named(candidate.owner, candidate.label_guess)
        if existing is not None and candidate.status == CandidateStatus.PENDING:
            # As on its card: a merge is previewed before it is made, never made unseen.
            raise ReviewError(
                f"would merge into the memory “{existing.label}”: merge it from its card"
            )
        candidate_promote(candidate=candidate, by=by, batch=key)
    else:
        candidate_reject(
            candidate=candidate, by=by, suppress=action == "suppress", until=until, batch=key
        )


def candidates_batch(
    *,
    owner: Person,
    candidates: list[Candidate],
    action: str,
    by: Any,
    until: datetime | None = None,
) -> Batch:
    """Decide every one of ``candidates`` (the owner's, read by a selector) with ``action``:
    ``promote`` (label and category as guessed), ``reject`` or ``suppress`` (until ``until``,
    or for ever). One transaction; see the module docstring. ReviewError when the action is
    unknown, the batch too large, or the suppression's end is not in the future."""
    if action not in BATCH_ACTIONS:
        raise ReviewError(f"unknown batch action {action!r}")
    if len(candidates) > BATCH_MAX:
        raise ReviewError(f"a batch decides at most {BATCH_MAX} guesses at once")
    if until is not None and until <= timezone.now():
        raise ReviewError("a suppression must end in the future")
    started = time.perf_counter()
    key = uuid.uuid4().hex
    batch = Batch(action=action, receipt=None)
    with transaction.atomic():
        for candidate in candidates:
            if candidate.owner_id != owner.pk:
                raise ReviewError("that guess does not exist")
            try:
                _decide(candidate, action, by=by, until=until, key=key)
            except ReviewError as exc:
                batch.skipped.append((candidate, str(exc)))
                continue
            batch.done.append(candidate)
        if batch.done:
            batch.receipt = _batch_receipt(owner, batch, key=key, until=until, started=started)
    return batch


def _batch_receipt(
    owner: Person, batch: Batch, *, key: str, until: datetime | None, started: float
) -> Receipt:
    """The batch's own receipt, written after its decisions' (a receipt is filled in only
    while it is its owner's newest: docs/architecture.md, "Receipts chain")."""
    done, skipped = batch.done, batch.skipped
    verb = _DONE[batch.action]
    summary = f"{verb} {len(done)} guess{'' if len(done) == 1 else 'es'}: {_quoted(done)}"
    if until is not None:
        summary += f" until {until:%Y-%m-%d}"
    if skipped:
        summary += f"; {len(skipped)} skipped"
    return receipt_write(
        owner=owner,
        source=Source.REVIEW,
        outcome=Outcome.MEANINGFUL_NO_WRITE if batch.action == "reject" else Outcome.WROTE,
        subject=f"batch {batch.action}: {len(done)} guesses",
        summary=summary,
        detail={
            "action": "batch",
            "verb": batch.action,
            "batch": key,
            "candidates": [c.pk for c in done],
            "labels": [c.label_guess for c in done[:100]],
            "skipped": [{"id": c.pk, "label": c.label_guess, "reason": r} for c, r in skipped],
            "until": until.isoformat() if until else None,
        },
        counts={"decided": len(done), "skipped": len(skipped)},
        started=started,
    )


@dataclass
class BatchUndo:
    undone: list[Candidate] = field(default_factory=list)
    refused: list[tuple[Candidate, str]] = field(default_factory=list)


def _batch_check(receipt: Receipt, now: datetime) -> None:
    detail = receipt.detail or {}
    if receipt.source != Source.REVIEW or detail.get("action") != "batch":
        raise ReviewError(f"receipt #{receipt.pk} is not a batch of decisions")
    if receipt.undone_at is not None:
        raise ReviewError("that batch was already undone")
    if receipt.created_at < now - timedelta(seconds=settings.UME_UNDO_SECONDS):
        raise ReviewError("that batch is too old to undo")


def _decided_in(candidate: Candidate, key: str) -> bool:
    """Is the batch ``key`` still the last decision on ``candidate`` (not undone on its card
    and decided again since)?"""
    last = (
        Receipt.objects.for_owner(candidate.owner_id)
        .filter(source=Source.REVIEW, detail__candidate=candidate.pk, undone_at__isnull=True)
        .order_by("-created_at", "-id")
        .values_list("detail", flat=True)
        .first()
    )
    return isinstance(last, dict) and last.get("batch") == key


def batch_undo(*, receipt: Receipt, by: Any) -> BatchUndo:
    """Take back every decision of the batch ``receipt`` records, in one transaction, each
    through :func:`~memory.services.review.candidate_undo`. A guess decided again since, or
    proposed again meanwhile, is left as it is and listed. ReviewError when ``receipt`` is
    not a batch, was undone already, or is older than ``UME_UNDO_SECONDS``."""
    now = timezone.now()
    _batch_check(receipt, now)
    result = BatchUndo()
    with transaction.atomic():
        locked = Receipt.objects.for_owner(receipt.owner_id).select_for_update().get(pk=receipt.pk)
        _batch_check(locked, now)  # a second tab may have undone it meanwhile
        key = locked.detail["batch"]
        ids = [i for i in locked.detail.get("candidates", []) if isinstance(i, int)]
        rows = Candidate.objects.for_owner(locked.owner_id).filter(pk__in=ids).order_by("id")
        for candidate in rows:
            if not _decided_in(candidate, key):
                result.refused.append((candidate, "decided again since; undo it on its card"))
                continue
            try:
                candidate_undo(candidate=candidate, by=by)
            except ReviewError as exc:
                result.refused.append((candidate, str(exc)))
                continue
            result.undone.append(candidate)
        locked.undone_at = now
        locked.save(update_fields=["undone_at"])
    receipt.refresh_from_db()
    return result


def candidates_restore(
    *, owner: Person, candidates: list[Candidate], by: Any = None
) -> tuple[Receipt | None, list[tuple[Candidate, str]]]:
    """Bring expired guesses back to the queue: pending again, to expire like any guess
    ``UME_CANDIDATE_TTL_DAYS`` from now, never again as a one-off. One receipt (source
    ``review``) names them and the cleanup runs that had expired them. A guess no longer
    expired, or whose label was proposed again meanwhile (a new card waits), is skipped and
    listed. Returns the receipt (None when nothing came back) and the skipped."""
    started = time.perf_counter()
    now = timezone.now()
    skipped: list[tuple[Candidate, str]] = []
    with transaction.atomic():
        locked = list(
            Candidate.objects.select_for_update()
            .for_owner(owner)
            .filter(pk__in=[c.pk for c in candidates])
            .order_by("id")
        )
        waiting = set(
            Candidate.objects.for_owner(owner)
            .filter(
                status=CandidateStatus.PENDING,
                canonical_key__in=[c.canonical_key for c in locked],
            )
            .values_list("canonical_key", flat=True)
        )
        back = []
        for row in locked:
            if row.status != CandidateStatus.EXPIRED:
                skipped.append((row, f"it is {row.get_status_display().lower()}, not expired"))
            elif row.canonical_key in waiting:
                skipped.append((row, "it was proposed again meanwhile: a new card waits"))
            else:
                back.append(row)
        if not back:
            return None, skipped
        ttl = timedelta(days=settings.UME_CANDIDATE_TTL_DAYS)
        for row in back:
            row.status = CandidateStatus.PENDING
            row.expires_at = now + ttl
            row.restored_at = now
        Candidate.objects.bulk_update(back, ["status", "expires_at", "restored_at"])
        receipt = receipt_write(
            owner=owner,
            source=Source.REVIEW,
            outcome=Outcome.WROTE,
            subject=f"restore: {len(back)} expired guess{'' if len(back) == 1 else 'es'}",
            summary=f"back in the queue: {_quoted(back)}",
            detail={
                "action": "restore",
                "candidates": [c.pk for c in back],
                "labels": [c.label_guess for c in back[:100]],
                "expired_by": sorted({c.expired_receipt_id for c in back if c.expired_receipt_id}),
                "skipped": [{"id": c.pk, "label": c.label_guess, "reason": r} for c, r in skipped],
            },
            counts={"restored": len(back), "skipped": len(skipped)},
            started=started,
            created_at=now,
        )
    return receipt, skipped
