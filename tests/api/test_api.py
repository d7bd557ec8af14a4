"""The HTTP API under /v1/: every route with the owner, another user's token and bad tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries, Settings

from memory.models import AccessToken, Candidate, MemoryRule, Node, Receipt, Suppression, Transcript
from memory.selectors import LINK_LIMIT
from memory.services.tokens import token_create, token_revoke
from memory.vocab import SCOPE_READ
from tests.factories import (
    make_candidate,
    make_edge,
    make_event,
    make_node,
    make_slice,
    make_suppression,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def bearer(secret: str) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def secret(owner: User) -> str:
    return token_create(owner=owner, name="test tool")[1]


@pytest.fixture
def read_secret(owner: User) -> str:
    return token_create(owner=owner, name="reader", scopes=[SCOPE_READ])[1]


@pytest.fixture
def other_secret(other_user: User) -> str:
    return token_create(owner=other_user, name="other tool")[1]


@pytest.fixture
def api(client: Client, secret: str) -> Any:
    """A tiny JSON client acting with the owner's read+write token."""

    class Api:
        def __init__(self, auth: dict[str, Any]) -> None:
            self.auth = auth

        def get(self, path: str, **params: Any) -> Any:
            return client.get(path, params, **self.auth)

        def send(self, method: str, path: str, body: Any = None) -> Any:
            data = json.dumps(body) if body is not None else ""
            return getattr(client, method)(
                path, data=data, content_type="application/json", **self.auth
            )

        def post(self, path: str, body: Any = None) -> Any:
            return self.send("post", path, body)

    return Api(bearer(secret))


