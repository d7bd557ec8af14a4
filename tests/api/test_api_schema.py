"""The API's OpenAPI document describes every answer, and the answers are the shape builders'
JSON byte for byte (memory/shapes.py, api/pages.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from ninja.operation import PathView

from memory.exports.format import FORMAT, MEDIA_TYPE, VERSION
from memory.history import timeline
from memory.models import Outcome, Receipt
from memory.models import Source as ReceiptSource
from memory.recall import recall
from memory.selectors import (
    candidate_queue,
    memory_rule_for,
    node_events_page,
    node_get,
    node_history,
    node_links,
    node_list,
    node_slices_page,
    revision_parents,
    suppression_list,
    transcript_get,
)
from memory.services.tokens import token_create
from memory.shapes import (
    candidate_json,
    node_detail_json,
    node_json,
    revision_json,
    rules_json,
    suppression_json,
    transcript_json,
)
from memory.vocab import CandidateStatus, Category, NodeState
from tests.factories import make_candidate, make_event, make_node, make_slice, make_suppression

pytestmark = pytest.mark.django_db

LISTS = {
    "/v1/nodes": "nodes",
    "/v1/candidates": "candidates",
    "/v1/receipts": "receipts",
    "/v1/suppressions": "suppressions",
    "/v1/nodes/{node_id}/history": "revisions",
}


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def schema(client: Client) -> dict:
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='schema')[1]}"}


def resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def operations(schema: dict) -> Iterator[Any]:
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_operation_documents_its_success_body_with_properties(schema: dict) -> None:
    """JSON bodies with their properties; the one file the API sends (the export, streamed
    JSON Lines) as its own media type, whose description names the format."""
    seen = files = 0
    for path, method, operation in operations(schema):
        successes = {code: r for code, r in operation["responses"].items() if code.startswith("2")}
        assert successes, (method, path)
        for code, response in successes.items():
            content = response.get("content", {})
            if MEDIA_TYPE in content:
                assert set(content) == {MEDIA_TYPE}, (method, path, code)
                assert f"{FORMAT} version {VERSION}" in content[MEDIA_TYPE]["schema"]["description"]
                files += 1
                continue
            body = content.get("application/json", {}).get("schema")
            assert body is not None, (method, path, code)
            properties = resolve(schema, body).get("properties")
            assert properties, (method, path, code, body)
        seen += 1
    # the 23 routes of views.py, the 3 of erase.py and GET /v1/export
    assert (seen, files) == (27, 1)


def test_every_operation_documents_its_errors_as_the_error_envelope(schema: dict) -> None:
    for path, method, operation in operations(schema):
        errors = {code: r for code, r in operation["responses"].items() if code[0] in "45"}
        assert {"400", "401", "403", "429", "500", "503"} <= set(errors), (method, path)
        if "{" in path:
            assert "404" in errors, (method, path)
        for response in errors.values():
            body = resolve(schema, response["content"]["application/json"]["schema"])
            assert list(body["properties"])[:2] == ["code", "message"], (method, path)


def test_a_stale_edit_and_a_reused_key_are_documented(schema: dict) -> None:
    patch = schema["paths"]["/v1/nodes/{node_id}"]["patch"]["responses"]
    assert {"409", "412", "422"} <= set(patch)
    assert "202" in schema["paths"]["/v1/memories"]["post"]["responses"]


def _header_parameters(operation: dict) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}


def test_every_idempotent_write_documents_its_key_and_the_replay_header(schema: dict) -> None:
    """The operations that answer 422 idempotency_key_reused (their views read the key) are
    exactly those that document Idempotency-Key, and each success documents
    Idempotent-Replayed; a generated client can then send and read both."""
    keyed = 0
    for path, method, operation in operations(schema):
        reads_key = "422" in operation["responses"]
        assert ("Idempotency-Key" in _header_parameters(operation)) == reads_key, (method, path)
        for code, response in operation["responses"].items():
            if reads_key and code.startswith("2"):
                assert "Idempotent-Replayed" in response.get("headers", {}), (method, path, code)
        keyed += reads_key
    assert keyed == 12


def test_if_match_and_etag_are_documented_where_the_api_uses_them(schema: dict) -> None:
    node = schema["paths"]["/v1/nodes/{node_id}"]
    assert "If-Match" in _header_parameters(node["patch"])
    assert "If-Match" in _header_parameters(node["delete"])
    assert "If-Match" not in _header_parameters(node["get"])
    for operation in (node["get"], node["patch"]):
        assert "ETag" in operation["responses"]["200"]["headers"]
    rollback = schema["paths"]["/v1/nodes/{node_id}/rollback"]["post"]
    assert "ETag" in rollback["responses"]["200"]["headers"]


def test_the_documented_headers_are_the_ones_answered(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Atlas")
    read = client.get(f"/v1/nodes/{node.pk}", **auth)
    assert read.status_code == 200 and read["ETag"]
    body = json.dumps({"text": "I started boxing last week."})
    keyed = {**auth, "HTTP_IDEMPOTENCY_KEY": "boxing-1"}
    first = client.post("/v1/memories", body, content_type="application/json", **keyed)
    again = client.post("/v1/memories", body, content_type="application/json", **keyed)
    assert first.status_code == again.status_code == 200
    assert "Idempotent-Replayed" not in first and again["Idempotent-Replayed"] == "true"


def test_list_bodies_are_documented_with_their_envelope(schema: dict) -> None:
    for path, key in LISTS.items():
        body = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        properties = resolve(schema, body["schema"])["properties"]
        assert list(properties)[-3:] == [key, "limit", "offset"], path
        items = resolve(schema, properties[key]["items"])
        assert items["properties"], path


def test_list_routes_take_limit_and_offset(schema: dict) -> None:
    for path in LISTS:
        params = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert params["limit"]["schema"]["minimum"] == 1, path
        assert params["limit"]["schema"]["maximum"] == 500, path
        assert params["limit"]["schema"]["default"] == 100, path
        assert params["offset"]["schema"]["minimum"] == 0, path


def _enum(schema: dict, param: dict) -> list[str]:
    node = param["schema"]
    for option in node.get("anyOf", [node]):
        option = resolve(schema, option)
        if "enum" in option:
            return option["enum"]
    raise AssertionError(param)


def test_filters_are_documented_as_enums(schema: dict) -> None:
    expected = {
        ("/v1/nodes", "category"): Category.values,
        ("/v1/nodes", "state"): NodeState.values,
        ("/v1/candidates", "status"): CandidateStatus.values,
        ("/v1/receipts", "outcome"): Outcome.values,
        ("/v1/receipts", "source"): ReceiptSource.values,
    }
    for (path, name), values in expected.items():
        params = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert _enum(schema, params[name]) == values, (path, name)
    promote = schema["paths"]["/v1/candidates/{candidate_id}/promote"]["post"]
    body = promote["requestBody"]["content"]["application/json"]["schema"]  # PromoteIn | None
    (payload,) = [resolve(schema, o) for o in body.get("anyOf", [body]) if "$ref" in o]
    assert _enum(schema, {"schema": payload["properties"]["category"]}) == Category.values


@pytest.mark.parametrize(
    "path,params,message",
    [
        ("/v1/nodes", {"category": "dragons"}, "category: choose one of person, family, "),
        ("/v1/nodes", {"state": "asleep"}, "state: choose one of active, paused, stopped, "),
        ("/v1/candidates", {"status": "maybe"}, "status: choose one of pending, promoted, "),
        ("/v1/receipts", {"outcome": "great"}, "outcome: choose one of wrote, "),
        ("/v1/receipts", {"source": "fax"}, "source: choose one of "),
    ],
)
def test_a_value_outside_an_enum_is_400_naming_the_choices(
    client: Client, auth: dict[str, Any], path: Any, params: Any, message: Any
) -> None:
    response = client.get(path, params, **auth)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid_input" and body["message"].startswith(message)


def test_an_empty_filter_means_any(client: Client, auth: dict[str, Any], owner: User) -> None:
    make_node(owner=owner, label="Boxing")
    make_candidate(owner=owner, label="Piano")
    assert len(client.get("/v1/nodes", {"category": "", "state": ""}, **auth).json()["nodes"]) == 1
    pending = client.get("/v1/candidates", {"status": ""}, **auth).json()["candidates"]
    assert [c["label"] for c in pending] == ["Piano"]
    assert client.get("/v1/receipts", {"outcome": "", "source": ""}, **auth).status_code == 200


def test_ninjas_path_view_is_not_patched() -> None:
    # The JSON 405 wraps the routes' views (api/__init__.py), not ninja's internals.
    assert PathView._not_allowed.__module__ == "ninja.operation"


# --- the answers are the builders' JSON, byte for byte ------------------------------------------


def same_bytes(response: Any, expected: Any) -> None:
    assert response.status_code == 200, response.content
    assert response.content == json.dumps(expected).encode()


def test_lists_are_the_builders_json_in_the_envelope(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    boxing = make_node(owner=owner, label="Boxing", aliases=("pugilism",))
    make_node(owner=owner, label="Atlas", category="project", state="paused")
    make_candidate(owner=owner, label="Piano")
    make_candidate(owner=owner, label="Chess", confidence=1.0)
    make_suppression(owner=owner, label="Darts")
    client.patch(
        f"/v1/nodes/{boxing.pk}",
        data=json.dumps({"summary": "twice a week", "add_alias": "the sweet science"}),
        content_type="application/json",
        **auth,
    )
    client.post(
        "/v1/memories", json.dumps({"text": "I play the cello."}), "application/json", **auth
    )

    nodes = list(node_list(owner))[1:2]
    same_bytes(
        client.get("/v1/nodes", {"limit": 1, "offset": 1}, **auth),
        {"nodes": [node_json(n) for n in nodes], "limit": 1, "offset": 1},
    )
    same_bytes(
        client.get("/v1/candidates", **auth),
        {
            "candidates": [candidate_json(c) for c in candidate_queue(owner)],
            "limit": 100,
            "offset": 0,
        },
    )
    receipts = Receipt.objects.for_owner(owner).order_by("-created_at", "-id")
    same_bytes(
        client.get("/v1/receipts", **auth),
        {"receipts": [r.as_json() for r in receipts], "limit": 100, "offset": 0},
    )
    now = timezone.now()
    rows = list(suppression_list(owner))
    body = client.get("/v1/suppressions", **auth)
    same_bytes(
        body,
        {"suppressions": [suppression_json(s, now=now) for s in rows], "limit": 100, "offset": 0},
    )
    history = node_history(owner, boxing.pk, limit=3)[1:]
    entries = timeline(history, revision_parents(owner, history))
    same_bytes(
        client.get(f"/v1/nodes/{boxing.pk}/history", {"limit": 2, "offset": 1}, **auth),
        {
            "node": boxing.pk,
            "revisions": [revision_json(e) for e in entries],
            "limit": 2,
            "offset": 1,
        },
    )


def test_single_objects_are_the_builders_json(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing", aliases=("pugilism",))
    make_slice(node=node)
    make_event(node=node)
    fresh = node_get(owner, node.pk)
    assert fresh is not None
    same_bytes(
        client.get(f"/v1/nodes/{node.pk}", **auth),
        node_detail_json(
            fresh,
            node_slices_page(owner, node.pk),
            node_events_page(owner, node.pk),
            node_links(owner, node.pk),
        ),
    )
    same_bytes(client.get("/v1/rules", **auth), rules_json(memory_rule_for(owner)))
    upload = client.post(
        "/v1/transcripts",
        {"file": _file(b"User: I play chess on Sundays.\nAssistant: nice\n")},
        **auth,
    )
    assert upload.status_code == 201, upload.content
    transcript = transcript_get(owner, upload.json()["id"])
    assert transcript is not None
    assert (
        upload.content == json.dumps({**transcript_json(transcript), "duplicate": False}).encode()
    )
    same_bytes(client.get(f"/v1/transcripts/{transcript.pk}", **auth), transcript_json(transcript))


def test_recall_is_the_results_json_and_an_episode_has_reply_to_only_when_it_answers(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    make_node(owner=owner, label="Climbing gym", category="place")
    messages = [
        {"role": "assistant", "content": "Did you end up going to the climbing gym on Saturday?"},
        {"role": "user", "content": "Yes, last Saturday!"},
        {"role": "user", "content": "I also want to try the climbing gym's bouldering night."},
    ]
    saved = client.post(
        "/v1/conversations", json.dumps({"messages": messages}), "application/json", **auth
    )
    assert saved.status_code == 200, saved.content
    response = client.post(
        "/v1/recall", json.dumps({"query": "climbing gym"}), "application/json", **auth
    )
    same_bytes(response, recall(owner, "climbing gym", limit=10).as_json())
    episodes = [i for i in response.json()["items"] if i["kind"] == "episode"]
    assert any("reply_to" in i for i in episodes) and any("reply_to" not in i for i in episodes)
    assert any(i["kind"] == "node" for i in response.json()["items"])


def _file(content: bytes) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("chat.txt", content, content_type="text/plain")
