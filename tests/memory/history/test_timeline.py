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
