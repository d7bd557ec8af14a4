"""The memory browser's rename and alias forms refuse a name that a make-it-stick deletion
covers, in place, and write nothing; a name that only shares a word is saved."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.models import Alias, Node
from memory.services.nodes import node_delete
from tests.factories import make_node
from tests.htmx import HX

pytestmark = pytest.mark.django_db


@pytest.fixture
def atlas(owner: User) -> Node:
    node_delete(node=make_node(owner=owner, label="Project Moonbeam"), stick=True)
    return make_node(owner=owner, label="Atlas", category="project")


def edit(client: Client, node: Node, label: str) -> Any:
    data = {"label": label, "category": "project", "state": "active", "summary": ""}
    return client.post(reverse("memory:node-edit", args=[node.pk]), data, **HX)


def test_a_rename_to_the_forgotten_name_is_refused_in_place(
    owner_client: Client, atlas: Node
) -> None:
    response = edit(owner_client, atlas, "Moonbeam")
    html = response.content.decode()
    assert response.status_code == 400
    assert html.lstrip().startswith('<header id="node-head"') and 'class="error"' in html
    assert "Project Moonbeam" in html and "lift that suppression" in html
    atlas.refresh_from_db()
    assert (atlas.label, atlas.revision) == ("Atlas", 1)
    assert not Alias.objects.filter(node=atlas).exists()


def test_a_rename_that_only_shares_a_word_is_saved(owner_client: Client, atlas: Node) -> None:
    response = edit(owner_client, atlas, "Sunbeam")
    assert response.status_code == 200 and "Saved." in response.content.decode()
    atlas.refresh_from_db()
    assert atlas.label == "Sunbeam"


def test_an_alias_naming_the_forgotten_memory_is_refused_in_place(
    owner_client: Client, atlas: Node
) -> None:
    path = reverse("memory:alias-add", args=[atlas.pk])
    refused = owner_client.post(path, {"alias": "the Moonbeam project"}, **HX)
    assert refused.status_code == 400 and "Project Moonbeam" in refused.content.decode()
    assert not Alias.objects.filter(node=atlas).exists()
    assert owner_client.post(path, {"alias": "Moon"}, **HX).status_code == 200
    assert list(Alias.objects.filter(node=atlas).values_list("alias", flat=True)) == ["Moon"]
