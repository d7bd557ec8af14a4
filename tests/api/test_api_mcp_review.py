"""Review of the HTTP API and the MCP server against hostile input: each test pins a defect
found in review (a 500 or a non-JSON error where a 400/405 JSON answer was due)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from mcp import Client
from pytest_django import Settings

from mcp_server.server import mcp_server, use_stdio_secret
from memory.models import AccessToken, Candidate, Node, Receipt, Suppression, Transcript
from memory.services.tokens import token_create
from tests.factories import make_candidate, make_node, make_suppression

pytestmark = pytest.mark.django_db

FAR_FUTURE = "9999-12-31T23:59:59-05:00"  # valid ISO 8601, but past datetime.max in UTC


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='review')[1]}"}


def send(client: Any, auth: Any, method: str, path: str, raw: str) -> Any:
    if method == "get":
        return client.get(path, **auth)
    return getattr(client, method)(path, data=raw, content_type="application/json", **auth)


def assert_error(response: Any, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


# --- lone surrogates: valid JSON escapes that are not Unicode text --------------------------


@pytest.mark.parametrize(
    "path,raw",
    [
        ("/v1/memories", r'{"text": "I started boxing \ud800 last week"}'),
        ("/v1/conversations", r'{"messages": [{"role": "user", "content": "I like \udfff tea"}]}'),
        ("/v1/recall", r'{"query": "tea \ud800 time"}'),
    ],
)
def test_lone_surrogate_is_a_400_and_writes_nothing(
    client: Any, auth: dict[str, Any], owner: User, path: Any, raw: Any
) -> None:
    response = send(client, auth, "post", path, raw)
    assert_error(response, 400, "invalid_json")
    assert not Receipt.objects.for_owner(owner).exists()


def test_surrogate_pairs_are_still_fine(client: Any, auth: dict[str, Any], owner: User) -> None:
    response = send(client, auth, "post", "/v1/memories", r'{"text": "I love boxing \ud83e\udd4a"}')
    assert response.status_code == 200, response.content


# --- datetimes: naive ones and ones that overflow when made UTC ------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": "I like tea"}], "source_time": FAR_FUTURE},
        {"messages": [{"role": "user", "content": "I like tea", "ts": FAR_FUTURE}]},
        {
            "messages": [{"role": "user", "content": "I like tea"}],
            "source_time": "0001-01-01T00:00:00+05:00",
        },
    ],
)
def test_out_of_range_times_in_a_conversation_are_400(
    client: Any, auth: dict[str, Any], owner: User, body: Any
) -> None:
    response = send(client, auth, "post", "/v1/conversations", json.dumps(body))
    assert_error(response, 400, "invalid_input")
    assert not Receipt.objects.for_owner(owner).exists()


def test_reject_until_out_of_range_is_400(client: Any, auth: dict[str, Any], owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Rahul")
    body = {"suppress_similar": True, "until": FAR_FUTURE}
    assert_error(
        send(client, auth, "post", f"/v1/candidates/{candidate.pk}/reject", json.dumps(body)),
        400,
        "invalid_input",
    )
    candidate.refresh_from_db()
    assert candidate.status == "pending" and not Suppression.objects.exists()


def test_reject_until_without_offset_is_read_as_utc(
    client: Any, auth: dict[str, Any], owner: User
) -> None:
    candidate = make_candidate(owner=owner, label="Rahul")
    body = {"suppress_similar": True, "until": "2099-01-01T00:00:00"}
    response = send(client, auth, "post", f"/v1/candidates/{candidate.pk}/reject", json.dumps(body))
    assert response.status_code == 200, response.content
    assert response.json()["suppression"]["suppressed_until"] == "2099-01-01T00:00:00+00:00"


# --- 405 is JSON like every other error ---------------------------------------------------------


@pytest.mark.parametrize(
    "method,path", [("put", "/v1/nodes"), ("delete", "/v1/receipts"), ("get", "/v1/memories")]
)
def test_wrong_method_is_a_json_405(
    client: Any, auth: dict[str, Any], method: Any, path: Any
) -> None:
    response = send(client, auth, method, path, "{}")
    assert_error(response, 405, "method_not_allowed")
    assert response.has_header("Allow")


# --- checks that held: ids past bigint, hostile uploads, constant queries on lists -------------


@pytest.mark.parametrize(
    "method,path",
    [
        ("get", f"/v1/nodes/{2**63}"),
        ("patch", f"/v1/nodes/{10**30}"),
        ("delete", f"/v1/nodes/{2**63}"),
        ("post", f"/v1/candidates/{2**63}/promote"),
        ("post", f"/v1/candidates/{2**63}/reject"),
        ("get", f"/v1/receipts/{2**63}"),
        ("post", f"/v1/receipts/{2**63}/undo"),
        ("get", f"/v1/transcripts/{2**63}"),
        ("post", f"/v1/suppressions/{2**63}/lift"),
    ],
)
def test_ids_past_bigint_are_404(client: Any, auth: dict[str, Any], method: Any, path: Any) -> None:
    assert_error(send(client, auth, method, path, "{}"), 404, "not_found")


def test_merge_into_a_node_id_past_bigint_is_404(
    client: Any, auth: dict[str, Any], owner: User
) -> None:
    candidate = make_candidate(owner=owner)
    body = json.dumps({"node_id": 2**63})
    assert_error(
        send(client, auth, "post", f"/v1/candidates/{candidate.pk}/merge", body), 404, "not_found"
    )


@pytest.mark.parametrize(
    "content", [b"\x00\x01\x02\xff\xfe binary", b"User: hi\x00 there\n", b"", b"\xff" * 10]
)
def test_hostile_uploads_are_400(
    client: Any, auth: dict[str, Any], owner: User, content: Any
) -> None:
    upload = SimpleUploadedFile("chat.txt", content, content_type="text/plain")
    response = client.post("/v1/transcripts", {"file": upload}, **auth)
    assert response.status_code in {200, 201, 400}, response.content
    if response.status_code == 400:
        assert_error(response, 400, "invalid_input")


def _count(client: Any, auth: Any, path: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path, **auth)
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries)


@pytest.mark.parametrize(
    "path", ["/v1/nodes", "/v1/candidates", "/v1/suppressions", "/v1/receipts"]
)
def test_list_endpoints_do_not_grow_with_rows(
    client: Any, auth: dict[str, Any], owner: User, path: Any
) -> None:
    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            make_node(owner=owner, label=f"Node {i}", aliases=(f"alias {i}",))
            make_candidate(owner=owner, label=f"Cand {i}")
            make_suppression(owner=owner, label=f"Supp {i}")
            send(client, auth, "post", "/v1/memories", json.dumps({"text": f"I like tea {i}"}))

    add(2, 0)
    small = _count(client, auth, path)
    add(4, 10)
    cache.clear()
    assert _count(client, auth, path) == small


# --- MCP: the same time and text checks on the tools (in-memory client, stdio token path) ----


def _call_tool(secret: str, tool: str, arguments: dict) -> Any:
    async def go() -> Any:
        async with Client(mcp_server) as client:
            return await client.call_tool(tool, arguments)

    use_stdio_secret(secret)
    try:
        return anyio.run(go)
    finally:
        use_stdio_secret(None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "arguments",
    [
        {"messages": [{"role": "user", "content": "I like tea"}], "source_time": FAR_FUTURE},
        {"messages": [{"role": "user", "content": "I like tea", "ts": FAR_FUTURE}]},
    ],
)
def test_mcp_out_of_range_times_are_tool_errors_that_write_nothing(
    owner: User, arguments: Any
) -> None:
    secret = token_create(owner=owner, name="mcp review")[1]
    result = _call_tool(secret, "save_conversation", arguments)
    assert result.is_error
    text = result.content[0].text
    assert (
        "Error executing tool save_conversation" in text
        and text != "Error executing tool save_conversation"
    ), text
    assert not Receipt.objects.for_owner(owner).exists()
    assert not Node.objects.exists() and not Candidate.objects.exists()


# --- uploads and create_token: the same out-of-range times ------------------------------------


def test_upload_with_out_of_range_source_time_is_400(
    client: Any, auth: dict[str, Any], owner: User
) -> None:
    upload = SimpleUploadedFile("chat.txt", b"User: I started boxing\n", content_type="text/plain")
    response = client.post("/v1/transcripts", {"file": upload, "source_time": FAR_FUTURE}, **auth)
    assert_error(response, 400, "invalid_input")
    assert not Transcript.objects.exists() and not Receipt.objects.exists()


def test_upload_with_an_out_of_range_message_time_is_400(
    client: Any, auth: dict[str, Any], owner: User
) -> None:
    data = json.dumps([{"role": "user", "content": "I started boxing", "ts": FAR_FUTURE}])
    upload = SimpleUploadedFile("chat.json", data.encode(), content_type="application/json")
    response = client.post("/v1/transcripts", {"file": upload}, **auth)
    assert_error(response, 400, "invalid_input")
    assert not Transcript.objects.exists() and not Receipt.objects.exists()


def test_create_token_with_absurd_expiry_is_a_command_error(owner: User) -> None:
    with pytest.raises(CommandError, match="expires-days"):
        call_command(
            "create_token", "--user", owner.username, "--name", "x", "--expires-days", "100000000"
        )
    assert not AccessToken.objects.exists()


# --- scopes on every route, and revocation inside a long-lived MCP session --------------------


def _operations() -> Iterator[Any]:
    from api import api

    for prefix, router in api._routers:
        for path, view in router.path_operations.items():
            for op in view.operations:
                yield prefix + path, op


# ids name the route by its methods and path (an operation's repr holds its address, which
# differs between processes, and pytest-xdist needs the same ids in every worker)
@pytest.mark.parametrize(
    "path,op",
    [pytest.param(path, op, id=f"{'+'.join(op.methods)} {path}") for path, op in _operations()],
)
def test_every_route_needs_a_token_with_the_right_scope(path: Any, op: Any) -> None:
    from api.auth import TokenAuth
    from memory.vocab import SCOPE_READ, SCOPE_WRITE

    scopes = {cb.scope for cb in op.auth_callbacks if isinstance(cb, TokenAuth)}
    assert len(op.auth_callbacks) == 1 and len(scopes) == 1, (path, op.methods)
    reads = op.methods == ["GET"] or path.endswith("/recall")  # recall is a read sent as POST
    assert scopes == ({SCOPE_READ} if reads else {SCOPE_WRITE}), (path, op.methods)


@pytest.mark.parametrize(
    "method,path",
    [
        ("post", "/v1/memories"),
        ("post", "/v1/conversations"),
        ("patch", "/v1/nodes/{node}"),
        ("delete", "/v1/nodes/{node}"),
        ("post", "/v1/candidates/{candidate}/promote"),
        ("post", "/v1/candidates/{candidate}/reject"),
        ("post", "/v1/candidates/{candidate}/merge"),
        ("post", "/v1/suppressions/{suppression}/lift"),
        ("put", "/v1/rules"),
        ("post", "/v1/memory/delete-all"),
    ],
)
def test_a_read_token_is_refused_on_every_write(
    client: Any, owner: User, method: Any, path: Any
) -> None:
    from memory.vocab import SCOPE_READ

    node = make_node(owner=owner, label="Boxing")
    candidate = make_candidate(owner=owner, label="Rahul")
    suppression = make_suppression(owner=owner, label="Tea")
    secret = token_create(owner=owner, name="reader", scopes=[SCOPE_READ])[1]
    url = path.format(node=node.pk, candidate=candidate.pk, suppression=suppression.pk)
    body = {"text": "x", "messages": [{"role": "user", "content": "x"}], "node_id": node.pk}
    body |= {"confirm": "DELETE", "label": "Other"}
    response = send(
        client, {"HTTP_AUTHORIZATION": f"Bearer {secret}"}, method, url, json.dumps(body)
    )
    assert_error(response, 403, "insufficient_scope")
    assert Node.objects.get(pk=node.pk).label == "Boxing"
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"
    assert Suppression.objects.get(pk=suppression.pk).lifted_at is None
    assert not Receipt.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_token_revoked_mid_session_is_refused_on_the_next_call(owner: User) -> None:
    from memory.services.tokens import token_revoke

    token, secret = token_create(owner=owner, name="desktop")

    def revoke() -> None:  # in a worker thread: close its connection so teardown can drop the DB
        try:
            token_revoke(token=token)
        finally:
            connection.close()

    async def go() -> Any:
        async with Client(mcp_server) as client:
            first = await client.call_tool("read_graph", {})
            await anyio.to_thread.run_sync(revoke)
            second = await client.call_tool("read_graph", {})
            return first, second

    use_stdio_secret(secret)
    try:
        first, second = anyio.run(go)
    finally:
        use_stdio_secret(None)
    assert not first.is_error
    assert second.is_error and "unauthorized" in second.content[0].text


def test_mcp_save_conversation_caps_the_total_size_like_the_api(
    owner: User, settings: Settings
) -> None:
    from mcp_server import tools

    settings.UME_MAX_TRANSCRIPT_BYTES = 1000
    token = token_create(owner=owner, name="desktop")[0]
    messages = [
        {"role": "user", "content": f"I like tea number {i} " + "x" * 580} for i in range(3)
    ]
    with pytest.raises(tools.ToolInputError, match="limit"):
        tools.save_conversation(token, messages=messages)
    assert not Receipt.objects.exists() and not Transcript.objects.exists()


@pytest.mark.parametrize("query", ["!!!", "%", "_", "--"])
def test_mcp_search_nodes_without_a_word_matches_nothing_not_everything(
    owner: User, query: Any
) -> None:
    from mcp_server import tools

    make_node(owner=owner, label="Boxing")
    make_node(owner=owner, label="Atlas", category="project")
    token = token_create(owner=owner, name="desktop")[0]
    assert tools.search_nodes(token, query=query).payload["entities"] == []
    assert tools.search_nodes(token, query="box").payload["entities"][0]["name"] == "Boxing"


def test_patch_that_fails_halfway_changes_nothing(
    client: Any, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    make_node(owner=owner, label="Atlas", category="project")
    body = json.dumps({"label": "Kickboxing", "state": "stopped", "add_alias": "Atlas"})
    assert_error(send(client, auth, "patch", f"/v1/nodes/{node.pk}", body), 400, "invalid_edit")
    node.refresh_from_db()
    assert (node.label, node.state) == ("Boxing", "active")
    assert not node.aliases.exists()


@pytest.mark.parametrize("tool", ["read_graph", "list_pending_candidates"])
def test_mcp_graph_and_queue_reads_do_not_grow_with_rows(owner: User, tool: Any) -> None:
    from mcp_server import tools

    token = token_create(owner=owner, name="desktop")[0]

    def add(start: int) -> None:
        for i in range(start, start + 3):
            make_node(owner=owner, label=f"Node {i}", aliases=(f"alias {i}",))
            make_candidate(owner=owner, label=f"Cand {i}")

    add(0)
    with CaptureQueriesContext(connection) as small:
        getattr(tools, tool)(token)
    add(10)
    with CaptureQueriesContext(connection) as large:
        getattr(tools, tool)(token)
    assert len(large.captured_queries) == len(small.captured_queries)


def test_node_search_for_a_query_without_a_word_matches_nothing(owner: User) -> None:
    from memory.selectors import node_list
    from tests.factories import make_node

    make_node(owner=owner, label="Atlas")
    assert list(node_list(owner, q="!!!")) == []
    assert [n.label for n in node_list(owner, q="atl")] == ["Atlas"]
