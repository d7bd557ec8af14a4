"""History over the API: ETag and If-Match, GET history, POST rollback, Idempotency-Key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from memory.models import IdempotencyKey, Node, Receipt, Revision
from memory.services.tokens import token_create
from tests.factories import make_node, make_suppression

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='my tool')[1]}"}


def send(client: Any, auth: Any, method: str, path: str, body: Any = None, **headers: Any) -> Any:
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(
        path, data=data, content_type="application/json", **auth, **headers
    )


def test_get_has_the_revision_as_etag_and_patch_with_it_bumps_it(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    got = client.get(f"/v1/nodes/{node.pk}", **auth)
    assert got["ETag"] == '"1"'
    patched = send(
        client,
        auth,
        "patch",
        f"/v1/nodes/{node.pk}",
        {"summary": "twice a week"},
        HTTP_IF_MATCH='"1"',
    )
    assert patched.status_code == 200, patched.content
    assert patched["ETag"] == '"2"' and patched.json()["revision"] == 2
    rev = Revision.objects.for_owner(owner).get(kind="node", object_id=node.pk)
    assert (rev.number, rev.parent, rev.action, rev.actor, rev.actor_name) == (
        2,
        1,
        "updated",
        "token",
        "my tool",
    )
    assert rev.snapshot["summary"] == "twice a week"


def test_a_stale_if_match_is_412_with_the_current_revision_and_changes_nothing(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"summary": "first"})
    stale = send(
        client, auth, "patch", f"/v1/nodes/{node.pk}", {"summary": "second"}, HTTP_IF_MATCH='"1"'
    )
    assert stale.status_code == 412
    assert stale.json()["code"] == "stale_revision"
    assert stale.json()["current_revision"] == 2
    node.refresh_from_db()
    assert node.summary == "first"
    deleted = send(client, auth, "delete", f"/v1/nodes/{node.pk}", HTTP_IF_MATCH='"1"')
    assert deleted.status_code == 412
    assert Node.objects.filter(pk=node.pk).exists()
    bad = send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"summary": "x"}, HTTP_IF_MATCH="x")
    assert bad.status_code == 400


def test_delete_with_a_current_if_match_deletes_and_keeps_the_history(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    assert (
        send(client, auth, "delete", f"/v1/nodes/{node.pk}", HTTP_IF_MATCH='"1"').status_code == 200
    )
    history = client.get(f"/v1/nodes/{node.pk}/history", **auth)
    assert history.status_code == 200
    [final] = history.json()["revisions"]
    assert (final["action"], final["revision"], final["snapshot"]["label"]) == (
        "deleted",
        2,
        "Boxing",
    )


def test_history_and_rollback_round_trip(client: Client, auth: dict[str, Any], owner: User) -> None:
    node = make_node(owner=owner, label="Boxing", summary="once a week")
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"summary": "twice a week"})
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"state": "paused"})
    history = client.get(f"/v1/nodes/{node.pk}/history", **auth).json()["revisions"]
    assert [r["revision"] for r in history] == [3, 2]
    assert history[0]["changes"] == [{"field": "state", "before": "active", "after": "paused"}]
    rolled = send(client, auth, "post", f"/v1/nodes/{node.pk}/rollback", {"revision": 2})
    assert rolled.status_code == 200, rolled.content
    assert rolled["ETag"] == '"4"'
    body = rolled.json()
    assert body["node"]["state"] == "active" and body["node"]["summary"] == "twice a week"
    receipt = Receipt.objects.get(pk=body["receipt"]["receipt_id"])
    assert (receipt.source, receipt.outcome, receipt.detail["revision"]) == ("api", "wrote", 2)
    newest = Revision.objects.filter(kind="node", object_id=node.pk).order_by("-number").first()
    assert newest is not None
    assert (newest.number, newest.action, newest.receipt_id) == (4, "rolled_back", receipt.pk)


def test_a_rollback_onto_a_suppressed_label_is_refused_with_a_receipt(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"label": "Kickboxing"})
    send(client, auth, "patch", f"/v1/nodes/{node.pk}", {"label": "Boxing club"})
    suppression = make_suppression(owner=owner, label="Kickboxing")
    refused = send(client, auth, "post", f"/v1/nodes/{node.pk}/rollback", {"revision": 2})
    assert refused.status_code == 409
    assert refused.json()["code"] == "suppressed"
    assert refused.json()["suppression_id"] == suppression.pk
    assert "suppressed" in refused.json()["message"]
    node.refresh_from_db()
    assert node.label == "Boxing club" and node.revision == 3
    assert Receipt.objects.for_owner(owner).filter(outcome="rejected_input").count() == 1


def test_another_owners_history_is_not_found(
    client: Client, auth: dict[str, Any], other_user: User
) -> None:
    node = make_node(owner=other_user, label="Secret")
    assert client.get(f"/v1/nodes/{node.pk}/history", **auth).status_code == 404
    sent = send(client, auth, "post", f"/v1/nodes/{node.pk}/rollback", {"revision": 1})
    assert sent.status_code == 404


def test_a_retried_save_with_one_idempotency_key_writes_once(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    body = {"text": "I started learning the cello this week."}
    first = send(client, auth, "post", "/v1/memories", body, HTTP_IDEMPOTENCY_KEY="k-1")
    again = send(client, auth, "post", "/v1/memories", body, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Receipt.objects.for_owner(owner).count() == 1
    other = send(client, auth, "post", "/v1/memories", {"text": "else"}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


def test_a_retried_patch_with_one_idempotency_key_is_one_revision(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    for _ in range(2):
        sent = send(
            client,
            auth,
            "patch",
            f"/v1/nodes/{node.pk}",
            {"summary": "x"},
            HTTP_IDEMPOTENCY_KEY="edit-1",
            HTTP_IF_MATCH='"1"',
        )
        assert sent.status_code == 200
    assert Revision.objects.filter(kind="node", object_id=node.pk).count() == 1
    assert IdempotencyKey.objects.for_owner(owner).get().status == 200


def test_a_failed_write_keeps_no_result_so_its_retry_runs(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Boxing")
    bad = send(
        client,
        auth,
        "patch",
        f"/v1/nodes/{node.pk}",
        {"state": "nope"},
        HTTP_IDEMPOTENCY_KEY="k-2",
    )
    assert bad.status_code == 400
    assert not IdempotencyKey.objects.for_owner(owner).exists()


def test_a_retried_upload_with_one_idempotency_key_is_stored_once(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from memory.models import Transcript

    def upload() -> Any:
        text = b"User: I started learning the cello last week.\n"
        return client.post(
            "/v1/transcripts",
            {"file": SimpleUploadedFile("notes.txt", text, content_type="text/plain")},
            HTTP_IDEMPOTENCY_KEY="upload-1",
            **auth,
        )

    first, again = upload(), upload()
    assert first.status_code in (200, 201) and again.status_code == first.status_code
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Transcript.objects.for_owner(owner).count() == 1
    assert Receipt.objects.for_owner(owner).count() == 1
