"""Two clients editing one memory at once with the same If-Match: one wins, one gets 412.

Needs two real connections and row locks, so it runs on PostgreSQL; on SQLite the database
lock serialises the writers and the stale check alone is tested in test_api_history.py.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client

from memory.models import Node, Revision
from memory.services import nodes as nodes_module
from memory.services.tokens import token_create
from tests.factories import make_node, make_user

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs two real connections and row locks: runs on PostgreSQL "
    "(DATABASE_URL=postgres://...); the stale check on one connection is tested elsewhere",
)


def wait_for_lock_wait(timeout: float = 30.0) -> None:
    """Block until some other backend of this database waits on a lock."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("no backend ever waited on a lock")


class Patcher(threading.Thread):
    def __init__(self, path: str, secret: str, summary: str) -> None:
        super().__init__()
        self.path, self.secret, self.summary = path, secret, summary
        self.status: int | None = None
        self.body: dict | None = None

    def run(self) -> None:
        try:
            response = Client().patch(
                self.path,
                data=json.dumps({"summary": self.summary}),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {self.secret}",
                HTTP_IF_MATCH='"1"',
            )
            self.status, self.body = response.status_code, response.json()
        finally:
            connections.close_all()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_patches_with_one_if_match_give_one_200_and_one_412(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache.clear()
    owner = make_user("racer")
    secret = token_create(owner=owner, name="two tabs")[1]
    node = make_node(owner=owner, label="Boxing")
    locked, release = threading.Event(), threading.Event()
    real = nodes_module._node_update

    def hold_the_lock(*args: Any, **kwargs: Any) -> Any:
        if not locked.is_set():
            locked.set()  # the first writer holds the row lock from here
            assert release.wait(30), "never released"
        return real(*args, **kwargs)

    monkeypatch.setattr(nodes_module, "_node_update", hold_the_lock)
    path = f"/v1/nodes/{node.pk}"
    first, second = Patcher(path, secret, "first"), Patcher(path, secret, "second")
    first.start()
    try:
        assert locked.wait(30)
        second.start()
        wait_for_lock_wait()  # the second waits on the first's row lock
    finally:
        release.set()
        first.join(30)
        second.join(30)

    assert (first.status, second.status) == (200, 412), (first.body, second.body)
    assert second.body is not None
    assert (second.body["code"], second.body["current_revision"]) == ("stale_revision", 2)
    node.refresh_from_db()
    assert (node.summary, node.revision) == ("first", 2)
    assert Revision.objects.filter(kind="node", object_id=node.pk).count() == 1
    Node.objects.for_owner(owner).delete()
    owner.delete()
