"""The pure reading of history: what a revision changed against its parent, and which
revisions can be restored. No database."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from memory.history import diff, timeline


def rev(
    number: Any, action: Any = "updated", kind: Any = "node", object_id: Any = 1, **snapshot: Any
) -> Any:
    return SimpleNamespace(
        kind=kind,
        object_id=object_id,
        number=number,
        parent=number - 1 if number > 1 else None,
        action=action,
        snapshot=snapshot,
    )


def test_a_diff_lists_the_fields_that_changed_and_never_the_placement() -> None:
    before = {"node_id": 3, "text": "trains twice a week", "kind": "progress"}
    after = {"node_id": 4, "text": "trains daily", "kind": "progress"}
    assert [(c.field, c.before, c.after) for c in diff(before, after)] == [
        ("text", "trains twice a week", "trains daily")
    ]
    assert [c.field for c in diff(None, after)] == ["text", "kind"]


def test_only_older_revisions_of_a_live_object_can_be_restored() -> None:
    rows = [rev(3, state="paused"), rev(2, state="active"), rev(1, "created", state="active")]
    entries = timeline(rows, {})
    assert [e.restorable for e in entries] == [False, True, True]
    assert [(c.field, c.before, c.after) for c in entries[0].changes] == [
        ("state", "active", "paused")
    ]


def test_nothing_of_a_deleted_object_can_be_restored_and_parents_come_from_outside_the_page() -> (
    None
):
    gone = [rev(3, "deleted", label="Boxing"), rev(2, label="Boxing")]
    assert [e.restorable for e in timeline(gone, {})] == [False, False]
    outside = {("node", 1, 1): rev(1, "created", label="Box")}
    (entry,) = timeline([rev(2, label="Boxing")], outside)
    assert [(c.before, c.after) for c in entry.changes] == [("Box", "Boxing")]


def test_values_are_shown_as_a_person_reads_them_not_as_stored() -> None:
    before = {
        "node_id": 2,
        "text": "Recital",
        "happened_at": "2025-06-14T00:00:00+00:00",
        "happened_at_precision": "day",
        "happened_at_source": "stated",
        "importance": "normal",
    }
    after = before | {"happened_at": "2025-06-01T00:00:00+00:00", "happened_at_precision": "month"}
    changes = {c.field: c for c in diff(before, after)}
    assert (changes["happened_at"].before_shown, changes["happened_at"].after_shown) == (
        "14 June 2025",
        "June 2025",
    )
    assert changes["happened_at_precision"].after_shown == "Month"
    node = {
        c.field: c
        for c in diff(
            {"state": "active", "category": "skill"}, {"state": "paused", "category": "person"}
        )
    }
    assert node["state"].before_shown == "Active" and node["state"].after_shown == "Paused"
    assert node["category"].after_shown == "Person"
    fact = {c.field: c for c in diff(None, {"text": "", "is_current": False, "kind": "progress"})}
    assert fact["text"].after_shown == "(empty)" and fact["is_current"].after_shown == "no"
    timed = diff(None, {"happened_at": "2025-06-14T09:30:00+00:00"})
    assert timed[0].after_shown == "14 June 2025, 09:30"
