"""The one place a receipt is written (docs/architecture.md, "Receipts").

Every save attempt and every decision leaves a receipt. The services say what happened
(source, outcome, subject, summary, counts, detail, error) and when their work started; this
module clips what has a length (a subject to 255 characters, a summary to 500), measures the
duration, and creates the row. What every receipt also gets, wherever it is created (here, an
import's ``bulk_create``, the admin), stays in the model layer: its place in the owner's hash
chain and its per-day count (``memory.models.ReceiptQuerySet``), so that no path can write a
receipt that is missing from the chain or the Saves page's counts.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from memory.models import Receipt
from memory.owned import OwnerRef

SUBJECT_MAX = 255
SUMMARY_MAX = 500


def elapsed_ms(started: float | None) -> int:
    """Milliseconds since ``started`` (a ``time.perf_counter()``); 0 without one."""
    if started is None:
        return 0
    return max(0, int((time.perf_counter() - started) * 1000))


def receipt_write(
    *,
    owner: OwnerRef | None = None,
    owner_id: int | None = None,
    source: str,
    outcome: str,
    subject: str,
    summary: str = "",
    error: str = "",
    counts: dict[str, int] | None = None,
    detail: dict[str, Any] | None = None,
    token: Any = None,
    extractor: str = "",
    started: float | None = None,
    created_at: datetime | None = None,
) -> Receipt:
    """Create one receipt of ``owner`` (a person, or ``owner_id``) and return it."""
    if (owner is None) == (owner_id is None):
        raise TypeError("receipt_write takes an owner or an owner_id, one of them")
    fields: dict[str, Any] = {
        "source": source,
        "token": token,
        "outcome": outcome,
        "extractor": extractor,
        "subject": subject[:SUBJECT_MAX],
        "summary": summary[:SUMMARY_MAX],
        "error": error,
        "counts": counts or {},
        "detail": detail or {},
        "duration_ms": elapsed_ms(started),
    }
    if created_at is not None:
        fields["created_at"] = created_at
    if owner_id is not None:
        return Receipt.objects.create(owner_id=owner_id, **fields)
    if isinstance(owner, int):
        return Receipt.objects.create(owner_id=owner, **fields)
    assert owner is not None  # checked above: one of the two
    return Receipt.objects.create(owner=owner, **fields)


def receipt_finish(
    receipt: Receipt,
    *,
    summary: str,
    detail: dict[str, Any],
    counts: dict[str, int],
    started: float | None,
) -> None:
    """Fill in a receipt created before the work it records (so every row the work creates
    can point at it), in the same transaction, once the work is done."""
    receipt.summary = summary[:SUMMARY_MAX]
    receipt.detail = detail
    receipt.counts = counts
    receipt.duration_ms = elapsed_ms(started)
    receipt.save(update_fields=["summary", "detail", "counts", "duration_ms"])
