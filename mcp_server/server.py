"""ume's MCP server on the official SDK: the tools, their input schemas and who they act for.

Every tool call resolves the caller's :class:`~memory.models.AccessToken` afresh: over HTTP
the bearer token the request carried (authenticated by :mod:`mcp_server.http` on every
request), over stdio the secret given to ``manage.py mcp_stdio`` (re-checked on every call,
so revoking it takes effect at once). Reads need ``memory:read``, writes ``memory:write``.
ORM work runs in the tool thread pool of :mod:`mcp_server.threads`, each call holding its
request's place in the caller's count of requests in flight, so one person's slow calls never
leave another's waiting for a thread.

Each tool's return annotation, ``Annotated[CallToolResult, Model]``, publishes ``Model`` (from
:mod:`memory.shapes`) as the tool's ``outputSchema``; the SDK validates the structured
content of every successful result against it. A failure is a :class:`ToolError`, an
``isError`` result without structured content, which is not held to the schema.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio.to_thread
from django.db import DatabaseError, close_old_connections
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ListToolsResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from mcp_server import tools
from mcp_server.threads import SLOT, Slot, run_tool
from memory.models import AccessToken
from memory.services.history import Actor, acting
from memory.services.idempotency import (
    IdempotencyError,
    Replay,
    fingerprint,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
)
from memory.services.tokens import token_authenticate, token_has_scope
from memory.shapes import (
    McpEntitiesDeletedOut,
    McpEntitiesOut,
    McpForgottenOut,
    McpGraphOut,
    McpHistoryOut,
    McpObservationsAddedOut,
    McpObservationsDeletedOut,
    McpPendingOut,
    McpRelationsDeletedOut,
    McpRelationsOut,
    McpRollbackOut,
    McpSavedOut,
    McpWholeGraphOut,
    Moment,
    RecallOut,
)
from memory.transcripts import MAX_MESSAGES
from memory.vocab import SCOPE_READ, SCOPE_WRITE

log = logging.getLogger(__name__)

SERVER_NAME = "ume"
INSTRUCTIONS = (
    "ume is the user's long-term memory. Call recall_memory before answering questions about "
    "the user's life, people, projects or preferences; call save_memory or save_conversation "
    "when the user shares something worth remembering. New people, projects and other "
    "identities wait for the user's review before they become memories."
)

# Set by ``manage.py mcp_stdio``: the secret every stdio tool call acts with.
_stdio_secret: str | None = None


class _ScopedServer(MCPServer):
    """The SDK's server, listing to each token only the tools it may call: a read-only token
    sees no write tool, so an assistant is not offered what would fail (a write by name is
    still refused: 403 ``insufficient_scope`` over HTTP, see ``mcp_server.http``; a tool
    error over stdio)."""

    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        listed = await self.list_tools()
        scope = getattr(getattr(ctx, "request", None), "scope", None)
        token = scope.get("ume.token") if isinstance(scope, dict) else None
        if not isinstance(token, AccessToken):
            token = await anyio.to_thread.run_sync(_stdio_token)
        if token is None:
            return ListToolsResult(tools=listed)  # every call is refused as unauthorized
        return ListToolsResult(
            tools=[t for t in listed if token_has_scope(token, tool_scope(t.name) or SCOPE_WRITE)]
        )


def _stdio_token() -> AccessToken | None:
    close_old_connections()
    try:
        return token_authenticate(_stdio_secret or "") if _stdio_secret else None
    finally:
        close_old_connections()


def tool_scope(name: str) -> str | None:
    """The scope a call of the tool ``name`` needs (a read-only tool: memory:read, any other:
    memory:write), or None for a tool this server does not have."""
    tool = mcp_server._tool_manager.get_tool(name)
    if tool is None:
        return None
    read_only = bool(tool.annotations and tool.annotations.read_only_hint)
    return SCOPE_READ if read_only else SCOPE_WRITE


mcp_server: MCPServer = _ScopedServer(SERVER_NAME, instructions=INSTRUCTIONS, version="1")

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
DELETES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)


def use_stdio_secret(secret: str | None) -> None:
    global _stdio_secret
    _stdio_secret = secret


def _request_scope(ctx: Context) -> dict[str, Any]:
    try:
        request = ctx.request_context.request
    except ValueError:
        return {}
    scope = getattr(request, "scope", None)
    return scope if isinstance(scope, dict) else {}


def _request_token(ctx: Context) -> AccessToken | None:
    token = _request_scope(ctx).get("ume.token")
    return token if isinstance(token, AccessToken) else None


def _request_slot(ctx: Context) -> Slot | None:
    slot = _request_scope(ctx).get(SLOT)
    return slot if isinstance(slot, Slot) else None


def _call(
    token: AccessToken | None, scope: str, fn: Callable[..., tools.ToolResult], kwargs: dict
) -> tools.ToolResult:
    close_old_connections()
    try:
        if token is None:
            token = token_authenticate(_stdio_secret or "")
        if token is None:
            raise ToolError("unauthorized: the token is unknown, revoked or expired")
        if not token_has_scope(token, scope):
            raise ToolError(f"insufficient_scope: this token does not have the {scope} scope")
        nul = _nul_at(kwargs)
        if nul is not None:
            # Checked before anything is stored: PostgreSQL refuses NUL in text, and a save
            # that cannot be stored must be reported as an error, not as a quiet receipt.
            raise ToolError(f"invalid_input: {nul} contains a NUL character (\\u0000)")
        try:
            with acting(Actor.token(token)):
                key = kwargs.pop("idempotencyKey", None)
                if key is None:
                    return fn(token, **kwargs)
                return _once(token, key, fn, kwargs)
        except tools.ToolInputError as exc:
            raise ToolError(f"invalid_input: {exc}") from exc
    finally:
        close_old_connections()


def _once(
    token: AccessToken, key: str, fn: Callable[..., tools.ToolResult], kwargs: dict
) -> tools.ToolResult:
    """A save sent with ``idempotencyKey``: made once; a retry returns its first result."""
    try:
        begun = idempotency_begin(
            owner=token.owner,
            key=key,
            scope=f"mcp {fn.__name__}",
            fingerprint=fingerprint(kwargs),
        )
    except IdempotencyError as exc:
        raise ToolError(f"{exc.code}: {exc}") from exc
    if isinstance(begun, Replay):
        return tools.ToolResult(begun.body["payload"], begun.body["text"])
    try:
        result = fn(token, **kwargs)
    except BaseException:
        try:
            idempotency_release(row=begun)
        except DatabaseError:  # the key's lease runs out instead
            log.warning("could not release idempotency key %s", begun.pk)
        raise
    body: dict[str, Any] = {"payload": result.payload, "text": result.text}
    try:
        body = idempotency_finish(row=begun, status=200, body=body)
    except DatabaseError:
        # The save was made: answer so, rather than a failure the client would retry.
        log.warning("could not store the result of idempotency key %s", begun.pk)
    return tools.ToolResult(body["payload"], body["text"])


def _nul_at(value: Any, path: str = "arguments") -> str | None:
    """Where the first string holding a NUL character is, in the tool's arguments."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _nul_at(item, f"{path}.{key}" if path != "arguments" else str(key))
        if found is not None:
            return found
    return None


