"""A memory deleted with make-it-stick stays deleted under every other spelling of its name:
no rename, alias, promotion, merge, rollback, undo or save gives a node a name its
suppression covers ("Moonbeam" for "Project Moonbeam"), and a name that only shares a word
with it is kept. Through the services and the API (the dashboard: tests/browser, and in Chromium tests/e2e)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from memory.models import Alias, Candidate, Node, Receipt, Revision, Suppression
from memory.services.details import SuppressedAlias, alias_update, detail_undo
from memory.services.ingest import ingest_text
from memory.services.labels import LabelSuppressed
from memory.services.nodes import SuppressedName, alias_add, node_delete, node_update
from memory.services.review import (
    SuppressedPromotion,
    candidate_merge,
    candidate_promote,
    merge_preview,
)
from memory.services.rollback import SuppressedRollback, revision_rollback
from memory.services.rules import memory_rule_update
from memory.services.tokens import token_create
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


@pytest.fixture
def forgotten(owner: User) -> Suppression:
    """ "Project Moonbeam", deleted with make-it-stick."""
    node = make_node(owner=owner, label="Project Moonbeam", category="project")
    (suppression,) = node_delete(node=node, stick=True)
    return suppression


@pytest.fixture
def atlas(owner: User) -> Node:
    return make_node(owner=owner, label="Atlas", category="project")


def unchanged(node: Node) -> None:
    before = (node.label, node.canonical_key, node.revision)
    aliases = sorted(Alias.objects.filter(node=node).values_list("alias", flat=True))
    node.refresh_from_db()
    assert (node.label, node.canonical_key, node.revision) == before
    assert sorted(Alias.objects.filter(node=node).values_list("alias", flat=True)) == aliases


# --- the services -----------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["Moonbeam", "Project Moonbeam", "the moonbeam project"])
def test_a_rename_to_a_spelling_of_a_forgotten_name_is_refused(
    atlas: Node, forgotten: Suppression, label: str
) -> None:
    with pytest.raises(SuppressedName) as refused:
        node_update(node=atlas, label=label)
    assert refused.value.suppression == forgotten
    assert "Project Moonbeam" in str(refused.value) or "is suppressed" in str(refused.value)
    assert f"suppression {forgotten.pk}" in str(refused.value)
    unchanged(Node.objects.get(pk=atlas.pk))
    assert not Revision.objects.filter(kind="node", object_id=atlas.pk, number=2).exists()


def test_a_rename_to_an_excluded_name_with_its_title_dropped_is_refused(atlas: Node) -> None:
    """A memory rule that excludes "Mr Adebayo" refuses "Adebayo" as a name, not "Mrs
    Adebayo" (another person of the family)."""
    memory_rule_update(owner=atlas.owner, changes={"excludes": ["Mr Adebayo"]})
    with pytest.raises(LabelSuppressed, match="Mr Adebayo"):
        node_update(node=atlas, label="Adebayo")
    unchanged(Node.objects.get(pk=atlas.pk))
    node_update(node=atlas, label="Mrs Adebayo")
    atlas.refresh_from_db()
    assert atlas.label == "Mrs Adebayo"


def test_a_rename_that_shares_only_a_common_word_is_made(
    atlas: Node, forgotten: Suppression
) -> None:
    node_update(node=atlas, label="Project Sunbeam")
    atlas.refresh_from_db()
    assert atlas.label == "Project Sunbeam"


def test_a_rename_that_shares_a_distinctive_word_asks_and_can_be_kept_as_an_exception(
    atlas: Node, forgotten: Suppression
) -> None:
    """ "Moonbeam Cafe" is not the forgotten "Project Moonbeam", but it shares its distinctive
    word: refused as looking like it, until the person says it is something else; then it is
    made, and recorded as the suppression's exception (which still binds its own names)."""
    with pytest.raises(SuppressedName) as refused:
        node_update(node=atlas, label="Moonbeam Cafe")
    assert refused.value.suppression == forgotten and not refused.value.exact
    assert "looks like something you asked to forget" in str(refused.value)
    unchanged(Node.objects.get(pk=atlas.pk))
    node_update(node=atlas, label="Moonbeam Cafe", keep_suppression=True)
    atlas.refresh_from_db()
    assert atlas.label == "Moonbeam Cafe"
    forgotten.refresh_from_db()
    assert forgotten.exceptions == ["moonbeam cafe"] and forgotten.lifted_at is None
    with pytest.raises(SuppressedName):
        node_update(node=atlas, label="Moonbeam", keep_suppression=True)


def test_an_alias_that_names_the_forgotten_memory_is_refused(
    atlas: Node, forgotten: Suppression
) -> None:
    with pytest.raises(SuppressedName):
        alias_add(node=atlas, alias="Moonbeam")
    unchanged(atlas)
    assert alias_add(node=atlas, alias="Moon").alias == "Moon"


def test_correcting_an_alias_into_the_forgotten_name_is_refused(
    owner: User, atlas: Node, forgotten: Suppression
) -> None:
    alias = alias_add(node=atlas, alias="Beam")
    with pytest.raises(SuppressedAlias) as refused:
        alias_update(alias=alias, text="Moonbeam")
    assert isinstance(refused.value, LabelSuppressed)
    alias.refresh_from_db()
    assert alias.alias == "Beam"
    assert alias_update(alias=alias, text="Sunbeam") is not None
    alias.refresh_from_db()
    assert alias.alias == "Sunbeam"


