"""Receipts: one per save attempt, their per-day counts, and the hash chain that shows no one
rewrote them (docs/architecture.md, "Receipts").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memory import receipt_chain
from memory.models.base import Owned, Recorded, owner_key
from memory.owned import OwnedQuerySet
from memory.vocab import (
    Outcome,
    Source,
)

# --- receipts (docs/architecture.md, "Receipts") -------------------------------------------

# (owner id, local day, outcome, source): the key of one ``ReceiptDay`` row.
DayKey = tuple[int, date, str, str]
COUNTED = frozenset({"owner", "owner_id", "outcome", "source", "created_at"})
DAYS_PER_STATEMENT = 500  # rows per counting statement (SQLite's limit on parameters)


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


class _ReturnedBigInteger(models.BigIntegerField):
    __module__ = "memory.models"  # the path migration 0067 names it by
    db_returning = True  # the INSERT computes it: read it back in the same statement


class _ReturnedChar(models.CharField):
    __module__ = "memory.models"
    db_returning = True


def chain_bulk(receipts: list[Any]) -> None:
    """Chain receipts about to be inserted in one statement, in list order. PostgreSQL's
    trigger chains each row as it goes in (it needs only the digest); for SQLite, one read
    of the owners' heads, then each row's seq and hashes computed here."""
    fresh = [r for r in receipts if r.seq is None]
    for receipt in fresh:
        receipt.content_hash = receipt_chain.digest(receipt.chain_values())
    if connection.vendor != "sqlite" or not fresh:
        return
    owners = {r.owner_id for r in fresh}
    heads = {
        owner_id: (seq, head)
        for owner_id, seq, head in ReceiptChain.objects.filter(owner_id__in=owners).values_list(
            "owner_id", "seq", "head"
        )
    }
    for receipt in fresh:
        seq, head = heads.get(receipt.owner_id, (0, ""))
        receipt.seq, receipt.prev_hash = seq + 1, head
        receipt.content_hash = receipt_chain.link(head, seq + 1, receipt.content_hash)
        heads[receipt.owner_id] = (receipt.seq, receipt.content_hash)


def checkpoints_write(chained: dict[int, list[tuple[int, str]]]) -> None:
    """One signed ``ReceiptCheckpoint`` per owner for the chained receipts deleted."""
    now = timezone.now()
    rows = []
    for owner_id, pairs in sorted(chained.items()):
        runs = receipt_chain.ranges(pairs)
        rows.append(
            ReceiptCheckpoint(
                owner_id=owner_id,
                removed=len(pairs),
                runs=runs,
                created_at=now,
                signature=receipt_chain.checkpoint_sign(owner_id, len(pairs), runs, now),
            )
        )
    if rows:
        ReceiptCheckpoint.objects.bulk_create(rows)


class ReceiptQuerySet(OwnedQuerySet["Receipt"]):
    """Every bulk write keeps ``ReceiptDay`` equal to a recount, in the same transaction."""

    def _tally(self) -> Counter[DayKey]:
        rows = self.order_by().values_list("owner_id", "created_at", "outcome", "source")
        return _counted(rows.iterator(chunk_size=2000))

    def delete(self) -> tuple[int, dict[str, int]]:
        """Delete, move the per-day counts, and leave each owner a signed checkpoint of
        what went, so the chain still verifies (``ReceiptCheckpoint``)."""
        with transaction.atomic(savepoint=False):
            rows = self.order_by().values_list(
                "owner_id", "created_at", "outcome", "source", "seq", "content_hash"
            )
            gone: Counter[DayKey] = Counter()
            chained: dict[int, list[tuple[int, str]]] = {}
            for owner_id, created_at, outcome, source, seq, value in rows.iterator(2000):
                gone[day_key(owner_id, created_at, outcome, source)] += 1
                if seq is not None:
                    chained.setdefault(owner_id, []).append((seq, value))
            result = super().delete()
            days_add(Counter({key: -n for key, n in gone.items()}))
            checkpoints_write(chained)
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
        objs = list(objs)
        with transaction.atomic(savepoint=False):
            chain_bulk(objs)
            made: list[Any] = super().bulk_create(objs, *args, **kwargs)
            days_add(_counted((r.owner_id, r.created_at, r.outcome, r.source) for r in made))
        for receipt in made:
            receipt._day = receipt._key()
        return made


class Receipt(Recorded):
    owner = owner_key("receipts")
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
    # The chain (docs/architecture.md, "Receipts chain"): this receipt's place in its owner's
    # chain, the hash of the one before it, and its own hash. Set by the INSERT itself.
    seq = _ReturnedBigInteger(null=True, blank=True)
    prev_hash = _ReturnedChar(max_length=64, blank=True, default="")
    content_hash = _ReturnedChar(max_length=64, blank=True, default="")
    origin_hash = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="Imported from another ume's export: the hash it had in that chain (hashed "
        "with the rest). Empty for a receipt made here.",
    )

    # Its own queries on top of the owned ones (django-stubs types a manager override as misc).
    objects = ReceiptQuerySet.as_manager()  # type: ignore[misc]

    class Meta:
        db_table = "receipts_receipt"  # the table it had in the receipts app (no data moved)
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="receipts_owner_created"),
            models.Index(fields=["owner", "outcome", "-created_at"], name="receipts_owner_outcome"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["owner", "seq"], name="receipts_owner_seq_unique")
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()} ({self.source}) #{self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, and move this receipt's count in ``ReceiptDay`` in the same transaction:
        +1 when it is created, -1/+1 when its outcome, source, owner or day changes."""
        update_fields = kwargs.get("update_fields")
        adding = self._state.adding
        if adding:
            self._chain_insert()
        elif update_fields is None or receipt_chain.HASHED_FIELDS.intersection(update_fields):
            self._reseal()
            if update_fields is not None:
                kwargs["update_fields"] = [*update_fields, "content_hash"]
        try:
            self._save_counted(adding, *args, **kwargs)
        except BaseException:
            if adding:
                self.seq, self.prev_hash, self.content_hash = None, "", ""
            raise

    def _save_counted(self, adding: bool, *args: Any, **kwargs: Any) -> None:
        update_fields = kwargs.get("update_fields")
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
            if self.seq is not None:
                checkpoints_write({self.owner_id: [(self.seq, self.content_hash)]})
        return result

    def chain_values(self) -> dict[str, Any]:
        values = {name: getattr(self, name) for name in receipt_chain.HASHED}
        values[receipt_chain.ORIGIN] = self.origin_hash
        return values

    def _chain_insert(self) -> None:
        """Set what the INSERT chains this receipt with: its digest, and (SQLite) the
        expressions that read the owner's chain head in the same statement. On PostgreSQL
        the ``receipts_chain_seal`` trigger does that, holding the head row's lock, so two
        saves for one owner at once queue on it instead of forking the chain; SQLite takes
        one writer at a time anyway. Either way the INSERT returns seq and both hashes."""
        content = receipt_chain.digest(self.chain_values())
        if self.seq is not None or connection.vendor != "sqlite":
            self.content_hash = content
            return
        head = "(SELECT {} FROM receipts_chain WHERE owner_id = %s)"
        seq = head.format("COALESCE(MAX(seq), 0) + 1")
        prev = head.format("COALESCE(MAX(head), '')")
        owner = [self.owner_id]
        self.seq = RawSQL(seq, owner)  # type: ignore[assignment]
        self.prev_hash = RawSQL(prev, owner)  # type: ignore[assignment]
        self.content_hash = RawSQL(  # type: ignore[assignment]
            f"SHA256({prev} || ':' || {seq} || ':' || %s)", [*owner, *owner, content]
        )

    def _reseal(self) -> None:
        """A receipt filled in by the transaction that created it (an ingest's outcome and
        counts, a decision's detail) gets its hash again; its place in the chain stays."""
        if self.seq is not None:
            content = receipt_chain.digest(self.chain_values())
            self.content_hash = receipt_chain.link(self.prev_hash, self.seq, content)

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


