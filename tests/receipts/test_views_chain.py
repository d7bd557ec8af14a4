"""The receipts chain's line on the Saves page: loaded after the page, owner-scoped, intact
or where it breaks (docs/architecture.md, "Receipts chain")."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Outcome, Receipt, Source

pytestmark = pytest.mark.django_db


def save(owner: Any, n: int) -> Receipt:
    return Receipt.objects.create(
        owner=owner, source=Source.API, outcome=Outcome.WROTE, subject=f"save {n}"
    )


def test_the_saves_page_loads_the_chain_line_after_it(client: Client, owner: Any) -> None:
    client.force_login(owner)
    page = client.get(reverse("receipts:list")).content.decode()
    assert f'hx-get="{reverse("receipts:chain")}"' in page
    assert 'hx-trigger="load"' in page


def test_the_chain_line_says_intact_with_the_count(client: Client, owner: Any) -> None:
    for n in range(3):
        save(owner, n)
    client.force_login(owner)
    answer = client.get(reverse("receipts:chain"), headers={"HX-Request": "true"})
    body = answer.content.decode()
    assert answer.status_code == 200
    assert "Receipts chain: intact (3 receipts, since" in body
    assert "<html" not in body  # the partial only


def test_the_chain_line_says_where_it_breaks_for_this_owner_only(
    client: Client, owner: Any, other_user: Any
) -> None:
    mine = [save(owner, n) for n in range(3)]
    theirs = [save(other_user, n) for n in range(2)]
    Receipt.objects.filter(pk=theirs[1].pk).update(subject="quietly changed")
    client.force_login(owner)
    assert "intact (3 receipts" in client.get(reverse("receipts:chain")).content.decode()
    Receipt.objects.filter(pk=mine[1].pk).update(subject="quietly changed")
    save(owner, 4)  # verified up to #3 already: changed before that is the command's to find
    Receipt.objects.filter(pk=Receipt.objects.for_owner(owner).get(seq=4).pk).update(subject="x")
    body = client.get(reverse("receipts:chain")).content.decode()
    assert "Receipts chain: broken at receipt #4 (content changed)" in body
    client.force_login(other_user)
    body = client.get(reverse("receipts:chain")).content.decode()
    assert "broken at receipt #2 (content changed)" in body


def test_the_chain_line_needs_a_login(client: Client) -> None:
    assert client.get(reverse("receipts:chain")).status_code == 302
