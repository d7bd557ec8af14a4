"""Reads of receipts. Every selector takes the owner and filters on it."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from receipts.models import Receipt


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def receipt_list(
    owner: Any,
    *,
    outcome: str = "",
    source: str = "",
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[Receipt]:
    """Receipts newest first, filtered; ``start`` and ``end`` are whole local days."""
    receipts = Receipt.objects.filter(owner=owner).select_related("token")
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
    owner: Any, *, start: date, end: date, outcome: str = "", source: str = ""
) -> dict[date, dict[str, int]]:
    """``{day: {outcome: count}}`` over ``start``..``end`` (local days), in one query."""
    rows = (
        receipt_list(owner, outcome=outcome, source=source, start=start, end=end)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values_list("day", "outcome")
        .annotate(n=Count("id"))
        .order_by()
    )
    per_day: dict[date, dict[str, int]] = {}
    for day, outcome_name, n in rows:
        per_day.setdefault(day, {})[outcome_name] = n
    return per_day


def receipt_get(owner: Any, receipt_id: int) -> Receipt | None:
    return Receipt.objects.filter(owner=owner, pk=receipt_id).select_related("token").first()
