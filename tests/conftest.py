"""Shared fixtures: a cast of users and plain factory functions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_user


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def other_user(db):
    return make_user("other")


@pytest.fixture
def is_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


@pytest.fixture
def User():
    return get_user_model()


# The stub LLM server fixture, available to every test module.
from tests.llm_stub import llm_server  # noqa: E402,F401


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last. Playwright's sync API keeps an asyncio loop running in the main
    thread for the whole session once it starts, and the MCP tests need to start their own."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
