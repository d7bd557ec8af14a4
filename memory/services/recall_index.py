"""Recall's index: postings, document lengths, per-owner statistics and vectors, kept in step
with the rows they describe.

Entry points (stable; every write path calls the first inside its own transaction):

- ``recall_index_refresh(*, owner_id, nodes=(), pages=(), episodes=())``: re-reads those rows
  and rewrites their documents (a row that no longer exists loses its document; an episode's
  keeps its words as stems, which the episode lane reads instead of tokenising the message
  again), adjusts the owner's statistics and bumps the owner's index version. A node's key
  words (the gate's "may belong to" lookup, :class:`~memory.models.NodeKeyWord`) are
  rewritten with it. Idempotent: calling it for rows that did not change rewrites the same
  documents.
- ``recall_index_add_episodes(*, owner_id, episodes)``: the same for episodes inserted in the
  caller's transaction, reading back nothing (``episodes_record``).
- ``recall_index_rebuild(*, owner_id, progress=None) -> dict``: every document of the owner
  from scratch (the ``reindex`` command).

Vectors are made by the model serving the owner (``RecallStats.model``, set to the configured
model on the owner's first write; :mod:`memory.recall.provider`), never another, so that an
owner's vectors are never mixed; ``reindex`` moves them to a newly configured model
(:mod:`memory.services.recall_vectors`). When that model cannot answer (an endpoint down), the
document is written without a vector and a warning logged: the write is never lost, and
``reindex --missing`` fills the vector later.

Each write also keeps the owner's document frequencies (:class:`~memory.models.RecallTermCount`:
how many documents of a kind hold a term) equal to a count of the postings, under the same
per-owner lock, so that recall reads one row per word instead of counting postings.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from django.db import connection, transaction
from django.db.models import F

from memory.models import (
    Alias,
    Episode,
    Event,
    Node,
    NodeKeyWord,
    Page,
    RecallDoc,
    RecallStats,
    RecallTerm,
    RecallTermCount,
    Slice,
)
from memory.recall.documents import (
    CORPUS_EPISODE,
    CORPUS_MEMORY,
    DocText,
    corpus_of,
    document,
    episode_document,
    node_fields,
    page_fields,
)
from memory.recall.embed import quantize
from memory.recall.provider import EmbeddingUnavailable, configured, for_model
from memory.recall.statements import column, table
from memory.services.bulk import insert_rows

T = TypeVar("T")

CHUNK = 2000  # ids per statement: well under SQLite's variable limit

log = logging.getLogger(__name__)


def _chunks(ids: Sequence[T]) -> Iterable[list[T]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start : start + CHUNK])


def _node_docs(owner_id: int, ids: list[int]) -> list[DocText]:
    aliases: dict[int, list[str]] = defaultdict(list)
    slices: dict[int, list[str]] = defaultdict(list)
    events: dict[int, list[str]] = defaultdict(list)
    # Aliases and events in id order, sorted here, and aliases scoped through the owner's
    # nodes: without table statistics, SQLite reads an ORDER BY id, or an owner condition
    # beside a list of several nodes, from the owner's index, walking every alias or event
    # of the person instead of reading these nodes' rows by node.
    owned = Node.objects.for_owner(owner_id).filter(id__in=ids).values("id")
    for _id, node_id, alias in sorted(
        Alias.objects.filter(node_id__in=owned).order_by().values_list("id", "node_id", "alias")
    ):
        aliases[node_id].append(alias)
    for node_id, text in (
        Slice.objects.for_owner(owner_id)
        .filter(node_id__in=ids, is_current=True)
        .order_by("-created_at", "-id")
        .values_list("node_id", "text")
    ):
        slices[node_id].append(text)
    for _id, node_id, text in sorted(
        Event.objects.for_owner(owner_id)
        .filter(node_id__in=ids)
        .order_by()
        .values_list("id", "node_id", "text")
    ):
        events[node_id].append(text)
    return [
        document(
            "node",
            nid,
            node_fields(
                label=label,
                summary=summary,
                category=category,
                aliases=aliases[nid],
                slices=slices[nid],
                events=events[nid],
            ),
        )
        for nid, label, summary, category in Node.objects.for_owner(owner_id)
        .filter(id__in=ids)
        .order_by("id")
        .values_list("id", "label", "summary", "category")
    ]


def _page_docs(owner_id: int, ids: list[int]) -> list[DocText]:
    return [
        document("page", pid, page_fields(title=title, topic=topic, summary=summary, body=body))
        for pid, title, topic, summary, body in Page.objects.for_owner(owner_id)
        .filter(id__in=ids)
        .order_by("id")
        .values_list("id", "title", "topic", "summary", "body")
    ]


def _episode_docs(owner_id: int, ids: list[int]) -> list[DocText]:
    return [
        episode_document(eid, text)
        for eid, text in Episode.objects.for_owner(owner_id)
        .filter(id__in=ids)
        .order_by("id")
        .values_list("id", "text")
    ]


_READERS: dict[str, Callable[[int, list[int]], list[DocText]]] = {
    "node": _node_docs,
    "page": _page_docs,
    "episode": _episode_docs,
}


def lock_stats(owner_id: int, corpus: str) -> dict[str, RecallStats]:
    """Lock the owner's statistics rows up to ``corpus`` for this transaction (the memory row,
    then the episode row: one order for every writer, so two writers, an ingest and an undo,
    can never each hold the row the other waits for). A new row is served by the configured
    model. Writers of one owner take turns here, so sequence numbers follow
    commit order: a reader that has seen write N has seen every write before it."""
    locked: dict[str, RecallStats] = {}
    for name in (CORPUS_MEMORY, CORPUS_EPISODE):
        rows = RecallStats.objects.select_for_update().for_owner(owner_id).filter(corpus=name)
        row = rows.first()
        if row is None:  # the owner's first write: made once, then locked like any other
            RecallStats.objects.get_or_create(
                owner_id=owner_id, corpus=name, defaults={"model": configured().name}
            )
            row = rows.get()
        if not row.model:  # none is written without one; a row made some other way
            row.model = configured().name
            RecallStats.objects.filter(pk=row.pk).update(model=row.model)
        locked[name] = row
        if name == corpus:
            break
    return locked


def _lock(owner_id: int, corpus: str) -> tuple[int, str]:
    """The sequence number of this write and the model serving ``corpus`` (see
    :func:`lock_stats`)."""
    row = lock_stats(owner_id, corpus)[corpus]
    return row.seq + 1, row.model


def vectors_of(owner_id: int, model: str, texts: list[str]) -> list[bytes | None]:
    """int8 vectors of ``texts`` by ``model``; ``None`` for each, with a logged warning, when
    that model cannot answer now (the write goes on; ``reindex --missing`` fills them)."""
    if not texts:
        return []
    embedder = for_model(model)
    if embedder is None:
        reason = f"{model} is not the configured model (run `manage.py reindex`)"
    else:
        try:
            return list(quantize(embedder.embed(texts)))
        except EmbeddingUnavailable as exc:
            reason = str(exc)
    log.warning(
        "recall index: %d documents of owner %s written without vectors: %s",
        len(texts),
        owner_id,
        reason,
    )
    return [None] * len(texts)


def _bump(owner_id: int, corpus: str, docs: int, length: float, seq: int) -> None:
    """Adjust the corpus statistics and give the owner's index a new version. The version is
    random, not a counter, so no two states share one even across rolled-back transactions
    or a re-created owner with the same id: a cache keyed by it can never be stale."""
    RecallStats.objects.for_owner(owner_id).filter(corpus=corpus).update(
        docs=F("docs") + docs,
        total_length=F("total_length") + length,
        version=secrets.randbits(62),
        seq=seq,
    )


def _write(
    owner_id: int,
    kind: str,
    ids: list[int],
    *,
    fresh: bool = False,
    texts: Mapping[int, str] | None = None,
) -> int:
    """Rewrite the documents of ``ids`` (of one kind); returns how many exist now. ``texts``:
    the episodes' texts as the caller just inserted them (not read back)."""
    seq, model = _lock(owner_id, corpus_of(kind))
    if texts is not None:
        docs = [episode_document(eid, texts[eid]) for eid in ids]
    else:
        docs = _READERS[kind](owner_id, ids)
    old_count, old_length = 0, 0.0
    held: Counter[str] = Counter(term for d in docs for term in d.tf)
    if not fresh:
        old = RecallDoc.objects.for_owner(owner_id).filter(kind=kind, ref_id__in=ids)
        old_lengths = list(old.values_list("length", flat=True))
        old_count, old_length = len(old_lengths), sum(old_lengths)
        postings = RecallTerm.objects.for_owner(owner_id).filter(kind=kind, ref_id__in=ids)
        held.subtract(postings.values_list("term", flat=True))
        postings.delete()
        old.delete()
    _count_terms(owner_id, kind, held)
    vectors = vectors_of(owner_id, model, [d.embed_text for d in docs])
    insert_rows(
        RecallDoc,
        ("owner", "kind", "ref_id", "length", "model", "vector", "seq", "words", "staged_model"),
        (
            (owner_id, kind, d.ref_id, d.length, model, vector, seq, d.words, "")
            for d, vector in zip(docs, vectors, strict=True)
        ),
    )
    insert_rows(
        RecallTerm,
        ("owner", "term", "kind", "ref_id", "tf", "length"),
        ((owner_id, term, kind, d.ref_id, tf, d.length) for d in docs for term, tf in d.tf.items()),
    )
    if kind == "node":
        _write_key_words(owner_id, ids, fresh=fresh)
    length = sum(d.length for d in docs) - old_length
    _bump(owner_id, corpus_of(kind), len(docs) - old_count, length, seq)
    return len(docs)