async def _run(
    ctx: Context, scope: str, fn: Callable[..., tools.ToolResult], **kwargs: Any
) -> CallToolResult:
    result = await run_tool(_request_slot(ctx), _call, _request_token(ctx), scope, fn, kwargs)
    return CallToolResult(
        content=[TextContent(type="text", text=result.text)],
        structured_content=result.payload,
    )


# --- argument shapes --------------------------------------------------------------------------


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


Name = Annotated[str, Field(min_length=1, max_length=200)]
Observation = Annotated[str, Field(min_length=1, max_length=4000)]


class Message(_Args):
    role: Literal["user", "assistant", "system"]
    content: str = Field(max_length=200_000)
    ts: Moment | None = Field(default=None, description="When it was said (ISO 8601).")
    id: str | None = Field(default=None, max_length=64)


class Entity(_Args):
    name: Name
    entityType: Name  # noqa: N815 -- the reference server's argument name
    observations: list[Observation] = Field(default_factory=list, max_length=200)


class Relation(_Args):
    from_: Name = Field(alias="from")
    to: Name
    relationType: Name  # noqa: N815


class ObservationAdd(_Args):
    entityName: Name  # noqa: N815
    contents: list[Observation] = Field(min_length=1, max_length=200)


class ObservationDelete(_Args):
    entityName: Name  # noqa: N815
    observations: list[Observation] = Field(min_length=1, max_length=200)


def _relations(relations: list[Relation]) -> list[dict[str, str]]:
    return [r.model_dump(by_alias=True) for r in relations]


# --- ume's tools ------------------------------------------------------------------------------


IdempotencyKeyArg = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=255,
        description="Send the same key when retrying: the save is made once and the retry "
        "returns its first result.",
    ),
]


