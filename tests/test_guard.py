"""The ASGI guard (ume/guard.py): limits before the body is read, 503 when the database is
down, JSON-RPC errors on /mcp. Driven through the real router, ``ume.asgi.application``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from memory.services.tokens import token_create

ROOT = Path(__file__).resolve().parent.parent


def asgi_call(
    path: Any, *, method: Any = "POST", headers: Any = (), chunks: Any = (), chunk_size: Any = 0
) -> Any:
    """Run one request through ``ume.asgi.application``; returns (status, headers, body, bytes
    of the body the app pulled from the client)."""
    from ume.asgi import application

    pulled = {"bytes": 0}
    chunks = list(chunks)
    sent: list[dict] = []

    async def receive() -> Any:
        if chunks:
            body = chunks.pop(0)
            pulled["bytes"] += len(body)
            return {"type": "http.request", "body": body, "more_body": bool(chunks)}
        await anyio.sleep(3600)  # a client still sending (or gone quiet)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers]
        + [(b"host", b"127.0.0.1:8000")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }

    async def go() -> None:
        with anyio.fail_after(20):
            await application(scope, receive, send)

    anyio.run(go)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    head = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], head, body, pulled["bytes"]


@pytest.mark.django_db(transaction=True)
def test_an_oversized_declared_body_is_refused_before_a_byte_is_read(owner: User) -> None:
    secret = token_create(owner=owner, name="t")[1]
    status, head, body, pulled = asgi_call(
        "/v1/memories",
        headers=[("content-length", str(200 * 1024 * 1024)), ("authorization", f"Bearer {secret}")],
        chunks=[b"x" * 65536],
    )
    assert (status, json.loads(body)["code"]) == (413, "payload_too_large")
    assert pulled == 0


@pytest.mark.django_db(transaction=True)
def test_an_unauthenticated_api_write_is_refused_before_its_body_is_read() -> None:
    status, head, body, pulled = asgi_call(
        "/v1/memories",
        headers=[("content-length", "5000000"), ("content-type", "application/json")],
        chunks=[b"{" * 65536],
    )
    assert status == 401 and json.loads(body)["code"] == "unauthorized"
    assert head["www-authenticate"].startswith("Bearer")
    assert pulled == 0


@pytest.mark.django_db(transaction=True)
def test_a_chunked_body_is_cut_off_at_the_limit_not_spooled(settings: Settings) -> None:
    settings.UME_MAX_FORM_BYTES = 256 * 1024
    chunk = b"username=a&password=" + b"p" * 65516  # 64 KB
    status, head, body, pulled = asgi_call(
        "/login/",
        headers=[("content-type", "application/x-www-form-urlencoded")],
        chunks=[chunk] * 1600,  # 100 MB if it were all read
    )
    assert status == 413 and json.loads(body)["code"] == "payload_too_large"
    assert pulled <= 256 * 1024 + 65536


@pytest.mark.django_db(transaction=True)
def test_a_body_within_the_limit_still_reaches_the_view(owner: User) -> None:
    secret = token_create(owner=owner, name="t")[1]
    data = json.dumps({"text": "I started boxing last week."}).encode()
    status, _head, body, _pulled = asgi_call(
        "/v1/memories",
        headers=[
            ("content-length", str(len(data))),
            ("content-type", "application/json"),
            ("authorization", f"Bearer {secret}"),
        ],
        chunks=[data[:10], data[10:]],
    )
    assert status == 200, body
    assert json.loads(body)["outcome"] == "wrote"


# --- the database is down ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def dead_database_server() -> Iterator[Any]:
    """ume served by uvicorn with its database on a port where nothing listens."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://nobody@127.0.0.1:{_free_port()}/gone",
        "UME_INSECURE_DEV_KEY": "1",
        "UME_LOG_LEVEL": "CRITICAL",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "ume.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "critical",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url + "/v1/nope", timeout=1)
            break
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(10)


AUTH = {"Authorization": "Bearer ume_" + "x" * 40}


def test_the_api_answers_503_json_with_retry_after_when_the_database_is_down(
    dead_database_server: Any,
) -> None:
    for response in (
        httpx.post(dead_database_server + "/v1/recall", json={"query": "boxing"}, headers=AUTH),
        httpx.get(dead_database_server + "/v1/nodes", headers=AUTH),
    ):
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "unavailable"
        assert response.headers["retry-after"] == "5"


def test_mcp_answers_503_json_rpc_when_the_database_is_down(dead_database_server: Any) -> None:
    response = httpx.post(
        dead_database_server + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**AUTH, "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.json()["error"]["data"]["code"] == "unavailable"
