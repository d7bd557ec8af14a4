"""A review decision's receipt tells what is in the store now: a promote shows the memory it
made, a merge the memory it added to, an undone decision says so, and a correction of a
single detail shows the before and after with its own Undo."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.models import Receipt, Slice
from memory.services import details
from memory.services.review import candidate_merge, candidate_promote, candidate_undo
from tests.factories import make_candidate, make_node, make_slice

pytestmark = pytest.mark.django_db
NOTHING = "Nothing from this save is in the store"


def page(client: Any, receipt: Any) -> Any:
    return client.get(reverse("receipts:detail", args=[receipt.pk])).content.decode()


def held_fact(text: Any) -> Any:
    return {"kind": "slice", "label": "Piano", "text": text, "slice_kind": "other"}


def test_a_promote_receipt_shows_the_memory_it_wrote(client: Client, owner: User) -> None:
    client.force_login(owner)
    candidate = make_candidate(owner=owner, label="Piano")
    node = candidate_promote(candidate=candidate, by=owner)
    html = page(client, Receipt.objects.for_owner(owner).get())
    assert NOTHING not in html
    assert reverse("memory:node", args=[node.pk]) in html and "Piano" in html


def test_a_merge_receipt_names_the_memory_and_the_alias(client: Client, owner: User) -> None:
    client.force_login(owner)
    atlas = make_node(owner=owner, label="Atlas", category="project")
    candidate = make_candidate(owner=owner, label="Atlas App", category_guess="project")
    candidate_merge(candidate=candidate, node=atlas, by=owner)
    html = page(client, Receipt.objects.for_owner(owner).get())
    assert NOTHING not in html
    assert (
        "added to the existing memory" in html and reverse("memory:node", args=[atlas.pk]) in html
    )
    assert "alias “Atlas App”" in html


def test_an_undone_promote_says_it_was_undone(client: Client, owner: User) -> None:
    client.force_login(owner)
    candidate = make_candidate(owner=owner, label="Piano")
    candidate_promote(candidate=candidate, by=owner)
    candidate_undo(candidate=candidate, by=owner)
    html = page(client, Receipt.objects.for_owner(owner).get())
    assert "This decision was undone on" in html
    assert '<span class="tag o-undone">Undone</span>' in html


def test_an_undone_merge_no_longer_reads_as_written(client: Client, owner: User) -> None:
    client.force_login(owner)
    atlas = make_node(owner=owner, label="Atlas", category="project")
    candidate = make_candidate(owner=owner, label="Atlas App", category_guess="project")
    candidate_merge(candidate=candidate, node=atlas, by=owner)
    candidate_undo(candidate=candidate, by=owner)
    receipt = Receipt.objects.for_owner(owner).get()
    html = page(client, receipt)
    assert "added to the existing memory" not in html and "alias “Atlas App”" not in html
    assert "This decision was undone on" in html and "taken back from" in html
    assert "the guess went back to the" in html
    assert '<span class="tag o-undone">Undone</span>' in html
    saves = client.get(reverse("receipts:list")).content.decode()
    assert f'id="receipt-{receipt.pk}"' in saves
    assert '<span class="tag o-undone">Undone</span>' in saves


def test_a_correction_receipt_shows_before_and_after_and_undoes(
    client: Client, owner: User
) -> None:
    client.force_login(owner)
    node = make_node(owner=owner, label="Sofia Almeida", category="person")
    fact = make_slice(node=node, text="Is Sofia Almeida")
    receipt = details.slice_update(slice=fact, text="Leads the platform team", kind="other")
    assert receipt is not None
    html = page(client, receipt)
    assert "<s>Is Sofia Almeida</s> → Leads the platform team" in html
    client.post(reverse("memory:detail-undo", args=[receipt.pk]))
    assert Slice.objects.get(pk=fact.pk).text == "Is Sofia Almeida"
    assert "Undone" in page(client, receipt)


def test_an_undo_receipt_does_not_claim_its_writes_were_deleted(
    client: Client, owner: User
) -> None:
    from memory.models import MemoryRule
    from memory.services.erase import receipt_undo
    from memory.services.ingest import ingest_proposals

    client.force_login(owner)
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    objects = [{"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95}]
    ingest = ingest_proposals(owner=owner, objects=objects, name="a.json", source="upload")
    undo = receipt_undo(receipt=ingest)
    html = page(client, undo)
    assert NOTHING not in html and "This undo only deleted or put things back" in html
