"""One person's slow work never delays another's, on a real server and real PostgreSQL.

Person A's barrier row is locked from another connection (``SELECT ... FOR UPDATE`` in an open
transaction, as a long write or delete-all of A's would hold it), so A's MCP saves wait on
it. While the lock is still held, person B's ``tools/list`` and ``recall_memory`` (the official
MCP client) and B's ``/v1/`` calls must all be answered: the test releases A's lock only after
B's calls are done, so a B call that waited for the lock could not finish in time.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memory.models import DeletionBarrier
from memory.services.barrier import barrier_ensure
from memory.services.tokens import token_create
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
# More of A's saves than any thread pool of the server has threads.
A_CALLS = 40
# How long B's calls may take in all: far longer than they need, far shorter than A's lock
# is held when B is blocked behind it (until the test gives up and releases it).
B_BOUND = 30.0
# How long to wait for every one of A's saves to be waiting on the lock or answered (before the
# fix the saves beyond the server's threads are never answered while the lock is held).
PILE_UP_BOUND = 30.0


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")


def _dsn() -> str:
    s = connection.settings_dict
    return (
        f"host={s['HOST'] or '127.0.0.1'} port={s['PORT'] or 5432} dbname={s['NAME']} "
        f"user={s['USER']}" + (f" password={s['PASSWORD']}" if s["PASSWORD"] else "")
    )


@contextmanager
def barrier_locked(owner: User) -> Iterator[psycopg.Connection]:
    """``owner``'s barrier row locked by another connection until the block ends."""
    barrier_ensure(owner)
    row = DeletionBarrier.objects.for_owner(owner).get()
    with psycopg.connect(_dsn()) as conn:
        conn.execute(
            f"SELECT id FROM {DeletionBarrier._meta.db_table} WHERE id = %s FOR UPDATE", [row.pk]
        )
        try:
            yield conn
        finally:
            conn.rollback()


def lock_waiters(conn: psycopg.Connection) -> int:
    """Backends of this database waiting for a lock. ``conn`` is in autocommit: in a
    transaction, pg_stat_activity would show the same snapshot every time."""
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    ).fetchone()
    return int(row[0]) if row else 0


def save_over_http(url: str, secret: str, n: int) -> int:
    """One ``tools/call save_memory`` as a stateless request; returns the HTTP status."""
    body = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "save_memory", "arguments": {"text": f"I started boxing, take {n}."}},
    }
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    return httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=300).status_code


