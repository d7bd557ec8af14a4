"""Reads the API needs beyond ``memory.selectors``; each takes the owner and filters on it."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from memory.models import Event, Slice, Transcript
from receipts.models import Receipt


def receipt_list(owner: Any, *, outcome: str = "", source: str = "") -> QuerySet[Receipt]:
    receipts = Receipt.objects.filter(owner=owner)
    if outcome:
        receipts = receipts.filter(outcome=outcome)
    if source:
        receipts = receipts.filter(source=source)
    return receipts.order_by("-created_at", "-id")


def receipt_get(owner: Any, receipt_id: int) -> Receipt | None:
    return Receipt.objects.filter(owner=owner, pk=receipt_id).first()


def transcript_get(owner: Any, transcript_id: int) -> Transcript | None:
    return (
        Transcript.objects.filter(owner=owner, pk=transcript_id).select_related("receipt").first()
    )


def node_slices(owner: Any, node_id: int) -> list[Slice]:
    return list(Slice.objects.filter(owner=owner, node_id=node_id).order_by("-created_at", "-id"))


def node_events(owner: Any, node_id: int) -> list[Event]:
    return list(Event.objects.filter(owner=owner, node_id=node_id).order_by("-created_at", "-id"))
