"""Reads of receipts. Every selector takes the owner and filters on it."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.db.models import QuerySet, Sum
from django.utils import timezone

from memory.owned import Person
from receipts.models import Receipt, ReceiptDay


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def receipt_list(
    owner: Person,
    *,
    outcome: str = "",
    source: str = "",
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[Receipt]:
    """Receipts newest first, filtered; ``start`` and ``end`` are whole local days."""
    receipts = Receipt.objects.for_owner(owner).select_related("token")
    if outcome:
        receipts = receipts.filter(outcome=outcome)
    if source:
        receipts = receipts.filter(source=source)
    if start:
        receipts = receipts.filter(created_at__gte=_day_start(start))
    if end:
        receipts = receipts.filter(created_at__lt=_day_start(end + timedelta(days=1)))
    return receipts.order_by("-created_at", "-id")


def receipts_per_day(
    owner: Person, *, start: date, end: date, outcome: str = "", source: str = ""
) -> dict[date, dict[str, int]]:
    """``{day: {outcome: count}}`` over ``start``..``end`` (local days), in one query.

    Reads the per-day counts every receipt write keeps (``ReceiptDay``): at most a row per
    day, outcome and source, however many receipts the month has."""
    if end < start:
        return {}
    rows = ReceiptDay.objects.for_owner(owner).filter(day__gte=start, day__lte=end)
    if outcome:
        rows = rows.filter(outcome=outcome)
    if source:
        rows = rows.filter(source=source)
    per_day: dict[date, dict[str, int]] = {}
    for day, outcome_name, n in (
        rows.values_list("day", "outcome").annotate(n=Sum("count")).order_by()
    ):
        if n:
            per_day.setdefault(day, {})[outcome_name] = n
    return per_day


def receipt_get(owner: Person, receipt_id: int) -> Receipt | None:
    return Receipt.objects.for_owner(owner).filter(pk=receipt_id).select_related("token").first()
