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
        # With the connection pool, a request waits this long for a connection before its
        # 503 (the documented default is 10 s; the answer is the same, only sooner).
        "UME_DB_POOL_TIMEOUT": "2",
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


# --- uploads need a signed-in session before their body is read --------------------------------


def _post_slowly(base: str, path: str, cookie: str = "") -> tuple[bytes, int]:
    """Declare a 10 MB upload (within every route's limit), send its first 64 KB, then wait for an answer without sending
    more. Returns the answer's head and how many body bytes had been sent by then."""
    host, port = base.removeprefix("http://").split(":")
    declared = 10 * 1024 * 1024
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {declared}\r\n"
        + (f"Cookie: {cookie}\r\n" if cookie else "")
        + "\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(head.encode())
        first = b"--b\r\nContent-Disposition: form-data; name=transcripts; filename=a.txt\r\n\r\n"
        first += b"User: x\n" * 8192
        sock.sendall(first)
        answer = sock.recv(65536)  # blocks until the server answers (or the 20 s timeout)
    return answer, len(first)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/review/uploads/new/", "/admin/memory/node/add/"])
def test_an_upload_from_someone_signed_out_is_refused_before_its_body_is_sent(
    live_asgi_url: str, owner: User, path: str
) -> None:
    # Signed out, a forged session key, and the session of a user since deactivated.
    from django.test import Client

    client = Client()
    client.force_login(owner)
    stale = client.cookies["sessionid"].value
    User.objects.filter(pk=owner.pk).update(is_active=False)
    for cookie in ("", "sessionid=not-a-session", f"sessionid={stale}"):
        answer, sent = _post_slowly(live_asgi_url, path, cookie)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 302 Found", (cookie, answer[:300])
        assert b"location: /login/?next=" + path.replace("/", "%2f").encode() in rest.lower()
        assert sent < 100 * 1024  # answered with 10 MB declared and 64 KB sent


@pytest.mark.django_db(transaction=True)
def test_an_htmx_upload_signed_out_gets_401_json_and_admin_sign_in_still_takes_a_form(
    live_asgi_url: str,
) -> None:
    response = httpx.post(
        f"{live_asgi_url}/review/uploads/new/", headers={"HX-Request": "true"}, content=b"x"
    )
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"
    admin = httpx.get(f"{live_asgi_url}/admin/login/")
    csrf = admin.cookies["csrftoken"]
    form = httpx.post(
        f"{live_asgi_url}/admin/login/",
        data={"username": "nobody", "password": "wrong", "csrfmiddlewaretoken": csrf},
        cookies={"csrftoken": csrf},
    )
    assert form.status_code == 200 and b"correct username and password" in form.content


@pytest.mark.django_db(transaction=True)
def test_a_signed_in_upload_still_reaches_the_view(live_asgi_url: str, owner: User) -> None:
    from django.test import Client

    from memory.models import Transcript

    client = Client()
    client.force_login(owner)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    with httpx.Client(base_url=live_asgi_url, cookies=cookies) as http:
        page = http.get("/review/uploads/")
        assert page.status_code == 200
        response = http.post(
            "/review/uploads/new/",
            data={"csrfmiddlewaretoken": http.cookies["csrftoken"]},
            files={"transcripts": ("chat.txt", b"User: I play chess on Sundays.\n")},
        )
    assert response.status_code == 200, response.text[:500]
    assert Transcript.objects.for_owner(owner).count() == 1
