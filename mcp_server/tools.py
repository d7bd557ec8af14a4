"""What each MCP tool does, synchronously, for one token's owner.

The async tool functions in :mod:`mcp_server.server` validate arguments (through their
schemas), resolve the token and call these in a worker thread. Each returns a
:class:`ToolResult`: structured content plus a short text. A bad argument raises
:class:`ToolInputError`, which the server reports as a tool error (``isError``).

The reference MCP memory server's graph tools are :mod:`memory.services.reference_graph`
(its writes go through the gate as every save does) and the reads of
:mod:`memory.graph_selectors`; here they are answered in the reference server's shapes.
No ORM query is written here (``tests/test_structure.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from memory.cursors import CursorError, cursor_decode, cursor_encode, cursor_node
from memory.graph_selectors import (
    entity_by_id,
    entity_named,
    entity_waiting,
    graph_edges,
    graph_nodes,
    graph_search,
    graph_waiting_labels,
)
from memory.history import timeline
from memory.keys import canonical_key
from memory.models import AccessToken, Candidate, Node, Receipt, Slice, Source, Transcript
from memory.owned import Person
from memory.recall import recall
from memory.selectors import (
    DETAIL_LIMIT,
    DetailPage,
    candidate_queue,
    candidates_proposed_by,
    node_get,
    node_history,
    node_slices_page,
    nodes_with_facts,
    revision_get,
    revision_parents,
    without_held,
)
from memory.services import reference_graph
from memory.services.ingest import save_memory_text, save_messages
from memory.services.nodes import node_delete
from memory.services.reference_graph import (
    GraphAnswer,
    GraphInputError,
    category_for,
    receipt_text,
    relation_type,
)
from memory.services.review import CandidateAlreadyDecided, candidate_reject
from memory.services.rollback import RollbackError, revision_rollback
from memory.services.saves import (
    SaveRefused,
    conversation_checked,
    memory_checked,
    text_checked,
)
from memory.shapes import candidate_json, revision_json
from memory.vocab import Category

GRAPH_LIMIT = 1000
# Observations per entity in a graph answer; an entity with more gives a nextCursor.
OBSERVATIONS_PER_PAGE = DETAIL_LIMIT


class ToolInputError(ValueError):
    """A bad argument; the message is for the model to read and correct."""


@dataclass(frozen=True)
class ToolResult:
    payload: dict[str, Any]
    text: str


def _check_text(name: str, value: str, *, limit: int | None = None) -> str:
    try:
        return text_checked(name, value, limit=limit)
    except SaveRefused as exc:
        raise ToolInputError(str(exc)) from exc


@contextmanager
def _answered() -> Iterator[None]:
    """The domain's refusal of an argument (a save's rules, a graph tool's input) as the tool
    error the model reads."""
    try:
        yield
    except (SaveRefused, GraphInputError) as exc:
        raise ToolInputError(str(exc)) from exc


def _answer(answer: GraphAnswer) -> ToolResult:
    return ToolResult(answer.payload, answer.text)


# --- ume's own tools ------------------------------------------------------------------------


def save_memory(token: AccessToken, *, text: str) -> ToolResult:
    with _answered():
        memory_checked(text)
    saved = save_memory_text(owner=token.owner, text=text, source=Source.MCP, token=token)
    return _saved(saved)


def save_conversation(
    token: AccessToken, *, messages: list[dict[str, Any]], source_time: Any = None
) -> ToolResult:
    with _answered():
        name = conversation_checked(messages)
        for message in messages:  # each message is an argument of its own here
            text_checked("content", str(message.get("content", "")) or " ")
    saved = save_messages(
        owner=token.owner,
        messages=messages,
        name=name,
        source=Source.MCP,
        token=token,
        source_time=source_time,
    )
    return _saved(saved)


def _saved(saved: Receipt | Transcript) -> ToolResult:
    """The receipt, or for a save too large to process in one call, where it waits."""
    if isinstance(saved, Receipt):
        return ToolResult(saved.as_json(), receipt_text(saved))
    payload = {"status": "queued", "transcript_id": saved.pk, "size_bytes": saved.size_bytes}
    text = (
        f"queued: transcript {saved.pk} ({saved.size_bytes:,} bytes) is larger than one call "
        "processes; the pending workers will process it and leave a receipt"
    )
    return ToolResult(payload, text)


def recall_memory(token: AccessToken, *, query: str, limit: int = 10) -> ToolResult:
    _check_text("query", query, limit=4000)
    result = recall(token.owner, query, limit=limit)
    payload = result.as_json()
    if result.no_recall:
        return ToolResult(payload, f"nothing to recall ({result.reason})")
    return ToolResult(payload, result.context or f"{len(result.items)} memories, no context")


def forget_memory(
    token: AccessToken, *, label: str | None = None, node_id: int | None = None, stick: bool = True
) -> ToolResult:
    if (label is None) == (node_id is None):
        raise ToolInputError("give exactly one of label or node_id")
    owner = token.owner
    if node_id is not None:
        node = entity_by_id(owner, node_id)
    else:
        node = entity_named(owner, _check_text("label", label or "", limit=800))
        candidate = entity_waiting(owner, label or "") if node is None else None
        if candidate is not None:
            return _forget_candidate(owner, candidate, stick=stick)
    if node is None:
        raise ToolInputError(
            f"no memory {'#' + str(node_id) if node_id else repr(label)} to forget"
        )
    forgotten = {"id": node.pk, "label": node.label, "category": node.category}
    suppressions = node_delete(node=node, stick=stick, source="mcp")
    payload = {
        "forgotten": forgotten,
        "stick": stick,
        "suppressed_labels": [s.label for s in suppressions],
    }
    how = " and will not be relearned" if stick else ""
    return ToolResult(payload, f"forgot “{forgotten['label']}”{how}")


def memory_history(
    token: AccessToken, *, label: str | None = None, node_id: int | None = None, limit: int = 20
) -> ToolResult:
    """The revisions of a memory and of its details, newest first: who changed what, when."""
    if (label is None) == (node_id is None):
        raise ToolInputError("give exactly one of label or node_id")
    owner = token.owner
    if node_id is None:
        node = entity_named(owner, _check_text("label", label or "", limit=800))
        if node is None:
            raise ToolInputError(f"no memory {label!r}")
        node_id = node.pk
    rows = node_history(owner, node_id, limit=limit)
    if not rows and node_get(owner, node_id) is None:
        raise ToolInputError(f"no memory #{node_id}")
    entries = timeline(rows, revision_parents(owner, rows))
    payload = {"node": node_id, "revisions": [revision_json(e) for e in entries]}
    lines = [
        f"{r.kind} #{r.object_id} r{r.number} {r.action} by {r.actor_name or r.actor}"
        f" at {r.created_at:%Y-%m-%d %H:%M}"
        + (": " + ", ".join(f"{c.name} → {c.after}" for c in e.changes) if e.changes else "")
        for e in entries
        for r in [e.revision]
    ]
    return ToolResult(payload, "\n".join(lines) or "no history")


def memory_rollback(
    token: AccessToken,
    *,
    node_id: int,
    revision: int,
    kind: str = "node",
    id: int | None = None,  # noqa: A002 -- the detail's id, as in the HTTP API
) -> ToolResult:
    """Make an earlier revision of a memory (or of one of its details) current again."""
    owner = token.owner
    object_id = id if id is not None else node_id
    target = revision_get(owner, kind, object_id, revision)
    if target is None or target.node_id != node_id:
        raise ToolInputError(f"memory #{node_id} has no {kind} revision {revision} of #{object_id}")
    try:
        receipt = revision_rollback(
            owner=owner,
            kind=kind,
            object_id=object_id,
            number=revision,
            source=Source.MCP,
            token=token,
        )
    except RollbackError as exc:
        raise ToolInputError(str(exc)) from exc
    return ToolResult({"receipt": receipt.as_json()}, receipt.summary)


def _forget_candidate(owner: Person, candidate: Candidate, *, stick: bool) -> ToolResult:
    """A label still waiting for review: reject it; with ``stick``, never propose it again and
    forget what was said about it."""
    try:
        suppression = candidate_reject(candidate=candidate, by=owner, suppress=stick, forget=stick)
    except CandidateAlreadyDecided as exc:
        raise ToolInputError(str(exc)) from exc
    payload = {
        "forgotten": {
            "candidate_id": candidate.pk,
            "label": candidate.label_guess,
            "category": candidate.category_guess,
        },
        "stick": stick,
        "suppressed_labels": [suppression.label] if suppression else [],
    }
    how = ", will not be proposed again, and what was said about it is forgotten"
    return ToolResult(payload, f"rejected “{candidate.label_guess}”{how if stick else ''}")


def list_pending_candidates(token: AccessToken, *, limit: int = 20) -> ToolResult:
    # A card held because it looks like something the person asked to forget is theirs alone.
    rows = list(without_held(candidate_queue(token.owner), token.owner, now=timezone.now())[:limit])
    payload = {"count": len(rows), "candidates": [candidate_json(c) for c in rows]}
    if not rows:
        return ToolResult(payload, "no memories are waiting for review")
    labels = ", ".join(c.label_guess for c in rows[:10])
    return ToolResult(payload, f"{len(rows)} waiting for review: {labels}")


# --- the reference memory server's graph tools ------------------------------------------------


def _graph(owner: Person, nodes: Iterable[Node], *, cursor: str = "") -> dict[str, Any]:
    """Entities with a page of their current observations each (oldest first, with how many
    there are and the cursor of the next page), and the relations among them. ``cursor``
    continues the observations of the one entity it was handed out for."""
    ids = [n.pk for n in nodes]
    rows = nodes_with_facts(owner, ids, limit=OBSERVATIONS_PER_PAGE)
    pages: dict[int, DetailPage[Slice]] = {}
    for node in rows:
        first: list[Slice] = node.first_facts  # type: ignore[attr-defined]
        last = first[OBSERVATIONS_PER_PAGE - 1] if len(first) > OBSERVATIONS_PER_PAGE else None
        after = (last.created_at, last.pk) if last is not None else None
        pages[node.pk] = DetailPage(first[:OBSERVATIONS_PER_PAGE], node.fact_count, after)  # type: ignore[attr-defined]
    if cursor:
        node_id = _cursor_node(cursor, pages)
        after = cursor_decode(cursor, kind="observations", node_id=node_id)
        pages[node_id] = node_slices_page(
            owner,
            node_id,
            after=after,
            limit=OBSERVATIONS_PER_PAGE,
            current_only=True,
            oldest_first=True,
        )
    labels = {n.pk: n.label for n in rows}
    edges = graph_edges(owner, ids)
    return {
        "entities": [_entity(n, pages[n.pk]) for n in rows],
        "relations": [
            {
                "from": labels[e.from_node_id],
                "to": labels[e.to_node_id],
                "relationType": relation_type(e.type, e.label),
            }
            for e in edges
        ],
    }


def _entity(node: Node, page: DetailPage[Slice]) -> dict[str, Any]:
    after = page.after
    return {
        "name": node.label,
        "entityType": node.category,
        "observations": [s.text for s in page.rows],
        "observationCount": page.total,
        "nextCursor": cursor_encode("observations", node.pk, after) if after is not None else None,
        "pendingReview": False,
    }


def _cursor_node(cursor: str, pages: dict[int, Any]) -> int:
    """The node a cursor continues, which must be one of the entities asked for."""
    try:
        kind, node_id = cursor_node(cursor)
    except CursorError as exc:
        raise ToolInputError(f"cursor: {exc}") from exc
    if kind != "observations" or node_id not in pages:
        raise ToolInputError(
            "cursor: it continues another entity's observations; pass it with the name of "
            "the entity whose nextCursor it was"
        )
    return node_id


def _graph_text(graph: dict[str, Any], pending: Sequence[str] = ()) -> str:
    text = f"{len(graph['entities'])} entities, {len(graph['relations'])} relations"
    waiting = [e["name"] for e in graph["entities"] if e.get("pendingReview")]
    if waiting and not pending:
        text += f"; of them waiting for the person's review: {', '.join(waiting[:10])}"
    if pending:
        text += f"; waiting for review: {', '.join(pending[:10])}"
    return text


def read_graph(token: AccessToken) -> ToolResult:
    owner = token.owner
    nodes = graph_nodes(owner, limit=GRAPH_LIMIT)
    graph = _graph(owner, nodes)
    pending = graph_waiting_labels(owner, limit=GRAPH_LIMIT)
    graph["pendingReview"] = pending
    graph["truncated"] = len(nodes) == GRAPH_LIMIT
    return ToolResult(graph, _graph_text(graph, pending))


def search_nodes(token: AccessToken, *, query: str) -> ToolResult:
    owner = token.owner
    _check_text("query", query, limit=4000)
    key = canonical_key(query)
    category = category_for(query)
    named = category != Category.OTHER.value or canonical_key(query) == "other"
    nodes = graph_search(
        owner, text=query.strip(), key=key, category=category if named else "", limit=100
    )
    graph = _graph(owner, nodes)
    _add_waiting(graph, candidates_proposed_by(token, containing=key))
    return ToolResult(graph, _graph_text(graph))


def open_nodes(token: AccessToken, *, names: list[str], cursor: str = "") -> ToolResult:
    owner = token.owner
    nodes = [n for n in (entity_named(owner, name) for name in names) if n is not None]
    graph = _graph(owner, nodes, cursor=cursor)
    found = {canonical_key(e["name"]) for e in graph["entities"]}
    asked = {canonical_key(name) for name in names} - found - {""}
    _add_waiting(graph, candidates_proposed_by(token, keys=asked) if asked else [])
    return ToolResult(graph, _graph_text(graph))


def create_entities(token: AccessToken, *, entities: list[dict[str, Any]]) -> ToolResult:
    with _answered():
        return _answer(reference_graph.create_entities(token, entities=entities))


def create_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> ToolResult:
    with _answered():
        return _answer(reference_graph.create_relations(token, relations=relations))


def add_observations(token: AccessToken, *, observations: list[dict[str, Any]]) -> ToolResult:
    with _answered():
        return _answer(reference_graph.add_observations(token, observations=observations))


def delete_entities(token: AccessToken, *, entityNames: list[str]) -> ToolResult:  # noqa: N803
    with _answered():
        return _answer(reference_graph.delete_entities(token, entityNames=entityNames))


def delete_observations(token: AccessToken, *, deletions: list[dict[str, Any]]) -> ToolResult:
    """Each observation deleted as a person deletes a fact on the node page; see
    :func:`memory.services.reference_graph.delete_observations`."""
    with _answered():
        return _answer(reference_graph.delete_observations(token, deletions=deletions))


def delete_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> ToolResult:
    """Each relation deleted as a person deletes a link on the node page; see
    :func:`memory.services.reference_graph.delete_relations`."""
    with _answered():
        return _answer(reference_graph.delete_relations(token, relations=relations))


def _add_waiting(graph: dict[str, Any], waiting: list[Candidate]) -> None:
    """What this token proposed and the person has not reviewed yet, as entities marked
    ``pendingReview`` (with the observations and relations held on them), after the
    memories: a caller of ``create_entities`` finds its entities again, and knows they are
    not memories yet. The edges held on a guess keep the relation type they were given."""
    for candidate in waiting:
        held = [h for h in candidate.held_objects if isinstance(h, dict)]
        observations = [str(h.get("text", "")) for h in held if h.get("object") == "slice"]
        graph["entities"].append(
            {
                "name": candidate.label_guess,
                "entityType": candidate.category_guess,
                "observations": observations,
                "observationCount": len(observations),
                "nextCursor": None,
                "pendingReview": True,
            }
        )
        graph["relations"] += [
            {
                "from": h.get("from"),
                "to": h.get("to"),
                "relationType": relation_type(str(h.get("type")), str(h.get("label") or "")),
            }
            for h in held
            if h.get("object") == "edge"
        ]
