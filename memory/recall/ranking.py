"""Ranking: the lanes fused into one ordered list, and the context lines an assistant reads.
Pure: no ORM."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from memory.recall.confidence import doc_confidence, question_weights
from memory.recall.items import (
    WHY_EXACT,
    WHY_LEXICAL,
    WHY_SEMANTIC,
    Candidates,
    Doc,
    EpisodeItem,
    OwnerIndex,
    RecallItem,
)
from memory.recall.lanes import Span, bm25, item_of, named_spans, profile_lane, sort_key
from memory.recall.query import (
    REASON_MATCHED,
    REASON_NO_MATCH,
    REASON_PROFILE,
    REASON_UTILITY,
    Parsed,
)
from memory.recall.text import content, stem

# A node named in the query scores NAMED_WEIGHT x (share of the query's content words its
# name covers). The lexical and semantic lanes are fused by reciprocal rank (RRF_K), the
# fusion normalised to the best candidate (0..1) and added to the named score.
NAMED_WEIGHT = 2.5
ALIAS_DISCOUNT = 0.95
LEXICAL_RELATIVE_FLOOR = 0.3  # of the best BM25 score
# A small K: recall returns ten items, not a deep list, so rank one must count for more than
# rank two. The semantic lane weighs less than the lexical one: with a small static model its
# best match is less often right than a word that matched, so it ranks between the lexical
# lane's second and third.
RRF_K = 5
LANE_WEIGHTS = {"lexical": 1.0, "semantic": 0.8}
# Floors of the semantic lane: below SEMANTIC_FLOOR a cosine is what questions about things
# never mentioned score with this model; a document under SEMANTIC_RELATIVE_FLOOR x the best
# match does not join it; and at most SEMANTIC_ONLY_MAX documents come from this lane alone.
SEMANTIC_FLOOR = 0.26
# Another model's cosines have another scale: the optional sentence model (memory.recall.minilm)
# puts loosely related texts ("tarot cards" and a page of gift ideas) higher than the static
# model does. Its floor was chosen on the dev golden sets (docs/embeddings.md); a remote model
# has the bundled model's until measured.
SEMANTIC_FLOORS = {"all-MiniLM-L6-v2": 0.32}


def semantic_floor(model: str) -> float:
    """The semantic lane's floor for vectors of ``model``."""
    return SEMANTIC_FLOORS.get(model, SEMANTIC_FLOOR)


SEMANTIC_RELATIVE_FLOOR = 0.6
SEMANTIC_ONLY_MAX = 3
SHORTLIST_EXTRA = 10  # candidates read beyond the limit, for ties and the identity guard


@dataclass(frozen=True)
class QueryPlan:
    """What the lexical and semantic lanes look for, decided from the named rows alone."""

    spans: tuple[Span, ...] = ()
    fully_named: bool = False
    scored: tuple[str, ...] = ()  # stemmed terms that score
    named: tuple[str, ...] = ()  # stemmed terms of names: coverage only
    semantic_text: str = ""  # the content words no name used, for the semantic lane
    reason: str = ""  # set when ranking already knows the answer is empty


def plan_query(index: OwnerIndex, parsed: Parsed) -> QueryPlan:
    words = list(parsed.subject)
    content_positions = [i for i, w in enumerate(words) if content([w])]
    if not content_positions:
        return QueryPlan(reason=REASON_NO_MATCH)
    spans = named_spans(words, index.names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    fully_named = all(i in named_positions for i in content_positions)
    if parsed.needs_name and not fully_named:
        return QueryPlan(reason=REASON_UTILITY)
    free = [i for i in content_positions if i not in named_positions]
    return QueryPlan(
        spans=tuple(spans),
        fully_named=fully_named,
        scored=tuple(stem(words[i]) for i in free),
        named=tuple(stem(words[i]) for i in content_positions if i in named_positions),
        semantic_text=" ".join(words[i] for i in free),
    )


def _named_scores(
    index: OwnerIndex, parsed: Parsed, plan: QueryPlan
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], str], dict[tuple[str, int], Doc]]:
    words = list(parsed.subject)
    content_positions = [i for i, w in enumerate(words) if content([w])]
    n_content = len(content_positions)
    scores: dict[tuple[str, int], float] = {}
    whys: dict[tuple[str, int], str] = {}
    best_named: dict[tuple[str, int], float] = {}
    by_key: dict[tuple[str, int], Doc] = {}
    for span in plan.spans:
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
    return scores, whys, by_key


