"""Ranking: the lanes fused into one ordered list, and the context lines an assistant reads.
Pure: no ORM."""

from __future__ import annotations

from collections.abc import Sequence

from memory.recall.items import WHY_EXACT, WHY_LEXICAL, Doc, EpisodeItem, OwnerIndex, RecallItem
from memory.recall.lanes import bm25, item_of, named_spans, profile_lane, sort_key
from memory.recall.query import (
    REASON_MATCHED,
    REASON_NO_MATCH,
    REASON_PROFILE,
    REASON_UTILITY,
    Parsed,
)
from memory.recall.text import content, stem

# A node named in the query scores NAMED_WEIGHT x (share of the query's content words its
# name covers); lexical scores are normalised to the best one (0..1).
NAMED_WEIGHT = 2.5
ALIAS_DISCOUNT = 0.95
LEXICAL_RELATIVE_FLOOR = 0.3


def rank(index: OwnerIndex, parsed: Parsed) -> tuple[list[RecallItem], str]:
    """Pure ranking over the loaded index: ``(items best first, reason)``."""
    if parsed.reason:
        return [], parsed.reason
    if parsed.profile or parsed.everything:
        items = profile_lane(index, parsed.profile, parsed.everything)
        return items, REASON_PROFILE if items else REASON_NO_MATCH
    words = list(parsed.subject)
    content_positions = [i for i, w in enumerate(words) if content([w])]
    if not content_positions:
        return [], REASON_NO_MATCH
    spans = named_spans(words, index.names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    fully_named = all(i in named_positions for i in content_positions)
    if parsed.needs_name and not fully_named:
        return [], REASON_UTILITY

    scores: dict[tuple[str, int], float] = {}
    whys: dict[tuple[str, int], str] = {}
    best_named: dict[tuple[str, int], float] = {}
    by_key: dict[tuple[str, int], Doc] = {}
    n_content = len(content_positions)
    named_node_ids: set[int] = set()
    for span in spans:
        coverage = len([i for i in content_positions if span.start <= i < span.end]) / n_content
        for doc, why in index.names[span.key]:
            ref = (doc.kind, doc.id)
            value = NAMED_WEIGHT * coverage * (1.0 if why == WHY_EXACT else ALIAS_DISCOUNT)
            if value > best_named.get(ref, 0.0):
                # A doc named twice keeps its best name for ``why``; the scores add up.
                best_named[ref] = value
                whys[ref] = why
            scores[ref] = scores.get(ref, 0.0) + value
            by_key[ref] = doc
            if doc.kind == "node":
                named_node_ids.add(doc.id)

    if fully_named:
        # Only pages about the named identity may join it, ranked by the named words: pages
        # linked to it, or unlinked pages whose title holds the whole name. A page linked to
        # another node is about that node, whatever words its title shares.
        span_keys = [s.key for s in spans]
        pages = [
            d
            for d in index.docs
            if d.kind == "page"
            and (d.kind, d.id) not in scores
            and (
                d.node_id in named_node_ids
                or d.node_id is None
                and any(f" {k} " in f" {d.key} " for k in span_keys)
            )
        ]
        query_terms = [stem(words[i]) for i in content_positions]
        name_terms: list[str] = []
        lexical_docs: Sequence[Doc] = pages
    else:
        query_terms = [stem(words[i]) for i in content_positions if i not in named_positions]
        name_terms = [stem(words[i]) for i in content_positions if i in named_positions]
        lexical_docs = index.docs
    lexical = bm25(lexical_docs, query_terms, name_terms)
    if lexical:
        best = max(lexical.values())
        for i, raw in lexical.items():
            doc = lexical_docs[i]
            ref = (doc.kind, doc.id)
            normalised = raw / best
            if ref not in scores and normalised < LEXICAL_RELATIVE_FLOOR:
                continue
            scores[ref] = scores.get(ref, 0.0) + normalised
            whys.setdefault(ref, WHY_LEXICAL)
            by_key[ref] = doc
    items = [item_of(by_key[ref], whys[ref], score) for ref, score in scores.items()]
    items.sort(key=sort_key)
    return items, REASON_MATCHED if items else REASON_NO_MATCH


def build_context(items: Sequence[RecallItem | EpisodeItem], budget: int) -> tuple[str, bool]:
    """Lines for an assistant, within ``budget`` characters. The first line that does not fit
    is clipped with an ellipsis and marks the context truncated; nothing after it is added."""
    lines: list[str] = []
    used = 0
    for item in items:
        line = item.context_line()
        sep = 1 if lines else 0
        if used + sep + len(line) <= budget:
            lines.append(line)
            used += sep + len(line)
            continue
        room = budget - used - sep
        if room >= 2:
            lines.append(line[: room - 1].rstrip() + "…")
        return "\n".join(lines), True
    return "\n".join(lines), False
