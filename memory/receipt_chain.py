"""The receipts chain's arithmetic: what a receipt's hash covers, how hashes link, how a
checkpoint is signed (docs/architecture.md, "Receipts chain"). Pure: no database.

A receipt's ``content_hash`` is ``sha256(prev_hash + ":" + seq + ":" + digest)`` in hex, where
``digest`` is the SHA-256 of the canonical JSON of its content fields (:data:`HASHED`). The
outer hash is small enough to compute inside the INSERT that stores the receipt, which is how
a save chains its receipt without an extra query (``Receipt.save``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.utils.crypto import salted_hmac

#: The fields a receipt's hash covers, in this order. ``undone_at`` is not one of them: an
#: undo is recorded by the undo's own (chained) receipt, and marking the old one undone is
#: an annotation that later code reads, not part of what that save did.
HASHED = (
    "owner_id",
    "source",
    "token_id",
    "outcome",
    "extractor",
    "subject",
    "counts",
    "rejected",
    "reasons",
    "detail",
    "summary",
    "error",
    "duration_ms",
    "created_at",
)
#: The content hash a receipt had in the chain it was imported from (a ume export,
#: ``memory.exports``); empty for a receipt made here. Hashed only when set, so the digest of
#: every receipt made here is what it was before imports existed.
ORIGIN = "origin_hash"
#: The same, by the names ``save(update_fields=...)`` uses.
HASHED_FIELDS = frozenset({*HASHED, ORIGIN, "owner", "token"})
CHECKPOINT_SALT = "ume.receipts.checkpoint"


def _instant(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def canonical(values: Mapping[str, Any]) -> bytes:
    """The canonical bytes of one receipt's content: :data:`HASHED` in order, JSON with
    sorted keys, no spaces, UTF-8. JSON values go through a JSON round trip first, so what a
    save hashes is what a read of the stored row hashes (tuples are lists, keys strings).
    An imported receipt's :data:`ORIGIN` follows, so its link to the chain it came from is
    covered too."""
    row: list[Any] = []
    for name in HASHED:
        value = values[name]
        if name == "created_at":
            value = _instant(value)
        elif name in ("counts", "rejected", "reasons", "detail"):
            value = json.loads(json.dumps(value))
        row.append(value)
    origin = values.get(ORIGIN) or ""
    if origin:
        row.append({ORIGIN: origin})
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(values: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(values)).hexdigest()


def link(prev_hash: str, seq: int, content_digest: str) -> str:
    """A receipt's ``content_hash``: its digest bound to its place in the chain."""
    return hashlib.sha256(f"{prev_hash}:{seq}:{content_digest}".encode()).hexdigest()


def ranges(seqs: Iterable[tuple[int, str]]) -> list[list[Any]]:
    """``(seq, hash)`` pairs as runs ``[first, last, hash of last]``, in order."""
    runs: list[list[Any]] = []
    for seq, value in sorted(seqs):
        if runs and runs[-1][1] == seq - 1:
            runs[-1][1], runs[-1][2] = seq, value
        else:
            runs.append([seq, seq, value])
    return runs


def _payload(owner_id: int, removed: int, runs: list[list[Any]], at: datetime) -> str:
    return json.dumps([owner_id, removed, runs, _instant(at)], separators=(",", ":"))


def checkpoint_sign(owner_id: int, removed: int, runs: list[list[Any]], at: datetime) -> str:
    """The HMAC (keyed on ``SECRET_KEY``) of one checkpoint's content."""
    value = _payload(owner_id, removed, runs, at)
    return salted_hmac(CHECKPOINT_SALT, value, algorithm="sha256").hexdigest()


def checkpoint_valid(
    owner_id: int, removed: int, runs: list[list[Any]], at: datetime, signature: str
) -> bool:
    """Whether ``signature`` is this checkpoint's, under ``SECRET_KEY`` or a fallback."""
    value = _payload(owner_id, removed, runs, at)
    for key in [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]:
        expected = salted_hmac(CHECKPOINT_SALT, value, secret=key, algorithm="sha256")
        if hmac.compare_digest(expected.hexdigest(), signature):
            return True
    return False
