from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memory.models import Candidate, Evidence, Node
from tests.factories import make_candidate, make_node

HX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def owner_client(client: Client, owner: User) -> Client:
    client.force_login(owner)
    return client


@pytest.fixture
def other_client(client: Client, other_user: User) -> Client:
    client.force_login(other_user)
    return client


@pytest.fixture
def boxing(owner: User) -> Node:
    return make_node(owner=owner, label="Boxing", category="skill", aliases=("boxe",))


@pytest.fixture
def piano(owner: User, boxing: Node) -> Candidate:
    candidate = make_candidate(owner=owner, label="Piano", possible_existing_node=boxing)
    Evidence.objects.create(owner=owner, candidate=candidate, quote="I started piano lessons")
    return candidate
