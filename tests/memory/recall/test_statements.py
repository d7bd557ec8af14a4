"""Recall's plain statements (memory.recall.statements): the owner's condition always comes
first, on both databases."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memory.models import MemoryRule, Node, Slice
from memory.recall.statements import column, converted, marks, owned_rows, owned_select
from tests.factories import make_node, make_slice

pytestmark = pytest.mark.django_db


def test_a_statement_reads_its_owners_rows_only(owner: User, other_user: User) -> None:
    mine = make_node(owner=owner, label="Kayak")
    theirs = make_node(owner=other_user, label="Kayak")
    keys = ["kayak"]
    rows = owned_rows(Node, ("id", "label"), owner, f"canonical_key IN ({marks(1)})", keys)
    assert rows == [(mine.pk, "Kayak")]
    # another person's row is out of reach even when the condition names it by id
    assert owned_rows(Node, ("id",), owner, "id = %s", [theirs.pk]) == []
    assert owned_rows(Node, ("id",), other_user.pk, "id = %s", [theirs.pk]) == [(theirs.pk,)]


def test_a_condition_is_bracketed_so_an_or_cannot_escape_the_owner(
    owner: User, other_user: User
) -> None:
    make_node(owner=owner, label="Kayak")
    theirs = make_node(owner=other_user, label="Canoe")
    sql, params = owned_select(Node, ("id",), owner, "id = %s OR 1 = 1", [theirs.pk])
    assert "owner_id" in sql and params[0] == owner.pk
    assert theirs.pk not in {
        row[0] for row in owned_rows(Node, ("id",), owner, "id = %s OR 1 = 1", [theirs.pk])
    }


def test_rows_come_in_the_order_asked_with_the_columns_named_by_field(owner: User) -> None:
    node = make_node(owner=owner, label="Kayak")
    for text in ("first", "second", "third"):
        make_slice(node=node, text=text)
    rows = owned_rows(Slice, ("node", "text"), owner, "node_id = %s", [node.pk], order_by="id DESC")
    assert rows == [(node.pk, "third"), (node.pk, "second"), (node.pk, "first")]


def test_an_empty_in_list_and_a_field_without_a_column_are_refused() -> None:
    with pytest.raises(ValueError):
        marks(0)
    assert marks(3) == "%s, %s, %s"
    with pytest.raises(ValueError):
        column(Node, "aliases")  # a reverse relation: no column of its own


def test_converted_values_are_those_the_orm_reads(owner: User) -> None:
    node = make_node(owner=owner, label="Kayak")
    columns = ("id", "label", "created_at")
    raw = owned_rows(Node, columns, owner, "id = %s", [node.pk])
    orm = list(Node.objects.for_owner(owner).filter(pk=node.pk).values_list(*columns))
    assert converted(Node, columns, raw) == orm
    assert orm[0][2].tzinfo is not None  # SQLite stores the date as text; both read it aware
    assert converted(Node, ("id",), [(node.pk,)]) == [(node.pk,)]


def test_json_and_booleans_convert_as_the_orm_reads_them(owner: User) -> None:
    MemoryRule.objects.create(owner=owner, episodes=False, excludes=["Tarot", "café"])
    columns = ("episodes", "excludes")
    orm = list(MemoryRule.objects.for_owner(owner).values_list(*columns))
    assert converted(MemoryRule, columns, owned_rows(MemoryRule, columns, owner)) == orm
    assert orm == [(False, ["Tarot", "café"])]
