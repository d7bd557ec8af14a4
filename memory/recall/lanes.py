"""The lanes of recall, as pure functions over what the loaders read: the named lane
(labels and aliases found in the query), the lexical lane (BM25 over the inverted index's
postings), the semantic lane (cosine similarity to the owner's vectors) and the profile lane
(the nodes of the categories a broad question asks about). No ORM."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.keys import canonical_key
from memory.recall.confidence import PROFILE_CONFIDENCE
from memory.recall.documents import WEIGHTS
from memory.recall.items import (
    SLICES_PER_ITEM,
    WHY_PROFILE,
    CorpusStats,
    Doc,
    OwnerIndex,
    Posting,
    RecallItem,
    SliceView,
)
from memory.recall.text import content, probe, terms
from memory.vocab import NodeState

MIN_TERM_SHARE = 0.5  # of the idf weight of the query's words
BM25_K1 = 1.2
BM25_B = 0.75
SEMANTIC_SHORTLIST = 400  # documents scored exactly after the coarse first pass


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    key: str


def named_spans(words: Sequence[str], names: dict[str, list[tuple[Doc, str]]]) -> list[Span]:
    """Labels and aliases found in ``words``, longest first, never overlapping."""
    taken: set[int] = set()
    spans: list[Span] = []
    for length in range(len(words), 0, -1):
        for start in range(0, len(words) - length + 1):
            positions = set(range(start, start + length))
            if positions & taken:
                continue
            key = " ".join(words[start : start + length])
            if key in names and content(words[start : start + length]):
                spans.append(Span(start, start + length, key))
                taken |= positions
    return sorted(spans, key=lambda s: s.start)


def bm25_scores(
    counts: dict[tuple[str, int], dict[str, float]],
    lengths: dict[tuple[str, int], float],
    n_docs: int,
    avg_length: float,
    scored: Sequence[str],
    named: Sequence[str],
    df: dict[str, int] | None = None,
    min_share: float = MIN_TERM_SHARE,
) -> dict[tuple[str, int], float]:
    """BM25F-style scores (field-weighted term frequencies) of the documents in ``counts``
    (their frequencies of the wanted terms), in a corpus of ``n_docs`` documents.

    Only ``scored`` terms add to a score; ``named`` terms (words of a name the query already
    matched) count only towards the share of the query a document must match.
    """
    wanted = set(scored) | set(named)
    if df is None:
        df = defaultdict(int)
        for doc_counts in counts.values():
            for term in doc_counts:
                df[term] += 1
    df = {t: df.get(t, 0) for t in wanted}
    n = max(n_docs, max(df.values(), default=0))
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    total = sum(idf.values())
    scoring = set(scored)
    avg = avg_length or 1.0
    scores: dict[tuple[str, int], float] = {}
    # A document must match enough of the query's weight, not one incidental word of a
    # question that is about something else ("best hiking boots" is not the best man).
    floor = min_share * total if len(idf) > 1 else None
    # Plain loops: this runs over a thousand documents for a common word, and generator
    # expressions cost more than the arithmetic; the sums are added in the same order.
    for ref, doc_counts in counts.items():
        if not doc_counts:
            continue
        if floor is not None:
            covered = 0.0
            for t in doc_counts:
                covered += idf[t]
            if covered < floor:
                continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[ref] / avg)
        score = 0.0
        for t, freq in doc_counts.items():
            if t in scoring:
                score += idf[t] * freq * (BM25_K1 + 1) / (freq + norm)
        if score > 0:
            scores[ref] = score
    return scores


def bm25(
    docs: Sequence[Doc],
    scored: Sequence[str],
    named: Sequence[str],
) -> dict[int, float]:
    """BM25 over ``docs`` read whole (a small set: the pages that may join a named node), by
    position in ``docs``; the corpus is ``docs`` itself."""
    if not scored or not docs:
        return {}
    wanted = set(scored) | set(named)
    probes = {probe(t) for t in wanted}
    counts: dict[tuple[str, int], dict[str, float]] = {}
    lengths: dict[tuple[str, int], float] = {}
    for i, doc in enumerate(docs):
        ref = ("", i)
        weights = WEIGHTS[doc.kind]
        # Length in words (field-weighted), cheap for every document; only documents whose
        # text contains a probe of a wanted term are tokenised and stemmed.
        lengths[ref] = sum(weights[name] * len(text.split()) for name, text in doc.fields)
        joined = "\n".join(text for _name, text in doc.fields)
        blob = joined.lower() if joined.isascii() else canonical_key(joined)
        if not any(p in blob for p in probes):
            continue
        doc_counts: dict[str, float] = defaultdict(float)
        for name, text in doc.fields:
            if not text:
                continue
            weight = weights[name]
            for term in terms(text):
                if term in wanted:
                    doc_counts[term] += weight
        if doc_counts:
            counts[ref] = doc_counts
    avg = sum(lengths.values()) / len(docs)
    scores = bm25_scores(counts, lengths, len(docs), avg, scored, named)
    return {i: score for (_kind, i), score in scores.items()}


def bm25_postings(
    postings: Sequence[Posting],
    stats: CorpusStats,
    scored: Sequence[str],
    named: Sequence[str],
    *,
    df: dict[str, int] | None = None,
    min_share: float = MIN_TERM_SHARE,
) -> dict[tuple[str, int], float]:
    """BM25 over the inverted index: ``postings`` are the postings of the wanted terms in the
    owner's documents that may match, ``stats`` the corpus's size and total length, ``df``
    each term's document frequency in the whole corpus (a term without one counts its
    postings here); raw scores by (kind, id). ``min_share`` is the share of the query's idf
    weight a document must match (0 for a candidate generator whose caller applies its
    own)."""
    if not scored:
        return {}
    counts: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    lengths: dict[tuple[str, int], float] = {}
    counted: dict[str, int] = defaultdict(int)
    for term, kind, ref_id, tf, length in postings:
        ref = (kind, ref_id)
        doc = counts[ref]
        doc[term] = doc.get(term, 0.0) + tf
        lengths[ref] = length
        counted[term] += 1
    given = df or {}
    frequencies = {term: given.get(term) or n for term, n in counted.items()}
    return bm25_scores(
        counts,
        lengths,
        stats.docs,
        stats.avg_length,
        scored,
        named,
        frequencies,
        min_share=min_share,
    )


def semantic_scores(
    refs: Sequence[tuple[str, int]],
    coarse: np.ndarray,
    full: np.ndarray,
    query: np.ndarray,
    *,
    floor: float,
    shortlist: int = SEMANTIC_SHORTLIST,
) -> dict[tuple[str, int], float]:
    """Cosine similarity of ``query`` (unit length, float32) to the owner's vectors, for the
    documents at or above ``floor``. ``coarse`` holds the first dimensions of every vector
    (float32, for a fast first pass over the whole corpus); the ``shortlist`` best of that
    pass are scored exactly on ``full`` (int8, x127)."""
    if not len(refs) or not query.any():
        return {}
    dims = coarse.shape[1]
    q_coarse = query[:dims]
    first = coarse @ q_coarse
    if len(refs) > shortlist:
        top = np.argpartition(-first, shortlist - 1)[:shortlist]
    else:
        top = np.arange(len(refs))
    exact = (full[top].astype(np.float32) @ query) / 127.0
    kept = exact >= floor  # chosen here, so that only those become Python objects
    return {refs[i]: s for i, s in zip(top[kept].tolist(), exact[kept].tolist(), strict=True)}


def item_of(doc: Doc, why: str, score: float, confidence: float = 0.0) -> RecallItem:
    return RecallItem(
        kind=doc.kind,
        id=doc.id,
        label=doc.label,
        category=doc.category,
        state=doc.state,
        why=why,
        score=score,
        summary=doc.summary,
        slices=tuple(SliceView(text, kind) for text, kind in doc.slices[:SLICES_PER_ITEM]),
        node_id=doc.node_id,
        confidence=confidence,
    )


def sort_key(item: RecallItem) -> tuple[float, int, str, int]:
    return (-item.score, 0 if item.kind == "node" else 1, item.label.casefold(), item.id)


def profile_lane(
    index: OwnerIndex, categories: Sequence[str], everything: bool
) -> list[RecallItem]:
    wanted = set(categories)
    nodes = [d for d in index.docs if d.kind == "node" and (everything or d.category in wanted)]
    nodes.sort(
        key=lambda d: (
            d.state != NodeState.ACTIVE,
            -(d.last_seen_at.timestamp() if d.last_seen_at else 0.0),
            -d.mention_count,
            d.label.casefold(),
            d.id,
        )
    )
    return [
        item_of(d, WHY_PROFILE, 1.0 / (1 + rank), PROFILE_CONFIDENCE)
        for rank, d in enumerate(nodes)
    ]
