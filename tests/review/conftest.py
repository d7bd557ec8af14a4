from __future__ import annotations

from typing import Any

import pytest

from memory.models import Evidence
from tests.factories import make_candidate, make_node

HX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


@pytest.fixture
def other_client(client, other_user):
    client.force_login(other_user)
    return client


@pytest.fixture
def boxing(owner):
    return make_node(owner=owner, label="Boxing", category="skill", aliases=("boxe",))


@pytest.fixture
def piano(owner, boxing):
    candidate = make_candidate(owner=owner, label="Piano", possible_existing_node=boxing)
    Evidence.objects.create(owner=owner, candidate=candidate, quote="I started piano lessons")
    return candidate
