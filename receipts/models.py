"""Receipts: one row per save attempt, so a quiet system can be told from a broken one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone

from memory.owned import OwnedManager, OwnedQuerySet

# (owner id, local day, outcome, source): the key of one ``ReceiptDay`` row.
DayKey = tuple[int, date, str, str]
COUNTED = frozenset({"owner", "owner_id", "outcome", "source", "created_at"})
DAYS_PER_STATEMENT = 500  # rows per counting statement (SQLite's limit on parameters)


class Outcome(models.TextChoices):
    WROTE = "wrote"
    MEANINGFUL_NO_WRITE = "meaningful_no_write", "meaningful no-write"
    LLM_FAILED = "llm_failed", "extractor failed"
    DB_WRITE_FAILED = "db_write_failed", "database write failed"
    DUPLICATE = "duplicate"
    REJECTED_INPUT = "rejected_input", "rejected input"
    DELETION_CONFLICT = "deletion_conflict", "dropped: a deletion happened meanwhile"


class Source(models.TextChoices):
    UPLOAD = "upload"
    COMMAND = "command"
    MCP = "mcp", "MCP"
    API = "api", "API"
    REVIEW = "review"
    CLEANUP = "cleanup"


def day_key(owner_id: int, created_at: datetime, outcome: str, source: str) -> DayKey:
    """The ``ReceiptDay`` row a receipt is counted in: its local day (``TIME_ZONE``)."""
    return (owner_id, timezone.localdate(created_at), outcome, source)


def days_add(deltas: Counter[DayKey]) -> None:
    """Add ``deltas`` to the per-day counts in one statement, and drop the rows left at zero.

    An insert that adds to the row already there (``ON CONFLICT ... DO UPDATE``, which SQLite
    and PostgreSQL both have), so two writers counting the same day never lose a count.
    """
    # In key order, so two writers lock the rows they share in the same order.
    changes = sorted((key, n) for key, n in deltas.items() if n)
    if not changes:
        return
    table = connection.ops.quote_name(ReceiptDay._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(changes), DAYS_PER_STATEMENT):
            chunk = changes[start : start + DAYS_PER_STATEMENT]
            params: list[Any] = []
            for (owner_id, day, outcome, source), n in chunk:
                params += [owner_id, day, outcome, source, n]
            cursor.execute(
                f"INSERT INTO {table} (owner_id, day, outcome, source, count) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk))
                + " ON CONFLICT (owner_id, day, outcome, source) "
                f"DO UPDATE SET count = {table}.count + excluded.count",
                params,
            )
    if any(n < 0 for _, n in changes):
        ReceiptDay.objects.filter(
            owner_id__in={key[0] for key, _ in changes}, count__lte=0
        ).delete()


def _counted(rows: Iterable[tuple[int, datetime, str, str]]) -> Counter[DayKey]:
    counts: Counter[DayKey] = Counter()
    for owner_id, created_at, outcome, source in rows:
        counts[day_key(owner_id, created_at, outcome, source)] += 1
    return counts


def _tally_pks(pks: list[int]) -> Counter[DayKey]:
    counts: Counter[DayKey] = Counter()
    for start in range(0, len(pks), 2000):
        counts.update(Receipt.objects.filter(pk__in=pks[start : start + 2000])._tally())
    return counts


class ReceiptQuerySet(OwnedQuerySet["Receipt"]):
    """Every bulk write keeps ``ReceiptDay`` equal to a recount, in the same transaction."""

    def _tally(self) -> Counter[DayKey]:
        rows = self.order_by().values_list("owner_id", "created_at", "outcome", "source")
        return _counted(rows.iterator(chunk_size=2000))

    def delete(self) -> tuple[int, dict[str, int]]:
        with transaction.atomic(savepoint=False):
            gone = self._tally()
            result = super().delete()
            days_add(Counter({key: -n for key, n in gone.items()}))
        return result

    delete.alters_data = True  # type: ignore[attr-defined]

    def update(self, **kwargs: Any) -> int:
        if not COUNTED.intersection(kwargs):
            return super().update(**kwargs)
        with transaction.atomic(savepoint=False):
            pks = list(self.values_list("pk", flat=True))
            before = _tally_pks(pks)
            result = super().update(**kwargs)
            after = _tally_pks(pks)
            after.subtract(before)
            days_add(after)
        return result

    update.alters_data = True  # type: ignore[attr-defined]

    def bulk_update(  # type: ignore[override]
        self, objs: Iterable[Any], fields: Iterable[str], *args: Any, **kwargs: Any
    ) -> int:
        # Django's bulk_update writes through ``update`` above, which moves the counts.
        objs = list(objs)
        result = super().bulk_update(objs, fields, *args, **kwargs)
        for receipt in objs:
            receipt._day = receipt._key()
        return result

    bulk_update.alters_data = True  # type: ignore[attr-defined]

    def bulk_create(  # type: ignore[override]
        self, objs: Iterable[Any], *args: Any, **kwargs: Any
    ) -> list[Any]:
        if kwargs.get("ignore_conflicts") or kwargs.get("update_conflicts"):
            # Which rows went in is not known afterwards: refuse rather than miscount.
            raise ValueError("Receipt.objects.bulk_create counts every row: no conflict options")
        with transaction.atomic(savepoint=False):
            made: list[Any] = super().bulk_create(objs, *args, **kwargs)
            days_add(_counted((r.owner_id, r.created_at, r.outcome, r.source) for r in made))
        for receipt in made:
            receipt._day = receipt._key()
        return made


class Receipt(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="receipts"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    token = models.ForeignKey(
        "memory.AccessToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    extractor = models.CharField(max_length=16, blank=True, default="")
    subject = models.CharField(
        max_length=255, blank=True, default="", help_text="The file, transcript or action."
    )
    counts = models.JSONField(default=dict, blank=True)
    rejected = models.JSONField(default=list, blank=True)
    reasons = models.JSONField(default=dict, blank=True, help_text="Rejection reason -> count.")
    detail = models.JSONField(default=dict, blank=True, help_text="The plan and what it wrote.")
    summary = models.CharField(max_length=500, blank=True, default="")
    error = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = ReceiptQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="receipts_owner_created"),
            models.Index(fields=["owner", "outcome", "-created_at"], name="receipts_owner_outcome"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()} ({self.source}) #{self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, and move this receipt's count in ``ReceiptDay`` in the same transaction:
        +1 when it is created, -1/+1 when its outcome, source, owner or day changes."""
        update_fields = kwargs.get("update_fields")
        adding = self._state.adding
        if not adding and update_fields is not None and not COUNTED.intersection(update_fields):
            super().save(*args, **kwargs)
            return
        with transaction.atomic(savepoint=False):
            old = self._day
            if not adding and old is None:
                row = Receipt.objects.filter(pk=self.pk).values_list(
                    "owner_id", "created_at", "outcome", "source"
                )
                old = next((day_key(*r) for r in row), None)
            super().save(*args, **kwargs)
            new = self._key()
            if new != old:
                deltas: Counter[DayKey] = Counter({new: 1})
                if old is not None:
                    deltas[old] -= 1
                days_add(deltas)
        self._day = new

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic(savepoint=False):
            result = super().delete(*args, **kwargs)
            days_add(Counter({self._key(): -1}))
        return result

    _day: DayKey | None = None  # the ReceiptDay row this receipt is counted in, once saved

    def _key(self) -> DayKey:
        return day_key(self.owner_id, self.created_at, self.outcome, self.source)

    @classmethod
    def from_db(  # type: ignore[override]
        cls, db: str | None, field_names: Any, values: Any, **kwargs: Any
    ) -> Receipt:
        receipt = super().from_db(db, field_names, values, **kwargs)
        names = set(field_names)
        if {"owner_id", "created_at", "outcome", "source"} <= names:
            receipt._day = receipt._key()
        return receipt

    def as_json(self) -> dict:
        """The receipt shape every interface prints (docs/architecture.md, "Receipts")."""
        return {
            "receipt_id": self.pk,
            "outcome": self.outcome,
            "counts": self.counts,
            "rejected": self.rejected,
            "source": self.source,
            "summary": self.summary,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "created_at": self.created_at.isoformat(),
        }


class ReceiptDay(models.Model):
    """How many receipts ``owner`` got on one local day with one outcome and source.

    Kept by every write of ``Receipt`` (create, save, bulk create, update, delete; see
    ``ReceiptQuerySet``) in the same transaction, so the Saves page's month chart reads at
    most a few hundred of these instead of every receipt of the month (docs/architecture.md).
    An owner's rows go with the owner. Days are in ``TIME_ZONE``: changing it needs the
    counts rebuilt (migration 0002 shows how).
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    source = models.CharField(max_length=16, choices=Source.choices)
    count = models.IntegerField(default=0)

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "day", "outcome", "source"], name="receipts_day_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.outcome} {self.source}: {self.count}"