class ReceiptDay(Owned):
    """How many receipts ``owner`` got on one local day with one outcome and source.

    Kept by every write of ``Receipt`` (create, save, bulk create, update, delete; see
    ``ReceiptQuerySet``) in the same transaction, so the Saves page's month chart reads at
    most a few hundred of these instead of every receipt of the month (docs/architecture.md).
    An owner's rows go with the owner. Days are in ``TIME_ZONE``: changing it needs the
    counts rebuilt (docs/architecture.md, "Saves chart").
    """

    day = models.DateField()
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    source = models.CharField(max_length=16, choices=Source.choices)
    count = models.IntegerField(default=0)

    class Meta:
        db_table = "receipts_receiptday"  # the table it had in the receipts app
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "day", "outcome", "source"], name="receipts_day_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.outcome} {self.source}: {self.count}"


class ReceiptChain(Owned):
    """The head of an owner's receipts chain: the last seq given and its hash, kept by the
    database in the INSERT of every receipt (the triggers of migration
    ``0067_receipt_chain``), and how far the chain was last verified, signed with an HMAC
    keyed on ``SECRET_KEY`` (docs/architecture.md, "Receipts chain")."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    seq = models.BigIntegerField(db_default=0)
    head = models.CharField(max_length=64, db_default="")
    verified_seq = models.BigIntegerField(db_default=0)
    verified_hash = models.CharField(max_length=64, db_default="")
    verified_sig = models.CharField(max_length=64, db_default="")
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "receipts_chain"

    def __str__(self) -> str:
        return f"chain of {self.owner_id}: {self.seq}"


class ReceiptCheckpoint(Recorded):
    """What a deletion took out of an owner's chain: how many receipts, and as runs
    ``[first seq, last seq, hash of the last]``, so the receipts after a gap still link;
    signed with an HMAC keyed on ``SECRET_KEY`` (``memory.receipt_chain``)."""

    removed = models.PositiveIntegerField()
    runs = models.JSONField(default=list)
    signature = models.CharField(max_length=64)

    class Meta:
        db_table = "receipts_checkpoint"
        indexes = [models.Index(fields=["owner", "id"], name="receipts_checkpoint_owner")]

    def __str__(self) -> str:
        return f"checkpoint of {self.owner_id}: {self.removed} removed"