@mcp_server.tool(name="save_memory", annotations=WRITES)
async def save_memory(
    text: Annotated[str, Field(min_length=1, description="The memory, in the user's words.")],
    ctx: Context,
    idempotencyKey: IdempotencyKeyArg = None,  # noqa: N803 -- the MCP argument's name
) -> Annotated[CallToolResult, McpSavedOut]:
    """Save one thing the user said ("I started boxing last week"). Returns the receipt:
    what was written, what waits for review, and what was rejected and why."""
    return await _run(ctx, SCOPE_WRITE, tools.save_memory, text=text, idempotencyKey=idempotencyKey)


@mcp_server.tool(name="save_conversation", annotations=WRITES)
async def save_conversation(
    messages: Annotated[list[Message], Field(min_length=1, max_length=MAX_MESSAGES)],
    ctx: Context,
    source_time: Annotated[
        Moment | None, Field(description="When the conversation happened.")
    ] = None,
    idempotencyKey: IdempotencyKeyArg = None,  # noqa: N803 -- the MCP argument's name
) -> Annotated[CallToolResult, McpSavedOut]:
    """Save a conversation; facts the user stated are extracted and go through review.
    Sending the same conversation again the same day changes nothing. Returns the receipt."""
    payload = [m.model_dump(exclude_none=True, mode="json") for m in messages]
    return await _run(
        ctx,
        SCOPE_WRITE,
        tools.save_conversation,
        messages=payload,
        source_time=source_time,
        idempotencyKey=idempotencyKey,
    )


