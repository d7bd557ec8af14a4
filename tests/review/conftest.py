from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memory.models import Candidate, Evidence, Node
from tests.factories import make_candidate, make_node


@pytest.fixture
def boxing(owner: User) -> Node:
    return make_node(owner=owner, label="Boxing", category="skill", aliases=("boxe",))


@pytest.fixture
def piano(owner: User, boxing: Node) -> Candidate:
    candidate = make_candidate(owner=owner, label="Piano", possible_existing_node=boxing)
    Evidence.objects.create(owner=owner, candidate=candidate, quote="I started piano lessons")
    return candidate