def _named_words(
    index: OwnerIndex, parsed: Parsed, plan: QueryPlan
) -> dict[tuple[str, int], set[str]]:
    """Per document a name of the question found, the stems of the question's words that
    name it (its label or one of its aliases, whichever the question said)."""
    words = list(parsed.subject)
    out: dict[tuple[str, int], set[str]] = {}
    for span in plan.spans:
        stems = {stem(w) for w in content(words[span.start : span.end])}
        for doc, _why in index.names[span.key]:
            out.setdefault((doc.kind, doc.id), set()).update(stems)
    return out


def _ranks(scores: dict[tuple[str, int], float]) -> dict[tuple[str, int], int]:
    """Competition ranks (1 = best; equal scores share a rank)."""
    ordered = sorted(scores.values(), reverse=True)
    first: dict[float, int] = {}
    for position, value in enumerate(ordered, start=1):
        first.setdefault(value, position)
    return {ref: first[value] for ref, value in scores.items()}


def fuse(candidates: Candidates) -> dict[tuple[str, int], tuple[float, tuple[str, ...]]]:
    """Reciprocal-rank fusion of the lanes after their floors: ``ref -> (score 0..1, lanes)``.

    The lexical lane keeps documents within :data:`LEXICAL_RELATIVE_FLOOR` of its best; the
    semantic lane those at or above :data:`SEMANTIC_FLOOR` and within
    :data:`SEMANTIC_RELATIVE_FLOOR` of its best, at most :data:`SEMANTIC_ONLY_MAX` of them
    not also matched by words, so unrelated memories never fill the list."""
    lanes: dict[str, dict[tuple[str, int], float]] = {}
    if candidates.lexical:
        best = max(candidates.lexical.values())
        lanes[WHY_LEXICAL] = {
            ref: raw / best
            for ref, raw in candidates.lexical.items()
            if raw / best >= LEXICAL_RELATIVE_FLOOR
        }
    if candidates.semantic:
        best = max(candidates.semantic.values())
        lexical = lanes.get(WHY_LEXICAL, {})
        kept = sorted(
            (
                (sim, ref)
                for ref, sim in candidates.semantic.items()
                if sim >= SEMANTIC_FLOOR and sim >= SEMANTIC_RELATIVE_FLOOR * best
            ),
            key=lambda pair: (-pair[0], pair[1]),
        )
        alone = [ref for _sim, ref in kept if ref not in lexical][:SEMANTIC_ONLY_MAX]
        lanes[WHY_SEMANTIC] = {ref: sim for sim, ref in kept if ref in lexical or ref in alone}
    fused: dict[tuple[str, int], float] = {}
    matched: dict[tuple[str, int], list[str]] = {}
    for lane, scores in lanes.items():
        for ref, rank in _ranks(scores).items():
            fused[ref] = fused.get(ref, 0.0) + LANE_WEIGHTS[lane] / (RRF_K + rank)
            matched.setdefault(ref, []).append(lane)
    if not fused:
        return {}
    top = max(fused.values())
    return {ref: (value / top, tuple(matched[ref])) for ref, value in fused.items()}


def fused(candidates: Candidates) -> dict[tuple[str, int], tuple[float, tuple[str, ...]]]:
    """:func:`fuse` of ``candidates``, computed once: :func:`shortlist` and :func:`rank` both
    read it (a thousand lexical scores of a common word are ranked once, not twice)."""
    if candidates.fusion is None:
        candidates.fusion = fuse(candidates)
    return candidates.fusion


