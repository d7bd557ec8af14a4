"""Verifying an owner's receipts chain (docs/architecture.md, "Receipts chain").

:func:`chain_verify` walks the whole chain in seq order, streamed: each receipt's hash is
recomputed from its content, its ``prev_hash`` must be the hash before it, a gap in seq must
be a deletion that left a validly signed checkpoint, and the chain head the database keeps
must be where the walk ends. :func:`chain_verify_new` is the Saves page's: it starts from the
last point verified (signed, on the head row) and walks only the receipts since, then moves
that point on. The first thing wrong is reported; a chain is whole or broken there.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, Min
from django.utils import timezone
from django.utils.crypto import salted_hmac

from memory import receipt_chain
from memory.models import Receipt, ReceiptChain, ReceiptCheckpoint
from memory.owned import Person

VERIFIED_SALT = "ume.receipts.verified"
CONTENT_CHANGED = "content changed"
MISSING = "missing receipt"
REORDERED = "reordered"
CHECKPOINT_BAD = "checkpoint signature bad"
HEAD_CHANGED = "chain head does not match"


@dataclass
class ChainReport:
    owner_id: int
    username: str
    receipts: int = 0  # the receipts the walk checked
    last_seq: int = 0
    since: datetime | None = None
    problem: str = ""
    seq: int | None = None  # where it breaks
    receipt_id: int | None = None
    checkpoint_id: int | None = None

    @property
    def intact(self) -> bool:
        return not self.problem

    def as_json(self) -> dict[str, Any]:
        return {
            "user": self.username,
            "intact": self.intact,
            "receipts": self.receipts,
            "last_seq": self.last_seq,
            "problem": self.problem or None,
            "seq": self.seq,
            "receipt_id": self.receipt_id,
            "checkpoint_id": self.checkpoint_id,
        }


def _verified_sig(owner_id: int, seq: int, value: str) -> str:
    return salted_hmac(VERIFIED_SALT, f"{owner_id}:{seq}:{value}", algorithm="sha256").hexdigest()


@dataclass
class _Walk:
    report: ChainReport
    removed: dict[int, str] = field(default_factory=dict)  # seq ending a deleted run -> hash
    starts: dict[int, int] = field(default_factory=dict)  # deleted run: first seq -> last
    anchor: tuple[int, str] | None = None  # (seq, hash) verified before, signed

    def fail(self, problem: str, seq: int | None, receipt_id: int | None = None) -> bool:
        self.report.problem, self.report.seq, self.report.receipt_id = problem, seq, receipt_id
        return False

    def checkpoints(self, owner: Person) -> bool:
        for point in ReceiptCheckpoint.objects.for_owner(owner).order_by("id").iterator():
            runs = point.runs
            if not receipt_chain.checkpoint_valid(
                point.owner_id, point.removed, runs, point.created_at, point.signature
            ):
                self.report.checkpoint_id = point.pk
                return self.fail(CHECKPOINT_BAD, runs[0][0] if runs else None)
            for first, last, value in runs:
                self.starts[first], self.removed[last] = last, value
        return True

    def skip(self, expected: int, upto: int) -> str | None:
        """The hash of ``upto`` when every seq from ``expected`` to it was deleted with a
        checkpoint, else None."""
        seq = expected
        while seq <= upto:
            last = next((b for a, b in self.starts.items() if a <= seq <= b), None)
            if last is None:
                return None
            seq = last + 1
        return self.removed.get(upto) if seq == upto + 1 else None

    def step(self, row: Receipt, expected: int, prev: str) -> str | None:
        """Check one receipt after ``prev`` (the hash before ``expected``): its hash, or
        None when the chain breaks here."""
        if row.seq is None or row.seq < expected:
            self.fail(REORDERED, row.seq, row.pk)
            return None
        if row.seq > expected:
            gap = self.skip(expected, row.seq - 1)
            if gap is None:
                self.fail(MISSING, expected, row.pk)
                return None
            prev = gap
        if row.prev_hash != prev:
            self.fail(REORDERED, row.seq, row.pk)
            return None
        content = receipt_chain.digest(row.chain_values())
        if receipt_chain.link(row.prev_hash, row.seq, content) != row.content_hash:
            self.fail(CONTENT_CHANGED, row.seq, row.pk)
            return None
        if self.anchor and self.anchor[0] == row.seq and self.anchor[1] != row.content_hash:
            self.fail(CONTENT_CHANGED, row.seq, row.pk)  # rebuilt since it was verified
            return None
        return row.content_hash

    def run(self, owner: Person, head: ReceiptChain | None, start: tuple[int, str]) -> bool:
        if not self.checkpoints(owner):
            return False
        expected, prev = start[0] + 1, start[1]
        rows = Receipt.objects.for_owner(owner).filter(seq__gte=expected).order_by("seq")
        for row in rows.iterator(chunk_size=1000):
            value = self.step(row, expected, prev)
            if value is None or row.seq is None:
                return False
            expected, prev = row.seq + 1, value
            self.report.receipts += 1
            self.report.last_seq = row.seq
        return self.finish(head, expected, prev)

    def finish(self, head: ReceiptChain | None, expected: int, prev: str) -> bool:
        """The walk must end at the head the database keeps: later receipts deleted
        without a checkpoint show here."""
        seq, value = (head.seq, head.head) if head else (0, "")
        if seq >= expected:
            prev_at = self.skip(expected, seq)
            if prev_at is None:
                return self.fail(MISSING, expected)
            prev = prev_at
        elif seq < expected - 1:
            return self.fail(HEAD_CHANGED, seq)
        if seq and prev != value:
            return self.fail(HEAD_CHANGED, seq)
        return True


def _head(owner: Person) -> ReceiptChain | None:
    return ReceiptChain.objects.for_owner(owner).first()


def _anchor(head: ReceiptChain | None) -> tuple[int, str] | None:
    if head is None or not head.verified_seq:
        return None
    sig = _verified_sig(head.owner_id, head.verified_seq, head.verified_hash)
    if not hmac.compare_digest(sig, head.verified_sig):
        return None
    return head.verified_seq, head.verified_hash


def chain_verify(owner: Person) -> ChainReport:
    """Walk all of ``owner``'s chain (streamed); the report says whole or where it breaks."""
    report = ChainReport(owner_id=owner.pk, username=owner.get_username())
    head = _head(owner)
    _Walk(report, anchor=_anchor(head)).run(owner, head, (0, ""))
    return report