def test_undoing_an_alias_correction_back_to_a_forgotten_name_is_refused(
    owner: User, atlas: Node
) -> None:
    alias = alias_add(node=atlas, alias="Moonbeam")
    receipt = alias_update(alias=alias, text="Lunar")
    assert receipt is not None
    node_delete(node=make_node(owner=owner, label="Project Moonbeam"), stick=True)
    with pytest.raises(SuppressedAlias):
        detail_undo(receipt=receipt)
    alias.refresh_from_db()
    receipt.refresh_from_db()
    assert alias.alias == "Lunar" and receipt.undone_at is None


def test_promoting_under_a_forgotten_name_is_refused(owner: User, forgotten: Suppression) -> None:
    candidate = make_candidate(owner=owner, label="Moonbeem", category_guess="project")
    with pytest.raises(SuppressedPromotion):
        candidate_promote(candidate=candidate, by=owner, label="Moonbeam")
    candidate.refresh_from_db()
    assert candidate.status == "pending"
    assert not Node.objects.for_owner(owner).exists()
    node = candidate_promote(candidate=candidate, by=owner, label="Moonlight")
    assert node.label == "Moonlight"


def test_a_merge_never_keeps_a_forgotten_name_as_an_alias(
    owner: User, atlas: Node, forgotten: Suppression
) -> None:
    guess = make_candidate(owner=owner, label="Moonbeam", category_guess="project")
    preview = merge_preview(candidate=guess, node=atlas)
    assert preview.alias is None and "suppressed" in preview.alias_refused
    candidate_merge(candidate=guess, node=atlas, by=owner)
    assert not Alias.objects.filter(node=atlas).exists()
    other = make_candidate(owner=owner, label="Atlas App", category_guess="project")
    candidate_merge(candidate=other, node=atlas, by=owner)
    assert list(Alias.objects.filter(node=atlas).values_list("alias", flat=True)) == ["Atlas App"]


def test_a_rollback_to_a_forgotten_name_is_refused_with_a_receipt(owner: User, atlas: Node) -> None:
    node_update(node=atlas, label="Moonbeam")  # revision 2, before it was forgotten
    node_update(node=atlas, label="Orbit")  # revision 3
    node_update(node=atlas, label="Comet")  # revision 4
    node_delete(node=make_node(owner=owner, label="Project Moonbeam"), stick=True)
    atlas.refresh_from_db()
    with pytest.raises(SuppressedRollback):
        revision_rollback(owner=owner, kind="node", object_id=atlas.pk, number=2)
    unchanged(atlas)
    refused = Receipt.objects.for_owner(owner).get(outcome="rejected_input")
    assert "Project Moonbeam" in refused.error
    revision_rollback(owner=owner, kind="node", object_id=atlas.pk, number=3)
    atlas.refresh_from_db()
    assert atlas.label == "Orbit"


def _said(owner: User, text: str) -> Receipt:
    return ingest_text(
        owner=owner,
        text=json.dumps({"messages": [{"id": "m1", "role": "user", "content": text}]}),
        name=text[:20],
        extractor="rules",
        source_time=datetime(2026, 4, 3, tzinfo=UTC),
    )


def test_a_save_naming_it_the_way_the_extractor_does_is_blocked(
    owner: User, forgotten: Suppression
) -> None:
    receipt = _said(owner, "I am working on Project Moonbeam again")
    assert not Candidate.objects.for_owner(owner).exists()
    assert not Node.objects.for_owner(owner).exists()
    assert receipt.reasons and set(receipt.reasons) == {"suppressed_blocked"}
    forgotten.refresh_from_db()
    assert forgotten.hit_count >= 1
    _said(owner, "I am working on Project Sunbeam again")
    assert list(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True)) == [
        "Sunbeam"
    ]


# --- the API ------------------------------------------------------------------------------------


@pytest.fixture
def auth(owner: User) -> Iterator[dict[str, Any]]:
    cache.clear()
    yield {"HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='tool')[1]}"}
    cache.clear()


def _send(client: Client, auth: dict[str, Any], method: str, path: str, body: Any) -> Any:
    return getattr(client, method)(
        path, data=json.dumps(body), content_type="application/json", **auth
    )


@pytest.mark.parametrize("body", [{"label": "Moonbeam"}, {"add_alias": "Moonbeam"}])
def test_the_api_refuses_a_forgotten_name_with_409(
    client: Client, auth: dict[str, Any], atlas: Node, forgotten: Suppression, body: Any
) -> None:
    refused = _send(client, auth, "patch", f"/v1/nodes/{atlas.pk}", body)
    assert refused.status_code == 409
    answer = refused.json()
    assert answer["code"] == "suppressed" and answer["suppression_id"] == forgotten.pk
    assert "Project Moonbeam" in answer["message"]
    unchanged(atlas)


def test_the_api_renames_to_a_name_that_only_shares_a_word(
    client: Client, auth: dict[str, Any], atlas: Node, forgotten: Suppression
) -> None:
    made = _send(client, auth, "patch", f"/v1/nodes/{atlas.pk}", {"label": "Sunbeam"})
    assert made.status_code == 200 and made.json()["label"] == "Sunbeam"


def test_the_api_refuses_a_promotion_under_a_forgotten_name(
    client: Client, auth: dict[str, Any], owner: User, forgotten: Suppression
) -> None:
    candidate = make_candidate(owner=owner, label="Moonbeem", category_guess="project")
    path = f"/v1/candidates/{candidate.pk}/promote"
    refused = _send(client, auth, "post", path, {"label": "Moonbeam"})
    assert refused.status_code == 409 and refused.json()["code"] == "suppressed"
    candidate.refresh_from_db()
    assert candidate.status == "pending"
    assert _send(client, auth, "post", path, {"label": "Moonlight"}).status_code == 200
