"""``manage.py mcp_stdio`` with the SDK's stdio client, and ``create_token``.

The server is a separate process, so it gets a database of its own: a fresh SQLite file
migrated by ``manage.py migrate``, with a user and a token made by the real commands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    path = tmp_path_factory.mktemp("stdio") / "db.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{path}",
        "UME_INSECURE_DEV_KEY": "1",
        "DJANGO_SUPERUSER_PASSWORD": "pw-for-tests-1",
    }
    assert manage(env, "migrate", "--noinput").returncode == 0
    made = manage(env, "createsuperuser", "--noinput", "--username", "ada", "--email", "a@x.org")
    assert made.returncode == 0, made.stderr
    return env


def stdio(env: dict[str, str], secret: str) -> StdioServerParameters:
    """``manage.py mcp_stdio`` acting with ``secret``, as a desktop client starts it."""
    return StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio", "--token", secret],
        env=env,
        cwd=ROOT,
    )


def test_create_token_prints_the_secret_once(env: dict[str, str]) -> None:
    plain = manage(env, "create_token", "--user", "ada", "--name", "desktop")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.strip().startswith("ume_") and "shown once" in plain.stderr
    data = json.loads(
        manage(
            env,
            "create_token",
            "--user",
            "ada",
            "--name",
            "reader",
            "--scopes",
            "memory:read",
            "--json",
        ).stdout
    )
    assert data["scopes"] == ["memory:read"] and data["secret"].startswith("ume_")
    assert manage(env, "create_token", "--user", "nobody", "--name", "x").returncode != 0
    bad = manage(env, "create_token", "--user", "ada", "--name", "x", "--scopes", "admin")
    assert bad.returncode != 0 and "unknown scope" in bad.stderr


def test_mcp_stdio_lists_and_calls_tools(env: dict[str, str]) -> None:
    created = manage(env, "create_token", "--user", "ada", "--name", "stdio", "--json")
    secret = json.loads(created.stdout)["secret"]
    params = stdio(env, secret)

    async def go() -> Any:
        async with Client(params, mode="legacy") as client:
            tools = await client.list_tools()
            saved = await client.call_tool("save_memory", {"text": "I started boxing last week."})
            pending = await client.call_tool("list_pending_candidates", {})
            bad = await client.call_tool("recall_memory", {"query": ""})
            return tools, saved, pending, bad

    tools, saved, pending, bad = anyio.run(go)
    assert "save_memory" in {t.name for t in tools.tools}
    assert not saved.is_error and saved.structured_content["source"] == "mcp"
    assert not pending.is_error and "count" in pending.structured_content
    assert bad.is_error


def test_mcp_stdio_refuses_a_bad_token(env: dict[str, str]) -> None:
    result = manage(env, "mcp_stdio", "--token", "ume_not-a-token")
    assert result.returncode != 0 and "revoked or expired" in result.stderr


def test_mcp_stdio_lists_a_read_only_token_only_the_read_tools(env: dict[str, str]) -> None:
    created = manage(
        env, "create_token", "--user", "ada", "--name", "r", "--scopes", "memory:read", "--json"
    )
    secret = json.loads(created.stdout)["secret"]
    params = stdio(env, secret)

    async def go() -> Any:
        async with Client(params, mode="legacy") as client:
            tools = await client.list_tools()
            refused = await client.call_tool("save_memory", {"text": "I started boxing."})
            return tools, refused

    tools, refused = anyio.run(go)
    names = {t.name for t in tools.tools}
    assert "recall_memory" in names and "read_graph" in names
    assert not names & {"save_memory", "forget_memory", "create_entities", "delete_entities"}
    assert refused.is_error and "insufficient_scope" in refused.content[0].text
