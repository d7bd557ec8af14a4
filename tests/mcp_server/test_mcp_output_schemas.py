"""Every MCP tool publishes an ``outputSchema`` (the pydantic models of memory/shapes.py),
and what each tool answers validates against the schema the server lists.

Driven by the official SDK client against the live server (tests/conftest.py), one session
calls every listed tool with arguments that reach each shape's variants (a receipt and a queued
save, a forgotten memory and a rejected label, stored and rejected entities, node, page and
episode recall items), and checks each answer's ``structuredContent`` with ``jsonschema``
against the listed schema. A tool error carries no structured content and is not held to it.
"""

from __future__ import annotations

from typing import Any

import anyio
import jsonschema
import pytest
from django.contrib.auth.models import User
from django.test import Client

from mcp_server import tools
from memory.models import MemoryRule
from memory.services.nodes import node_delete, node_update
from tests.factories import make_candidate, make_event, make_node, make_page, make_slice
from tests.mcp_server.test_mcp import TOOLS, connect

pytestmark = pytest.mark.django_db(transaction=True)


def listed_schemas(url: str, secret: str) -> dict[str, dict[str, Any]]:
    async def go() -> dict[str, dict[str, Any]]:
        async with connect(url, secret) as client:
            listed = await client.list_tools()
        return {t.name: t.output_schema for t in listed.tools}

    return anyio.run(go)