def shortlist(
    index: OwnerIndex, parsed: Parsed, plan: QueryPlan, candidates: Candidates, limit: int
) -> list[tuple[str, int]]:
    """The documents worth reading for the final ranking: the best ``limit`` (plus a few, for
    ties and the identity guard) by named score plus fused score."""
    named, _whys, _docs = _named_scores(index, parsed, plan)
    total = {ref: score for ref, score in named.items()}
    for ref, (value, _lanes) in fused(candidates).items():
        total[ref] = total.get(ref, 0.0) + value
    # the first of a thousand or more (a common word's documents), as sorted() would order them
    return heapq.nsmallest(
        limit + SHORTLIST_EXTRA, total, key=lambda ref: (-total[ref], ref[0] != "node", ref[1])
    )


def _twin(doc: Doc, span_keys: Sequence[str], asked: Sequence[str] = ()) -> bool:
    """A node the question did not name but could be mistaken for one it did: its name holds
    a name the query used ("UML College Society" for "UML"), or shares a word of one while
    the rest of its name was not asked about ("Lena Fischer" in a question about "Lena
    Park"). Such a node never joins through the lexical or semantic lanes, so a fact of one
    person is never offered as the answer to a question about another."""
    if doc.kind != "node":
        return False
    padded = f" {doc.key} "
    if any(f" {k} " in padded for k in span_keys):
        return True
    own = set(doc.key.split())
    named_words = {w for k in span_keys for w in content(k.split())}
    return bool(own & named_words) and not own <= set(asked)


def rank(
    index: OwnerIndex, parsed: Parsed, candidates: Candidates | None = None
) -> tuple[list[RecallItem], str]:
    """Pure ranking over the loaded index: ``(items best first, reason)``.

    ``candidates`` are the lexical and semantic lanes' scores for a query that is not only
    names (the engine reads them from the inverted index and the vectors); for a query that
    is only names, ranking reads the named rows and their pages alone."""
    if parsed.reason:
        return [], parsed.reason
    if parsed.profile or parsed.everything:
        items = profile_lane(index, parsed.profile, parsed.everything)
        return items, REASON_PROFILE if items else REASON_NO_MATCH
    plan = plan_query(index, parsed)
    if plan.reason:
        return [], plan.reason
    scores, whys, by_key = _named_scores(index, parsed, plan)
    named_node_ids = {ref[1] for ref in scores if ref[0] == "node"}

    if plan.fully_named:
        # Only pages about the named identity may join it, ranked by the named words: pages
        # linked to it, or unlinked pages whose title holds the whole name. A page linked to
        # another node is about that node, whatever words its title shares.
        span_keys = [s.key for s in plan.spans]
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
        lexical = bm25(pages, list(plan.scored) + list(plan.named), [])
        if lexical:
            best = max(lexical.values())
            for i, raw in lexical.items():
                doc = pages[i]
                ref = (doc.kind, doc.id)
                normalised = raw / best
                if normalised < LEXICAL_RELATIVE_FLOOR:
                    continue
                scores[ref] = scores.get(ref, 0.0) + normalised
                whys.setdefault(ref, WHY_LEXICAL)
                by_key[ref] = doc
    elif candidates is not None:
        docs = {(d.kind, d.id): d for d in index.docs}
        span_keys = [s.key for s in plan.spans]
        for ref, (value, lanes) in fused(candidates).items():
            found = docs.get(ref)
            if found is None or (ref not in scores and _twin(found, span_keys, parsed.subject)):
                continue  # not read (below the shortlist, or deleted), or an unnamed twin
            scores[ref] = scores.get(ref, 0.0) + value
            joined = "+".join(lanes)
            whys[ref] = f"{whys[ref]}+{joined}" if ref in whys else joined
            by_key[ref] = found
    weights = question_weights(parsed.subject)
    semantic = candidates.semantic if candidates is not None else {}
    named = _named_words(index, parsed, plan)
    items = [
        item_of(
            by_key[ref],
            whys[ref],
            score,
            doc_confidence(by_key[ref], whys[ref], weights, semantic.get(ref), named.get(ref, ())),
        )
        for ref, score in scores.items()
    ]
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