def assert_error(response: Any, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code
    assert isinstance(body["message"], str) and body["message"]
    return body


def nothing_written(owner: Any) -> bool:
    return not (
        Node.objects.for_owner(owner).exists()
        or Candidate.objects.for_owner(owner).exists()
        or Transcript.objects.for_owner(owner).exists()
        or Receipt.objects.for_owner(owner).exists()
    )


# --- authentication and scopes ----------------------------------------------------------------


ROUTES = [
    ("get", "/v1/nodes"),
    ("get", "/v1/candidates"),
    ("get", "/v1/receipts"),
    ("get", "/v1/suppressions"),
    ("get", "/v1/rules"),
    ("post", "/v1/recall"),
    ("post", "/v1/memories"),
    ("post", "/v1/conversations"),
    ("put", "/v1/rules"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_no_token_is_401(client: Client, owner: User, method: Any, path: Any) -> None:
    response = getattr(client, method)(path, content_type="application/json")
    body = assert_error(response, 401, "unauthorized")
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert "Bearer" in body["message"]


@pytest.mark.parametrize(
    "header", ["Bearer ume_not-a-real-token", "Bearer ", "Basic dXNlcjpwdw==", "ume_bare"]
)
def test_bad_tokens_are_401(client: Client, owner: User, header: Any) -> None:
    response = client.get("/v1/nodes", HTTP_AUTHORIZATION=header)
    assert_error(response, 401, "unauthorized")


def test_revoked_and_expired_tokens_are_401(client: Client, owner: User) -> None:
    token, revoked = token_create(owner=owner, name="old")
    token_revoke(token=token)
    assert_error(client.get("/v1/nodes", **bearer(revoked)), 401, "unauthorized")
    _token, expired = token_create(
        owner=owner, name="expired", expires_at=timezone.now() - timedelta(minutes=1)
    )
    assert_error(client.get("/v1/nodes", **bearer(expired)), 401, "unauthorized")


def test_inactive_owner_is_401(client: Client, owner: User, secret: str) -> None:
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert_error(client.get("/v1/nodes", **bearer(secret)), 401, "unauthorized")


def test_read_token_cannot_write(client: Client, owner: User, read_secret: str) -> None:
    assert client.get("/v1/nodes", **bearer(read_secret)).status_code == 200
    response = client.post(
        "/v1/memories",
        data=json.dumps({"text": "I started boxing"}),
        content_type="application/json",
        **bearer(read_secret),
    )
    assert_error(response, 403, "insufficient_scope")
    assert nothing_written(owner)


def test_last_used_at_is_kept(client: Client, owner: User, secret: str) -> None:
    assert AccessToken.objects.for_owner(owner).get().last_used_at is None
    client.get("/v1/nodes", **bearer(secret))
    assert AccessToken.objects.for_owner(owner).get().last_used_at is not None


# --- saves ----------------------------------------------------------------------------------


def test_save_memory_returns_the_receipt(api: Any, owner: User) -> None:
    response = api.post("/v1/memories", {"text": "I started boxing last week."})
    assert response.status_code == 200, response.content
    receipt = response.json()
    assert set(receipt) >= {"receipt_id", "outcome", "counts", "rejected"}
    row = Receipt.objects.get(pk=receipt["receipt_id"])
    assert row.owner == owner and row.source == "api" and row.token is not None
    assert receipt["outcome"] in {"wrote", "meaningful_no_write"}


def test_save_conversation_returns_the_receipt(api: Any, owner: User) -> None:
    body = {
        "messages": [
            {"role": "user", "content": "My sister Priya moved to Berlin.", "ts": "2026-03-01"},
            {"role": "assistant", "content": "Noted."},
        ],
        "source_time": "2026-03-02T10:00:00Z",
    }
    response = api.post("/v1/conversations", body)
    assert response.status_code == 200, response.content
    receipt = response.json()
    assert receipt["source"] == "api" and receipt["receipt_id"]
    again = api.post("/v1/conversations", body).json()
    assert again["outcome"] == "duplicate"


@pytest.mark.parametrize(
    "body",
    [
        {"messages": []},
        {"messages": [{"role": "narrator", "content": "hi"}]},
        {"messages": [{"role": "user"}]},
        {"messages": [{"role": "user", "content": "hi", "ts": "yesterday-ish"}]},
        {"messages": "hello"},
        {},
    ],
)
def test_bad_conversations_are_400_and_write_nothing(api: Any, owner: User, body: Any) -> None:
    assert_error(api.post("/v1/conversations", body), 400, "invalid_input")
    assert nothing_written(owner)


def test_recall(api: Any, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing", category="skill")
    make_slice(node=node, text="trains three days a week")
    response = api.post("/v1/recall", {"query": "what do you remember about boxing?"})
    assert response.status_code == 200, response.content
    result = response.json()
    assert result["items"][0]["label"] == "Boxing"
    assert "Boxing" in result["context"]
    smalltalk = api.post("/v1/recall", {"query": "thanks!"}).json()
    assert smalltalk["no_recall"] is True and smalltalk["items"] == []


def test_recall_only_sees_the_owners_memories(
    client: Client, owner: User, other_user: User, other_secret: str
) -> None:
    make_node(owner=owner, label="Boxing")
    response = client.post(
        "/v1/recall",
        data=json.dumps({"query": "boxing"}),
        content_type="application/json",
        **bearer(other_secret),
    )
    assert response.status_code == 200
    assert response.json()["items"] == []


# --- nodes ----------------------------------------------------------------------------------


def test_list_nodes_with_filters(api: Any, owner: User, other_user: User) -> None:
    make_node(owner=owner, label="Boxing", category="skill", aliases=("pugilism",))
    make_node(owner=owner, label="Atlas", category="project", state="paused")
    make_node(owner=other_user, label="Secret", category="project")
    everything = api.get("/v1/nodes").json()["nodes"]
    assert [n["label"] for n in everything] == ["Atlas", "Boxing"]
    assert set(everything[1]) >= {"id", "label", "category", "state", "aliases"}
    assert everything[1]["aliases"] == ["pugilism"]
    assert [n["label"] for n in api.get("/v1/nodes", category="project").json()["nodes"]] == [
        "Atlas"
    ]
    assert [n["label"] for n in api.get("/v1/nodes", state="paused").json()["nodes"]] == ["Atlas"]
    assert [n["label"] for n in api.get("/v1/nodes", q="pugil").json()["nodes"]] == ["Boxing"]


@pytest.mark.parametrize(
    "params", [{"category": "dragons"}, {"state": "asleep"}, {"limit": "0"}, {"limit": "x"}]
)
def test_bad_node_filters_are_400(api: Any, owner: User, params: Any) -> None:
    assert_error(api.get("/v1/nodes", **params), 400, "invalid_input")


def test_node_list_query_count_is_constant(
    api: Any, owner: User, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    for index in range(12):
        make_node(owner=owner, label=f"Thing {index}", aliases=(f"alias {index}",))
    # token lookup + last_used bump, then nodes + prefetched aliases: never one per node
    with django_assert_max_num_queries(5):
        assert len(api.get("/v1/nodes").json()["nodes"]) == 12


def test_get_node_has_slices_and_events(api: Any, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing")
    make_slice(node=node, text="trains three days a week")
    make_event(node=node, text="started boxing")
    detail = api.get(f"/v1/nodes/{node.pk}").json()
    assert detail["label"] == "Boxing"
    assert [s["text"] for s in detail["slices"]] == ["trains three days a week"]
    assert [e["action"] for e in detail["events"]] == ["started"]


def test_get_node_has_its_links_both_ways_with_their_names(
    api: Any, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    maya = make_node(owner=owner, label="Maya", category="person")
    atlas = make_node(owner=owner, label="Atlas", category="project")
    rust = make_node(owner=owner, label="Rust", category="skill")
    make_edge(from_node=maya, to_node=atlas, type="related_to", label="works on")
    make_edge(from_node=atlas, to_node=rust, type="uses")
    for index in range(6):
        helper = make_node(owner=owner, label=f"Helper {index}")
        make_edge(from_node=helper, to_node=atlas, type="part_of")
    # token, its last use, its rate count; node + aliases; facts (2), events (2); the links in
    # one, whatever their number
    with django_assert_num_queries(10):
        detail = api.get(f"/v1/nodes/{atlas.pk}").json()
    links = {(link["node"]["label"], link["direction"]): link for link in detail["links"]}
    assert len(detail["links"]) == 8 and detail["links_more"] is False
    assert links[("Maya", "in")]["type"] == "related_to"
    assert links[("Maya", "in")]["label"] == "works on"
    assert links[("Rust", "out")]["type"] == "uses" and links[("Rust", "out")]["label"] == ""
    assert links[("Rust", "out")]["node"] == {"id": rust.pk, "label": "Rust", "category": "skill"}
    assert api.get(f"/v1/nodes/{maya.pk}").json()["links"][0]["direction"] == "out"


def test_get_node_says_when_it_has_more_links_than_listed(api: Any, owner: User) -> None:
    hub = make_node(owner=owner, label="Hub")
    for index in range(LINK_LIMIT + 1):
        make_edge(from_node=hub, to_node=make_node(owner=owner, label=f"Spoke {index}"))
    detail = api.get(f"/v1/nodes/{hub.pk}").json()
    assert len(detail["links"]) == LINK_LIMIT and detail["links_more"] is True


def test_another_owners_node_is_404_everywhere(api: Any, other_user: User) -> None:
    theirs = make_node(owner=other_user, label="Secret")
    assert_error(api.get(f"/v1/nodes/{theirs.pk}"), 404, "not_found")
    assert_error(api.send("patch", f"/v1/nodes/{theirs.pk}", {"label": "Mine"}), 404, "not_found")
    assert_error(api.send("delete", f"/v1/nodes/{theirs.pk}"), 404, "not_found")
    assert_error(api.get("/v1/nodes/999999"), 404, "not_found")
    assert Node.objects.get(pk=theirs.pk).label == "Secret"


def test_patch_node(api: Any, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing")
    response = api.send(
        "patch",
        f"/v1/nodes/{node.pk}",
        {"label": "Boxing training", "state": "paused", "add_alias": "the gym"},
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["label"] == "Boxing training" and data["state"] == "paused"
    assert set(data["aliases"]) == {"Boxing", "the gym"}
    assert_error(
        api.send("patch", f"/v1/nodes/{node.pk}", {"state": "asleep"}), 400, "invalid_edit"
    )


def test_delete_node_sticks_by_default(api: Any, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing", aliases=("pugilism",))
    response = api.send("delete", f"/v1/nodes/{node.pk}")
    assert response.status_code == 200
    assert response.json()["stick"] is True
    assert not Node.objects.filter(pk=node.pk).exists()
    assert set(Suppression.objects.for_owner(owner).values_list("label", flat=True)) == {
        "Boxing",
        "pugilism",
    }


def test_delete_node_without_stick(api: Any, owner: User) -> None:
    node = make_node(owner=owner, label="Boxing")
    response = api.send("delete", f"/v1/nodes/{node.pk}?stick=false")
    assert response.status_code == 200
    assert not Suppression.objects.for_owner(owner).exists()


# --- candidates -----------------------------------------------------------------------------


def test_list_candidates(api: Any, owner: User, other_user: User) -> None:
    make_candidate(owner=owner, label="Piano")
    make_candidate(owner=owner, label="Chess", status="rejected")
    make_candidate(owner=other_user, label="Secret")
    pending = api.get("/v1/candidates").json()["candidates"]
    assert [c["label"] for c in pending] == ["Piano"]
    assert set(pending[0]) >= {"id", "label", "category", "status", "confidence", "evidence"}
    rejected = api.get("/v1/candidates", status="rejected").json()["candidates"]
    assert [c["label"] for c in rejected] == ["Chess"]
    assert_error(api.get("/v1/candidates", status="maybe"), 400, "invalid_input")


def test_promote_candidate(api: Any, owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Piano")
    response = api.post(
        f"/v1/candidates/{candidate.pk}/promote", {"label": "Piano lessons", "state": "paused"}
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["candidate"]["status"] == "promoted"
    assert data["node"]["label"] == "Piano lessons" and data["node"]["state"] == "paused"
    again = api.post(f"/v1/candidates/{candidate.pk}/promote", {})
    assert_error(again, 409, "already_decided")


def test_promote_without_a_body(api: Any, owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Piano")
    response = api.post(f"/v1/candidates/{candidate.pk}/promote")
    assert response.status_code == 200, response.content
    assert response.json()["node"]["label"] == "Piano"


def test_promote_with_a_bad_category_is_400(api: Any, owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Piano")
    assert_error(
        api.post(f"/v1/candidates/{candidate.pk}/promote", {"category": "dragons"}),
        400,
        "invalid_input",
    )
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_reject_and_reject_with_suppress(api: Any, owner: User) -> None:
    plain = make_candidate(owner=owner, label="Piano")
    data = api.post(f"/v1/candidates/{plain.pk}/reject", {}).json()
    assert data["candidate"]["status"] == "rejected" and data["suppression"] is None
    loud = make_candidate(owner=owner, label="Chess")
    until = (timezone.now() + timedelta(days=30)).isoformat()
    data = api.post(
        f"/v1/candidates/{loud.pk}/reject", {"suppress_similar": True, "until": until}
    ).json()
    assert data["candidate"]["status"] == "suppressed"
    assert data["suppression"]["label"] == "Chess" and data["suppression"]["active"] is True
    assert_error(api.post(f"/v1/candidates/{loud.pk}/reject", {}), 409, "already_decided")


def test_reject_and_forget(api: Any, owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Tarot Reading")
    data = api.post(f"/v1/candidates/{candidate.pk}/reject", {"forget": True}).json()
    assert data["candidate"]["status"] == "suppressed"
    assert data["suppression"]["label"] == "Tarot Reading"
    assert Suppression.objects.get(canonical_key="tarot reading").reason == "forgotten"
    # forgetting is permanent: it takes no end date
    other = make_candidate(owner=owner, label="Chess")
    until = (timezone.now() + timedelta(days=3)).isoformat()
    response = api.post(f"/v1/candidates/{other.pk}/reject", {"forget": True, "until": until})
    assert_error(response, 400, "invalid_decision")
    assert Candidate.objects.get(pk=other.pk).status == "pending"


def test_reject_until_in_the_past_is_400(api: Any, owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Piano")
    past = (timezone.now() - timedelta(days=1)).isoformat()
    response = api.post(
        f"/v1/candidates/{candidate.pk}/reject", {"suppress_similar": True, "until": past}
    )
    assert_error(response, 400, "invalid_decision")


def test_merge_candidate(api: Any, owner: User, other_user: User) -> None:
    node = make_node(owner=owner, label="Boxing")
    candidate = make_candidate(owner=owner, label="Kickboxing")
    theirs = make_node(owner=other_user, label="Secret")
    assert_error(
        api.post(f"/v1/candidates/{candidate.pk}/merge", {"node_id": theirs.pk}), 404, "not_found"
    )
    response = api.post(f"/v1/candidates/{candidate.pk}/merge", {"node_id": node.pk})
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["candidate"]["status"] == "merged"
    assert "Kickboxing" in data["node"]["aliases"]
    assert_error(api.post(f"/v1/candidates/{candidate.pk}/merge", {}), 400, "invalid_input")


def test_another_owners_candidate_is_404(api: Any, other_user: User) -> None:
    theirs = make_candidate(owner=other_user, label="Secret")
    for action in ("promote", "reject"):
        assert_error(api.post(f"/v1/candidates/{theirs.pk}/{action}", {}), 404, "not_found")
    assert Candidate.objects.get(pk=theirs.pk).status == "pending"


# --- receipts, suppressions, rules ------------------------------------------------------------


def test_receipts_list_filter_and_get(api: Any, owner: User, other_user: User) -> None:
    wrote = Receipt.objects.create(owner=owner, source="api", outcome="wrote")
    Receipt.objects.create(owner=owner, source="upload", outcome="rejected_input")
    theirs = Receipt.objects.create(owner=other_user, source="api", outcome="wrote")
    assert len(api.get("/v1/receipts").json()["receipts"]) == 2
    only = api.get("/v1/receipts", outcome="wrote").json()["receipts"]
    assert [r["receipt_id"] for r in only] == [wrote.pk]
    assert [r["receipt_id"] for r in api.get("/v1/receipts", source="upload").json()["receipts"]]
    assert api.get(f"/v1/receipts/{wrote.pk}").json() == wrote.as_json()
    assert_error(api.get(f"/v1/receipts/{theirs.pk}"), 404, "not_found")
    assert_error(api.get("/v1/receipts", outcome="great"), 400, "invalid_input")


def test_suppressions_list_and_lift(api: Any, owner: User, other_user: User) -> None:
    mine = make_suppression(owner=owner, label="Piano")
    theirs = make_suppression(owner=other_user, label="Secret")
    listed = api.get("/v1/suppressions").json()["suppressions"]
    assert [s["label"] for s in listed] == ["Piano"] and listed[0]["active"] is True
    lifted = api.post(f"/v1/suppressions/{mine.pk}/lift").json()
    assert lifted["active"] is False and lifted["lifted_at"]
    assert_error(api.post(f"/v1/suppressions/{theirs.pk}/lift"), 404, "not_found")
    assert Suppression.objects.get(pk=theirs.pk).lifted_at is None


def test_rules_get_and_put(api: Any, owner: User) -> None:
    defaults = api.get("/v1/rules").json()
    assert defaults["capture_default"] == "review" and defaults["includes"] == []
    response = api.send(
        "put",
        "/v1/rules",
        {"excludes": ["work", " work ", "crypto"], "capture_default": "auto", "retention_days": 90},
    )
    assert response.status_code == 200, response.content
    assert response.json()["excludes"] == ["work", "crypto"]
    rule = MemoryRule.objects.for_owner(owner).get()
    assert rule.capture_default == "auto" and rule.retention_days == 90
    # fields left out are kept; null clears retention
    api.send("put", "/v1/rules", {"retention_days": None})
    rule.refresh_from_db()
    assert rule.retention_days is None and rule.excludes == ["work", "crypto"]
    # the episode lane: on by default, off on request
    assert defaults["episodes"] is True
    assert api.send("put", "/v1/rules", {"episodes": False}).json()["episodes"] is False
    rule.refresh_from_db()
    assert rule.episodes is False and rule.capture_default == "auto"


@pytest.mark.parametrize(
    "body",
    [
        {"includes": [f"term {i}" for i in range(33)]},
        {"excludes": ["x" * 81]},
        {"custom_instructions": "x" * 2001},
        {"capture_default": "sometimes"},
        {"retention_days": 0},
        {"auto_collect": None},
        {"episodes": None},
        {"includes": "work"},
    ],
)
def test_bad_rules_are_400(api: Any, owner: User, body: Any) -> None:
    assert_error(api.send("put", "/v1/rules", body), 400, "invalid_input")
    assert not MemoryRule.objects.for_owner(owner).exists()


# --- transcripts ----------------------------------------------------------------------------


def upload(client: Any, secret: Any, content: bytes, name: str = "chat.txt", **extra: Any) -> Any:
    return client.post(
        "/v1/transcripts",
        {"file": SimpleUploadedFile(name, content, content_type="text/plain"), **extra},
        **bearer(secret),
    )


def test_upload_small_transcript_is_processed_now(client: Client, owner: User, secret: str) -> None:
    response = upload(
        client,
        secret,
        b"User: I started boxing last week.\nAssistant: Nice!\n",
        source_time="2026-03-01",
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["status"] == "done" and data["receipt"]["receipt_id"]
    assert data["duplicate"] is False
    assert data["source_time"].startswith("2026-03-01")
    status = client.get(f"/v1/transcripts/{data['id']}", **bearer(secret)).json()
    assert status["status"] == "done"
    again = upload(client, secret, b"User: I started boxing last week.\nAssistant: Nice!\n")
    assert again.status_code == 200 and again.json()["duplicate"] is True


def test_upload_large_transcript_waits(
    client: Client, owner: User, secret: str, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 10
    response = upload(client, secret, b"User: I started boxing last week.\n")
    assert response.status_code == 201
    assert response.json()["status"] == "pending" and response.json()["receipt"] is None


def test_upload_oversized_is_413(
    client: Client, owner: User, secret: str, settings: Settings
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 100
    response = upload(client, secret, b"User: " + b"a" * 200)
    assert_error(response, 413, "payload_too_large")
    assert nothing_written(owner)


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00\x01\x02binary", b"\xff\xfe\xfa not utf-8", b"   \n  "],
)
def test_bad_uploads_are_400_and_write_nothing(
    client: Client, owner: User, secret: str, content: Any
) -> None:
    assert_error(upload(client, secret, content), 400, "invalid_input")
    assert nothing_written(owner)


def test_upload_without_a_file_is_400(client: Client, owner: User, secret: str) -> None:
    response = client.post("/v1/transcripts", {}, **bearer(secret))
    assert_error(response, 400, "invalid_input")


def test_upload_bad_source_time_is_400(client: Client, owner: User, secret: str) -> None:
    response = upload(client, secret, b"User: hello there\n", source_time="someday")
    assert_error(response, 400, "invalid_input")
    assert nothing_written(owner)


def test_another_owners_transcript_is_404(
    client: Client, owner: User, other_secret: str, secret: str
) -> None:
    data = upload(client, secret, b"User: I started boxing last week.\n").json()
    response = client.get(f"/v1/transcripts/{data['id']}", **bearer(other_secret))
    assert_error(response, 404, "not_found")


# --- hostile and oversized bodies -------------------------------------------------------------


def raw_post(client: Any, secret: Any, path: str, body: bytes, **extra: Any) -> Any:
    return client.generic(
        "POST", path, body, content_type="application/json", **bearer(secret), **extra
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", "invalid_input"),
        (b"{not json", "invalid_json"),
        (b"\xff\xfe{}", "invalid_json"),
        (b"[1, 2, 3]", "invalid_json"),
        (b"[" * 100_000 + b"]" * 100_000, "invalid_json"),
        (json.dumps({"text": "a\x00b"}).encode(), "invalid_input"),
        (json.dumps({"text": "   "}).encode(), "invalid_input"),
        (json.dumps({"text": 42}).encode(), "invalid_input"),
        (json.dumps({"text": {"deep": [[[[{"x": 1}]]]]}}).encode(), "invalid_input"),
    ],
)
def test_hostile_bodies_are_400_and_write_nothing(
    client: Client, owner: User, secret: str, body: Any, code: Any
) -> None:
    assert_error(raw_post(client, secret, "/v1/memories", body), 400, code)
    assert nothing_written(owner)


def test_huge_label_is_refused(client: Client, owner: User, secret: str) -> None:
    candidate = make_candidate(owner=owner, label="Piano")
    body = json.dumps({"label": "x" * (3 * 1024 * 1024)}).encode()
    response = raw_post(client, secret, f"/v1/candidates/{candidate.pk}/promote", body)
    assert response.status_code in {400, 413}
    assert response.json()["code"] in {"invalid_input", "payload_too_large"}
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_declared_oversized_body_is_413_before_reading(
    client: Client, owner: User, secret: str, settings: Settings
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 1000
    response = raw_post(
        client, secret, "/v1/memories", b'{"text": "hi"}', CONTENT_LENGTH="10000000"
    )
    assert_error(response, 413, "payload_too_large")
    assert nothing_written(owner)


def test_memory_text_over_the_limit_is_413(api: Any, owner: User, settings: Settings) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 50
    assert_error(api.post("/v1/memories", {"text": "a" * 60}), 413, "payload_too_large")
    assert nothing_written(owner)


def test_body_over_djangos_limit_is_413(
    client: Client, owner: User, secret: str, settings: Settings
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = json.dumps({"text": "a" * 5000}).encode()
    assert_error(raw_post(client, secret, "/v1/memories", body), 413, "payload_too_large")
    assert nothing_written(owner)


# --- rate limit, docs, unknown routes -------------------------------------------------------


def test_rate_limit_is_429_with_retry_after(
    client: Client, owner: User, secret: str, other_secret: str, settings: Settings
) -> None:
    settings.UME_API_RATE_LIMIT = 3
    for _ in range(3):
        assert client.get("/v1/rules", **bearer(secret)).status_code == 200
    response = client.get("/v1/rules", **bearer(secret))
    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response["Retry-After"]) <= 60
    # the limit is per token
    assert client.get("/v1/rules", **bearer(other_secret)).status_code == 200


def test_openapi_schema_is_served(client: Client) -> None:
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    for path in (
        "/v1/memories",
        "/v1/conversations",
        "/v1/recall",
        "/v1/nodes",
        "/v1/nodes/{node_id}",
        "/v1/candidates",
        "/v1/candidates/{candidate_id}/promote",
        "/v1/candidates/{candidate_id}/reject",
        "/v1/candidates/{candidate_id}/merge",
        "/v1/receipts",
        "/v1/receipts/{receipt_id}",
        "/v1/suppressions",
        "/v1/suppressions/{suppression_id}/lift",
        "/v1/rules",
        "/v1/transcripts",
        "/v1/transcripts/{transcript_id}",
    ):
        assert path in schema["paths"], path
    assert schema["components"]["securitySchemes"]


def test_docs_page_uses_our_own_static_files(client: Client) -> None:
    response = client.get("/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()


def test_unknown_api_route_is_json_404(api: Any) -> None:
    assert_error(api.get("/v1/nope"), 404, "not_found")


def test_the_rate_limit_counter_is_a_database_row_every_process_shares(
    client: Client, owner: User, secret: str, settings: Settings
) -> None:
    """Counted in the database whatever UME_CACHE says, so every worker and host sees it."""
    from memory.models import AccessToken, RateCount

    settings.UME_API_RATE_LIMIT = 2
    for _ in range(2):
        assert client.get("/v1/rules", **bearer(secret)).status_code == 200
    token = AccessToken.objects.for_owner(owner).get()
    assert RateCount.objects.get(key=f"token:{token.pk}").count == 2
    refused = client.get("/v1/rules", **bearer(secret))
    assert_error(refused, 429, "rate_limited")
    assert 1 <= int(refused["Retry-After"]) <= 60