async def b_calls(url: str, secret: str) -> dict[str, Any]:
    """B's calls: tools/list and recall_memory through the official client, then /v1/."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        listed = await client.list_tools()
        recalled = await client.call_tool("recall_memory", {"query": "boxing"})
    headers = {"Authorization": f"Bearer {secret}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=B_BOUND) as api:
        recall = await api.post("/v1/recall", json={"query": "boxing"})
        nodes = await api.get("/v1/nodes")
        saved = await api.post("/v1/memories", json={"text": "I play chess on Sundays."})
    return {
        "tools": {t.name for t in listed.tools},
        "recall_error": recalled.is_error,
        "recall": recalled.structured_content,
        "api_recall": recall.status_code,
        "api_nodes": nodes.status_code,
        "api_save": saved.status_code,
    }


def run_b_while_a_waits(url: str, a: User, a_secret: str, b_secret: str) -> dict[str, Any]:
    """A's saves pile up on A's locked barrier row; B's calls run meanwhile. Returns what B
    got (or that B did not finish while A's lock was held) and A's answers."""
    with (
        barrier_locked(a) as lock,
        psycopg.connect(_dsn(), autocommit=True) as watch,
        concurrent.futures.ThreadPoolExecutor(A_CALLS + 1) as pool,
    ):
        a_saves = [pool.submit(save_over_http, url, a_secret, n) for n in range(A_CALLS)]
        # Every one of A's saves is either waiting on the lock or already answered.
        deadline = time.monotonic() + PILE_UP_BOUND
        while time.monotonic() < deadline:
            answered = sum(f.done() for f in a_saves)
            if lock_waiters(watch) + answered >= A_CALLS:
                break
            time.sleep(0.05)
        waiting_when_b_started = lock_waiters(watch)
        b = pool.submit(anyio.run, b_calls, url, b_secret)
        try:
            got = b.result(timeout=B_BOUND)
            finished_while_locked = True
        except concurrent.futures.TimeoutError:
            got, finished_while_locked = {}, False
        still_locked = lock_waiters(watch) >= 1
        lock.rollback()  # releases A's lock: A's waiting saves (and a blocked B) go on
        a_statuses = [f.result(timeout=300) for f in a_saves]
        if not finished_while_locked:
            b.result(timeout=300)
    return {
        "b": got,
        "b_finished_while_locked": finished_while_locked,
        "a_still_waiting_after_b": still_locked,
        "a_waiting_when_b_started": waiting_when_b_started,
        "a_statuses": a_statuses,
    }


def _people() -> tuple[User, str, User, str]:
    a, b = make_user(f"a-{uuid.uuid4().hex[:6]}"), make_user(f"b-{uuid.uuid4().hex[:6]}")
    return a, token_create(owner=a, name="a")[1], b, token_create(owner=b, name="b")[1]


def assert_b_was_not_held_up(outcome: dict[str, Any], cap: int | None = None) -> None:
    from django.conf import settings

    assert outcome["b_finished_while_locked"], outcome
    assert outcome["a_still_waiting_after_b"], "A's lock was not in the way of anything"
    b = outcome["b"]
    assert "recall_memory" in b["tools"] and "save_memory" in b["tools"]
    assert not b["recall_error"], b["recall"]
    assert (b["api_recall"], b["api_nodes"], b["api_save"]) == (200, 200, 200), b
    cap = int(settings.UME_MCP_CALLS_PER_PERSON) if cap is None else cap
    # A had at most ``cap`` requests in the server at once; the rest were told to retry.
    assert outcome["a_waiting_when_b_started"] <= cap, outcome
    statuses = outcome["a_statuses"]
    assert statuses.count(200) >= 1 and set(statuses) <= {200, 429}, statuses


@override_settings(UME_API_RATE_LIMIT=10_000)
def test_a_persons_calls_waiting_on_a_lock_never_hold_up_another_persons(
    live_asgi_url: str,
) -> None:
    a, a_secret, _b, b_secret = _people()
    outcome = run_b_while_a_waits(live_asgi_url, a, a_secret, b_secret)
    assert_b_was_not_held_up(outcome)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def gunicorn(**env: str) -> Iterator[str]:
    """``gunicorn ume.asgi:application -k uvicorn_worker.UvicornWorker`` as docs/deploy.md runs
    it (one worker, so every request meets the same thread pools), on the test database."""
    s = connection.settings_dict
    database_url = (
        f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    )
    port = _free_port()
    environ = dict(os.environ)
    environ.update(
        {
            "DATABASE_URL": database_url,
            "SECRET_KEY": uuid.uuid4().hex * 2,
            "DEBUG": "false",
            "UME_HTTPS": "0",
            "UME_LOG_LEVEL": "CRITICAL",
            "ALLOWED_HOSTS": "127.0.0.1",
            "UME_MCP_ALLOWED_HOSTS": "127.0.0.1:*",
            **env,
        }
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "ume.asgi:application",
            "-k",
            "uvicorn_worker.UvicornWorker",
            "--workers",
            "1",
            "--bind",
            f"127.0.0.1:{port}",
            "--graceful-timeout",
            "5",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "gunicorn did not answer"
            try:
                if httpx.get(f"{url}/v1/", timeout=2).status_code == 404:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_under_gunicorn_too() -> None:
    a, a_secret, _b, b_secret = _people()
    with gunicorn(UME_API_RATE_LIMIT="10000", UME_MCP_CALLS_PER_PERSON="3") as url:
        outcome = run_b_while_a_waits(url, a, a_secret, b_secret)
    assert_b_was_not_held_up(outcome, cap=3)
