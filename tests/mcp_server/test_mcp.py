"""The MCP server, driven by the official SDK client against a live uvicorn on loopback.

The server runs ``ume.asgi:application`` (the router: /mcp to the SDK, the rest to Django) in
a thread of this process, so it reads and writes the test database; tests use
``transactional_db`` so what they create is committed and visible to the server's thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from memory.models import Candidate, Edge, Episode, MemoryRule, Node, Receipt, Slice, Suppression
from memory.services.tokens import token_create, token_revoke
from memory.vocab import SCOPE_READ
from tests.factories import make_candidate, make_node, make_slice
from tests.faults import inside_the_ingest

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    "save_memory",
    "save_conversation",
    "recall_memory",
    "forget_memory",
    "list_pending_candidates",
    "memory_history",
    "memory_rollback",
    "create_entities",
    "create_relations",
    "add_observations",
    "search_nodes",
    "open_nodes",
    "read_graph",
    "delete_entities",
    "delete_observations",
    "delete_relations",
}
READ_TOOLS = {
    "recall_memory",
    "list_pending_candidates",
    "memory_history",
    "search_nodes",
    "open_nodes",
    "read_graph",
}


@asynccontextmanager
async def connect(url: str, secret: str, mode: str = "legacy") -> AsyncIterator[Any]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        yield client


def call(
    url: str, secret: str, tool: str, arguments: dict[str, Any] | None = None, **kw: Any
) -> Any:
    async def go() -> Any:
        async with connect(url, secret, **kw) as client:
            return await client.call_tool(tool, arguments or {})

    return anyio.run(go)


def ok(result: Any) -> dict[str, Any]:
    text = result.content[0].text if result.content else ""
    assert not result.is_error, text
    assert text
    return result.structured_content


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
def test_lists_the_tools_in_both_protocol_eras(server_url: str, secret: str, mode: Any) -> None:
    async def go() -> Any:
        async with connect(server_url, secret, mode=mode) as client:
            listed = await client.list_tools()
            return client.protocol_version, listed.tools

    version, tools = anyio.run(go)
    if mode == "legacy":
        assert version in HANDSHAKE_PROTOCOL_VERSIONS
    else:
        assert version == "2026-07-28"
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object" and tool.description


def test_save_conversation_then_see_the_candidate_recall_and_forget(
    server_url: str, owner: User, secret: str
) -> None:
    receipt = ok(
        call(
            server_url,
            secret,
            "save_conversation",
            {
                "messages": [
                    {"role": "user", "content": "I started learning piano last week."},
                    {"role": "assistant", "content": "That's great!"},
                ]
            },
        )
    )
    assert receipt["receipt_id"] and receipt["source"] == "mcp"
    assert receipt["outcome"] == "wrote", receipt
    said = Episode.objects.for_owner(owner).order_by("seq")
    assert [(e.role, e.text) for e in said] == [
        ("user", "I started learning piano last week."),
        ("assistant", "That's great!"),
    ]

    pending = ok(call(server_url, secret, "list_pending_candidates"))
    assert pending["count"] >= 1
    labels = {c["label"].lower() for c in pending["candidates"]}
    assert any("piano" in label for label in labels), labels

    node = make_node(owner=owner, label="Boxing", category="skill")
    make_slice(node=node, text="trains three days a week")
    recalled = ok(call(server_url, secret, "recall_memory", {"query": "what about boxing?"}))
    assert recalled["items"][0]["label"] == "Boxing"

    forgotten = ok(call(server_url, secret, "forget_memory", {"label": "boxing"}))
    assert forgotten["forgotten"]["id"] == node.pk and forgotten["stick"] is True
    assert not Node.objects.filter(pk=node.pk).exists()
    assert Suppression.objects.for_owner(owner).filter(label="Boxing").exists()


def test_save_memory_over_the_modern_protocol(server_url: str, owner: User, secret: str) -> None:
    receipt = ok(
        call(server_url, secret, "save_memory", {"text": "I moved to Lisbon."}, mode="2026-07-28")
    )
    assert receipt["source"] == "mcp"


def test_reference_server_tools_round_trip(server_url: str, owner: User, secret: str) -> None:
    """The reference server's tools, in the order a client uses them: create, read,
    delete."""
    _create_the_reference_graph(server_url, owner, secret)
    _read_the_reference_graph(server_url, secret)
    _delete_the_reference_graph(server_url, owner, secret)


def _create_the_reference_graph(server_url: str, owner: User, secret: str) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    created = ok(
        call(
            server_url,
            secret,
            "create_entities",
            {
                "entities": [
                    {
                        "name": "Rahul Mehta",
                        "entityType": "person",
                        "observations": ["plays chess on Sundays"],
                    },
                    {"name": "Atlas", "entityType": "project", "observations": []},
                ]
            },
        )
    )
    assert {e["name"]: e["status"] for e in created["entities"]} == {
        "Rahul Mehta": "stored",
        "Atlas": "stored",
    }
    ok(
        call(
            server_url,
            secret,
            "create_relations",
            {"relations": [{"from": "Rahul Mehta", "to": "Atlas", "relationType": "works with"}]},
        )
    )
    added = ok(
        call(
            server_url,
            secret,
            "add_observations",
            {"observations": [{"entityName": "Atlas", "contents": ["ships in May"]}]},
        )
    )
    assert added["results"][0]["addedObservations"] == ["ships in May"]


def _read_the_reference_graph(server_url: str, secret: str) -> None:
    graph = ok(call(server_url, secret, "read_graph"))
    entities = {e["name"]: e for e in graph["entities"]}
    assert entities["Rahul Mehta"]["entityType"] == "person"
    assert entities["Rahul Mehta"]["observations"] == ["plays chess on Sundays"]
    assert graph["relations"] == [
        {"from": "Rahul Mehta", "to": "Atlas", "relationType": "works_with"}
    ]

    found = ok(call(server_url, secret, "search_nodes", {"query": "chess"}))
    assert [e["name"] for e in found["entities"]] == ["Rahul Mehta"]
    assert found["entities"][0]["pendingReview"] is False
    opened = ok(call(server_url, secret, "open_nodes", {"names": ["atlas", "Nobody"]}))
    assert [e["name"] for e in opened["entities"]] == ["Atlas"]


def _delete_the_reference_graph(server_url: str, owner: User, secret: str) -> None:
    ok(
        call(
            server_url,
            secret,
            "delete_observations",
            {"deletions": [{"entityName": "Atlas", "observations": ["ships in May"]}]},
        )
    )
    assert not Slice.objects.for_owner(owner).filter(text="ships in May").exists()
    ok(
        call(
            server_url,
            secret,
            "delete_relations",
            {"relations": [{"from": "Rahul Mehta", "to": "Atlas", "relationType": "works_with"}]},
        )
    )
    assert not Edge.objects.for_owner(owner).exists()
    deleted = ok(call(server_url, secret, "delete_entities", {"entityNames": ["Atlas"]}))
    assert deleted["deleted"] == ["Atlas"]
    assert not Node.objects.for_owner(owner).filter(label="Atlas").exists()
    # make-it-stick: creating it again is blocked by the suppression
    again = ok(
        call(
            server_url,
            secret,
            "create_entities",
            {"entities": [{"name": "Atlas", "entityType": "project"}]},
        )
    )
    assert again["entities"][0]["status"] == "rejected"


def test_new_entities_wait_for_review_by_default(server_url: str, owner: User, secret: str) -> None:
    created = ok(
        call(
            server_url,
            secret,
            "create_entities",
            {"entities": [{"name": "Zoe Park", "entityType": "people", "observations": ["a"]}]},
        )
    )
    assert created["entities"][0]["status"] == "pending_review"
    assert Candidate.objects.for_owner(owner).get(status="pending").category_guess == "person"
    assert not Node.objects.for_owner(owner).exists()
    # ... and the token that proposed it finds it again, marked as waiting; another does not
    found = ok(call(server_url, secret, "search_nodes", {"query": "zoe"}))
    assert [(e["name"], e["pendingReview"]) for e in found["entities"]] == [("Zoe Park", True)]
    assert found["entities"][0]["observations"] == ["a"]
    opened = ok(call(server_url, secret, "open_nodes", {"names": ["zoe park"]}))
    assert [(e["name"], e["pendingReview"]) for e in opened["entities"]] == [("Zoe Park", True)]
    other = token_create(owner=owner, name="another assistant")[1]
    assert ok(call(server_url, other, "search_nodes", {"query": "zoe"}))["entities"] == []
    assert ok(call(server_url, other, "open_nodes", {"names": ["Zoe Park"]}))["entities"] == []
    # withdrawing a pending entity suppresses it
    ok(call(server_url, secret, "delete_entities", {"entityNames": ["Zoe Park"]}))
    assert Candidate.objects.for_owner(owner).get().status == "suppressed"
    assert ok(call(server_url, secret, "search_nodes", {"query": "zoe"}))["entities"] == []


def test_another_owners_memories_are_invisible(
    server_url: str, other_user: User, secret: str
) -> None:
    make_node(owner=other_user, label="Secret project", category="project")
    make_candidate(owner=other_user, label="Secret friend")
    assert ok(call(server_url, secret, "read_graph"))["entities"] == []
    assert ok(call(server_url, secret, "list_pending_candidates"))["count"] == 0
    result = call(server_url, secret, "forget_memory", {"label": "Secret project"})
    assert result.is_error
    assert Node.objects.for_owner(other_user).exists()


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("save_memory", {}),
        ("save_memory", {"text": ""}),
        ("save_memory", {"text": "a\x00b"}),
        ("recall_memory", {"query": "x", "limit": 0}),
        ("forget_memory", {}),
        ("create_entities", {"entities": [{"name": "X"}]}),
        ("add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
        ("save_conversation", {"messages": "hello"}),
    ],
)
def test_bad_arguments_are_tool_errors(
    server_url: str, owner: User, secret: str, tool: Any, arguments: Any
) -> None:
    result = call(server_url, secret, tool, arguments)
    assert result.is_error
    assert result.content and result.content[0].text
    assert not Node.objects.for_owner(owner).exists()
    assert not Candidate.objects.for_owner(owner).exists()


def test_read_token_cannot_write(server_url: str, owner: User) -> None:
    """A read-only token is listed only the read tools; a write called by name anyway is a
    403 with the scope to ask for (RFC 6750), whose JSON-RPC error the SDK raises."""
    _token, secret = token_create(owner=owner, name="reader", scopes=[SCOPE_READ])
    assert ok(call(server_url, secret, "list_pending_candidates"))["count"] == 0

    async def listed_then_write() -> tuple[set[str], str]:
        async with connect(server_url, secret) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            try:
                await client.call_tool("save_memory", {"text": "I started boxing."})
            except MCPError as exc:
                return names, str(exc)
        return names, "no error"

    names, refusal = anyio.run(listed_then_write)
    assert names == READ_TOOLS
    assert refusal.startswith("insufficient_scope: this token does not have the memory:write")
    raw = httpx.post(
        server_url,
        json={
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "forget_memory", "arguments": {"label": "Boxing"}},
        },
        headers={
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {secret}",
        },
    )
    assert raw.status_code == 403
    challenge = raw.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="memory:write"' in challenge
    assert raw.json()["id"] == 7 and raw.json()["error"]["data"]["code"] == "insufficient_scope"
    assert not Receipt.objects.exists()


def test_revoked_and_missing_tokens_are_refused(server_url: str, owner: User, secret: str) -> None:
    token, revoked = token_create(owner=owner, name="old")
    token_revoke(token=token)
    for auth in (f"Bearer {revoked}", "Bearer ume_nope", "Basic dXNlcjpwdw==", None):
        headers = {"Accept": "application/json"} | ({"Authorization": auth} if auth else {})
        response = httpx.post(
            server_url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers=headers,
        )
        assert response.status_code == 401
        assert response.json()["code"] == "unauthorized"
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer") and 'scope="memory:read memory:write"' in challenge
        # RFC 6750 section 3.1: invalid_token for a bad token, no error code for none at all
        presented = auth is not None and auth.startswith("Bearer")
        assert ('error="invalid_token"' in challenge) == presented, (auth, challenge)
    with pytest.raises(Exception):  # noqa: B017 -- the SDK raises its own error type for a 401
        call(server_url, revoked, "read_graph")


def test_foreign_host_and_origin_are_refused(server_url: str, secret: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    good = httpx.post(server_url, json=body, headers=headers)
    assert good.status_code == 200, good.text
    host = httpx.post(server_url, json=body, headers={**headers, "Host": "evil.example"})
    assert host.status_code == 421
    assert_json_rpc_error(host)
    origin = httpx.post(
        server_url, json=body, headers={**headers, "Origin": "https://evil.example"}
    )
    assert origin.status_code == 403
    assert_json_rpc_error(origin)


def assert_json_rpc_error(response: Any) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert isinstance(body["error"]["code"], int) and body["error"]["message"]
    return body


def test_transport_refusals_are_json_rpc_errors(server_url: str, secret: str) -> None:
    headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json, text/event-stream"}
    wrong_type = httpx.post(
        server_url, content=b"{}", headers={**headers, "Content-Type": "text/plain"}
    )
    assert wrong_type.status_code in {400, 415}
    assert_json_rpc_error(wrong_type)
    huge = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"p": "'
        + b"x" * (6 * 1024 * 1024)
        + b'"}}'
    )
    too_large = httpx.post(
        server_url, content=huge, headers={**headers, "Content-Type": "application/json"}
    )
    assert too_large.status_code == 413
    assert assert_json_rpc_error(too_large)["error"]["data"]["code"] == "payload_too_large"


def test_django_still_answers_beside_mcp(server_url: str, secret: str) -> None:
    base = server_url.removesuffix("/mcp")
    response = httpx.get(f"{base}/v1/rules", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 200
    assert response.json()["capture_default"] == "review"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("create_entities", {"entities": []}),
        ("create_relations", {"relations": []}),
        ("add_observations", {"observations": []}),
        ("open_nodes", {"names": []}),
        ("delete_entities", {"entityNames": []}),
        ("delete_observations", {"deletions": []}),
        ("delete_relations", {"relations": []}),
    ],
)
def test_empty_lists_are_accepted_like_the_reference_server(
    server_url: str, secret: str, owner: User, tool: Any, arguments: Any
) -> None:
    from memory.models import Node

    assert ok(call(server_url, secret, tool, arguments)) is not None
    assert not Node.objects.for_owner(owner).exists()


def test_a_save_too_large_for_one_call_is_queued_for_the_pending_workers(
    server_url: str, owner: User, secret: str
) -> None:
    from memory.models import Transcript

    text = "I started learning the cello last week. " * 2000  # over UME_INLINE_UPLOAD_BYTES
    result = call(server_url, secret, "save_memory", {"text": text})
    payload = ok(result)
    transcript = Transcript.objects.for_owner(owner).get()
    assert payload == {
        "status": "queued",
        "transcript_id": transcript.pk,
        "size_bytes": transcript.size_bytes,
    }
    assert transcript.status == "pending"
    assert "queued" in result.content[0].text


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("create_entities", {"entities": [{"name": "Kite", "entityType": "sk\x00ill"}]}),
        ("create_relations", {"relations": [{"from": "A", "to": "B", "relationType": "us\x00es"}]}),
        ("save_memory", {"text": "I started boxing\x00 last week"}),
    ],
)
def test_a_nul_character_is_an_error_and_nothing_is_stored(
    server_url: str, owner: User, secret: str, tool: Any, arguments: Any
) -> None:
    from memory.models import Receipt, Transcript

    result = call(server_url, secret, tool, arguments)
    assert result.is_error
    assert "NUL" in result.content[0].text
    assert not Transcript.objects.for_owner(owner).exists()
    assert not Receipt.objects.for_owner(owner).exists()


def test_get_opens_no_endless_stream(server_url: str, secret: str) -> None:
    with httpx.Client(timeout=5) as http:
        response = http.get(
            server_url, headers={"Authorization": f"Bearer {secret}", "Accept": "text/event-stream"}
        )
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert_json_rpc_error(response)


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="a write transaction locks all of SQLite: runs on PostgreSQL (DATABASE_URL=...)",
)
def test_a_recall_does_not_wait_behind_a_save_in_progress(
    server_url: str, owner: User, secret: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_node(owner=owner, label="Boxing")
    inside, release = threading.Event(), threading.Event()

    def hold_the_save() -> None:
        inside.set()
        release.wait(20)

    inside_the_ingest(monkeypatch, hold_the_save)
    saver = threading.Thread(
        target=call, args=(server_url, secret, "save_memory", {"text": "I started rowing."})
    )
    saver.start()
    try:
        assert inside.wait(20), "the save never reached its write"
        began = time.monotonic()
        recalled = ok(call(server_url, secret, "recall_memory", {"query": "boxing"}))
        took = time.monotonic() - began
        assert not release.is_set()  # the save is still in progress
    finally:
        release.set()
        saver.join(20)
    assert recalled["items"][0]["label"] == "Boxing"
    assert took < 10


def test_forget_a_label_still_waiting_for_review_forgets_what_was_said(
    server_url: str, owner: User, secret: str
) -> None:
    ok(
        call(
            server_url,
            secret,
            "save_conversation",
            {"messages": [{"role": "user", "content": "I started learning piano last week."}]},
        )
    )
    assert ok(call(server_url, secret, "recall_memory", {"query": "piano"}))["items"]
    candidate = Candidate.objects.for_owner(owner).get(status="pending")
    forgotten = ok(call(server_url, secret, "forget_memory", {"label": candidate.label_guess}))
    assert forgotten["forgotten"]["candidate_id"] == candidate.pk and forgotten["stick"] is True
    assert Suppression.objects.for_owner(owner).get().reason == "forgotten"
    recalled = ok(call(server_url, secret, "recall_memory", {"query": "piano"}))
    assert recalled["no_recall"] is True and recalled["items"] == []


@override_settings(UME_API_RATE_LIMIT=2)
def test_past_the_rate_limit_the_agent_is_told_to_wait(server_url: str, secret: str) -> None:
    """A 429 from /mcp is a JSON-RPC error with Retry-After: the SDK raises it as the call's
    error, with the seconds to wait in its data, instead of a bare HTTP failure."""

    async def go() -> MCPError | None:
        async with connect(server_url, secret) as client:  # initialize, then initialized
            try:
                await client.call_tool("read_graph", {})
            except MCPError as exc:
                return exc
        return None

    refused = anyio.run(go)
    assert refused is not None and "requests a minute with this token" in str(refused)
    assert refused.error.data["code"] == "rate_limited"
    assert 1 <= refused.error.data["retryAfter"] <= 60


def test_relation_types_come_back_as_they_were_named(
    server_url: str, owner: User, secret: str
) -> None:
    """A relationType ume has no type for is kept as the edge's label: two differently named
    relations between the same entities are two edges, each read back and deleted by name."""
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    people = [
        {"name": "Rahul Mehta", "entityType": "person"},
        {"name": "Atlas", "entityType": "project"},
    ]
    ok(call(server_url, secret, "create_entities", {"entities": people}))
    named = [
        {"from": "Rahul Mehta", "to": "Atlas", "relationType": "works_on"},
        {"from": "Rahul Mehta", "to": "Atlas", "relationType": "leads"},
        {"from": "Rahul Mehta", "to": "Atlas", "relationType": "uses"},
    ]
    created = ok(call(server_url, secret, "create_relations", {"relations": named}))
    assert [r["relationType"] for r in created["relations"]] == ["works_on", "leads", "uses"]
    stored = sorted(Edge.objects.for_owner(owner).values_list("type", "label"))
    assert stored == [("related_to", "leads"), ("related_to", "works_on"), ("uses", "")]
    graph = ok(call(server_url, secret, "read_graph"))
    assert sorted(r["relationType"] for r in graph["relations"]) == ["leads", "uses", "works_on"]
    again = ok(call(server_url, secret, "create_relations", {"relations": named[:1]}))
    assert again["receipt"]["outcome"] != "wrote"  # the same named relation is not doubled
    assert Edge.objects.for_owner(owner).count() == 3
    ok(call(server_url, secret, "delete_relations", {"relations": named[:1]}))
    left = sorted(Edge.objects.for_owner(owner).values_list("type", "label"))
    assert left == [("related_to", "leads"), ("uses", "")]