def _count_terms(owner_id: int, kind: str, change: Counter[str]) -> None:
    """Add ``change`` (documents gained or lost per term) to the owner's document
    frequencies of ``kind``: one upsert per :data:`CHUNK` terms that adds each change to the
    kept count in the database (``INSERT ... ON CONFLICT DO UPDATE``, no read first), and
    when a term lost documents, one delete of the counts that reached zero. The same
    statements whatever the counts are (a write's queries are pinned in tests). The caller
    holds the owner's index lock, so no other writer changes these counts in between."""
    changed = {term: n for term, n in change.items() if n}
    if not changed:
        return
    t = table(RecallTermCount)
    owner, term, kind_col, docs = (
        column(RecallTermCount, name) for name in ("owner", "term", "kind", "docs")
    )
    with connection.cursor() as cursor:
        for chunk in _chunks(sorted(changed)):
            values = ", ".join(["(%s, %s, %s, %s)"] * len(chunk))
            cursor.execute(
                f"INSERT INTO {t} ({owner}, {term}, {kind_col}, {docs}) VALUES {values}"
                f" ON CONFLICT ({owner}, {term}, {kind_col}) DO UPDATE SET {docs} ="
                f" CASE WHEN {t}.{docs} + excluded.{docs} > 0"
                f" THEN {t}.{docs} + excluded.{docs} ELSE 0 END",
                [v for name in chunk for v in (owner_id, name, kind, changed[name])],
            )
    lost = sorted(term for term, n in changed.items() if n < 0)
    counts = RecallTermCount.objects.for_owner(owner_id).filter(kind=kind)
    for chunk in _chunks(lost):
        counts.filter(term__in=chunk, docs__lte=0).delete()


