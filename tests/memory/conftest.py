"""Fixtures of the MCP tests (tests/memory/test_mcp*.py and history/test_mcp_history.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memory.services.tokens import token_create


@pytest.fixture(scope="module")
def server_url(live_asgi_url: str) -> str:
    """The session's live server (tests/conftest.py): /mcp to the SDK, the rest to Django."""
    return f"{live_asgi_url}/mcp"


@pytest.fixture
def secret(owner: User) -> str:
    """A token of ``owner`` with every scope."""
    return token_create(owner=owner, name="mcp test")[1]
