"""Plain factory functions: ``make_node(owner=..., **overrides)`` and friends. Like the
services, they keep recall's index in step with the rows they write."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from memory.keys import canonical_key, core_key
from memory.models import Alias, Candidate, Edge, Event, Node, Page, Slice, Suppression
from memory.services.recall_index import recall_index_refresh


def make_user(username: str = "owner", password: str = "pw-for-tests-1") -> Any:
    return get_user_model().objects.create_user(username=username, password=password)


def make_node(
    *, owner: Any, label: str = "Boxing", aliases: tuple[str, ...] = (), **overrides: Any
) -> Node:
    fields: dict[str, Any] = {"category": "skill", "state": "active"}
    fields.update(overrides)
    node = Node.objects.create(
        owner=owner, label=label, canonical_key=canonical_key(label), **fields
    )
    for alias in aliases:
        Alias.objects.create(
            owner=owner, node=node, alias=alias, canonical_key=canonical_key(alias)
        )
    recall_index_refresh(owner_id=node.owner_id, nodes=[node.pk])
    return node


def make_slice(*, node: Node, text: str = "trains three days a week", **overrides: Any) -> Slice:
    fields: dict[str, Any] = {"kind": "other", "is_current": True}
    fields.update(overrides)
    row = Slice.objects.create(owner=node.owner, node=node, text=text, **fields)
    recall_index_refresh(owner_id=node.owner_id, nodes=[node.pk])
    return row


def make_event(*, node: Node, text: str = "started boxing", **overrides: Any) -> Event:
    fields: dict[str, Any] = {"action": "started"}
    fields.update(overrides)
    row = Event.objects.create(owner=node.owner, node=node, text=text, **fields)
    recall_index_refresh(owner_id=node.owner_id, nodes=[node.pk])
    return row


def make_page(
    *, owner: Any, title: str, summary: str = "", node: Node | None = None, topic: str = ""
) -> Page:
    page = Page.objects.create(
        owner=owner,
        title=title,
        canonical_key=canonical_key(title),
        summary=summary,
        topic=topic,
        node=node,
    )
    recall_index_refresh(owner_id=page.owner_id, pages=[page.pk])
    return page


def make_edge(*, from_node: Node, to_node: Node, type: str = "uses", label: str = "") -> Edge:
    return Edge.objects.create(
        owner=from_node.owner, from_node=from_node, to_node=to_node, type=type, label=label
    )


def make_candidate(*, owner: Any, label: str = "Piano", **overrides: Any) -> Candidate:
    fields: dict[str, Any] = {"category_guess": "skill", "confidence": 0.7}
    fields.update(overrides)
    return Candidate.objects.create(
        owner=owner, label_guess=label, canonical_key=canonical_key(label), **fields
    )


def make_suppression(*, owner: Any, label: str = "Piano", **overrides: Any) -> Suppression:
    fields: dict[str, Any] = {"kind": "candidate", "reason": "rejected", "source": "test"}
    fields.update(overrides)
    return Suppression.objects.create(
        owner=owner,
        label=label,
        canonical_key=canonical_key(label),
        core_key=core_key(canonical_key(label)),
        **fields,
    )
