"""The reference MCP memory server's graph, as ume keeps it: entities are nodes (their
``entityType`` mapped onto our categories), observations are facts (slices), relations are
edges (their ``relationType`` mapped onto our edge types, else ``related_to``, and kept as the
edge's label when it says more, see :func:`relation_label`).

Every write goes through the gate like any other save (``ingest_proposals``): the same
suppressions and tombstones, so an entity whose name, or whose observations, speak of
something the person asked to forget is refused or held for them; a new identity waits for
review unless the owner's rules say ``auto``. Deletes are ``node_delete`` with make-it-stick,
and single observations and relations go as the node page deletes a fact or a link
(``detail_delete``, a receipt each). The MCP tools (``mcp_server.tools``) call these and
answer with what they return; a bad argument is a :class:`GraphInputError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from memory.graph_selectors import (
    current_fact_texts,
    edges_between,
    entity_named,
    entity_waiting,
    node_facts,
)
from memory.keys import canonical_key
from memory.models import AccessToken, Candidate, Receipt, Source
from memory.owned import Person
from memory.services.details import detail_delete
from memory.services.ingest import ingest_proposals
from memory.services.nodes import node_delete
from memory.services.review import (
    CandidateAlreadyDecided,
    candidate_held_delete,
    candidate_reject,
)
from memory.services.saves import SaveRefused, text_checked
from memory.vocab import Category, EdgeType

# An explicit request to remember an entity is a strong signal; the owner's rules still decide
# whether it is written directly (``auto``) or waits for review.
EXPLICIT_CONFIDENCE = 0.9
# The longest entity name and observation an assistant may send.
NAME_LIMIT = 800
OBSERVATION_LIMIT = 4000

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


class GraphInputError(ValueError):
    """A bad argument; the message is for the model to read and correct."""


@dataclass(frozen=True)
class GraphAnswer:
    """What a graph write did: the reference server's JSON (``payload``) and a short text."""

    payload: dict[str, Any]
    text: str


def _checked(name: str, value: str, limit: int) -> str:
    try:
        return text_checked(name, value, limit=limit)
    except SaveRefused as exc:
        raise GraphInputError(str(exc)) from exc


def receipt_text(receipt: Receipt) -> str:
    text = receipt.summary or receipt.error or receipt.get_outcome_display()
    return f"{receipt.outcome}: {text}"


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


def relation_type(edge_type: str, label: str) -> str:
    return label or edge_type


def _status(owner: Person, receipt: Receipt, names: Sequence[str]) -> list[dict[str, Any]]:
    """For each name: stored, pending_review or rejected (with the gate's reason)."""
    reasons = {canonical_key(r.get("label", "")): r.get("reason", "") for r in receipt.rejected}
    result = []
    for name in names:
        if entity_named(owner, name) is not None:
            result.append({"name": name, "status": "stored"})
        elif entity_waiting(owner, name) is not None:
            result.append({"name": name, "status": "pending_review"})
        else:
            reason = reasons.get(canonical_key(name)) or receipt.error or "not kept"
            result.append({"name": name, "status": "rejected", "reason": reason})
    return result


def create_entities(token: AccessToken, *, entities: list[dict[str, Any]]) -> GraphAnswer:
    if not entities:  # the reference server answers an empty list with an empty result
        return GraphAnswer({"entities": [], "receipt": None}, "nothing to create")
    objects: list[dict[str, Any]] = []
    for entity in entities:
        name = _checked("name", entity["name"], NAME_LIMIT)
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
    return GraphAnswer(
        {"entities": status, "receipt": receipt.as_json()},
        f"{stored} stored, {waiting} waiting for review, {len(status) - stored - waiting} rejected",
    )


def _observation(name: str, category: str, text: str) -> dict[str, Any]:
    _checked("observation", text, OBSERVATION_LIMIT)
    return {
        "object": "slice",
        "on": name,
        "text": text,
        "kind": "other",
        "category": category,
        "confidence": EXPLICIT_CONFIDENCE,
        "evidence": [{"message_id": "mcp", "quote": text}],
    }


def create_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> GraphAnswer:
    if not relations:
        return GraphAnswer({"relations": [], "receipt": None}, "nothing to create")
    objects = [
        {
            "object": "edge",
            "from": _checked("from", r["from"], NAME_LIMIT),
            "to": _checked("to", r["to"], NAME_LIMIT),
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
            "relationType": relation_type(
                edge_type_for(r["relationType"]), relation_label(r["relationType"])
            ),
        }
        for r in relations
    ]
    return GraphAnswer({"relations": mapped, "receipt": receipt.as_json()}, receipt_text(receipt))


def _held_slice_texts(candidate: Candidate) -> set[str]:
    return {
        canonical_key(str(o.get("text", "")))
        for o in candidate.held_objects or []
        if isinstance(o, dict) and o.get("object") == "slice"
    }


