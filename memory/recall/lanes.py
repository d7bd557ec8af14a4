"""The lanes of recall, as pure functions over what the loaders read: the named lane
(labels and aliases found in the query), the lexical lane (BM25 over field-weighted terms)
and the profile lane (the nodes of the categories a broad question asks about). No ORM."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from memory.keys import canonical_key
from memory.recall.items import SLICES_PER_ITEM, WHY_PROFILE, Doc, OwnerIndex, RecallItem, SliceView
from memory.recall.text import content, probe, terms

MIN_TERM_SHARE = 0.5  # of the idf weight of the query's words
BM25_K1 = 1.2
BM25_B = 0.75
NODE_FIELD_WEIGHTS = {
    "label": 3.0,
    "alias": 3.0,
    "summary": 1.5,
    "slice": 1.0,
    "event": 1.0,
    "category": 1.0,
}
PAGE_FIELD_WEIGHTS = {"title": 3.0, "topic": 2.0, "summary": 1.5, "body": 1.0}


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


def bm25(
    docs: Sequence[Doc],
    scored: Sequence[str],
    named: Sequence[str],
) -> dict[int, float]:
    """BM25F-style scores (field-weighted term frequencies) by position in ``docs``.

    Only ``scored`` terms add to a score; ``named`` terms (words of a name the query already
    matched) count only towards the share of the query a document must match.
    """
    if not scored or not docs:
        return {}
    wanted = set(scored) | set(named)
    probes = {probe(t) for t in wanted}
    tf: list[dict[str, float]] = []
    lengths: list[float] = []
    df: dict[str, int] = defaultdict(int)
    for doc in docs:
        weights = PAGE_FIELD_WEIGHTS if doc.kind == "page" else NODE_FIELD_WEIGHTS
        counts: dict[str, float] = defaultdict(float)
        # Length in words (field-weighted), cheap for every document; only documents whose
        # text contains a probe of a wanted term are tokenised and stemmed.
        lengths.append(sum(weights[name] * len(text.split()) for name, text in doc.fields))
        tf.append(counts)
        joined = "\n".join(text for _name, text in doc.fields)
        blob = joined.lower() if joined.isascii() else canonical_key(joined)
        if not any(p in blob for p in probes):
            continue
        for name, text in doc.fields:
            if not text:
                continue
            weight = weights[name]
            for term in terms(text):
                if term in wanted:
                    counts[term] += weight
        for term in counts:
            df[term] += 1
    n = len(docs)
    avg = (sum(lengths) / n) or 1.0
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    total = sum(idf.values())
    scoring = set(scored)
    scores: dict[int, float] = {}
    for i, counts in enumerate(tf):
        if not counts:
            continue
        # A document must match enough of the query's weight, not one incidental word of a
        # question that is about something else ("best hiking boots" is not the best man).
        if len(idf) > 1 and sum(idf[t] for t in counts) < MIN_TERM_SHARE * total:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[i] / avg)
        score = sum(
            idf[t] * freq * (BM25_K1 + 1) / (freq + norm)
            for t, freq in counts.items()
            if t in scoring
        )
        if score > 0:
            scores[i] = score
    return scores


def item_of(doc: Doc, why: str, score: float) -> RecallItem:
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
            d.state != "active",
            -(d.last_seen_at.timestamp() if d.last_seen_at else 0.0),
            -d.mention_count,
            d.label.casefold(),
            d.id,
        )
    )
    return [item_of(d, WHY_PROFILE, 1.0 / (1 + rank)) for rank, d in enumerate(nodes)]
