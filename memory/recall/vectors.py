"""The semantic lane's vectors, per owner and corpus, in a bounded in-process cache.

A loader (a selector): every read is filtered by owner. The cache is keyed by the owner's
index version (``RecallStats.version``, bumped by every index write in any process), which
recall reads in the same request before using the cache, so a write anywhere is seen by the
next recall everywhere. Entries are evicted least recently used past
``settings.UME_RECALL_VECTOR_CACHE_MB``.

Only vectors of the current model (:data:`memory.recall.embed.MODEL_NAME`) are read: after a
model change the others are ignored, never mixed, until ``reindex`` rebuilds them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memory.models import RecallDoc
from memory.recall.embed import DIM, MODEL_NAME, SCALE, matrix

COARSE_DIMS = 64  # the first pass over every vector uses these dimensions only
CORPUS_KINDS = {"memory": ("node", "page"), "episode": ("episode",)}


@dataclass(frozen=True)
class OwnerVectors:
    version: int
    refs: list[tuple[str, int]]
    coarse: np.ndarray  # float32 (n, COARSE_DIMS), rows unit length
    full: np.ndarray  # int8 (n, DIM), unit length x 127

    @property
    def nbytes(self) -> int:
        return int(self.coarse.nbytes + self.full.nbytes)


_lock = threading.Lock()
_cache: OrderedDict[tuple[int, str], OwnerVectors] = OrderedDict()


def _budget_bytes() -> int:
    return int(getattr(settings, "UME_RECALL_VECTOR_CACHE_MB", 256)) * 1024 * 1024


def _build(version: int, refs: list[tuple[str, int]], blobs: list[bytes]) -> OwnerVectors:
    full = matrix(blobs)
    coarse = full[:, :COARSE_DIMS].astype(np.float32) / SCALE
    norms = np.linalg.norm(coarse, axis=1, keepdims=True)
    coarse = np.divide(coarse, norms, out=np.zeros_like(coarse), where=norms > 0)
    return OwnerVectors(version=version, refs=refs, coarse=coarse, full=full)


def load_vectors(owner_id: int, corpus: str, version: int) -> OwnerVectors:
    """The owner's vectors of ``corpus`` as of ``version``: from the cache when it holds that
    version, else one query."""
    key = (owner_id, corpus)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit.version == version:
            _cache.move_to_end(key)
            return hit
    refs: list[tuple[str, int]] = []
    blobs: list[bytes] = []
    for kind, ref_id, blob in (
        RecallDoc.objects.filter(owner_id=owner_id, kind__in=CORPUS_KINDS[corpus], model=MODEL_NAME)
        .exclude(vector=None)
        .order_by("kind", "ref_id")
        .values_list("kind", "ref_id", "vector")
    ):
        if blob is not None and len(blob) == DIM:
            refs.append((kind, ref_id))
            blobs.append(bytes(blob))
    entry = _build(version, refs, blobs)
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