def add_observations(token: AccessToken, *, observations: list[dict[str, Any]]) -> GraphAnswer:
    if not observations:
        return GraphAnswer({"results": [], "receipt": None}, "nothing to add")
    owner = token.owner
    missing = [
        o["entityName"]
        for o in observations
        if entity_named(owner, o["entityName"]) is None
        and entity_waiting(owner, o["entityName"]) is None
    ]
    if missing:
        raise GraphInputError(f"no entity named {', '.join(repr(m) for m in missing)}")
    objects = []
    for item in observations:
        node = entity_named(owner, item["entityName"])
        category = node.category if node is not None else Category.OTHER.value
        objects += [_observation(item["entityName"], category, text) for text in item["contents"]]
    if not objects:
        raise GraphInputError("no observations to add")
    receipt = ingest_proposals(
        owner=owner,
        objects=objects,
        name="mcp add_observations: " + ", ".join(o["entityName"] for o in observations)[:200],
        source=Source.MCP,
        token=token,
    )
    added = []
    for item in observations:
        node = entity_named(owner, item["entityName"])
        if node is not None:
            known = {canonical_key(t) for t in current_fact_texts(node)}
        else:
            candidate = entity_waiting(owner, item["entityName"])
            known = _held_slice_texts(candidate) if candidate is not None else set()
        added.append(
            {
                "entityName": item["entityName"],
                "addedObservations": [t for t in item["contents"] if canonical_key(t) in known],
                "pendingReview": node is None,
            }
        )
    return GraphAnswer({"results": added, "receipt": receipt.as_json()}, receipt_text(receipt))


def delete_entities(token: AccessToken, *, entityNames: list[str]) -> GraphAnswer:  # noqa: N803
    owner = token.owner
    deleted: list[str] = []
    withdrawn: list[str] = []
    unknown: list[str] = []
    with transaction.atomic():  # all of them or none
        _delete_named(owner, entityNames, deleted, withdrawn, unknown)
    payload = {"deleted": deleted, "withdrawn_candidates": withdrawn, "not_found": unknown}
    return GraphAnswer(
        payload,
        f"deleted {len(deleted)}, withdrew {len(withdrawn)} pending; they will not be relearned"
        + (f"; not found: {', '.join(unknown)}" if unknown else ""),
    )


def _delete_named(
    owner: Person, names: list[str], deleted: list[str], withdrawn: list[str], unknown: list[str]
) -> None:
    for name in names:
        node = entity_named(owner, name)
        if node is not None:
            node_delete(node=node, stick=True, source="mcp")
            deleted.append(name)
            continue
        candidate = entity_waiting(owner, name)
        if candidate is not None:
            try:
                # Like a deleted memory: never proposed again, and what was said is forgotten.
                candidate_reject(candidate=candidate, by=owner, suppress=True, forget=True)
                withdrawn.append(name)
                continue
            except CandidateAlreadyDecided:
                pass
        unknown.append(name)


def delete_observations(token: AccessToken, *, deletions: list[dict[str, Any]]) -> GraphAnswer:
    """Each observation deleted as a person deletes a fact on the node page
    (:func:`~memory.services.details.detail_delete`, one receipt each, undoable); on a label
    still waiting for review, the held facts go (one receipt for the candidate)."""
    owner = token.owner
    results = []
    with transaction.atomic():  # all of them or none
        for item in deletions:
            texts = list(item["observations"])
            node = entity_named(owner, item["entityName"])
            removed: list[str] = []
            if node is not None:
                keys = {canonical_key(t) for t in texts}
                rows = [s for s in node_facts(owner, node) if canonical_key(s.text) in keys]
                # The superseded ones first: deleting a current fact brings back the one it
                # had replaced, which must not be one this call deletes too.
                for row in sorted(rows, key=lambda s: (s.is_current, s.pk)):
                    detail_delete(row=row, source=Source.MCP, token=token)
                removed = [s.text for s in rows]
            else:
                candidate = entity_waiting(owner, item["entityName"])
                if candidate is not None:
                    try:
                        removed = candidate_held_delete(
                            candidate=candidate, texts=texts, source=Source.MCP, token=token
                        )
                    except CandidateAlreadyDecided:
                        removed = []
            results.append({"entityName": item["entityName"], "deletedObservations": removed})
    count = sum(len(r["deletedObservations"]) for r in results)
    return GraphAnswer({"results": results}, f"deleted {count} observations")


def delete_relations(token: AccessToken, *, relations: list[dict[str, Any]]) -> GraphAnswer:
    """Each relation deleted as a person deletes a link on the node page
    (:func:`~memory.services.details.detail_delete`, one receipt each, undoable)."""
    owner = token.owner
    deleted = []
    with transaction.atomic():  # all of them or none
        for r in relations:
            source, dest = entity_named(owner, r["from"]), entity_named(owner, r["to"])
            if source is None or dest is None:
                continue
            kind, label = edge_type_for(r["relationType"]), relation_label(r["relationType"])
            count = 0
            for edge in edges_between(owner, source, dest, type=kind, label=label):
                detail_delete(row=edge, source=Source.MCP, token=token)
                count += 1
            if count:
                deleted.append(
                    {"from": r["from"], "to": r["to"], "relationType": relation_type(kind, label)}
                )
    return GraphAnswer({"deleted": deleted}, f"deleted {len(deleted)} relations")
