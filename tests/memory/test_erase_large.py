"""Deleting a large memory: delete-all and deleting an account remove their rows in chunks.

Django's own delete combines the "set to null" updates of every batch into one statement,
which over 32,766 parameters (SQLite; 65,535 on PostgreSQL) fails: a person with that many
facts could not delete their memory or their account, and the bench's 100,000-node run ended
in "too many SQL variables". Here SQLite's limit is lowered to 999 (its old default), so
1,200 facts show what 33,000 would."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import OperationalError, connection, transaction

from memory.models import Node, Receipt, Slice
from memory.services import erase
from memory.services.erase import account_delete, delete_owned, memory_erase_all
from tests.factories import make_node

pytestmark = pytest.mark.django_db

FACTS = 1200


@pytest.fixture
def few_parameters(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """On SQLite, at most 999 parameters per statement for the duration of the test, and
    chunks of 400 rows (2,000 under the real limits of 32,766 and 65,535)."""
    monkeypatch.setattr(erase, "ERASE_CHUNK", 400)
    if connection.vendor != "sqlite":
        yield False
        return
    connection.ensure_connection()
    raw = connection.connection
    before = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
    yield True
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, before)


def _facts(owner: Any, n: int = FACTS) -> Node:
    node = make_node(owner=owner, label="Allotment", category="project")
    Slice.objects.bulk_create(
        [Slice(owner=owner, node=node, text=f"sowed row {i}", kind="other") for i in range(n)],
        batch_size=200,
    )
    return node


def test_djangos_own_delete_fails_at_this_limit_so_the_test_shows_something(
    owner: User, few_parameters: Any
) -> None:
    if not few_parameters:
        pytest.skip("the lowered limit is SQLite's; PostgreSQL's 65,535 needs 66,000 rows")
    _facts(owner)
    with pytest.raises(OperationalError, match="too many SQL variables"), transaction.atomic():
        Slice.objects.for_owner(owner).delete()


def test_delete_owned_removes_every_row_in_chunks_and_leaves_others_alone(
    owner: User, other_user: User, few_parameters: Any
) -> None:
    _facts(owner)
    theirs = _facts(other_user, 3)
    assert FACTS > 2 * erase.ERASE_CHUNK  # three chunks
    assert delete_owned(Slice, owner) == FACTS
    assert not Slice.objects.for_owner(owner).exists()
    assert Slice.objects.filter(node=theirs).count() == 3


def test_delete_all_memory_of_a_large_memory(owner: User, few_parameters: Any) -> None:
    _facts(owner)
    receipt = memory_erase_all(owner=owner)
    assert receipt.counts["slices"] == FACTS and receipt.counts["nodes"] == 1
    assert not Slice.objects.for_owner(owner).exists()


def test_deleting_an_account_with_a_large_memory(
    owner: User, other_user: User, few_parameters: Any
) -> None:
    _facts(owner)
    Receipt.objects.bulk_create(
        [Receipt(owner=owner, subject=f"save {i}") for i in range(FACTS)], batch_size=200
    )
    _facts(other_user, 3)
    counts = account_delete(owner)
    assert counts["slices"] == FACTS and counts["receipts"] == FACTS
    assert not get_user_model().objects.filter(pk=owner.pk).exists()
    assert not Slice.objects.for_owner(owner.pk).exists()
    assert not Receipt.objects.for_owner(owner.pk).exists()
    assert Slice.objects.for_owner(other_user).count() == 3
