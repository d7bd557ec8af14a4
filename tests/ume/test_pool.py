"""Database connections under the documented server: each worker's pool bounds them.

The web unit of docs/deploy.md (gunicorn with uvicorn workers) runs each request's synchronous
code in a thread of its own. A connection kept after a request (``CONN_MAX_AGE`` > 0) was
never used again and stayed open, until PostgreSQL refused everyone; now each process borrows
connections from a pool of at most ``UME_DB_POOL_MAX``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from django.db import connection

from tests.factories import make_user
from tests.servers import (
    DocumentedServer,
    database_connections_per_process,
    pg_connections,
)
from tests.ume.test_deploy import documented_environment
from ume.settings import BASE_DIR

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the pool is PostgreSQL's (run with DATABASE_URL=postgres://...)",
)

POOL_MAX = 3
WORKERS = 2


def _database_url(application_name: str) -> str:
    s = connection.settings_dict
    password = f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else ""
    return (
        f"postgres://{quote(s['USER'])}{password}@{s['HOST']}:{s['PORT']}/{s['NAME']}"
        f"?application_name={application_name}"
    )


def _admin_url() -> str:
    s = connection.settings_dict
    password = f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else ""
    return f"postgres://{quote(s['USER'])}{password}@{s['HOST']}:{s['PORT']}/postgres"


def _server_env(application_name: str, **extra: str) -> dict[str, str]:
    """The documented production environment's database settings, on this test database,
    over plain HTTP on loopback."""
    documented = {k: v for k, v in documented_environment().items() if k.startswith("UME_DB_")}
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        **documented,
        "DATABASE_URL": _database_url(application_name),
        "SECRET_KEY": uuid.uuid4().hex * 2,
        "DEBUG": "false",
        "UME_HTTPS": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "UME_MCP_ALLOWED_HOSTS": "127.0.0.1:*",
        "UME_LOG_LEVEL": "WARNING",
        **extra,
    }


class _Peak:
    """Samples each worker's open connections while a burst runs."""

    def __init__(self, workers: list[int], db_port: int) -> None:
        self.workers, self.db_port = workers, db_port
        self.peak = dict.fromkeys(workers, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid, n in database_connections_per_process(self.workers, self.db_port).items():
                self.peak[pid] = max(self.peak[pid], n)
            time.sleep(0.02)

    def __enter__(self) -> _Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


async def _burst(base: str, secrets: list[str], requests: int, concurrency: int) -> list[int]:
    """``requests`` requests, ``concurrency`` at a time: probes, API recalls, MCP recalls, each
    three in turn from the next of ``secrets``' people. One person's MCP calls beyond
    ``UME_MCP_CALLS_PER_PERSON`` in a worker are answered 429 ``busy`` by design
    (``mcp_server/threads.py``), so the load is several people's, as on a shared server."""
    gate = asyncio.Semaphore(concurrency)

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def one(n: int) -> int:
            auth = {"Authorization": f"Bearer {secrets[(n // 3) % len(secrets)]}"}
            mcp = {**auth, "Accept": "application/json, text/event-stream"}
            async with gate:
                if n % 3 == 0:
                    response = await http.get("/readyz")
                elif n % 3 == 1:
                    response = await http.post("/v1/recall", json={"query": "cello"}, headers=auth)
                else:
                    call = {
                        "jsonrpc": "2.0",
                        "id": n,
                        "method": "tools/call",
                        "params": {"name": "recall_memory", "arguments": {"query": "cello"}},
                    }
                    response = await http.post("/mcp", json=call, headers=mcp)
                    if response.status_code == 200 and response.json()["result"].get("isError"):
                        return 599
                return response.status_code

        return await asyncio.gather(*(one(n) for n in range(requests)))


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_burst_leaves_at_most_the_pool_open_per_worker_and_none_beyond_it_after_idling(
    tmp_path: Path,
) -> None:
    from memory.services.tokens import token_create

    secrets = [token_create(owner=make_user(f"pooled{i}"), name="burst")[1] for i in range(3)]
    name = f"ume-pool-{uuid.uuid4().hex[:8]}"
    env = _server_env(name, UME_DB_POOL_MAX=str(POOL_MAX))
    db_port = int(connection.settings_dict["PORT"] or 5432)
    with DocumentedServer(env, workers=WORKERS, log_path=tmp_path / "server.log") as server:
        workers = server.workers()
        with _Peak(workers, db_port) as peak:
            # Four times as many requests at a time as the two pools hold, so that requests
            # wait for a connection, and many times more requests than that in all.
            statuses = asyncio.run(_burst(server.url, secrets, 90, WORKERS * POOL_MAX * 2))
        assert statuses == [200] * 90, server.log()[-3000:]
        # The pool filled (twelve requests at a time over two workers) and went no further.
        assert max(peak.peak.values()) == POOL_MAX, peak.peak
        time.sleep(3)  # idle
        held = database_connections_per_process(workers, db_port)
        assert max(held.values()) <= POOL_MAX, held
        assert pg_connections(_admin_url(), name) <= WORKERS * POOL_MAX
        # A second burst reuses what the pools hold instead of opening more.
        statuses = asyncio.run(_burst(server.url, secrets, 30, WORKERS * POOL_MAX * 2))
        assert statuses == [200] * 30
        assert pg_connections(_admin_url(), name) <= WORKERS * POOL_MAX
    deadline = time.monotonic() + 10
    while pg_connections(_admin_url(), name) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pg_connections(_admin_url(), name) == 0  # a stopped worker leaves nothing open


def _django(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env={**env, "DJANGO_SETTINGS_MODULE": "ume.settings"},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_pool_is_postgresql_only_and_refuses_persistent_connections() -> None:
    base = {"PATH": "/usr/bin:/bin", "UME_INSECURE_DEV_KEY": "1"}
    pg = {**base, "DATABASE_URL": "postgres://ume@127.0.0.1:5432/ume"}
    show = "from django.conf import settings; print(settings.DATABASES['default'])"

    out = _django({**pg, "UME_DB_POOL_MAX": "5", "UME_DB_POOL_MIN": "2"}, show)
    assert out.returncode == 0, out.stderr
    assert "'pool': {'min_size': 2, 'max_size': 5, 'timeout': 10.0}" in out.stdout
    assert "'CONN_MAX_AGE': 0" in out.stdout and "'CONN_HEALTH_CHECKS': True" in out.stdout

    options = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])"
    sqlite = _django({**base, "DATABASE_URL": "sqlite:////tmp/ume-test.sqlite3"}, options)
    assert sqlite.returncode == 0, sqlite.stderr
    assert "timeout" in sqlite.stdout and "'pool'" not in sqlite.stdout

    off = _django({**pg, "UME_DB_POOL_MAX": "0"}, options)
    assert off.returncode == 0 and off.stdout.strip() == "{}", off.stdout + off.stderr

    refused = _django({**pg, "UME_DB_CONN_MAX_AGE": "60"}, show)
    assert refused.returncode != 0
    assert "UME_DB_CONN_MAX_AGE must be 0 while the connection pool is on" in refused.stderr
    bad = _django({**pg, "UME_DB_POOL_MAX": "2", "UME_DB_POOL_MIN": "3"}, show)
    assert bad.returncode != 0 and "UME_DB_POOL_MIN (3) must not be above" in bad.stderr


