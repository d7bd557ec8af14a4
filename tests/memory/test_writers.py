"""The writers both write paths share (``memory.services.writers``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.models import Node, Receipt, Revision, Slice
from memory.proposals import EventProposal, parse_proposals
from memory.services.history import History
from memory.services.writers import (
    NewSlice,
    aliases_write,
    edges_write,
    events_write,
    node_states_write,
    slices_write,
)
from tests.factories import make_node, make_slice

pytestmark = pytest.mark.django_db


@pytest.fixture
def receipt(owner: User) -> Any:
    return Receipt.objects.create(owner=owner, source="command", outcome="wrote")


def test_a_superseding_slice_retires_the_stored_and_the_earlier_ones_of_the_same_call(
    owner: User, receipt: Any
) -> None:
    boxing = make_node(owner=owner, label="Boxing")
    stored = make_slice(node=boxing, text="trains once a week", kind="progress")
    other_kind = make_slice(node=boxing, text="likes gloves", kind="preference")
    now = timezone.now()
    history = History(owner_id=owner.pk, now=now)

    written = slices_write(
        owner=owner,
        slices=[
            NewSlice(boxing.pk, "trains twice a week", "progress", supersede=True),
            NewSlice(boxing.pk, "spars on Sundays", "other"),
            NewSlice(boxing.pk, "trains daily", "progress", supersede=True),
        ],
        receipt=receipt,
        now=now,
        history=history,
    )
    history.flush(receipt_id=receipt.pk)

    assert [(s.text, s.is_current) for s in written.rows] == [
        ("trains twice a week", False),
        ("spars on Sundays", True),
        ("trains daily", True),
    ]
    assert written.retired == [stored.pk] and written.retired_new == 1
    assert {s.created_receipt_id for s in written.rows} == {receipt.pk}
    stored.refresh_from_db()
    other_kind.refresh_from_db()
    assert not stored.is_current and stored.superseded_at == now and other_kind.is_current
    actions = sorted(Revision.objects.filter(kind="slice").values_list("object_id", "action"))
    assert actions == sorted(
        [(stored.pk, "superseded")] + [(s.pk, "created") for s in written.rows]
    )


def _write_everything(owner: Any, receipt: Any, n: int) -> int:
    nodes = [make_node(owner=owner, label=f"Node {i}") for i in range(n + 1)]
    [event] = parse_proposals([{"object": "event", "on": "x", "action": "started", "text": "t"}])
    assert isinstance(event, EventProposal)
    now = timezone.now()
    history = History(owner_id=owner.pk, now=now)
    ids = [node.pk for node in nodes[:n]]
    with CaptureQueriesContext(connection) as ctx:
        slices_write(
            owner=owner,
            slices=[NewSlice(pk, "trains daily", "progress", supersede=True) for pk in ids],
            receipt=receipt,
            now=now,
            history=history,
        )
        events_write(
            owner=owner,
            events=[(pk, event) for pk in ids],
            receipt=receipt,
            now=now,
            history=history,
        )
        aliases_write(
            owner=owner, aliases=[(pk, f"alias {pk}", f"alias {pk}") for pk in ids], history=history
        )
        edges_write(
            owner=owner,
            edges=[(pk, nodes[-1].pk, "uses", "") for pk in ids],
            receipt=receipt,
            now=now,
            history=history,
        )
        node_states_write(owner=owner, states=dict.fromkeys(ids, "paused"), now=now, bump=ids[:1])
    return len(ctx.captured_queries)


def test_each_kind_is_one_statement_whatever_the_number_of_rows(
    owner: User, other_user: User, receipt: Any
) -> None:
    other_receipt = Receipt.objects.create(owner=other_user, source="command", outcome="wrote")
    assert _write_everything(owner, receipt, 1) == _write_everything(other_user, other_receipt, 8)


def test_node_states_write_moves_updated_at_and_only_the_revisions_asked(owner: User) -> None:
    a, b = make_node(owner=owner, label="A"), make_node(owner=owner, label="B")
    week_ago = timezone.now() - timedelta(days=7)
    Node.objects.for_owner(owner).update(updated_at=week_ago)
    now = timezone.now()
    node_states_write(owner=owner, states={a.pk: "paused", b.pk: "done"}, now=now, bump=[a.pk])
    rows = {n.pk: n for n in Node.objects.for_owner(owner)}
    assert (rows[a.pk].state, rows[a.pk].revision, rows[a.pk].updated_at) == ("paused", 2, now)
    assert (rows[b.pk].state, rows[b.pk].revision, rows[b.pk].updated_at) == ("done", 1, now)


def test_writers_do_not_reach_another_owners_nodes(
    owner: User, other_user: User, receipt: Any
) -> None:
    theirs = make_node(owner=other_user, label="Boxing")
    make_slice(node=theirs, text="trains once a week", kind="progress")
    node_states_write(owner=owner, states={theirs.pk: "paused"}, now=timezone.now())
    history = History(owner_id=owner.pk)
    mine = make_node(owner=owner, label="Boxing")
    slices_write(
        owner=owner,
        slices=[NewSlice(mine.pk, "daily", "progress", supersede=True)],
        receipt=receipt,
        now=timezone.now(),
        history=history,
    )
    theirs.refresh_from_db()
    assert theirs.state == "active"
    assert Slice.objects.get(node=theirs).is_current
