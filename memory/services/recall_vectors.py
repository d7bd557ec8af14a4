"""Moving an owner's vectors to the configured embedding model, and filling missing ones.

Entry points: ``recall_vectors_move(*, owner_id, batch=None, progress=None) -> VectorMove``
(the ``reindex`` command) and ``recall_vectors_fill(*, limit=500, dry_run=False) -> int`` (a
sweep of the ``cleanup`` cron: the documents written without a vector while the configured
model could not answer).

- When the model serving the owner (``RecallStats.model``) is the configured one, the
  documents without a vector of it (written while its endpoint was down) get one, a batch at a
  time, each batch in its own short transaction: recall sees each as it commits.
- Otherwise each document's vector of the configured model is *staged* beside the one serving
  recall (``RecallDoc.staged_vector``), a batch at a time; recall keeps using the old vectors
  (and embedding questions with the old model) all along. When every document has one, a last
  transaction, under the owner's index lock, stages what was written meanwhile and swaps: every
  vector and the serving model change together, so no recall ever compares vectors of two
  models, and none is without its semantic lane in between.

Idempotent and resumable: a document already done is not embedded again, so a run stopped by
a failing endpoint or an interrupt goes on where it stopped. The endpoint failing raises
:class:`~memory.recall.provider.EmbeddingUnavailable` (what was written is kept)."""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet

from memory.models import RecallDoc, RecallStats
from memory.recall.documents import CORPUS_EPISODE, corpus_of
from memory.recall.embed import quantize
from memory.recall.provider import Embedder, EmbeddingUnavailable, configured
from memory.services.recall_index import _READERS, lock_stats

log = logging.getLogger(__name__)


@dataclass
class VectorMove:
    """What a move did: the model moved to, the models served before (per corpus), how many
    documents were embedded, and whether the owner is now served by the configured model."""

    model: str
    before: dict[str, str] = field(default_factory=dict)
    embedded: int = 0
    pending: int = 0  # documents that needed a vector when the move started
    swapped: bool = False

    @property
    def done(self) -> bool:
        return all(m == self.model for m in self.before.values()) or self.swapped


def _serving(owner_id: int) -> dict[str, str]:
    return dict(RecallStats.objects.for_owner(owner_id).values_list("corpus", "model"))


def _needing(owner_id: int, model: str) -> QuerySet[RecallDoc]:
    """The owner's documents without a vector of ``model``, neither served nor staged."""
    return (
        RecallDoc.objects.for_owner(owner_id)
        .filter(Q(vector__isnull=True) | ~Q(model=model))
        .exclude(staged_model=model, staged_vector__isnull=False)
    )


def _embed_docs(
    owner_id: int, embedder: Embedder, rows: list[tuple[int, str, int]]
) -> dict[int, bytes]:
    """int8 vectors of the documents ``(doc id, kind, ref id)``, by document id (a document
    whose row is gone has none)."""
    by_kind: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for doc_id, kind, ref_id in rows:
        by_kind[kind].append((doc_id, ref_id))
    texts: list[tuple[int, str]] = []
    for kind, pairs in by_kind.items():
        docs = {d.ref_id: d for d in _READERS[kind](owner_id, sorted(r for _d, r in pairs))}
        texts += [(doc_id, docs[ref].embed_text) for doc_id, ref in pairs if ref in docs]
    if not texts:
        return {}
    vectors = quantize(embedder.embed([t for _id, t in texts]))
    return {doc_id: v for (doc_id, _t), v in zip(texts, vectors, strict=True)}


def _store(owner_id: int, model: str, vectors: dict[int, bytes], *, staged: bool) -> None:
    """Write ``vectors`` (by document id): staged beside the served ones, or served at once
    (then under the owner's lock, with the next write's number and a new index version, so
    every cache reads them)."""
    if not vectors:
        return
    docs = RecallDoc.objects.for_owner(owner_id)
    if staged:
        for doc_id, vector in vectors.items():
            docs.filter(pk=doc_id).update(staged_vector=vector, staged_model=model)
        return
    locked = lock_stats(owner_id, CORPUS_EPISODE)
    seqs = {name: row.seq + 1 for name, row in locked.items()}
    written: set[str] = set()
    for doc_id, kind in docs.filter(pk__in=list(vectors)).values_list("pk", "kind"):
        corpus = corpus_of(kind)
        docs.filter(pk=doc_id).update(vector=vectors[doc_id], model=model, seq=seqs[corpus])
        written.add(corpus)
    for corpus in written:
        RecallStats.objects.for_owner(owner_id).filter(corpus=corpus).update(
            seq=seqs[corpus], version=secrets.randbits(62)
        )