@pytest.mark.parametrize("url", ["postgres://ume@127.0.0.1:5432/ume", "sqlite:////tmp/u.db"])
def test_the_asgi_server_refuses_persistent_connections_even_without_the_pool(url: str) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "UME_INSECURE_DEV_KEY": "1",
        "DATABASE_URL": url,
        "UME_DB_POOL_MAX": "0",
        "UME_DB_CONN_MAX_AGE": "60",
    }
    out = subprocess.run(
        [sys.executable, "-c", "import ume.asgi"],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode != 0
    assert "UME_DB_CONN_MAX_AGE must be 0 under the ASGI server" in out.stderr
    env["UME_DB_CONN_MAX_AGE"] = "0"
    ok = subprocess.run([sys.executable, "-c", "import ume.asgi"], env=env, cwd=BASE_DIR)
    assert ok.returncode == 0


@needs_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "command", [["ingest", "--pending", "--limit", "5", "--json"], ["cleanup", "--json"]]
)
def test_the_commands_run_on_the_pool_and_leave_nothing_open(command: list[str]) -> None:
    from memory.models import Transcript
    from memory.services.ingest import transcript_store

    owner = make_user("worker-pool")
    transcript_store(
        owner=owner,
        text="user: I started learning the cello last week.",
        name="queued",
        source="upload",
        source_time=None,
    )
    name = f"ume-cmd-{uuid.uuid4().hex[:8]}"
    env = _server_env(name, UME_DB_POOL_MAX="4")
    began = time.monotonic()
    out = subprocess.run(
        [sys.executable, "manage.py", *command],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert time.monotonic() - began < 120  # the pool's threads do not hold the exit
    assert "Traceback" not in out.stderr and "pool" not in out.stderr.lower(), out.stderr
    if command[0] == "ingest":
        assert Transcript.objects.for_owner(owner).get().status == "done"
    assert pg_connections(_admin_url(), name) == 0