def _write_key_words(owner_id: int, ids: list[int], *, fresh: bool) -> None:
    """The key words of these nodes (see :class:`~memory.models.NodeKeyWord`)."""
    if not fresh:
        # By node, through the owner's nodes: with the owner beside the list of ids, SQLite
        # walks the (owner, word, node) index, every key word of the person.
        NodeKeyWord.objects.filter(
            node_id__in=Node.objects.for_owner(owner_id).filter(id__in=ids).values("id")
        ).delete()
    NodeKeyWord.objects.bulk_create(
        [
            NodeKeyWord(owner_id=owner_id, node_id=node_id, word=word)
            for node_id, key in Node.objects.for_owner(owner_id)
            .filter(id__in=ids)
            .values_list("id", "canonical_key")
            for word in sorted(set(key.split()))
        ],
        batch_size=1000,
    )


def recall_index_refresh(
    *,
    owner_id: int,
    nodes: Iterable[int] = (),
    pages: Iterable[int] = (),
    episodes: Iterable[int] = (),
) -> None:
    """Rewrite the documents of these rows of ``owner_id`` (see the module docstring)."""
    wanted = {
        "node": sorted({int(i) for i in nodes}),
        "page": sorted({int(i) for i in pages}),
        "episode": sorted({int(i) for i in episodes}),
    }
    if not any(wanted.values()):
        return
    with transaction.atomic():
        for kind, ids in wanted.items():
            for chunk in _chunks(ids):
                _write(owner_id, kind, chunk)


def recall_index_add_episodes(
    *, owner_id: int, episodes: Sequence[int], texts: Mapping[int, str] | None = None
) -> None:
    """Index episodes inserted in the caller's transaction (``episodes_record``): as
    :func:`recall_index_refresh` does, without reading back documents, postings or counts
    that new rows cannot have. ``texts`` (each episode's text, by id) spares reading the
    rows back."""
    ids = sorted({int(i) for i in episodes})
    with transaction.atomic():
        for chunk in _chunks(ids):
            _write(owner_id, "episode", chunk, fresh=True, texts=texts)


def recall_index_rebuild(
    *, owner_id: int, progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    """Every document of ``owner_id`` rewritten from its rows, statistics recomputed.
    ``progress(done, total)`` is called after each chunk. Returns documents per kind."""
    ids = {
        "node": list(Node.objects.for_owner(owner_id).order_by("id").values_list("id", flat=True)),
        "page": list(Page.objects.for_owner(owner_id).order_by("id").values_list("id", flat=True)),
        "episode": list(
            Episode.objects.for_owner(owner_id).order_by("id").values_list("id", flat=True)
        ),
    }
    total = sum(len(v) for v in ids.values())
    done = 0
    counts: dict[str, int] = {}
    with transaction.atomic():
        # Both statistics rows locked first (created if missing), as every writer does: a
        # save that commits while this empties the index would otherwise keep postings and
        # counts this rebuild then writes a second time.
        _lock(owner_id, CORPUS_EPISODE)
        RecallTerm.objects.for_owner(owner_id).delete()
        RecallTermCount.objects.for_owner(owner_id).delete()
        RecallDoc.objects.for_owner(owner_id).delete()
        NodeKeyWord.objects.for_owner(owner_id).delete()
        # an index with nothing in it is served by the configured model: nothing to move
        emptied = {"model": configured().name} if not total else {}
        RecallStats.objects.for_owner(owner_id).update(docs=0, total_length=0.0, **emptied)
        for kind, kind_ids in ids.items():
            counts[kind] = 0
            for chunk in _chunks(kind_ids):
                counts[kind] += _write(owner_id, kind, chunk, fresh=True)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    return counts