def _swap(owner_id: int, embedder: Embedder, limit: int) -> bool:
    """Stage what was written meanwhile (at most ``limit`` documents) and serve the staged
    vectors, all under the owner's index lock; ``False`` (nothing changed) when more than that
    was written meanwhile. Every document of a corpus gets that corpus's next write number and
    the statistics a new version and the new model, so every cache reads the corpus again."""
    model = embedder.name
    with transaction.atomic():
        locked = lock_stats(owner_id, CORPUS_EPISODE)
        left = list(_needing(owner_id, model).values_list("pk", "kind", "ref_id")[: limit + 1])
        if len(left) > limit:
            return False
        _store(owner_id, model, _embed_docs(owner_id, embedder, left), staged=True)
        docs = RecallDoc.objects.for_owner(owner_id).filter(staged_model=model)
        for name, row in locked.items():
            kinds = [k for k in RecallDoc.Kind.values if corpus_of(k) == name]
            docs.filter(kind__in=kinds).update(
                vector=F("staged_vector"),
                model=model,
                staged_vector=None,
                staged_model="",
                seq=row.seq + 1,
            )
            RecallStats.objects.filter(pk=row.pk).update(
                model=model, seq=row.seq + 1, version=secrets.randbits(62)
            )
    return True


def recall_vectors_move(
    *,
    owner_id: int,
    batch: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> VectorMove:
    """Give every document of ``owner_id`` a vector of the configured model, ``batch``
    documents per request to the model (``UME_EMBEDDINGS_BATCH`` by default), then serve them
    (see the module docstring). ``progress(done, total)`` is called after each batch. Raises
    :class:`~memory.recall.provider.EmbeddingUnavailable` when the model fails (what was done
    is kept: run it again)."""
    embedder = configured()
    size = max(1, int(batch or settings.UME_EMBEDDINGS_BATCH))
    with transaction.atomic():
        lock_stats(owner_id, CORPUS_EPISODE)  # both rows exist, each with a serving model
    move = VectorMove(model=embedder.name, before=_serving(owner_id))
    staged = any(m != embedder.name for m in move.before.values())
    move.pending = _needing(owner_id, embedder.name).count()
    for _pass in range(3):  # documents written while a pass ran are met by the next
        last = 0
        while rows := list(
            _needing(owner_id, embedder.name)
            .filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "kind", "ref_id")[:size]
        ):
            last = rows[-1][0]
            vectors = _embed_docs(owner_id, embedder, rows)
            with transaction.atomic():
                _store(owner_id, embedder.name, vectors, staged=staged)
            move.embedded += len(vectors)
            if progress is not None:
                progress(min(move.embedded, move.pending), move.pending)
        if not staged:
            return move
        if _swap(owner_id, embedder, size):
            move.swapped = True
            return move
    return move


def recall_vectors_fill(*, limit: int = 500, dry_run: bool = False) -> int:
    """Give a vector to documents written without one while the configured model could not
    answer, for every owner it serves, at most ``limit`` documents a run (a sweep of the
    ``cleanup`` cron). Returns how many were filled (or, with ``dry_run``, would be). Never
    raises for the endpoint: when it fails the rest waits for the next run."""
    embedder = configured()
    owners = RecallStats.objects.filter(model=embedder.name).values("owner")
    waiting = RecallDoc.objects.filter(
        vector__isnull=True, model=embedder.name, owner__in=owners
    ).order_by("pk")
    if dry_run:
        return min(waiting.count(), limit)
    by_owner: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for doc_id, owner_id, kind, ref_id in waiting.values_list("pk", "owner", "kind", "ref_id")[
        :limit
    ]:
        by_owner[owner_id].append((doc_id, kind, ref_id))
    size = max(1, int(settings.UME_EMBEDDINGS_BATCH))
    filled = 0
    for owner_id, rows in by_owner.items():
        for start in range(0, len(rows), size):
            try:
                vectors = _embed_docs(owner_id, embedder, rows[start : start + size])
            except EmbeddingUnavailable as exc:
                log.warning("cleanup: vectors not filled now: %s", exc)
                return filled
            with transaction.atomic():
                _store(owner_id, embedder.name, vectors, staged=False)
            filled += len(vectors)
    return filled
