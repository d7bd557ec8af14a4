"""Undo an ingest and delete all my memory: what goes, what is reverted, what is kept, and
that a failure leaves nothing half-done."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from memory.models import (
    AccessToken,
    Alias,
    Candidate,
    DeletionBarrier,
    Edge,
    Event,
    Evidence,
    MemoryRule,
    Node,
    Page,
    Receipt,
    Slice,
    Suppression,
    Transcript,
)
from memory.services import erase as erase_module
from memory.services.cleanup import cleanup_run
from memory.services.erase import (
    EraseError,
    memory_erase_all,
    receipt_undo,
    receipt_undo_preview,
)
from memory.services.ingest import ingest_proposals, ingest_text
from memory.services.nodes import node_update
from memory.services.review import candidate_merge, candidate_promote, candidate_reject
from tests.factories import make_candidate, make_node, make_slice, make_suppression

pytestmark = pytest.mark.django_db

OWNED = (
    Node,
    Alias,
    Slice,
    Event,
    Edge,
    Candidate,
    Suppression,
    Evidence,
    Transcript,
    Page,
    MemoryRule,
    AccessToken,
    DeletionBarrier,
    Receipt,
)


def state(owner: Any = None) -> dict[str, list[tuple]]:
    """Every row (of ``owner``, or everyone's) in every table, comparable."""
    out = {}
    for model in OWNED:
        rows = model.objects.all() if owner is None else model.objects.for_owner(owner)
        out[model.__name__] = sorted(tuple(str(v) for v in r) for r in rows.values_list())
    return out


def ev(quote: str) -> list[dict]:
    return [{"message_id": "M0", "quote": quote}]


DOC = [
    {
        "object": "node",
        "label": "Atlas",
        "category": "project",
        "aliases": ["Atlas App"],
        "confidence": 0.95,
        "evidence": ev("I'm building Atlas"),
    },
    {
        "object": "slice",
        "on": "Atlas",
        "kind": "technical_detail",
        "text": "uses Postgres",
        "confidence": 0.9,
        "evidence": ev("Atlas uses Postgres"),
    },
    {
        "object": "event",
        "on": "Boxing",
        "action": "paused",
        "text": "paused boxing",
        "confidence": 0.9,
        "evidence": ev("I paused boxing"),
    },
    {
        "object": "slice",
        "on": "Boxing",
        "kind": "progress",
        "text": "once a week",
        "confidence": 0.9,
        "evidence": ev("boxing once a week now"),
    },
    {
        "object": "edge",
        "from": "Atlas",
        "to": "Boxing",
        "type": "related_to",
        "confidence": 0.9,
        "evidence": ev("Atlas tracks my boxing"),
    },
    {
        "object": "candidate",
        "label": "Pottery",
        "category": "interest",
        "confidence": 0.6,
        "evidence": ev("pottery, maybe"),
    },
    {
        "object": "candidate",
        "label": "Chess",
        "category": "interest",
        "confidence": 0.6,
        "evidence": ev("chess, maybe"),
    },
]


@pytest.fixture
def world(owner: User) -> Any:
    """Auto capture, an existing node with a current progress slice, a pending candidate."""
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    boxing = make_node(owner=owner, label="Boxing", state="active")
    twice = make_slice(node=boxing, text="twice a week", kind="progress")
    pottery = make_candidate(owner=owner, label="Pottery", category_guess="interest")
    return {"boxing": boxing, "twice": twice, "pottery": pottery}


def ingest(owner: Any, doc: Any = DOC, name: Any = "chat.json") -> Receipt:
    receipt = ingest_proposals(owner=owner, objects=doc, name=name, source="api")
    assert receipt.outcome == "wrote", receipt.error
    return receipt


# --- undo: what goes and what is reverted -----------------------------------------------------


def test_undo_deletes_what_the_ingest_created_and_reverts_what_it_touched(
    owner: User, world: Any
) -> None:
    receipt = ingest(owner)
    assert receipt.counts["nodes"] == 1 and receipt.counts["candidate_bumps"] == 1
    assert Node.objects.get(pk=world["boxing"].pk).state == "paused"

    undo = receipt_undo(receipt=receipt)

    assert list(Node.objects.for_owner(owner).values_list("label", flat=True)) == ["Boxing"]
    assert not Alias.objects.exists() and not Edge.objects.exists() and not Event.objects.exists()
    boxing = Node.objects.get(pk=world["boxing"].pk)
    assert (boxing.state, boxing.mention_count, boxing.session_count) == ("active", 1, 1)
    assert list(Slice.objects.values_list("text", "is_current")) == [("twice a week", True)]
    pottery = Candidate.objects.get(pk=world["pottery"].pk)
    assert (pottery.status, pottery.mention_count, pottery.session_count) == ("pending", 1, 1)
    assert list(Candidate.objects.values_list("label_guess", flat=True)) == ["Pottery"]
    assert not Evidence.objects.filter(receipt=receipt).exists()
    suppressed = sorted(
        Suppression.objects.for_owner(owner).values_list("label", "kind", "reason", "source")
    )
    source = f"undo:receipt:{receipt.pk}"
    assert suppressed == [
        ("Atlas", "node", "undo", source),
        ("Atlas App", "node", "undo", source),
        ("Chess", "candidate", "undo", source),
    ]
    receipt.refresh_from_db()
    assert receipt.undone_at is not None
    assert (undo.source, undo.outcome, undo.detail["undone_receipt"]) == (
        "cleanup",
        "wrote",
        receipt.pk,
    )
    assert undo.counts["nodes_deleted"] == 1 and undo.counts["candidates_deleted"] == 1
    assert undo.detail["not_reverted"] == []
    assert undo.detail["transcript_deleted"] is True
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at == receipt.undone_at


def test_the_same_transcript_cannot_recreate_what_was_undone(owner: User, world: Any) -> None:
    text = json.dumps({"objects": DOC})
    first = ingest_text(owner=owner, text=text, name="chat.json", extractor="proposals")
    receipt_undo(receipt=first)

    again = ingest_text(owner=owner, text=text, name="chat.json", extractor="proposals")

    assert again.outcome == "wrote"  # processed afresh, not "duplicate" of an undone run
    blocked = {r["label"] for r in again.rejected if r["reason"] == "suppressed_blocked"}
    assert blocked == {"Atlas", "Chess"}
    assert not Node.objects.filter(label="Atlas").exists()
    assert not Candidate.objects.filter(label_guess="Chess").exists()


def test_undo_without_suppress_lets_a_rerun_recreate_it(owner: User, world: Any) -> None:
    text = json.dumps({"objects": DOC})
    first = ingest_text(owner=owner, text=text, name="chat.json", extractor="proposals")

    undo = receipt_undo(receipt=first, suppress=False)
    again = ingest_text(owner=owner, text=text, name="chat.json", extractor="proposals")

    assert undo.detail["suppressions"] == [] and not Suppression.objects.exists()
    assert again.counts["nodes"] == 1 and Node.objects.filter(label="Atlas").exists()


def test_changes_made_since_are_listed_not_overwritten(owner: User, world: Any) -> None:
    receipt = ingest(owner)
    node_update(node=Node.objects.get(pk=world["boxing"].pk), state="stopped")
    newer = make_slice(node=world["boxing"], text="every day", kind="progress")
    Slice.objects.filter(node=world["boxing"], text="once a week").update(is_current=False)

    undo = receipt_undo(receipt=receipt)

    boxing = Node.objects.get(pk=world["boxing"].pk)
    assert boxing.state == "stopped"
    assert any("Boxing" in line and "changed again" in line for line in undo.detail["not_reverted"])
    assert any("newer progress slice" in line for line in undo.detail["not_reverted"])
    current = Slice.objects.filter(node=boxing, is_current=True)
    assert list(current.values_list("pk", flat=True)) == [newer.pk]
    assert "could not be reverted" in undo.summary


def test_a_bump_is_reverted_and_a_revived_candidate_expires_again(owner: User) -> None:
    expired = make_candidate(owner=owner, label="Pottery", status="expired")
    held = {
        "object": "slice",
        "on": "Pottery",
        "text": "wants a wheel",
        "confidence": 0.9,
        "evidence": ev("I want a pottery wheel"),
    }
    receipt = ingest(owner, [held])
    expired.refresh_from_db()
    assert expired.status == "pending" and len(expired.held_objects) == 1

    receipt_undo(receipt=receipt)

    expired.refresh_from_db()
    assert (expired.status, expired.held_objects, expired.session_count) == ("expired", [], 1)


def test_a_candidate_mentioned_again_since_keeps_the_later_mention(owner: User) -> None:
    pottery = make_candidate(owner=owner, label="Pottery")
    doc = [{"object": "candidate", "label": "Pottery", "confidence": 0.6, "evidence": ev("a")}]
    held = {"object": "slice", "on": "Pottery", "text": "wheel", "evidence": ev("wheel")}
    first = ingest(owner, [*doc, held], name="1")
    ingest(owner, [{**doc[0], "evidence": ev("b")}], name="2")

    undo = receipt_undo(receipt=first)

    pottery.refresh_from_db()
    assert pottery.status == "pending"
    assert pottery.mention_count == 2  # its own and the second ingest's
    assert len(pottery.held_objects) == 1
    assert list(pottery.evidence.values_list("quote", flat=True)) == ["b"]
    assert any("held details kept" in line for line in undo.detail["not_reverted"])


def test_what_a_person_promoted_since_is_kept(owner: User) -> None:
    receipt = ingest(owner, DOC[5:])  # two new candidates, review mode
    chess = Candidate.objects.get(label_guess="Chess")
    node = candidate_promote(candidate=chess, by=owner)

    undo = receipt_undo(receipt=receipt)

    assert Node.objects.filter(pk=node.pk).exists()
    assert Candidate.objects.get(pk=chess.pk).status == "promoted"
    assert Evidence.objects.filter(node=node).count() == 1
    assert [k["label"] for k in undo.detail["kept"]] == ["Chess"]
    assert not Candidate.objects.filter(label_guess="Pottery").exists()
    assert list(Suppression.objects.values_list("label", flat=True)) == ["Pottery"]


def test_a_person_merging_into_a_node_the_run_created_is_listed(owner: User, world: Any) -> None:
    receipt = ingest(owner)
    atlas = Node.objects.get(label="Atlas")
    candidate_merge(candidate=world["pottery"], node=atlas, by=owner)

    undo = receipt_undo(receipt=receipt)

    assert not Node.objects.filter(pk=atlas.pk).exists()
    assert Candidate.objects.get(pk=world["pottery"].pk).status == "merged"
    assert any("Pottery" in line for line in undo.detail["also_removed"])


def test_existing_suppressions_are_not_duplicated(owner: User) -> None:
    receipt = ingest(owner, DOC[6:])
    make_suppression(owner=owner, label="Chess")

    undo = receipt_undo(receipt=receipt)

    assert undo.detail["suppressions"] == []
    assert Suppression.objects.filter(canonical_key="chess").count() == 1


def test_undo_leaves_another_users_data_alone(owner: User, other_user: User) -> None:
    ingest(other_user, DOC[5:], name="theirs")
    before = state(other_user)
    receipt = ingest(owner, DOC[5:])

    receipt_undo(receipt=receipt)

    assert state(other_user) == before


# --- undo: refusals and atomicity ------------------------------------------------------------


def test_a_second_undo_is_refused(owner: User) -> None:
    receipt = ingest(owner, DOC[5:])
    receipt_undo(receipt=receipt)
    before = state()

    with pytest.raises(EraseError, match="already undone"):
        receipt_undo(receipt=receipt)
    assert state() == before


def test_only_an_ingest_that_wrote_can_be_undone(owner: User) -> None:
    make_candidate(owner=owner, label="Pottery", expires_at=None, status="pending")
    candidate_reject(candidate=Candidate.objects.get(), by=owner)
    review = Receipt.objects.get(source="review")
    make_node(owner=owner, label="that thing", category="other")
    [report] = cleanup_run(user=owner)
    assert report.receipt is not None
    empty = ingest_proposals(owner=owner, objects=[], name="empty", source="api")

    with pytest.raises(EraseError, match="not an ingest"):
        receipt_undo(receipt=review)
    with pytest.raises(EraseError, match="not an ingest"):
        receipt_undo(receipt=report.receipt)
    with pytest.raises(EraseError, match="wrote nothing"):
        receipt_undo(receipt=empty)


def test_a_failure_rolls_the_undo_back_with_no_stray_suppression(owner: User, world: Any) -> None:
    receipt = ingest(owner)
    before = state()

    # The undo receipt's summary is the last step before its insert: every deletion, the
    # suppressions and ``undone_at`` are written by then.
    fails = mock.patch.object(erase_module._Undo, "summary", side_effect=RuntimeError("disk full"))
    with fails, pytest.raises(RuntimeError, match="disk full"):
        receipt_undo(receipt=receipt)

    assert state() == before
    assert not Suppression.objects.exists()
    receipt.refresh_from_db()
    assert receipt.undone_at is None


def test_the_preview_lists_what_would_go_and_writes_nothing(owner: User, world: Any) -> None:
    receipt = ingest(owner)
    before = state()

    preview = receipt_undo_preview(receipt=receipt)

    assert state() == before
    assert [n["label"] for n in preview["nodes"]] == ["Atlas"]
    assert [c["label"] for c in preview["candidates"]] == ["Chess"]
    assert preview["counts"] == {
        "nodes": 1,
        "slices": 2,
        "events": 1,
        "edges": 1,
        "candidates": 1,
        "episodes": 0,
    }


# --- undo through the command -----------------------------------------------------------------


def test_the_command_undoes_a_receipt(
    owner: User, world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    receipt = ingest(owner)

    call_command("cleanup", "--undo-receipt", str(receipt.pk), "--dry-run", "--json")
    preview = json.loads(capsys.readouterr().out)
    assert preview["dry_run"] is True and preview["counts"]["nodes"] == 1
    assert Node.objects.filter(label="Atlas").exists()

    call_command("cleanup", "--undo-receipt", str(receipt.pk), "--json", "--no-suppress")
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "wrote" and data["detail"]["undone_receipt"] == receipt.pk
    assert not Node.objects.filter(label="Atlas").exists() and not Suppression.objects.exists()

    with pytest.raises(CommandError, match="already undone"):
        call_command("cleanup", "--undo-receipt", str(receipt.pk))


def test_the_command_refuses_another_users_receipt(owner: User, other_user: User) -> None:
    receipt = ingest(owner, DOC[5:])

    with pytest.raises(CommandError, match="no receipt"):
        call_command("cleanup", "--undo-receipt", str(receipt.pk), "--user", "other")
    with pytest.raises(CommandError, match="no receipt"):
        call_command("cleanup", "--undo-receipt", "999999")


# --- delete all my memory ---------------------------------------------------------------------


def fill(user: Any, name: str) -> None:
    MemoryRule.objects.create(owner=user, capture_default="auto", retention_days=90)
    AccessToken.objects.create(
        owner=user, name="claude", prefix=f"ume_{name}", secret_sha256=f"{name:0>64}"
    )
    make_node(owner=user, label="Boxing")
    make_suppression(owner=user, label="Golf")
    Page.objects.create(owner=user, title="Notes", canonical_key="notes")
    ingest(user, DOC, name=f"{name}.json")


def test_delete_all_removes_every_memory_row_and_keeps_settings(
    owner: User, other_user: User
) -> None:
    fill(owner, "a")
    fill(other_user, "b")
    theirs = state(other_user)

    receipt = memory_erase_all(owner=owner)

    mine = state(owner)
    emptied = (Node, Alias, Slice, Event, Edge, Candidate, Evidence, Transcript, Page)
    assert all(mine[m.__name__] == [] for m in emptied)
    assert len(mine["Suppression"]) == 1  # kept by default
    assert len(mine["MemoryRule"]) == 1 and len(mine["AccessToken"]) == 1
    assert list(Receipt.objects.for_owner(owner)) == [receipt]
    assert receipt.detail == {
        "action": "erase_all",
        "kept_suppressions": True,
        "suppressions_kept": 1,
    }
    assert receipt.counts["nodes"] == 2 and receipt.counts["receipts"] == 1
    assert DeletionBarrier.objects.for_owner(owner).get().barrier_at == receipt.created_at
    assert state(other_user) == theirs


def test_delete_all_can_drop_the_suppressions_too(owner: User, other_user: User) -> None:
    fill(owner, "a")
    make_suppression(owner=other_user, label="Golf")

    memory_erase_all(owner=owner, keep_suppressions=False)

    assert not Suppression.objects.for_owner(owner).exists()
    assert Suppression.objects.for_owner(other_user).count() == 1


def test_a_failure_rolls_delete_all_back(owner: User) -> None:
    fill(owner, "a")
    before = state()

    # The index rebuild runs after every deletion, inside the transaction.
    fails = mock.patch.object(
        erase_module, "recall_index_rebuild", side_effect=RuntimeError("connection lost")
    )
    with fails, pytest.raises(RuntimeError):
        memory_erase_all(owner=owner, keep_suppressions=False)

    assert state() == before
