"""The recall entry point: parse, load what the question needs, rank, add details."""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from memory.owned import Person
from memory.recall.confidence import gate
from memory.recall.documents import CORPUS_MEMORY
from memory.recall.episode_loaders import recall_episodes
from memory.recall.items import (
    MAX_LIMIT,
    WHY_ALIAS,
    WHY_EXACT,
    Candidates,
    EpisodeItem,
    OwnerIndex,
    RecallItem,
    RecallResult,
)
from memory.recall.lanes import bm25_postings, semantic_scores
from memory.recall.loaders import (
    IndexReads,
    load_candidates,
    load_named_index,
    load_postings,
    load_profile_nodes,
    with_events,
    with_slices,
)
from memory.recall.provider import question_vector
from memory.recall.query import (
    REASON_MATCHED,
    REASON_NO_MATCH,
    REASON_NOTHING_CLOSE,
    REASON_UTILITY,
    Parsed,
    parse_query,
)
from memory.recall.ranking import build_context, plan_query, rank, semantic_floor, shortlist
from memory.recall.slots import Slot
from memory.recall.text import terms
from memory.recall.vectors import load_vectors


def find_candidates(
    owner: Person, index: OwnerIndex, parsed: Parsed, limit: int, reads: IndexReads
) -> tuple[OwnerIndex, Candidates | None]:
    """For a query that is not only names: the lexical lane over the inverted index and the
    semantic lane over the owner's vectors, then the shortlisted rows read by id."""
    if index.complete:
        return index, None
    plan = plan_query(index, parsed)
    if plan.reason:
        return index, None
    words = [*plan.scored, *plan.named]
    # with the words the episode lane looks up (the question's, and its frame's), in one read
    reads.read_terms([*words, *terms(" ".join(parsed.subject)), *terms(" ".join(parsed.frame))])
    stats = reads.stats(CORPUS_MEMORY)
    memory_kinds = ("node", "page")
    df = reads.df(words, memory_kinds)
    postings = load_postings(owner, words, memory_kinds, df=df)
    candidates = Candidates(lexical=bm25_postings(postings, stats, plan.scored, plan.named, df=df))
    wanted = bool(plan.semantic_text and stats.docs)
    asked = question_vector(owner.pk, stats.model, plan.semantic_text) if wanted else None
    if asked is not None:
        model, query_vector = asked
        vectors = load_vectors(owner.pk, CORPUS_MEMORY, stats, model=model, dim=len(query_vector))
        candidates.semantic = semantic_scores(
            vectors.refs, vectors.coarse, vectors.full, query_vector, floor=semantic_floor(model)
        )
    refs = shortlist(index, parsed, plan, candidates, limit)
    return load_candidates(owner, index, refs), candidates


def answered(
    slot: Slot, chosen: list[RecallItem], said: list[EpisodeItem]
) -> tuple[list[RecallItem], list[EpisodeItem]]:
    """The items of one answer, each confidence times what ``slot`` says of the answer as a
    whole (:meth:`memory.recall.slots.Slot.answer_factor`: whether any item holds an answer
    of the kind the question asks for)."""
    texts = [" ".join([i.label, i.summary, *(s.text for s in i.slices)]) for i in chosen]
    factor = slot.answer_factor([*texts, *(e.text for e in said)])
    if factor == 1.0:
        return chosen, said
    return (
        [replace(i, confidence=round(i.confidence * factor, 4)) for i in chosen],
        [replace(e, confidence=round(e.confidence * factor, 4)) for e in said],
    )


def what_was_said(
    owner: Person,
    parsed: Parsed,
    items: list[RecallItem],
    limit: int,
    reads: IndexReads,
    slot: Slot,
) -> list[EpisodeItem]:
    """The episode lane for the question, with the memories it named among ``items``."""
    named = [
        (item.id, item.label)
        for item in items
        if item.kind == "node" and item.why.split("+")[0] in (WHY_EXACT, WHY_ALIAS)
    ]
    return recall_episodes(
        owner, parsed.subject, named=named, limit=limit, frame=parsed.frame, reads=reads, slot=slot
    )


def recall(
    owner: Person,
    query: str,
    limit: int = 10,
    *,
    char_budget: int | None = None,
    episodes: bool = True,
    min_confidence: float | None = None,
) -> RecallResult:
    """Ranked nodes and pages for ``query``, then what was said (episodes), read for
    ``owner`` only.

    Smalltalk and self-contained utility questions touch no table. A broad profile question
    reads the nodes of its categories and the slices of those returned
    (:data:`~memory.recall.loaders.PROFILE_QUERIES`); a query whose content words are all
    names reads the named rows (``NAME_QUERIES`` + ``NAMED_QUERIES``); any other reads the
    name lookup, the corpus statistics, the postings of its words, the owner's vectors when
    the in-process cache does not hold their current version, and the shortlisted rows
    (``STATS_QUERIES`` + ``POSTINGS_QUERIES`` + ``VECTOR_QUERIES`` + ``CANDIDATE_QUERIES``).
    Each then reads the recent events of the nodes it returns (``DETAIL_QUERIES``). Every
    read is filtered by owner. The episode lane then reads what
    :func:`memory.recall.episode_loaders.recall_episodes` says, unless ``episodes`` is
    false (the memory browser's search, which lists memories only).

    Every item carries a confidence (:mod:`memory.recall.confidence`). When the best of them
    is under ``min_confidence`` (``UME_RECALL_MIN_CONFIDENCE`` when None), the answer is
    ``no_recall`` with reason ``nothing_close``, and no detail is read.
    """
    limit = max(1, min(int(limit), MAX_LIMIT))
    budget = char_budget if char_budget is not None else settings.UME_RECALL_CONTEXT_CHARS
    parsed = parse_query(query)
    if parsed.reason:
        return RecallResult(query=query, items=(), no_recall=True, reason=parsed.reason)
    profile = bool(parsed.profile or parsed.everything)
    candidates = None
    reads = IndexReads(owner)
    if profile:
        index = load_profile_nodes(owner, parsed, limit)
    else:
        named_index = load_named_index(owner, parsed)
        index, candidates = find_candidates(owner, named_index, parsed, limit, reads)
    items, reason = rank(index, parsed, candidates)
    slot = Slot.of(query)
    wanted = episodes and reason != REASON_UTILITY
    said = what_was_said(owner, parsed, items, limit, reads, slot) if wanted else []
    if not items and not said:
        return RecallResult(query=query, items=(), no_recall=True, reason=reason)
    # What was said comes after confirmed memories, sharing the limit: when both have
    # something, episodes keep at least half of it.
    keep = limit - min(len(said), limit // 2) if said else limit
    chosen = items[:keep]
    chosen, said = answered(slot, chosen, said[: limit - len(chosen)])
    floor = settings.UME_RECALL_MIN_CONFIDENCE if min_confidence is None else min_confidence
    offered: list[RecallItem | EpisodeItem] = [*chosen, *said]
    if not gate(offered, floor):
        return RecallResult(query=query, items=(), no_recall=True, reason=REASON_NOTHING_CLOSE)
    if profile:
        chosen = with_slices(owner, chosen)
    returned: tuple[RecallItem | EpisodeItem, ...] = (
        *with_events(owner, chosen),
        *said,
    )
    context, truncated = build_context(returned, max(0, budget))
    return RecallResult(
        query=query,
        items=returned,
        no_recall=False,
        reason=REASON_MATCHED if reason == REASON_NO_MATCH else reason,
        context=context,
        context_truncated=truncated,
    )
