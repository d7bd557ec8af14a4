"""What each MCP tool does, synchronously, for one token's owner.

The async tool functions in :mod:`mcp_server.server` validate arguments (through their
schemas), resolve the token and call these in a worker thread. Each returns a
:class:`ToolResult`: structured content plus a short text. A bad argument raises
:class:`ToolInputError`, which the server reports as a tool error (``isError``).

The reference MCP memory server's tools map onto the engine like this: entities are nodes
(``entityType`` mapped onto our categories), observations are slices, relations are edges
(``relationType`` mapped onto our edge types, else ``related_to``, and kept as the edge's label
when it says more, see :func:`relation_label`). Writes go through the gate
(``ingest_proposals``), so a new identity waits for review unless the owner's rules say
``auto``; deletes are ``node_delete`` with make-it-stick, and single observations and relations
go as the node page deletes a fact or a link (``detail_delete``, a receipt each).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memory.cursors import CursorError, cursor_decode, cursor_encode, cursor_node
from memory.history import timeline
from memory.keys import canonical_key
from memory.models import (
    AccessToken,
    Alias,
    Candidate,
    Edge,
    Node,
    Receipt,
    Slice,
    Source,
    Transcript,
)
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
from memory.services.details import detail_delete
from memory.services.ingest import ingest_proposals, save_memory_text, save_messages
from memory.services.nodes import node_delete
from memory.services.review import (
    CandidateAlreadyDecided,
    candidate_held_delete,
    candidate_reject,
)
from memory.services.rollback import RollbackError, revision_rollback
from memory.shapes import candidate_json, revision_json
from memory.transcripts import TranscriptError, messages_from_json
from memory.vocab import CandidateStatus, Category, EdgeType

# An explicit request to remember an entity is a strong signal; the owner's rules still decide
# whether it is written directly (``auto``) or waits for review.
EXPLICIT_CONFIDENCE = 0.9
GRAPH_LIMIT = 1000
# Observations per entity in a graph answer; an entity with more gives a nextCursor.
OBSERVATIONS_PER_PAGE = DETAIL_LIMIT

_CATEGORY_SYNONYMS = {
    "people": "person",
    "human": "person",
    "contact": "person",
    "friend": "person",
    "colleague": "person",
    "company": "organization",
    "organisation": "organization",
    "org": "organization",
    "team": "organization",
    "school": "organization",
    "university": "organization",
    "location": "place",
    "city": "place",
    "country": "place",
    "event": "life_event",
    "technology": "tool",
    "software": "tool",
    "library": "tool",
    "framework": "tool",
    "language": "skill",
    "hobby": "interest",
    "topic": "interest",
    "app": "project",
    "product": "project",
    "service": "system",
    "condition": "health",
    "illness": "health",
    "routine": "habit",
    "object": "possession",
}
_EDGE_SYNONYMS = {
    "is_part_of": "part_of",
    "belongs_to": "part_of",
    "member_of": "part_of",
    "works_at": "part_of",
    "works_for": "part_of",
    "employed_by": "part_of",
    "use": "uses",
    "used_by": "related_to",
    "depends": "depends_on",
    "requires": "depends_on",
    "blocked": "blocked_by",
    "causes": "caused",
    "replaced": "replaced_by",
    "related": "related_to",
    "knows": "related_to",
    "friend_of": "related_to",
    "sibling_of": "family_of",
    "parent_of": "family_of",
    "child_of": "family_of",
    "married_to": "family_of",
    "colleague_of": "works_with",
}


class ToolInputError(ValueError):
    """A bad argument; the message is for the model to read and correct."""


@dataclass(frozen=True)
class ToolResult:
    payload: dict[str, Any]
    text: str


def _word(text: str) -> str:
    return "_".join(text.strip().lower().replace("-", " ").split())


def category_for(entity_type: str) -> str:
    """An ``entityType`` as one of our categories (``other`` when nothing fits)."""
    word = _word(entity_type)
    word = _CATEGORY_SYNONYMS.get(word, word)
    if word not in Category.values and word.endswith("s"):
        word = _CATEGORY_SYNONYMS.get(word[:-1], word[:-1])
    return word if word in Category.values else Category.OTHER.value


def edge_type_for(relation_type: str) -> str:
    """A ``relationType`` as one of our edge types (``related_to`` when nothing fits)."""
    word = _word(relation_type)
    word = _EDGE_SYNONYMS.get(word, word)
    return word if word in EdgeType.values else EdgeType.RELATED_TO.value


def relation_label(relation_type: str) -> str:
    """What a ``relationType`` says beyond its edge type, kept on the edge as its label: ""
    when it is one of our types as written ("uses", "works with"), else the words it was
    given ("works_on", "mentors"), so the caller reads back the relation it created. A
    synonym of one of our types ("colleague_of" for works_with) is that type, unlabelled."""
    word = _word(relation_type)
    typed = _EDGE_SYNONYMS.get(word, word)
    if word in ("related", "related_to") or (
        typed in EdgeType.values and typed != EdgeType.RELATED_TO.value
    ):
        return ""
    return " ".join(relation_type.split())[:64]


def _relation_type(edge_type: str, label: str) -> str:
    return label or edge_type


def _check_text(name: str, value: str, *, limit: int | None = None) -> str:
    if "\x00" in value:
        raise ToolInputError(f"{name} must not contain NUL characters")
    if not value.strip():
        raise ToolInputError(f"{name} must not be empty")
    limit = limit or settings.UME_MAX_TRANSCRIPT_BYTES
    if len(value.encode("utf-8")) > limit:
        raise ToolInputError(f"{name} is over the limit of {limit:,} bytes")
    return value


def _receipt_text(receipt: Receipt) -> str:
    text = receipt.summary or receipt.error or receipt.get_outcome_display()
    return f"{receipt.outcome}: {text}"


# --- ume's own tools ------------------------------------------------------------------------


def save_memory(token: AccessToken, *, text: str) -> ToolResult:
    _check_text("text", text)
    saved = save_memory_text(owner=token.owner, text=text, source=Source.MCP, token=token)
    return _saved(saved)


def save_conversation(
    token: AccessToken, *, messages: list[dict[str, Any]], source_time: Any = None
) -> ToolResult:
    if not messages:
        raise ToolInputError("messages must hold at least one message")
    try:
        messages_from_json(messages)
    except TranscriptError as exc:
        raise ToolInputError(str(exc)) from exc
    for message in messages:
        _check_text("content", str(message.get("content", "")) or " ")
    size = sum(len(str(m.get("content", "")).encode("utf-8")) for m in messages)
    if size > settings.UME_MAX_TRANSCRIPT_BYTES:  # the API's cap; stdio has no body limit
        raise ToolInputError(
            f"messages are {size:,} bytes; the limit is {settings.UME_MAX_TRANSCRIPT_BYTES:,}"
        )
    first = next((m for m in messages if m.get("role") == "user"), messages[0])
    name = "conversation: " + " ".join(str(first.get("content", "")).split())[:80]
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
        return ToolResult(saved.as_json(), _receipt_text(saved))
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


def _node_named(owner: Person, name: str) -> Node | None:
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


def _pending_named(owner: Person, name: str) -> Candidate | None:
    key = canonical_key(name)
    return (
        Candidate.objects.for_owner(owner)
        .filter(canonical_key=key, status=CandidateStatus.PENDING)
        .first()
        if key
        else None
    )


def forget_memory(
    token: AccessToken, *, label: str | None = None, node_id: int | None = None, stick: bool = True
) -> ToolResult:
    if (label is None) == (node_id is None):
        raise ToolInputError("give exactly one of label or node_id")
    owner = token.owner
    if node_id is not None:
        node = Node.objects.for_owner(owner).filter(pk=node_id).first()
    else:
        node = _node_named(owner, _check_text("label", label or "", limit=800))
        candidate = _pending_named(owner, label or "") if node is None else None
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
        node = _node_named(owner, _check_text("label", label or "", limit=800))
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
    edges = (
        Edge.objects.for_owner(owner)
        .filter(from_node_id__in=ids, to_node_id__in=ids)
        .order_by("id")
    )
    return {
        "entities": [_entity(n, pages[n.pk]) for n in rows],
        "relations": [
            {
                "from": labels[e.from_node_id],
                "to": labels[e.to_node_id],
                "relationType": _relation_type(e.type, e.label),
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


def _status(owner: Person, receipt: Receipt, names: Sequence[str]) -> list[dict[str, Any]]:
    """For each name: stored, pending_review or rejected (with the gate's reason)."""
    reasons = {canonical_key(r.get("label", "")): r.get("reason", "") for r in receipt.rejected}
    result = []
    for name in names:
        if _node_named(owner, name) is not None:
            result.append({"name": name, "status": "stored"})
        elif _pending_named(owner, name) is not None:
            result.append({"name": name, "status": "pending_review"})
        else:
            reason = reasons.get(canonical_key(name)) or receipt.error or "not kept"
            result.append({"name": name, "status": "rejected", "reason": reason})
    return result


def create_entities(token: AccessToken, *, entities: list[dict[str, Any]]) -> ToolResult:
    if not entities:  # the reference server answers an empty list with an empty result
        return ToolResult({"entities": [], "receipt": None}, "nothing to create")
    objects: list[dict[str, Any]] = []
    for entity in entities:
        name = _check_text("name", entity["name"], limit=800)
        category = category_for(entity["entityType"])
        evidence = [{"message_id": "mcp", "quote": f"{name} ({entity['entityType']})"[:4000]}]
        objects.append(
            {
                "object": "node",
                "label": name,
                "category": category,
                "confidence": EXPLICIT_CONFIDENCE,
                "evidence": evidence,
            }
        )
        for observation in entity.get("observations", []):
            objects.append(_observation(name, category, observation))
    receipt = ingest_proposals(
        owner=token.owner,
        objects=objects,
        name="mcp create_entities: " + ", ".join(e["name"] for e in entities)[:200],
        source=Source.MCP,
        token=token,
    )
    status = _status(token.owner, receipt, [e["name"] for e in entities])
    waiting = sum(1 for s in status if s["status"] == "pending_review")
    stored = sum(1 for s in status if s["status"] == "stored")
    return ToolResult(
        {"entities": status, "receipt": receipt.as_json()},
        f"{stored} stored, {waiting} waiting for review, {len(status) - stored - waiting} rejected",
    )


def _observation(name: str, category: str, text: str) -> dict[str, Any]:
    _check_text("observation", text, limit=4000)
    return {
        "object": "slice",
        "on": name,
        "text": text,
        "kind": "other",
        "category": category,
        "confidence": EXPLICIT_CONFIDENCE,
        "evidence": [{"message_id": "mcp", "quote": text}],
    }


def create_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> ToolResult:
    if not relations:
        return ToolResult({"relations": [], "receipt": None}, "nothing to create")
    objects = [
        {
            "object": "edge",
            "from": _check_text("from", r["from"], limit=800),
            "to": _check_text("to", r["to"], limit=800),
            "type": edge_type_for(r["relationType"]),
            "label": relation_label(r["relationType"]),
            "confidence": EXPLICIT_CONFIDENCE,
            "evidence": [
                {"message_id": "mcp", "quote": f"{r['from']} {r['relationType']} {r['to']}"[:4000]}
            ],
        }
        for r in relations
    ]
    receipt = ingest_proposals(
        owner=token.owner,
        objects=objects,
        name=f"mcp create_relations: {len(relations)}",
        source=Source.MCP,
        token=token,
    )
    mapped = [
        {
            "from": r["from"],
            "to": r["to"],
            "relationType": _relation_type(
                edge_type_for(r["relationType"]), relation_label(r["relationType"])
            ),
        }
        for r in relations
    ]
    return ToolResult({"relations": mapped, "receipt": receipt.as_json()}, _receipt_text(receipt))


def _held_slice_texts(candidate: Candidate) -> set[str]:
    return {
        canonical_key(str(o.get("text", "")))
        for o in candidate.held_objects or []
        if isinstance(o, dict) and o.get("object") == "slice"
    }


def add_observations(token: AccessToken, *, observations: list[dict[str, Any]]) -> ToolResult:
    if not observations:
        return ToolResult({"results": [], "receipt": None}, "nothing to add")
    owner = token.owner
    missing = [
        o["entityName"]
        for o in observations
        if _node_named(owner, o["entityName"]) is None
        and _pending_named(owner, o["entityName"]) is None
    ]
    if missing:
        raise ToolInputError(f"no entity named {', '.join(repr(m) for m in missing)}")
    objects = []
    for item in observations:
        node = _node_named(owner, item["entityName"])
        category = node.category if node is not None else Category.OTHER.value
        objects += [_observation(item["entityName"], category, text) for text in item["contents"]]
    if not objects:
        raise ToolInputError("no observations to add")
    receipt = ingest_proposals(
        owner=owner,
        objects=objects,
        name="mcp add_observations: " + ", ".join(o["entityName"] for o in observations)[:200],
        source=Source.MCP,
        token=token,
    )
    added = []
    for item in observations:
        node = _node_named(owner, item["entityName"])
        if node is not None:
            known = {
                canonical_key(t)
                for t in node.slices.filter(is_current=True).values_list("text", flat=True)
            }
        else:
            candidate = _pending_named(owner, item["entityName"])
            known = _held_slice_texts(candidate) if candidate is not None else set()
        added.append(
            {
                "entityName": item["entityName"],
                "addedObservations": [t for t in item["contents"] if canonical_key(t) in known],
                "pendingReview": node is None,
            }
        )
    return ToolResult({"results": added, "receipt": receipt.as_json()}, _receipt_text(receipt))


def delete_entities(token: AccessToken, *, entityNames: list[str]) -> ToolResult:  # noqa: N803
    owner = token.owner
    deleted: list[str] = []
    withdrawn: list[str] = []
    unknown: list[str] = []
    with transaction.atomic():  # all of them or none
        _delete_named(owner, entityNames, deleted, withdrawn, unknown)
    payload = {"deleted": deleted, "withdrawn_candidates": withdrawn, "not_found": unknown}
    return ToolResult(
        payload,
        f"deleted {len(deleted)}, withdrew {len(withdrawn)} pending; they will not be relearned"
        + (f"; not found: {', '.join(unknown)}" if unknown else ""),
    )


def _delete_named(
    owner: Person, names: list[str], deleted: list[str], withdrawn: list[str], unknown: list[str]
) -> None:
    for name in names:
        node = _node_named(owner, name)
        if node is not None:
            node_delete(node=node, stick=True, source="mcp")
            deleted.append(name)
            continue
        candidate = _pending_named(owner, name)
        if candidate is not None:
            try:
                # Like a deleted memory: never proposed again, and what was said is forgotten.
                candidate_reject(candidate=candidate, by=owner, suppress=True, forget=True)
                withdrawn.append(name)
                continue
            except CandidateAlreadyDecided:
                pass
        unknown.append(name)


def delete_observations(token: AccessToken, *, deletions: list[dict[str, Any]]) -> ToolResult:
    """Each observation deleted as a person deletes a fact on the node page
    (:func:`~memory.services.details.detail_delete`, one receipt each, undoable); on a label
    still waiting for review, the held facts go (one receipt for the candidate)."""
    owner = token.owner
    results = []
    with transaction.atomic():  # all of them or none
        for item in deletions:
            texts = list(item["observations"])
            node = _node_named(owner, item["entityName"])
            removed: list[str] = []
            if node is not None:
                keys = {canonical_key(t) for t in texts}
                rows = [
                    s
                    for s in Slice.objects.for_owner(owner).filter(node=node).order_by("id")
                    if canonical_key(s.text) in keys
                ]
                # The superseded ones first: deleting a current fact brings back the one it
                # had replaced, which must not be one this call deletes too.
                for row in sorted(rows, key=lambda s: (s.is_current, s.pk)):
                    detail_delete(row=row, source=Source.MCP, token=token)
                removed = [s.text for s in rows]
            else:
                candidate = _pending_named(owner, item["entityName"])
                if candidate is not None:
                    try:
                        removed = candidate_held_delete(
                            candidate=candidate, texts=texts, source=Source.MCP, token=token
                        )
                    except CandidateAlreadyDecided:
                        removed = []
            results.append({"entityName": item["entityName"], "deletedObservations": removed})
    count = sum(len(r["deletedObservations"]) for r in results)
    return ToolResult({"results": results}, f"deleted {count} observations")


def delete_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> ToolResult:
    """Each relation deleted as a person deletes a link on the node page
    (:func:`~memory.services.details.detail_delete`, one receipt each, undoable)."""
    owner = token.owner
    deleted = []
    with transaction.atomic():  # all of them or none
        for r in relations:
            source, dest = _node_named(owner, r["from"]), _node_named(owner, r["to"])
            if source is None or dest is None:
                continue
            kind, label = edge_type_for(r["relationType"]), relation_label(r["relationType"])
            edges = Edge.objects.for_owner(owner).filter(
                from_node=source, to_node=dest, type=kind, label=label
            )
            count = 0
            for edge in edges.select_related("from_node").order_by("id"):
                detail_delete(row=edge, source=Source.MCP, token=token)
                count += 1
            if count:
                deleted.append(
                    {"from": r["from"], "to": r["to"], "relationType": _relation_type(kind, label)}
                )
    return ToolResult({"deleted": deleted}, f"deleted {len(deleted)} relations")


def read_graph(token: AccessToken) -> ToolResult:
    owner = token.owner
    nodes = list(Node.objects.for_owner(owner).order_by("label", "id")[:GRAPH_LIMIT])
    graph = _graph(owner, nodes)
    pending = list(candidate_queue(owner).values_list("label_guess", flat=True)[:GRAPH_LIMIT])
    graph["pendingReview"] = pending
    graph["truncated"] = len(nodes) == GRAPH_LIMIT
    return ToolResult(graph, _graph_text(graph, pending))


def search_nodes(token: AccessToken, *, query: str) -> ToolResult:
    owner = token.owner
    _check_text("query", query, limit=4000)
    key = canonical_key(query)
    match = Q(slices__is_current=True, slices__text__icontains=query.strip())
    if key:  # an empty key (a query of punctuation only) is contained in every label
        match |= Q(canonical_key__contains=key) | Q(aliases__canonical_key__contains=key)
    category = category_for(query)
    if category != Category.OTHER.value or _word(query) == "other":
        match |= Q(category=category)
    nodes = list(
        Node.objects.for_owner(owner).filter(match).distinct().order_by("label", "id")[:100]
    )
    graph = _graph(owner, nodes)
    _add_waiting(graph, candidates_proposed_by(token, containing=key))
    return ToolResult(graph, _graph_text(graph))


def open_nodes(token: AccessToken, *, names: list[str], cursor: str = "") -> ToolResult:
    owner = token.owner
    nodes = [n for n in (_node_named(owner, name) for name in names) if n is not None]
    graph = _graph(owner, nodes, cursor=cursor)
    found = {canonical_key(e["name"]) for e in graph["entities"]}
    asked = {canonical_key(name) for name in names} - found - {""}
    _add_waiting(graph, candidates_proposed_by(token, keys=asked) if asked else [])
    return ToolResult(graph, _graph_text(graph))


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
                "relationType": _relation_type(str(h.get("type")), str(h.get("label") or "")),
            }
            for h in held
            if h.get("object") == "edge"
        ]
