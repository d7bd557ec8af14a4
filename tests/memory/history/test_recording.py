"""Every write service records exactly one revision per object it changes, in its transaction,
with a snapshot equal to what the object became (or last was, for a deletion)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import Max
from django.utils import timezone

from mcp_server import tools as mcp_tools
from memory.models import Candidate, MemoryRule, Node, Revision, Slice
from memory.owned import owned_rows
from memory.services.cleanup import cleanup_user
from memory.services.details import (
    alias_update,
    detail_delete,
    detail_undo,
    edge_update,
    event_update,
    slice_update,
)
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.history import MODELS, snapshot
from memory.services.ingest import ingest_proposals, ingest_text
from memory.services.nodes import alias_add, alias_remove, node_delete, node_update
from memory.services.review import (
    candidate_merge,
    candidate_promote,
    candidate_reject,
    candidate_undo,
)
from memory.services.rollback import revision_rollback
from memory.services.tokens import token_create
from tests.factories import make_edge, make_event, make_node, make_slice

pytestmark = pytest.mark.django_db

SAID = [{"message_id": "M0", "quote": "I paused the Atlas mobile app"}]


def state(owner: Any) -> dict[tuple[str, int], dict[str, Any]]:
    return {
        (kind, row.pk): snapshot(kind, row)
        for kind, model in MODELS.items()
        for row in owned_rows(model, owner)
    }


@pytest.fixture
def world(owner: User) -> Any:
    """A node with an alias, two progress facts (one current), an event and a link, and a
    pending candidate holding a fact and an event."""
    boxing = make_node(owner=owner, label="Boxing", aliases=("boxe",))
    gym = make_node(owner=owner, label="Gym", category="place")
    make_slice(node=boxing, text="trains twice a week", kind="progress", is_current=False)
    make_slice(node=boxing, text="trains three days a week", kind="progress")
    make_event(node=boxing, text="started boxing")
    make_edge(from_node=boxing, to_node=gym, type="uses")
    objects = [
        {"object": "node", "label": "Atlas Mobile App", "category": "project", "evidence": SAID},
        {"object": "event", "on": "Atlas Mobile App", "action": "paused", "text": "paused it"},
        {"object": "slice", "on": "Atlas Mobile App", "text": "built with React Native"},
    ]
    ingest_text(
        owner=owner, text=json.dumps({"objects": objects}), name="m.json", extractor="proposals"
    )
    return {
        "boxing": boxing,
        "gym": gym,
        "candidate": Candidate.objects.for_owner(owner).get(label_guess="Atlas Mobile App"),
    }


def _ingest(owner: Any, w: Any) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    objects = [
        {"object": "node", "label": "Cello", "category": "skill", "confidence": 0.95},
        {"object": "slice", "on": "Boxing", "kind": "progress", "text": "trains daily"},
        {"object": "event", "on": "Boxing", "action": "paused", "text": "paused boxing"},
        {"object": "edge", "from": "Cello", "to": "Gym", "type": "uses"},
    ]
    ingest_proposals(owner=owner, objects=objects, name="a.json", source="upload")


def _promote(owner: Any, w: Any) -> None:
    candidate_promote(candidate=w["candidate"], by=owner, keep_guess=True, label="Atlas App")


def _merge(owner: Any, w: Any) -> None:
    candidate_merge(candidate=w["candidate"], node=w["boxing"], by=owner, change_state=True)


def _undo_promote(owner: Any, w: Any) -> Any:
    candidate_promote(candidate=w["candidate"], by=owner)
    return lambda: candidate_undo(candidate=w["candidate"], by=owner)


def _undo_merge(owner: Any, w: Any) -> Any:
    candidate_merge(candidate=w["candidate"], node=w["boxing"], by=owner, change_state=True)
    return lambda: candidate_undo(candidate=w["candidate"], by=owner)


def _undo_ingest(owner: Any, w: Any) -> Any:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    objects = [
        {"object": "node", "label": "Cello", "category": "skill", "confidence": 0.95},
        {"object": "slice", "on": "Boxing", "kind": "progress", "text": "trains daily"},
        {"object": "event", "on": "Boxing", "action": "paused", "text": "paused boxing"},
    ]
    receipt = ingest_proposals(owner=owner, objects=objects, name="a.json", source="upload")
    return lambda: receipt_undo(receipt=receipt)


def _slice_delete_then_undo(owner: Any, w: Any) -> Any:
    current = Slice.objects.for_owner(owner).get(is_current=True, kind="progress")
    receipt = detail_delete(row=current)
    return lambda: detail_undo(receipt=receipt)


def _edit_then_undo(owner: Any, w: Any) -> Any:
    receipt = slice_update(slice=w["boxing"].slices.first(), text="spars on Sundays", kind="other")
    assert receipt is not None
    return lambda: detail_undo(receipt=receipt)


def _rollback(owner: Any, w: Any) -> Any:
    node_update(node=w["boxing"], summary="first")
    node_update(node=w["boxing"], summary="second", state="paused")
    return lambda: revision_rollback(owner=owner, kind="node", object_id=w["boxing"].pk, number=2)


def _cleanup(owner: Any, w: Any) -> Any:
    make_node(owner=owner, label="that thing", category="other")
    return lambda: cleanup_user(owner=owner, now=timezone.now() + timedelta(minutes=1))


def _mcp(run: Callable[[Any, Any], Any]) -> Callable[[Any, Any], None]:
    def call(owner: Any, w: Any) -> None:
        token = token_create(owner=owner, name="mcp tool")[0]
        run(token, w)

    return call


# name -> the write (or, for SETUPS, a preparation that returns the write)
CASES: dict[str, Callable[[Any, Any], Any]] = {
    "ingest": _ingest,
    "node_update": lambda o, w: node_update(node=w["boxing"], label="Kickboxing", state="paused"),
    "node_delete": lambda o, w: node_delete(node=w["boxing"]),
    "alias_add": lambda o, w: alias_add(node=w["boxing"], alias="the ring"),
    "alias_remove": lambda o, w: alias_remove(alias=w["boxing"].aliases.get()),
    "slice_update": lambda o, w: slice_update(
        slice=w["boxing"].slices.first(), text="spars on Sundays", kind="other"
    ),
    "event_update": lambda o, w: event_update(
        event=w["boxing"].events.get(), text="began boxing", action="started"
    ),
    "alias_update": lambda o, w: alias_update(alias=w["boxing"].aliases.get(), text="la boxe"),
    "edge_update": lambda o, w: edge_update(edge=w["boxing"].edges_out.get(), type="part_of"),
    "detail_delete": lambda o, w: detail_delete(
        row=Slice.objects.for_owner(o).get(is_current=True, kind="progress")
    ),
    "detail_undo_delete": _slice_delete_then_undo,
    "detail_undo_edit": _edit_then_undo,
    "candidate_promote": _promote,
    "candidate_merge": _merge,
    "candidate_reject": lambda o, w: candidate_reject(
        candidate=w["candidate"], by=o, suppress=True
    ),
    "candidate_undo_promote": _undo_promote,
    "candidate_undo_merge": _undo_merge,
    "receipt_undo": _undo_ingest,
    "rollback": _rollback,
    "cleanup_junk": _cleanup,
    "mcp_delete_observations": _mcp(
        lambda t, w: mcp_tools.delete_observations(
            t, deletions=[{"entityName": "Boxing", "observations": ["trains three days a week"]}]
        )
    ),
    "mcp_delete_relations": _mcp(
        lambda t, w: mcp_tools.delete_relations(
            t, relations=[{"from": "Boxing", "to": "Gym", "relationType": "uses"}]
        )
    ),
    "mcp_delete_entities": _mcp(lambda t, w: mcp_tools.delete_entities(t, entityNames=["Gym"])),
}
#: Cases that prepare something first and return the write to check.
SETUPS = {
    name: CASES[name]
    for name in (
        "detail_undo_delete",
        "detail_undo_edit",
        "candidate_undo_promote",
        "candidate_undo_merge",
        "receipt_undo",
        "rollback",
        "cleanup_junk",
    )
}
#: Writes that change nothing a revision keeps.
UNCHANGED = {"candidate_reject"}
#: Objects a write records without changing a snapshot field: a merge is an event in the
#: target's history even when only its counts change.
RECORDED_UNCHANGED = {"candidate_merge": {"node"}, "candidate_undo_merge": {"node"}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_revision_per_changed_object(name: Any, owner: User, world: Any) -> None:
    write = SETUPS[name](owner, world) if name in SETUPS else (lambda: CASES[name](owner, world))
    before = state(owner)
    last = Revision.objects.aggregate(last=Max("id"))["last"] or 0
    write()
    after = state(owner)
    new = list(Revision.objects.for_owner(owner).filter(id__gt=last))
    per_object = Counter((r.kind, r.object_id) for r in new)
    changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    assert all(n == 1 for n in per_object.values()), per_object
    assert changed <= set(per_object), changed - set(per_object)
    extra = {kind for kind, _ in set(per_object) - changed}
    assert extra <= RECORDED_UNCHANGED.get(name, set())
    if name in UNCHANGED:
        assert not changed and not new
    else:
        assert changed
    for r in new:
        assert r.snapshot == after.get((r.kind, r.object_id), before.get((r.kind, r.object_id)))
        assert r.parent == (r.number - 1 if r.number > 1 else None)


def test_delete_all_leaves_no_history(owner: User, other_user: User, world: Any) -> None:
    node_update(node=world["boxing"], summary="edited")
    theirs = make_node(owner=other_user, label="Theirs")
    node_update(node=theirs, summary="kept")
    assert Revision.objects.for_owner(owner).exists()
    memory_erase_all(owner=owner)
    assert not Revision.objects.for_owner(owner).exists()
    assert Revision.objects.for_owner(other_user).count() == 1


def test_ingest_revisions_name_the_save_and_its_receipt(owner: User, world: Any) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    token = token_create(owner=owner, name="claude")[0]
    objects = [{"object": "node", "label": "Cello", "category": "skill", "confidence": 0.95}]
    receipt = ingest_proposals(
        owner=owner, objects=objects, name="a.json", source="api", token=token
    )
    rev = Revision.objects.for_owner(owner).get(kind="node", snapshot__label="Cello")
    assert (rev.action, rev.actor, rev.receipt_id, rev.token_id) == (
        "created",
        "ingest",
        receipt.pk,
        token.pk,
    )


def test_a_deleted_node_keeps_its_history_until_retention(owner: User, world: Any) -> None:
    boxing = world["boxing"]
    boxing_id = boxing.pk
    node_update(node=boxing, summary="edited")
    node_delete(node=boxing)
    kept = Revision.objects.for_owner(owner).filter(node_id=boxing_id)
    assert kept.filter(kind="node", action="deleted").count() == 1
    MemoryRule.objects.create(owner=owner, retention_days=1)
    cleanup_user(owner=owner, now=timezone.now() + timedelta(days=2))
    assert not Revision.objects.for_owner(owner).filter(node_id=boxing_id).exists()
    assert Node.objects.for_owner(owner).filter(label="Gym").exists()


def test_a_fact_created_and_superseded_by_one_save_has_one_revision(
    owner: User, world: Any
) -> None:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    objects = [
        {"object": "slice", "on": "Boxing", "kind": "progress", "text": "trains daily"},
        {"object": "slice", "on": "Boxing", "kind": "progress", "text": "trains twice a day"},
    ]
    ingest_proposals(owner=owner, objects=objects, name="a.json", source="upload")
    rows = list(
        Slice.objects.for_owner(owner).filter(text__in=["trains daily", "trains twice a day"])
    )
    assert sorted(row.is_current for row in rows) == [False, True]  # the second superseded
    for row in rows:
        revisions = Revision.objects.filter(kind="slice", object_id=row.pk)
        assert [(r.number, r.snapshot["is_current"]) for r in revisions] == [(1, row.is_current)]
