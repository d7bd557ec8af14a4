"""``memory.services.bulk.update_each``: one UPDATE that writes each row's own values, plain
or computed by the database, and leaves other rows alone (on SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db.models import F

from memory.models import Candidate
from memory.services.bulk import JsonAppend, update_each
from tests.factories import make_candidate


def test_update_each_writes_each_rows_own_values_in_one_statement(
    owner: Any, django_assert_num_queries: Any
) -> None:
    first = make_candidate(owner=owner, label="Piano", held_objects=[{"n": 1}])
    second = make_candidate(owner=owner, label="Chess", held_objects=[])
    untouched = make_candidate(owner=owner, label="Salsa", mention_count=7)
    when = datetime(2026, 5, 1, 12, 30, tzinfo=UTC)
    first.mention_count, first.last_said_at, first.value = 4, when, 0.25
    first.held_objects = JsonAppend("held_objects", [{"n": 2}, {"text": "naïve “quoted”"}])
    second.mention_count, second.last_said_at, second.value = 9, None, 1.5
    second.held_objects = F("held_objects")
    fields = ["mention_count", "last_said_at", "value", "held_objects"]
    with django_assert_num_queries(1):
        assert update_each([first, second], fields) == 2
    rows = {c.label_guess: c for c in Candidate.objects.for_owner(owner).order_by("label_guess")}
    assert (rows["Piano"].mention_count, rows["Piano"].last_said_at, rows["Piano"].value) == (
        4,
        when,
        0.25,
    )
    assert rows["Piano"].held_objects == [{"n": 1}, {"n": 2}, {"text": "naïve “quoted”"}]
    assert (rows["Chess"].mention_count, rows["Chess"].last_said_at, rows["Chess"].value) == (
        9,
        None,
        1.5,
    )
    assert rows["Chess"].held_objects == []
    assert rows["Salsa"].mention_count == 7 == untouched.mention_count


def test_update_each_of_no_rows_writes_nothing(db: None, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert update_each([], ["mention_count"]) == 0
