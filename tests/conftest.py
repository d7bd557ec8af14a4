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
