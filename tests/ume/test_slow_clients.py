"""Slow and surplus clients on the server started as docs/deploy.md starts it (ume/server.py):
dropped with 408 or 503, while others are served, and logged once rather than per byte."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path

import httpx

from tests.servers import HOST, DocumentedServer, documented_web_command


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'slow.sqlite3'}",
        "SECRET_KEY": uuid.uuid4().hex * 2,
        "DEBUG": "false",
        "UME_HTTPS": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "UME_LOG_FORMAT": "json",
        "UME_HTTP_HEADER_TIMEOUT": "2",
        "UME_HTTP_BODY_TIMEOUT": "2",
    }


async def _trickle(port: int, first: bytes, seconds: float) -> tuple[bytes, float]:
    """Send ``first``, then one byte every 0.2 s; what the server answered and when it closed."""
    began = time.monotonic()
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(first)
    await writer.drain()
    answer = b""
    try:
        while time.monotonic() - began < seconds:
            try:
                chunk = await asyncio.wait_for(reader.read(4096), 0.2)
            except TimeoutError:
                writer.write(b"a")
                await writer.drain()
                continue
            if not chunk:
                break
            answer += chunk
    except ConnectionError:
        pass
    writer.close()
    return answer, time.monotonic() - began


def _warnings(log: str) -> list[dict[str, str]]:
    lines = []
    for line in log.splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("logger") == "ume.server":
                lines.append(entry)
    return lines


def test_the_documented_command_uses_the_guarded_worker_with_a_connection_cap() -> None:
    argv = documented_web_command()
    assert argv[argv.index("-k") + 1] == "ume.server.UvicornWorker"
    assert int(argv[argv.index("--worker-connections") + 1]) > 0


def test_slow_headers_and_slow_bodies_are_dropped_once_logged_and_others_served(
    tmp_path: Path,
) -> None:
    with DocumentedServer(_env(tmp_path), workers=1, log_path=tmp_path / "s.log") as server:
        headers = b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        body = (
            b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
        )

        async def run() -> tuple[list[tuple[bytes, float]], list[int]]:
            slow = [_trickle(server.port, headers, 20) for _ in range(30)]
            slow += [_trickle(server.port, body, 20) for _ in range(10)]
            tasks = asyncio.gather(*slow)
            served = []
            async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
                for _ in range(5):
                    await asyncio.sleep(0.5)
                    served.append((await http.get("/healthz")).status_code)
            return await tasks, served

        dropped, served = asyncio.run(run())
        log = server.log()
    assert served == [200] * 5
    for answer, took in dropped:
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert took < 10  # 2 s allowed (a trickle earns a few ms more), far from the 20 s sent
    warnings = _warnings(log)
    # 40 clients dropped, thousands of bytes trickled: one line per kind
    assert [w["message"].split(" whose ")[1][:12] for w in warnings] == [
        "request head",
        "request body",
    ] or [w["message"].split(" whose ")[1][:12] for w in warnings] == [
        "request body",
        "request head",
    ], warnings
    assert len(log.encode()) < 20_000


def test_connections_past_the_cap_are_refused_at_once(tmp_path: Path) -> None:
    env = _env(tmp_path)
    with DocumentedServer(
        env, workers=1, log_path=tmp_path / "c.log", worker_connections=20
    ) as server:

        async def run() -> tuple[list[bytes], int]:
            opened = [await asyncio.open_connection(HOST, server.port) for _ in range(30)]
            answers = []
            for reader, _writer in opened:
                try:
                    answers.append(await asyncio.wait_for(reader.read(200), 0.5))
                except TimeoutError:
                    answers.append(b"")
            for _reader, writer in opened:
                writer.close()
            await asyncio.sleep(0.5)
            async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
                status = (await http.get("/healthz")).status_code
            return answers, status

        answers, status = asyncio.run(run())
        log = server.log()
    refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
    assert len(refused) == 10, answers
    assert status == 200  # once they are gone, the worker serves again
    warnings = [w for w in _warnings(log) if "refused a connection" in w["message"]]
    assert len(warnings) == 1, warnings