@mcp_server.tool(name="recall_memory", annotations=READ_ONLY)
async def recall_memory(
    query: Annotated[str, Field(min_length=1, max_length=1000)],
    ctx: Context,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> Annotated[CallToolResult, RecallOut]:
    """What ume remembers that is relevant to ``query``: ranked memories with why each
    matched, their state, details and dated events, and a compact ``context`` text."""
    return await _run(ctx, SCOPE_READ, tools.recall_memory, query=query, limit=limit)


@mcp_server.tool(name="forget_memory", annotations=DELETES)
async def forget_memory(
    ctx: Context,
    label: Annotated[str | None, Field(max_length=200, description="The memory's name.")] = None,
    node_id: Annotated[int | None, Field(ge=1, description="Or the memory's id.")] = None,
    stick: Annotated[bool, Field(description="Never relearn it (default).")] = True,
) -> Annotated[CallToolResult, McpForgottenOut]:
    """Delete a memory with its details. By default it sticks: its name and aliases are
    suppressed so it is never learned again, and messages that mention it are no longer
    recalled. A label still waiting for review is rejected the same way."""
    return await _run(
        ctx, SCOPE_WRITE, tools.forget_memory, label=label, node_id=node_id, stick=stick
    )


@mcp_server.tool(name="memory_history", annotations=READ_ONLY)
async def memory_history(
    ctx: Context,
    label: Annotated[str | None, Field(max_length=200, description="The memory's name.")] = None,
    node_id: Annotated[int | None, Field(ge=1, description="Or the memory's id.")] = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> Annotated[CallToolResult, McpHistoryOut]:
    """The history of a memory and of its facts, events, aliases and links, newest first:
    each revision with who made it (a person, a token, a save, cleanup), when, why and what
    it changed. A deleted memory keeps its history."""
    return await _run(
        ctx, SCOPE_READ, tools.memory_history, label=label, node_id=node_id, limit=limit
    )


@mcp_server.tool(name="memory_rollback", annotations=WRITES)
async def memory_rollback(
    ctx: Context,
    node_id: Annotated[int, Field(ge=1, description="The memory's id.")],
    revision: Annotated[int, Field(ge=1, description="The revision to make current again.")],
    kind: Annotated[
        Literal["node", "slice", "event", "alias", "edge"],
        Field(description="The memory itself (default) or one of its details."),
    ] = "node",
    id: Annotated[int | None, Field(ge=1, description="The detail's id, with kind.")] = None,  # noqa: A002
) -> Annotated[CallToolResult, McpRollbackOut]:
    """Roll a memory (or one of its details) back to an earlier revision from memory_history.
    This writes a new revision; nothing is rewritten. Refused with a reason when the old
    label is now another memory's or suppressed, or when the memory was deleted."""
    return await _run(
        ctx,
        SCOPE_WRITE,
        tools.memory_rollback,
        node_id=node_id,
        revision=revision,
        kind=kind,
        id=id,
    )


@mcp_server.tool(name="list_pending_candidates", annotations=READ_ONLY)
async def list_pending_candidates(
    ctx: Context, limit: Annotated[int, Field(ge=1, le=100)] = 20
) -> Annotated[CallToolResult, McpPendingOut]:
    """Memories waiting for the user's review, newest activity first, with their evidence."""
    return await _run(ctx, SCOPE_READ, tools.list_pending_candidates, limit=limit)


# --- the reference memory server's tools (same names and argument shapes) ---------------------


@mcp_server.tool(name="create_entities", annotations=WRITES)
async def create_entities(
    entities: Annotated[list[Entity], Field(min_length=0, max_length=100)], ctx: Context
) -> Annotated[CallToolResult, McpEntitiesOut]:
    """Create entities in the knowledge graph. New ones wait for the user's review unless their
    rules capture automatically; each entity's status says which."""
    payload = [e.model_dump() for e in entities]
    return await _run(ctx, SCOPE_WRITE, tools.create_entities, entities=payload)


@mcp_server.tool(name="create_relations", annotations=WRITES)
async def create_relations(
    relations: Annotated[list[Relation], Field(min_length=0, max_length=200)], ctx: Context
) -> Annotated[CallToolResult, McpRelationsOut]:
    """Create relations between entities (in active voice: from, relationType, to)."""
    return await _run(ctx, SCOPE_WRITE, tools.create_relations, relations=_relations(relations))


@mcp_server.tool(name="add_observations", annotations=WRITES)
async def add_observations(
    observations: Annotated[list[ObservationAdd], Field(min_length=0, max_length=100)],
    ctx: Context,
) -> Annotated[CallToolResult, McpObservationsAddedOut]:
    """Add observations to existing entities."""
    payload = [o.model_dump() for o in observations]
    return await _run(ctx, SCOPE_WRITE, tools.add_observations, observations=payload)


@mcp_server.tool(name="delete_entities", annotations=DELETES)
async def delete_entities(
    entityNames: Annotated[list[Name], Field(min_length=0, max_length=100)],  # noqa: N803
    ctx: Context,
) -> Annotated[CallToolResult, McpEntitiesDeletedOut]:
    """Delete entities with their observations and relations; they are never relearned."""
    return await _run(ctx, SCOPE_WRITE, tools.delete_entities, entityNames=entityNames)


@mcp_server.tool(name="delete_observations", annotations=DELETES)
async def delete_observations(
    deletions: Annotated[list[ObservationDelete], Field(min_length=0, max_length=100)],
    ctx: Context,
) -> Annotated[CallToolResult, McpObservationsDeletedOut]:
    """Delete specific observations from entities."""
    payload = [d.model_dump() for d in deletions]
    return await _run(ctx, SCOPE_WRITE, tools.delete_observations, deletions=payload)


@mcp_server.tool(name="delete_relations", annotations=DELETES)
async def delete_relations(
    relations: Annotated[list[Relation], Field(min_length=0, max_length=200)], ctx: Context
) -> Annotated[CallToolResult, McpRelationsDeletedOut]:
    """Delete relations from the knowledge graph."""
    return await _run(ctx, SCOPE_WRITE, tools.delete_relations, relations=_relations(relations))


@mcp_server.tool(name="read_graph", annotations=READ_ONLY)
async def read_graph(ctx: Context) -> Annotated[CallToolResult, McpWholeGraphOut]:
    """The whole knowledge graph: entities with observations, and relations."""
    return await _run(ctx, SCOPE_READ, tools.read_graph)


@mcp_server.tool(name="search_nodes", annotations=READ_ONLY)
async def search_nodes(
    query: Annotated[str, Field(min_length=1, max_length=1000)], ctx: Context
) -> Annotated[CallToolResult, McpGraphOut]:
    """Entities whose name, alias, type or observations match ``query``, with their relations."""
    return await _run(ctx, SCOPE_READ, tools.search_nodes, query=query)


@mcp_server.tool(name="open_nodes", annotations=READ_ONLY)
async def open_nodes(
    names: Annotated[list[Name], Field(min_length=0, max_length=100)],
    ctx: Context,
    cursor: Annotated[
        str,
        Field(
            max_length=500,
            description="An entity's nextCursor, given with that entity's name: the next "
            "page of its observations.",
        ),
    ] = "",
) -> Annotated[CallToolResult, McpGraphOut]:
    """Specific entities by name, with the relations among them. Each entity carries a page
    of its observations, how many it has (observationCount) and, when there are more, a
    nextCursor to pass back as ``cursor``."""
    return await _run(ctx, SCOPE_READ, tools.open_nodes, names=names, cursor=cursor)
