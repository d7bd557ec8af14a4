"""The memory browser's search: recall when there is a query, the plain list otherwise.

Each hit says why it matched (recall's ``exact``, ``alias``, ``lexical`` or ``profile``), so
a person sees what an assistant would get for the same words, and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from memory.keys import canonical_key
from memory.models import Node
from memory.owned import Person
from memory.recall import MAX_LIMIT, RecallItem, recall
from memory.selectors import node_list, nodes_by_ids, nodes_matching


@dataclass(frozen=True)
class NodeHit:
    node: Node
    why: str = ""  # empty when browsing
    score: float | None = None
    pages: tuple[str, ...] = field(default=())  # titles of matching pages about this node


class _Browse(Sequence[NodeHit]):
    """A node queryset seen as hits, sliced lazily so a Paginator counts in SQL."""

    def __init__(self, nodes: Any, total: int | None = None) -> None:
        self.nodes = nodes
        self.total = total  # the count, when the caller already has it

    def count(self) -> int:  # type: ignore[override]  # Paginator's count(), not Sequence's
        return int(self.nodes.count()) if self.total is None else self.total

    def __len__(self) -> int:
        return self.count()

    @overload
    def __getitem__(self, index: int) -> NodeHit: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodeHit]: ...
    def __getitem__(self, index: int | slice) -> NodeHit | list[NodeHit]:
        if isinstance(index, slice):
            return [NodeHit(node) for node in self.nodes[index]]
        return NodeHit(self.nodes[index])


@dataclass(frozen=True)
class Search:
    hits: Sequence[NodeHit]
    reason: str = ""  # why recall returned nothing (smalltalk, no match...)


def search_nodes(
    owner: Person,
    *,
    q: str = "",
    category: str = "",
    state: str = "",
    pairs: dict[tuple[str, str], int] | None = None,
) -> Search:
    """Every node by label when browsing; recall's ranking (with why) for a query.

    With ``pairs`` (:func:`memory.selectors.node_pair_counts`, read for the filters anyway),
    browsing takes its count from them instead of counting the nodes again."""
    if not canonical_key(q):
        total = None if pairs is None else nodes_matching(pairs, category=category, state=state)
        return Search(_Browse(node_list(owner, category=category, state=state), total))
    # Memories only: the episode lane (what was said) is not read for the browser.
    result = recall(owner, q, limit=MAX_LIMIT, episodes=False)
    memories = [item for item in result.items if isinstance(item, RecallItem)]
    ids = [item.node_id if item.kind == "page" else item.id for item in memories]
    nodes = nodes_by_ids(owner, [i for i in ids if i is not None])
    hits: dict[int, NodeHit] = {}
    for item, node_id in zip(memories, ids, strict=True):
        node = nodes.get(node_id) if node_id is not None else None
        if node is None or (category and node.category != category):
            continue
        if state and node.state != state:
            continue
        seen = hits.get(node.pk)
        pages = (item.label,) if item.kind == "page" else ()
        if seen is None:
            hits[node.pk] = NodeHit(node, item.why, item.score, pages)
        elif pages:
            hits[node.pk] = NodeHit(node, seen.why, seen.score, seen.pages + pages)
    return Search(list(hits.values()), "" if hits else result.reason)
