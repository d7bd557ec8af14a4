"""The recall entry point: parse, load what the question needs, rank, add details."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memory.recall.episode_loaders import recall_episodes
from memory.recall.items import (
    MAX_LIMIT,
    WHY_ALIAS,
    WHY_EXACT,
    EpisodeItem,
    RecallItem,
    RecallResult,
)
from memory.recall.loaders import (
    load_index,
    load_named_index,
    load_profile_nodes,
    with_events,
    with_slices,
)
from memory.recall.query import REASON_MATCHED, REASON_NO_MATCH, REASON_UTILITY, parse_query
from memory.recall.ranking import build_context, rank


def recall(
    owner: Any, query: str, limit: int = 10, *, char_budget: int | None = None
) -> RecallResult:
    """Ranked nodes and pages for ``query``, then what was said (episodes), read for
    ``owner`` only.

    Smalltalk and self-contained utility questions touch no table. A broad profile question
    reads the nodes of its categories and the slices of those returned
    (:data:`PROFILE_QUERIES`); a query whose content words are all names reads the named rows
    (:data:`NAME_QUERIES` + :data:`NAMED_QUERIES`); any other reads the name lookup and then
    the owner's whole index (:data:`INDEX_QUERIES`) for BM25. Each then reads the recent
    events of the nodes it returns (:data:`DETAIL_QUERIES`), and the episode lane reads what
    :func:`memory.recall.episode_loaders.recall_episodes` says. Every read is filtered by
    owner and nothing is kept between calls.
    """
    limit = max(1, min(int(limit), MAX_LIMIT))
    budget = char_budget if char_budget is not None else settings.UME_RECALL_CONTEXT_CHARS
    parsed = parse_query(query)
    if parsed.reason:
        return RecallResult(query=query, items=(), no_recall=True, reason=parsed.reason)
    profile = bool(parsed.profile or parsed.everything)
    index = load_profile_nodes(owner, parsed) if profile else load_named_index(owner, parsed)
    if index is None:
        index = load_index(owner)
    items, reason = rank(index, parsed)
    # What was said comes after confirmed memories, sharing the limit: when both have
    # something, episodes keep at least half of it.
    named = [
        (item.id, item.label)
        for item in items
        if item.kind == "node" and item.why.split("+")[0] in (WHY_EXACT, WHY_ALIAS)
    ]
    episodes = (
        recall_episodes(owner, parsed.subject, named=named, limit=limit)
        if reason != REASON_UTILITY
        else []
    )
    if not items and not episodes:
        return RecallResult(query=query, items=(), no_recall=True, reason=reason)
    keep = limit - min(len(episodes), limit // 2) if episodes else limit
    chosen = items[:keep]
    if profile:
        chosen = with_slices(owner, chosen)
    returned: tuple[RecallItem | EpisodeItem, ...] = (
        *with_events(owner, chosen),
        *episodes[: limit - len(chosen)],
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