def chain_verify_new(owner: Person) -> ChainReport:
    """Verify only what came since the signed point last verified, then move that point to
    the head; the report's counts are of the receipts ``owner`` has now."""
    report = ChainReport(owner_id=owner.pk, username=owner.get_username())
    head = _head(owner)
    start = _anchor(head) or (0, "")
    if _Walk(report).run(owner, head, start) and head is not None and head.seq > start[0]:
        ReceiptChain.objects.for_owner(owner).filter(seq=head.seq).update(
            verified_seq=head.seq,
            verified_hash=head.head,
            verified_sig=_verified_sig(owner.pk, head.seq, head.head),
            verified_at=timezone.now(),
        )
    totals = Receipt.objects.for_owner(owner).aggregate(n=Count("id"), since=Min("created_at"))
    report.receipts, report.since = totals["n"], totals["since"]
    report.last_seq = head.seq if head else 0
    return report


def chain_reseal(owner: Person, from_seq: int) -> int:
    """Hash ``owner``'s receipts again from ``from_seq`` on, each linked to the one before,
    and move the head: for ``seed_demo``, which backdates the demo receipts it has just made.
    Nothing else calls it: it is exactly the rewrite the chain exists to show."""
    before = Receipt.objects.for_owner(owner).filter(seq__lt=from_seq).order_by("-seq")
    prev = before.values_list("content_hash", flat=True).first() or ""
    rows = list(Receipt.objects.for_owner(owner).filter(seq__gte=from_seq).order_by("seq"))
    for row in rows:
        row.prev_hash = prev
        content = receipt_chain.digest(row.chain_values())
        prev = row.content_hash = receipt_chain.link(prev, row.seq or 0, content)
    Receipt.objects.bulk_update(rows, ["prev_hash", "content_hash"])
    if rows:
        ReceiptChain.objects.for_owner(owner).update(seq=rows[-1].seq, head=prev)
    return len(rows)