class Session:
    """One SDK client session: calls tools, checks each answer against the listed schema."""

    def __init__(self, client: Any, schemas: dict[str, dict[str, Any]]) -> None:
        self.client = client
        self.validators = {}
        for name, schema in schemas.items():
            jsonschema.Draft202012Validator.check_schema(schema)
            self.validators[name] = jsonschema.Draft202012Validator(schema)
        self.answered: set[str] = set()

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        result = await self.client.call_tool(tool, arguments or {})
        assert not result.is_error, result.content[0].text
        self.validators[tool].validate(result.structured_content)
        self.answered.add(tool)
        return result.structured_content

    async def fail(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error and result.structured_content is None
        text: str = result.content[0].text
        return text


def _memories(owner: User) -> dict[str, int]:
    """What the session reads and changes: a memory with history, details and a page, two
    labels waiting for review, and a suppressed name."""
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    boxing = make_node(owner=owner, label="Boxing")
    make_slice(node=boxing, text="trains three days a week")
    make_event(node=boxing, text="started boxing at the club")
    make_page(owner=owner, title="Boxing gyms", summary="boxing gyms near home", node=boxing)
    node_update(node=boxing, summary="once a week")
    node_update(node=boxing, summary="twice a week")
    make_candidate(owner=owner, label="Piano")
    make_candidate(owner=owner, label="Violin")
    node_delete(node=make_node(owner=owner, label="Atlas"), stick=True, source="test")
    return {"boxing": boxing.pk}


async def _ume_tools(s: Session, boxing: int) -> None:
    once = {"text": "I started rowing last week.", "idempotencyKey": "row-1"}
    first = await s.call("save_memory", once)
    assert "receipt_id" in first and await s.call("save_memory", once) == first  # a replay
    big = "I started learning the cello last week. " * 2000  # over UME_INLINE_UPLOAD_BYTES
    assert (await s.call("save_memory", {"text": big}))["status"] == "queued"
    said = [{"role": "user", "content": "My boxing coach says my footwork got better."}]
    assert (await s.call("save_conversation", {"messages": said}))["outcome"]
    recalled = await s.call("recall_memory", {"query": "boxing"})
    assert {item["kind"] for item in recalled["items"]} == {"node", "page", "episode"}
    assert (await s.call("list_pending_candidates"))["count"] >= 2
    history = await s.call("memory_history", {"node_id": boxing})
    assert [r["revision"] for r in history["revisions"]][:2] == [3, 2]
    rolled = await s.call("memory_rollback", {"node_id": boxing, "revision": 2})
    assert rolled["receipt"]["outcome"] == "wrote"


async def _reference_tools(s: Session) -> None:
    rahul = {"name": "Rahul Mehta", "entityType": "person", "observations": ["plays chess"]}
    atlas = {"name": "Atlas", "entityType": "project"}
    created = await s.call("create_entities", {"entities": [rahul, atlas]})
    assert [e["status"] for e in created["entities"]] == ["stored", "rejected"]
    assert created["entities"][1]["reason"]
    relation = {"from": "Rahul Mehta", "to": "Boxing", "relationType": "uses"}
    assert (await s.call("create_relations", {"relations": [relation]}))["relations"]
    more = [{"entityName": "Rahul Mehta", "contents": ["lives in Pune"]}]
    assert (await s.call("add_observations", {"observations": more}))["results"]
    assert (await s.call("read_graph"))["relations"] == [relation]
    assert (await s.call("search_nodes", {"query": "chess"}))["entities"]
    assert (await s.call("open_nodes", {"names": ["Rahul Mehta", "Nobody"]}))["entities"]
    gone = [{"entityName": "Rahul Mehta", "observations": ["lives in Pune"]}]
    assert (await s.call("delete_observations", {"deletions": gone}))["results"]
    assert (await s.call("delete_relations", {"relations": [relation]}))["deleted"]
    names = ["Rahul Mehta", "Violin", "Nobody"]
    deleted = await s.call("delete_entities", {"entityNames": names})
    assert (deleted["deleted"], deleted["withdrawn_candidates"]) == (["Rahul Mehta"], ["Violin"])


async def _forget(s: Session, boxing: int) -> None:
    rejected = await s.call("forget_memory", {"label": "Piano"})
    assert "candidate_id" in rejected["forgotten"]
    forgotten = await s.call("forget_memory", {"node_id": boxing})
    assert forgotten["forgotten"]["id"] == boxing
    error = await s.fail("forget_memory", {"label": "Nobody at all"})
    assert error.startswith("Error executing tool forget_memory: invalid_input"), error


def test_every_tool_publishes_an_output_schema(server_url: str, secret: str) -> None:
    schemas = listed_schemas(server_url, secret)
    assert set(schemas) == TOOLS
    for name, schema in schemas.items():
        assert schema is not None and schema["type"] == "object", name
        jsonschema.Draft202012Validator.check_schema(schema)


def test_every_answer_validates_against_the_listed_schema(
    server_url: str, owner: User, secret: str
) -> None:
    ids = _memories(owner)

    async def go() -> set[str]:
        async with connect(server_url, secret) as client:
            listed = await client.list_tools()
            s = Session(client, {t.name: t.output_schema for t in listed.tools})
            await _ume_tools(s, ids["boxing"])
            await _reference_tools(s)
            await _forget(s, ids["boxing"])
            return s.answered

    assert anyio.run(go) == TOOLS


def test_an_answer_that_breaks_its_schema_is_a_tool_error(
    server_url: str, secret: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server validates each answer against its schema: a payload that drifted from its
    model reaches the client as a tool error, never as content the schema does not describe."""

    def drifted(token: Any) -> tools.ToolResult:
        return tools.ToolResult({"entities": [], "relations": [], "nodes": []}, "drifted")

    monkeypatch.setattr(tools, "read_graph", drifted)

    async def go() -> Any:
        async with connect(server_url, secret) as client:
            return await client.call_tool("read_graph", {})

    result = anyio.run(go)
    assert result.is_error and result.structured_content is None
    assert result.content[0].text == "Error executing tool read_graph"


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """A schema with every ``$ref`` replaced by what it points at, without titles, and the
    discriminator's mapping by model name (the two documents keep their models in different
    places: ``#/$defs/`` and ``#/components/schemas/``)."""
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _inline(defs[node["$ref"].rsplit("/", 1)[1]], defs)
    if "mapping" in node:
        node = node | {"mapping": {k: v.rsplit("/", 1)[1] for k, v in node["mapping"].items()}}
    return {k: _inline(v, defs) for k, v in node.items() if k not in {"title", "$defs"}}


def test_recall_tool_and_route_share_one_schema(
    server_url: str, secret: str, client: Client
) -> None:
    tool = listed_schemas(server_url, secret)["recall_memory"]
    openapi = client.get("/v1/openapi.json").json()
    answer = openapi["paths"]["/v1/recall"]["post"]["responses"]["200"]["content"]
    route = answer["application/json"]["schema"]
    assert route["$ref"].endswith("/RecallOut") and tool["title"] == "RecallOut"
    inline_tool = _inline(tool, tool["$defs"])
    inline_route = _inline(route, openapi["components"]["schemas"])
    assert set(inline_tool["properties"]) >= {"query", "context", "items"}
    item_arms = inline_tool["properties"]["items"]["items"]["oneOf"]
    assert {arm["properties"]["kind"]["const"] for arm in item_arms} == {"node", "page", "episode"}
    assert inline_tool == inline_route
