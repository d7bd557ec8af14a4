"""The semantic lane's vectors, per owner and corpus, in a bounded in-process cache.

A loader (a selector): every read is filtered by owner. The cache is keyed by the owner's
index version (``RecallStats.version``, a new random number on every index write in any
process), which recall reads in the same request before using the cache, so a write anywhere
is seen by the next recall everywhere. After a write, only the documents written since the
cached copy are read (each index write of an owner has the next sequence number, taken in
commit order) when none was removed; otherwise the corpus is read again. Entries are evicted least recently used past
``settings.UME_RECALL_VECTOR_CACHE_MB``.

Only vectors of the current model (:data:`memory.recall.embed.MODEL_NAME`) are used: after a
model change the others are ignored, never mixed, until ``reindex`` rebuilds them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings

from memory.models import RecallDoc
from memory.recall.embed import DIM, MODEL_NAME
from memory.recall.items import CorpusStats

COARSE_DIMS = 32  # the first pass over every vector uses these dimensions only
CORPUS_KINDS = {"memory": ("node", "page"), "episode": ("episode",)}
KINDS = ("node", "page", "episode")
CHUNK = 5000  # rows per fetch while reading a corpus


class Refs(Sequence[tuple[str, int]]):
    """``(kind, id)`` of each row, kept as two small arrays rather than 300,000 tuples."""

    def __init__(self, kinds: np.ndarray, ids: np.ndarray, size: int) -> None:
        self.kinds, self.ids, self.size = kinds, ids, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: Any) -> Any:
        return KINDS[int(self.kinds[i])], int(self.ids[i])


@dataclass
class OwnerVectors:
    version: int
    epoch: int = 0  # of the statistics row it was read for
    max_seq: int = 0  # the latest index write read
    skipped: int = 0  # documents without a vector of the current model
    size: int = 0
    # ref_id * 4 + kind -> row; built on the first update after a full read (a full read
    # meets each document once and needs no lookup)
    rows: dict[int, int] | None = None
    kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8))
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    full_rows: np.ndarray = field(default_factory=lambda: np.zeros((0, DIM), dtype=np.int8))
    coarse_rows: np.ndarray = field(
        default_factory=lambda: np.zeros((0, COARSE_DIMS), dtype=np.float32)
    )

    @property
    def refs(self) -> Refs:
        return Refs(self.kinds, self.ids, self.size)

    @property
    def full(self) -> np.ndarray:
        """int8 (n, DIM), unit length x 127."""
        return self.full_rows[: self.size]

    @property
    def coarse(self) -> np.ndarray:
        """float32 (n, COARSE_DIMS), rows unit length."""
        return self.coarse_rows[: self.size]

    @property
    def nbytes(self) -> int:
        arrays = (self.kinds, self.ids, self.full_rows, self.coarse_rows)
        return int(sum(a.nbytes for a in arrays)) + 100 * len(self.rows or ())

    def _grow(self, needed: int) -> None:
        capacity = len(self.ids)
        if needed <= capacity:
            return
        capacity = max(needed, 2 * capacity, 1024)
        self.kinds = np.resize(self.kinds, capacity)
        self.ids = np.resize(self.ids, capacity)
        full = np.zeros((capacity, DIM), dtype=np.int8)
        full[: self.size] = self.full_rows[: self.size]
        coarse = np.zeros((capacity, COARSE_DIMS), dtype=np.float32)
        coarse[: self.size] = self.coarse_rows[: self.size]
        self.full_rows, self.coarse_rows = full, coarse

    def put(self, batch: list[tuple[int, str, int, bytes | None, str]], *, fresh: bool) -> None:
        """Add or replace the rows of ``batch`` (write sequence, kind, ref id, vector, model);
        ``fresh`` while reading the whole corpus (each document once)."""
        self._grow(self.size + len(batch))
        if not fresh and self.rows is None:
            keys = self.ids[: self.size] * 4 + self.kinds[: self.size]
            self.rows = {int(k): i for i, k in enumerate(keys)}
        for seq, kind, ref_id, blob, model in batch:
            self.max_seq = max(self.max_seq, seq)
            if blob is None or model != MODEL_NAME or len(blob) != DIM:
                self.skipped += 1
                continue
            code = KINDS.index(kind)
            at = None if self.rows is None else self.rows.get(ref_id * 4 + code)
            if at is None:
                at = self.size
                self.size += 1
                if self.rows is not None:
                    self.rows[ref_id * 4 + code] = at
            self.kinds[at], self.ids[at] = code, ref_id
            vector = np.frombuffer(bytes(blob), dtype=np.int8)
            self.full_rows[at] = vector
            coarse = vector[:COARSE_DIMS].astype(np.float32)
            norm = float(np.linalg.norm(coarse))
            self.coarse_rows[at] = coarse / norm if norm > 0 else 0.0


_lock = threading.Lock()
_cache: OrderedDict[tuple[int, str], OwnerVectors] = OrderedDict()


def _budget_bytes() -> int:
    return int(getattr(settings, "UME_RECALL_VECTOR_CACHE_MB", 256)) * 1024 * 1024


def _read(owner_id: int, corpus: str, entry: OwnerVectors, after: int) -> None:
    fresh = after == 0 and entry.size == 0
    rows = (
        RecallDoc.objects.for_owner(owner_id)
        .filter(kind__in=CORPUS_KINDS[corpus], seq__gt=after)
        .order_by("seq", "id")
        .values_list("seq", "kind", "ref_id", "vector", "model")
    )
    batch: list[tuple[int, str, int, bytes | None, str]] = []
    for seq, kind, ref_id, blob, model in rows.iterator(chunk_size=CHUNK):
        batch.append((seq, kind, ref_id, None if blob is None else bytes(blob), model))
        if len(batch) >= CHUNK:
            entry.put(batch, fresh=fresh)
            batch = []
    entry.put(batch, fresh=fresh)


def load_vectors(owner_id: int, corpus: str, stats: CorpusStats) -> OwnerVectors:
    """The owner's vectors of ``corpus`` as of ``stats`` (read in the same request): from the
    cache when it holds that version; else the documents written since the cached copy when
    none was removed; else all of them. One query in either case."""
    key = (owner_id, corpus)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit.version == stats.version and hit.epoch == stats.epoch:
            _cache.move_to_end(key)
            return hit
    entry: OwnerVectors | None = None
    if hit is not None and hit.epoch == stats.epoch and hit.max_seq <= stats.seq:
        # Rewritten and new documents carry a later write's number: read those; the copy is
        # complete when the count matches (nothing removed), else read the corpus again.
        _read(owner_id, corpus, hit, hit.max_seq)
        if hit.size + hit.skipped == stats.docs:
            hit.version = stats.version
            entry = hit
    if entry is None:
        entry = OwnerVectors(version=stats.version, epoch=stats.epoch)
        entry._grow(stats.docs)  # sized once: no copies while reading
        _read(owner_id, corpus, entry, 0)
    with _lock:
        _cache[key] = entry
        _cache.move_to_end(key)
        budget = _budget_bytes()
        while len(_cache) > 1 and sum(e.nbytes for e in _cache.values()) > budget:
            _cache.popitem(last=False)
    return entry


def clear() -> None:
    """Empty the cache (tests; a process that wants its memory back)."""
    with _lock:
        _cache.clear()
