"""Owner-scoped querysets (``memory.owned``): every owned model reads a person's rows through
``for_owner``, which is exactly ``filter(owner=...)``."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.models import Node, RateCount, Slice
from memory.owned import OwnedQuerySet, owned_rows
from tests.factories import make_node, make_slice


def test_every_model_with_an_owner_has_owner_scoped_querysets() -> None:
    owned = [
        model
        for model in apps.get_models()
        if any(field.name == "owner" for field in model._meta.get_fields())
    ]
    assert len(owned) >= 20  # the memory graph, receipts, tokens, connections...
    plain = [
        model._meta.label
        for model in owned
        if not isinstance(model._default_manager.all(), OwnedQuerySet)
    ]
    assert plain == []


@pytest.mark.django_db
def test_for_owner_returns_only_that_persons_rows(owner: User, other_user: User) -> None:
    mine = make_node(owner=owner, label="Piano")
    theirs = make_node(owner=other_user, label="Piano")
    make_slice(node=mine, text="practises scales every morning")
    make_slice(node=theirs, text="sold the piano last year")

    assert list(Node.objects.for_owner(owner)) == [mine]
    assert list(Node.objects.for_owner(other_user.pk)) == [theirs]  # a user's id will do
    assert list(Node.objects.filter(label="Piano").for_owner(owner)) == [mine]  # chains
    assert [s.text for s in Slice.objects.for_owner(owner)] == ["practises scales every morning"]


@pytest.mark.django_db
def test_for_owner_is_the_same_query_as_the_hand_written_filter(owner: User) -> None:
    """The same conditions (Django sorts a filter's keywords, so their order may differ),
    the same order, nothing else: query plans stay as they were."""

    def parts(sql: str) -> tuple[str, frozenset[str], str]:
        head, rest = sql.split(" WHERE ")
        where, tail = rest.rsplit(") ORDER BY ", 1)
        return head, frozenset(where.strip("(").split(" AND ")), tail

    with CaptureQueriesContext(connection) as scoped:
        list(Node.objects.for_owner(owner).filter(category="skill"))
    with CaptureQueriesContext(connection) as by_hand:
        list(Node.objects.filter(owner=owner, category="skill"))
    [scoped_sql], [by_hand_sql] = (
        [q["sql"] for q in run.captured_queries] for run in (scoped, by_hand)
    )
    assert parts(scoped_sql) == parts(by_hand_sql)
    assert len(parts(scoped_sql)[1]) == 2


@pytest.mark.django_db
def test_owned_rows_takes_a_model_chosen_at_run_time(owner: User, other_user: User) -> None:
    mine = make_node(owner=owner, label="Chess")
    make_node(owner=other_user, label="Chess")
    assert list(owned_rows(Node, owner)) == [mine]
    with pytest.raises(TypeError, match="have no owner"):
        owned_rows(RateCount, owner)
