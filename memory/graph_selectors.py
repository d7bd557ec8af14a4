"""The reads of the reference MCP memory server's graph tools (``mcp_server.tools``, through
:mod:`memory.services.reference_graph`): a name as the entity it names, the graph's nodes,
a search, the relations among some nodes, and what is waiting for review. Every one takes
the owner and reads through the owned querysets (:mod:`memory.owned`)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q, QuerySet

from memory.keys import canonical_key
from memory.models import Alias, Candidate, Edge, Node, Slice
from memory.owned import Person
from memory.selectors import candidate_queue
from memory.vocab import CandidateStatus


def entity_named(owner: Person, name: str) -> Node | None:
    """The owner's node ``name`` names exactly, by its label (the oldest of equal keys) or
    one of its aliases."""
    key = canonical_key(name)
    if not key:
        return None
    node = Node.objects.for_owner(owner).filter(canonical_key=key).order_by("id").first()
    if node is None:
        alias = (
            Alias.objects.for_owner(owner).filter(canonical_key=key).select_related("node").first()
        )
        node = alias.node if alias is not None else None
    return node


def entity_waiting(owner: Person, name: str) -> Candidate | None:
    """The owner's guess waiting for review under ``name`` (its canonical key), if any."""
    key = canonical_key(name)
    return (
        Candidate.objects.for_owner(owner)
        .filter(canonical_key=key, status=CandidateStatus.PENDING)
        .first()
        if key
        else None
    )


def entity_by_id(owner: Person, node_id: int) -> Node | None:
    return Node.objects.for_owner(owner).filter(pk=node_id).first()


def graph_nodes(owner: Person, *, limit: int) -> list[Node]:
    """The owner's nodes by label, at most ``limit``."""
    return list(Node.objects.for_owner(owner).order_by("label", "id")[:limit])


def graph_waiting_labels(owner: Person, *, limit: int) -> list[str]:
    """The labels of the guesses on the owner's review queue, at most ``limit``."""
    return list(candidate_queue(owner).values_list("label_guess", flat=True)[:limit])


def graph_search(owner: Person, *, text: str, key: str, category: str, limit: int) -> list[Node]:
    """The owner's nodes a search finds: a current fact containing ``text``, a label or an
    alias whose key contains ``key`` (when there is one), or of ``category`` (when given)."""
    match = Q(slices__is_current=True, slices__text__icontains=text)
    if key:  # an empty key (a query of punctuation only) is contained in every label
        match |= Q(canonical_key__contains=key) | Q(aliases__canonical_key__contains=key)
    if category:
        match |= Q(category=category)
    return list(
        Node.objects.for_owner(owner).filter(match).distinct().order_by("label", "id")[:limit]
    )


def graph_edges(owner: Person, ids: Sequence[int]) -> QuerySet[Edge]:
    """The relations among the nodes ``ids``, oldest first."""
    return (
        Edge.objects.for_owner(owner)
        .filter(from_node_id__in=ids, to_node_id__in=ids)
        .order_by("id")
    )


def current_fact_texts(node: Node) -> list[str]:
    return list(node.slices.filter(is_current=True).values_list("text", flat=True))


def node_facts(owner: Person, node: Node) -> list[Slice]:
    """Every fact of ``node``, current or superseded, oldest first."""
    return list(Slice.objects.for_owner(owner).filter(node=node).order_by("id"))


def edges_between(owner: Person, source: Node, dest: Node, *, type: str, label: str) -> list[Edge]:  # noqa: A002
    """The relations from ``source`` to ``dest`` of ``type`` with ``label``, oldest first."""
    return list(
        Edge.objects.for_owner(owner)
        .filter(from_node=source, to_node=dest, type=type, label=label)
        .select_related("from_node")
        .order_by("id")
    )
