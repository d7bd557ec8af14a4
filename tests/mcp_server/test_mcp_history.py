"""History over MCP, with the official SDK client against the live server: memory_history,
memory_rollback, and a save retried with one idempotencyKey written once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memory.models import Node, Receipt, Revision
from memory.services.nodes import node_update
from tests.factories import make_node
from tests.mcp_server.test_mcp import call, ok

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_save_retried_with_one_idempotency_key_is_written_once(
    server_url: str, secret: str, owner: User
) -> None:
    args = {"text": "I started learning the cello this week.", "idempotencyKey": "save-1"}
    first = ok(call(server_url, secret, "save_memory", args))
    again = ok(call(server_url, secret, "save_memory", args))
    assert again == first
    assert Receipt.objects.for_owner(owner).count() == 1
    reused = call(server_url, secret, "save_memory", {"text": "else", "idempotencyKey": "save-1"})
    assert reused.is_error
    assert "idempotency_key_reused" in reused.content[0].text


def test_history_then_rollback_by_the_token(server_url: str, secret: str, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing")
    node_update(node=node, summary="once a week")
    node_update(node=node, summary="twice a week")
    history = ok(call(server_url, secret, "memory_history", {"node_id": node.pk}))
    assert [r["revision"] for r in history["revisions"]] == [3, 2]
    assert history["revisions"][0]["changes"] == [
        {"field": "summary", "before": "once a week", "after": "twice a week"}
    ]
    rolled = ok(call(server_url, secret, "memory_rollback", {"node_id": node.pk, "revision": 2}))
    assert rolled["receipt"]["source"] == "mcp"
    assert Node.objects.get(pk=node.pk).summary == "once a week"
    newest = Revision.objects.filter(kind="node", object_id=node.pk).order_by("-number").first()
    assert newest is not None
    assert (newest.number, newest.action, newest.actor, newest.actor_name) == (
        4,
        "rolled_back",
        "token",
        "mcp test",
    )
    refused = call(server_url, secret, "memory_rollback", {"node_id": node.pk, "revision": 9})
    assert refused.is_error
