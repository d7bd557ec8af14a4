"""Plain factory functions: ``make_node(owner=..., **overrides)`` and friends."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from memory.keys import canonical_key
from memory.models import Alias, Candidate, Edge, Event, Node, Slice, Suppression


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
    return node


def make_slice(*, node: Node, text: str = "trains three days a week", **overrides: Any) -> Slice:
    fields: dict[str, Any] = {"kind": "other", "is_current": True}
    fields.update(overrides)
    return Slice.objects.create(owner=node.owner, node=node, text=text, **fields)


def make_event(*, node: Node, text: str = "started boxing", **overrides: Any) -> Event:
    fields: dict[str, Any] = {"action": "started"}
    fields.update(overrides)
    return Event.objects.create(owner=node.owner, node=node, text=text, **fields)


def make_edge(*, from_node: Node, to_node: Node, type: str = "uses") -> Edge:
    return Edge.objects.create(
        owner=from_node.owner, from_node=from_node, to_node=to_node, type=type
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
        owner=owner, label=label, canonical_key=canonical_key(label), **fields
    )
