"""A memory with thousands of facts is read a page at a time: ``GET /v1/nodes/{id}`` gives the
first page with totals and cursors, ``/slices`` and ``/events`` page on, and MCP's
``open_nodes`` pages observations the same way. Following the cursors returns every row
exactly once, in order."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django import DjangoAssertNumQueries

from memory.cursors import cursor_encode
from memory.models import Event, Node, Slice
from memory.selectors import DETAIL_LIMIT
from memory.services.tokens import token_create
from tests.factories import make_node
from tests.mcp_server.test_mcp import call, connect, ok

FACTS = 2000
EVENTS = 130
START = datetime(2026, 1, 1, tzinfo=UTC)


def _fill(node: Node, *, facts: int = FACTS, events: int = EVENTS) -> None:
    """Bulk rows; every third fact shares its time with the one before, so the cursor's id
    tie-break is exercised, and every fifth is superseded."""
    Slice.objects.bulk_create(
        Slice(
            owner=node.owner,
            node=node,
            text=f"fact {i}",
            kind="other",
            is_current=i % 5 != 0,
            created_at=START + timedelta(seconds=i - (i % 3 == 2)),
        )
        for i in range(facts)
    )
    Event.objects.bulk_create(
        Event(
            owner=node.owner,
            node=node,
            action="other",
            text=f"event {i}",
            created_at=START + timedelta(minutes=i // 2),
        )
        for i in range(events)
    )


@pytest.fixture
def auth(owner: User) -> dict[str, Any]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='pages')[1]}"}


@pytest.fixture
def big(owner: User) -> Node:
    node = make_node(owner=owner, label="Atlas")
    _fill(node)
    return node


def _newest_first(model: Any, node: Node) -> list[int]:
    rows = model.objects.filter(node=node).order_by("-created_at", "-id")
    return list(rows.values_list("id", flat=True))


@pytest.mark.django_db
def test_the_node_gives_one_page_of_facts_and_events_with_totals_and_cursors(
    client: Client, auth: dict[str, Any], big: Node, django_assert_num_queries: Any
) -> None:
    # the token (read, last used, rate count), the node and its aliases, a count and a page of
    # each, and its links both ways with the memory at the other end (one query)
    with django_assert_num_queries(10):
        response = client.get(f"/v1/nodes/{big.pk}", **auth)
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body["slices"]) == DETAIL_LIMIT and len(body["events"]) == DETAIL_LIMIT
    assert body["slice_count"] == FACTS and body["event_count"] == EVENTS
    assert [s["id"] for s in body["slices"]] == _newest_first(Slice, big)[:DETAIL_LIMIT]
    assert body["slices_next"] and body["events_next"]
    assert len(response.content) < 40_000  # was every fact: megabytes at this size

    small = client.get(f"/v1/nodes/{big.pk}?limit=3", **auth).json()
    assert len(small["slices"]) == 3 and len(small["events"]) == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "model", "total"), [("slices", Slice, FACTS), ("events", Event, EVENTS)]
)
def test_following_the_cursor_returns_every_row_exactly_once_in_order(
    client: Client,
    auth: dict[str, Any],
    big: Node,
    kind: str,
    model: Any,
    total: int,
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    first = client.get(f"/v1/nodes/{big.pk}", **auth).json()
    seen = [row["id"] for row in first[kind]]
    cursor = first[f"{kind}_next"]
    pages = 0
    while cursor:
        with django_assert_num_queries(
            6
        ):  # the token and its rate count, the node and aliases, count, page
            response = client.get(
                f"/v1/nodes/{big.pk}/{kind}", {"cursor": cursor, "limit": 300}, **auth
            )
        assert response.status_code == 200, response.content
        page = response.json()
        assert page["node"] == big.pk and page["total"] == total
        assert 0 < len(page[kind]) <= 300
        seen += [row["id"] for row in page[kind]]
        cursor = page["next"]
        pages += 1
    assert seen == _newest_first(model, big)  # each once, newest first, none skipped
    assert pages == -(-(total - DETAIL_LIMIT) // 300)


@pytest.mark.django_db
def test_rows_added_between_pages_neither_repeat_nor_shift_the_next_page(
    client: Client, auth: dict[str, Any], owner: User
) -> None:
    node = make_node(owner=owner, label="Atlas")
    _fill(node, facts=10, events=0)
    first = client.get(f"/v1/nodes/{node.pk}?limit=4", **auth).json()
    Slice.objects.create(owner=owner, node=node, text="newer", created_at=START + timedelta(days=9))
    rest = client.get(
        f"/v1/nodes/{node.pk}/slices", {"cursor": first["slices_next"], "limit": 100}, **auth
    ).json()
    ids = [s["id"] for s in first["slices"]] + [s["id"] for s in rest["slices"]]
    assert sorted(ids) == sorted(
        Slice.objects.filter(node=node).exclude(text="newer").values_list("id", flat=True)
    )
    assert rest["next"] is None and rest["total"] == 11


@pytest.mark.django_db
def test_a_bad_or_foreign_cursor_is_a_clear_400_and_another_owners_node_a_404(
    client: Client, auth: dict[str, Any], owner: User, big: Node
) -> None:
    other = make_node(owner=owner, label="Borealis")
    events_cursor = client.get(f"/v1/nodes/{big.pk}", **auth).json()["events_next"]
    for cursor in ("nonsense", "W10", events_cursor, cursor_encode("slices", other.pk, (START, 1))):
        response = client.get(f"/v1/nodes/{big.pk}/slices", {"cursor": cursor}, **auth)
        assert response.status_code == 400, (cursor, response.content)
        assert response.json()["code"] == "invalid_input"
        assert response.json()["message"].startswith("cursor: ")
    assert client.get(f"/v1/nodes/{big.pk}?cursor=x", **auth).status_code == 400
    assert client.get(f"/v1/nodes/{big.pk}/slices?limit=501", **auth).status_code == 400

    stranger = User.objects.create_user("stranger", password="x-long-password")
    theirs: dict[str, Any] = {
        "HTTP_AUTHORIZATION": f"Bearer {token_create(owner=stranger, name='t')[1]}"
    }
    for path in (f"/v1/nodes/{big.pk}", f"/v1/nodes/{big.pk}/slices", f"/v1/nodes/{big.pk}/events"):
        response = client.get(path, **theirs)
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert client.get(f"/v1/nodes/{big.pk}/slices").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_open_nodes_pages_observations_and_the_cursor_returns_each_once(
    server_url: str, owner: User, secret: str
) -> None:
    node = make_node(owner=owner, label="Atlas")
    _fill(node, events=0)
    make_node(owner=owner, label="Borealis")
    graph = ok(call(server_url, secret, "open_nodes", {"names": ["Atlas", "Borealis"]}))
    atlas = next(e for e in graph["entities"] if e["name"] == "Atlas")
    current = list(
        Slice.objects.filter(node=node, is_current=True)
        .order_by("created_at", "id")
        .values_list("text", flat=True)
    )
    assert atlas["observationCount"] == len(current) == FACTS * 4 // 5
    assert atlas["observations"] == current[:DETAIL_LIMIT]
    assert len(json.dumps(graph)) < 10_000

    async def follow(cursor: str) -> list[str]:
        seen: list[str] = []
        async with connect(server_url, secret) as client:  # one session: the token's rate
            while cursor:
                page = ok(
                    await client.call_tool("open_nodes", {"names": ["Atlas"], "cursor": cursor})
                )
                (entity,) = page["entities"]
                assert len(entity["observations"]) <= DETAIL_LIMIT
                assert entity["observationCount"] == len(current)
                seen += entity["observations"]
                cursor = entity["nextCursor"]
        return seen

    assert atlas["observations"] + anyio.run(follow, atlas["nextCursor"]) == current

    wrong = call(
        server_url, secret, "open_nodes", {"names": ["Borealis"], "cursor": atlas["nextCursor"]}
    )
    assert wrong.is_error and "another entity" in wrong.content[0].text
    bad = call(server_url, secret, "open_nodes", {"names": ["Atlas"], "cursor": "nonsense"})
    assert bad.is_error and "cursor" in bad.content[0].text
