"""The semantic lane's vectors, per owner and corpus, in a bounded in-process cache.

A loader (a selector): every read is filtered by owner. The cache is keyed by the owner's
index version (``RecallStats.version``, a new random number on every index write in any
process), which recall reads in the same request before using the cache, so a write anywhere
is seen by the next recall everywhere. After a write, only the documents written since the
cached copy are read (each index write of an owner has the next sequence number, taken in
commit order) when none was removed; otherwise the corpus is read again. Entries are evicted least recently used past
``settings.UME_RECALL_VECTOR_CACHE_MB``.

Only vectors of the model serving the owner (``RecallStats.model``, :mod:`memory.recall.provider`)
and of its dimension are used: others (written while its endpoint was down, or of another
model) are ignored, never mixed, until ``reindex`` fills or moves them; a warning says how
many.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection

from memory.models import RecallDoc
from memory.recall.items import CorpusStats
from memory.recall.statements import column, marks, owned_select

COARSE_DIMS = 32  # the first pass over every vector uses these dimensions only
CORPUS_KINDS = {"memory": ("node", "page"), "episode": ("episode",)}
KINDS = ("node", "page", "episode")
CHUNK = 5000  # rows per fetch while reading a corpus

log = logging.getLogger(__name__)


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
    model: str = ""  # the model whose vectors it holds
    dim: int = 0  # their dimension
    epoch: int = 0  # of the statistics row it was read for
    max_seq: int = 0  # the latest index write read
    skipped: int = 0  # documents without a vector of the current model
    size: int = 0
    # ref_id * 4 + kind -> row; built on the first update after a full read (a full read
    # meets each document once and needs no lookup)
    rows: dict[int, int] | None = None
    kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8))
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    full_rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int8))
    coarse_rows: np.ndarray = field(
        default_factory=lambda: np.zeros((0, COARSE_DIMS), dtype=np.float32)
    )

    @property
    def refs(self) -> Refs:
        return Refs(self.kinds, self.ids, self.size)

    @property
    def full(self) -> np.ndarray:
        """int8 (n, dim), unit length x 127."""
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
        full = np.zeros((capacity, self.dim), dtype=np.int8)
        coarse = np.zeros((capacity, min(COARSE_DIMS, self.dim)), dtype=np.float32)
        if self.size:
            full[: self.size] = self.full_rows[: self.size]
            coarse[: self.size] = self.coarse_rows[: self.size]
        self.full_rows, self.coarse_rows = full, coarse

    def put(self, batch: list[tuple[int, str, int, bytes | None, str]], *, fresh: bool) -> None:
        """Add or replace the rows of ``batch`` (write sequence, kind, ref id, vector, model);
        ``fresh`` while reading the whole corpus (each document once). The vectors of a
        batch are copied and scaled as one matrix (each coarse row divided by its own norm,
        as one vector at a time would be)."""
        self._grow(self.size + len(batch))
        if not fresh and self.rows is None:
            keys = self.ids[: self.size] * 4 + self.kinds[: self.size]
            self.rows = {int(k): i for i, k in enumerate(keys)}
        at: list[int] = []
        blobs: list[bytes] = []
        for seq, kind, ref_id, blob, model in batch:
            self.max_seq = max(self.max_seq, seq)
            if blob is None or model != self.model or len(blob) != self.dim:
                self.skipped += 1
                continue
            code = KINDS.index(kind)
            row = None if self.rows is None else self.rows.get(ref_id * 4 + code)
            if row is None:
                row = self.size
                self.size += 1
                if self.rows is not None:
                    self.rows[ref_id * 4 + code] = row
            self.kinds[row], self.ids[row] = code, ref_id
            at.append(row)
            blobs.append(bytes(blob))
        if not at:
            return
        vectors = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(at), self.dim)
        self.full_rows[at] = vectors
        coarse = vectors[:, :COARSE_DIMS].astype(np.float32)
        norms = np.array([float(np.sqrt(v.dot(v))) for v in coarse], dtype=np.float32)
        scaled = np.zeros_like(coarse)
        np.divide(coarse, norms[:, None], out=scaled, where=norms[:, None] > 0)
        self.coarse_rows[at] = scaled


_lock = threading.Lock()
_cache: OrderedDict[tuple[int, str], OwnerVectors] = OrderedDict()


def _budget_bytes() -> int:
    return int(getattr(settings, "UME_RECALL_VECTOR_CACHE_MB", 256)) * 1024 * 1024


def _read(owner_id: int, corpus: str, entry: OwnerVectors, after: int) -> None:
    """The owner's documents of ``corpus`` written after write ``after``, in write order, a
    chunk at a time. One statement: the (owner, kind, ref) index narrows it to the corpus's
    kinds, then the database sorts what it found. Written as ``+seq`` so that neither
    database walks the owner's (owner, seq) index instead, through every message of a
    person with 200,000 of them to keep their 2,000 memories (docs/benchmarks.md)."""
    fresh = after == 0 and entry.size == 0
    kinds = CORPUS_KINDS[corpus]
    seq, pk = column(RecallDoc, "seq"), column(RecallDoc, "id")
    sql, params = owned_select(
        RecallDoc,
        ("seq", "kind", "ref_id", "vector", "model"),
        owner_id,
        f"kind IN ({marks(len(kinds))}) AND +{seq} > %s",
        [*kinds, after],
        order_by=f"+{seq}, {pk}",
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(CHUNK):
            entry.put(
                [
                    (seq_, kind, ref_id, None if blob is None else bytes(blob), model)
                    for seq_, kind, ref_id, blob, model in rows
                ],
                fresh=fresh,
            )


def load_vectors(
    owner_id: int, corpus: str, stats: CorpusStats, *, model: str, dim: int
) -> OwnerVectors:
    """The owner's vectors of ``corpus`` made by ``model`` (``dim`` dimensions) as of
    ``stats`` (read in the same request): from the cache when it holds that version; else the
    documents written since the cached copy when none was removed; else all of them. One
    query in either case. Documents without such a vector are counted (``skipped``) and a
    warning logged when the corpus is read: recall finds them through the lexical lanes
    only."""
    key = (owner_id, corpus)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and (hit.model, hit.dim) != (model, dim):
            hit = None
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
        entry = OwnerVectors(version=stats.version, epoch=stats.epoch, model=model, dim=dim)
        entry._grow(stats.docs)  # sized once: no copies while reading
        _read(owner_id, corpus, entry, 0)
    if entry.skipped:
        log.warning(
            "recall: %d of owner %s's %s documents have no vector of %s (%d dimensions); "
            "they are found by words only until `manage.py reindex --missing`",
            entry.skipped,
            owner_id,
            corpus,
            model,
            dim,
        )
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
