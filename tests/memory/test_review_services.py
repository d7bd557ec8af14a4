"""A person's decisions on candidates, through the real services and database."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from memory.models import Alias, Candidate, Edge, Evidence, Node, Receipt, Slice, Suppression
from memory.services.ingest import ingest_text
from memory.services.review import (
    CandidateAlreadyDecided,
    ReviewError,
    candidate_merge,
    candidate_promote,
    candidate_reject,
    candidate_undo,
)
from tests.factories import make_candidate, make_node, make_slice, make_suppression


def ingest(owner: Any, *objects: Any, name: Any = "t.json") -> Any:
    return ingest_text(
        owner=owner, text=json.dumps({"objects": list(objects)}), name=name, extractor="proposals"
    )


def ev(quote: Any) -> Any:
    return [{"message_id": "M0", "quote": quote}]


def test_promote_uses_the_edited_label_category_and_state(owner: User) -> None:
    candidate = make_candidate(owner=owner, label="boxing clas", category_guess="other")
    node = candidate_promote(
        candidate=candidate,
        by=owner,
        label="Boxing Class",
        category="habit",
        state="paused",
        keep_guess=True,
    )
    assert (node.label, node.category, node.state, node.origin) == (
        "Boxing Class",
        "habit",
        "paused",
        "promoted",
    )
    assert (
        candidate.status == "promoted"
        and candidate.promoted_node == node
        and candidate.reviewed_by == owner
    )
    assert list(node.aliases.values_list("alias", flat=True)) == ["boxing clas"]
    receipt = Receipt.objects.get(source="review")
    assert receipt.outcome == "wrote" and receipt.detail["node"] == node.pk


def test_promote_moves_the_evidence_onto_the_node(owner: User) -> None:
    ingest(
        owner,
        {
            "object": "node",
            "label": "Atlas",
            "category": "project",
            "evidence": ev("Atlas is my app"),
        },
    )
    node = candidate_promote(candidate=Candidate.objects.get(), by=owner)
    assert list(node.evidence.values_list("quote", flat=True)) == ["Atlas is my app"]


def test_promoting_onto_an_existing_label_merges(owner: User) -> None:
    existing = make_node(owner=owner, label="Atlas", category="project")
    candidate = make_candidate(owner=owner, label="Atlas App")
    node = candidate_promote(candidate=candidate, by=owner, label="atlas")
    assert node.pk == existing.pk and Node.objects.count() == 1
    assert candidate.status == "merged"


def test_promoting_a_suppressed_label_is_refused(owner: User) -> None:
    make_suppression(owner=owner, label="Piano")
    candidate = make_candidate(owner=owner, label="Keys")
    with pytest.raises(ReviewError, match="suppressed"):
        candidate_promote(candidate=candidate, by=owner, label="Piano")
    assert Candidate.objects.get().status == "pending" and not Node.objects.exists()


@pytest.mark.parametrize(
    ("label", "message"),
    [("", "not a usable label"), ("they", "not a usable label"), ("x" * 201, "at most 200")],
)
def test_promote_refuses_bad_labels(owner: User, label: Any, message: Any) -> None:
    with pytest.raises(ReviewError, match=message):
        candidate_promote(candidate=make_candidate(owner=owner), by=owner, label=label)


def test_a_second_decision_is_refused_and_writes_nothing(owner: User) -> None:
    candidate = make_candidate(owner=owner)
    candidate_promote(candidate=candidate, by=owner)
    stale = Candidate.objects.get(pk=candidate.pk)
    stale.status = "pending"  # another tab still shows it as pending
    for act in (
        lambda: candidate_promote(candidate=stale, by=owner),
        lambda: candidate_reject(candidate=stale, by=owner, suppress=True),
        lambda: candidate_merge(candidate=stale, node=Node.objects.get(), by=owner),
    ):
        with pytest.raises(CandidateAlreadyDecided, match="already promoted"):
            act()
    assert Node.objects.count() == 1 and not Suppression.objects.exists()
    assert Receipt.objects.filter(source="review").count() == 1


def test_reject_and_reject_with_suppress_are_different_verbs(owner: User) -> None:
    wrong = make_candidate(owner=owner, label="Tennis")
    stop = make_candidate(owner=owner, label="Piano")
    assert candidate_reject(candidate=wrong, by=owner) is None
    until = timezone.now() + timedelta(days=7)
    suppression = candidate_reject(candidate=stop, by=owner, suppress=True, until=until)
    assert (wrong.status, stop.status) == ("rejected", "suppressed")
    assert suppression is not None
    assert (suppression.canonical_key, suppression.reason, suppression.suppressed_until) == (
        "piano",
        "rejected",
        until,
    )
    assert Suppression.objects.count() == 1


def test_a_suppression_must_end_in_the_future(owner: User) -> None:
    with pytest.raises(ReviewError, match="future"):
        candidate_reject(
            candidate=make_candidate(owner=owner), by=owner, suppress=True, until=timezone.now()
        )


def test_merge_adds_the_alias_and_counts_and_writes_held_details(owner: User) -> None:
    node = make_node(owner=owner, label="Universal Memory Engine", category="project")
    make_slice(node=node, text="two sessions a week", kind="progress")
    ingest(
        owner,
        {"object": "node", "label": "UME", "evidence": ev("UME is coming along")},
        {
            "object": "slice",
            "on": "UME",
            "kind": "progress",
            "text": "daily sessions now",
            "evidence": ev("daily sessions now"),
        },
    )
    candidate = Candidate.objects.get()
    merged = candidate_merge(candidate=candidate, node=node, by=owner)
    assert candidate.status == "merged" and merged.mention_count == 2
    assert Alias.objects.get().alias == "UME"
    assert list(node.slices.filter(is_current=True).values_list("text", flat=True)) == [
        "daily sessions now"
    ]
    assert node.slices.filter(is_current=False).count() == 1


def test_merge_without_alias(owner: User) -> None:
    node = make_node(owner=owner, label="Atlas", category="project")
    candidate_merge(
        candidate=make_candidate(owner=owner, label="Atlas Invoicing"),
        node=node,
        by=owner,
        add_alias=False,
    )
    assert not Alias.objects.exists()


def test_merge_into_another_owners_node_is_refused(owner: User, other_user: User) -> None:
    with pytest.raises(ReviewError, match="does not exist"):
        candidate_merge(
            candidate=make_candidate(owner=owner), node=make_node(owner=other_user), by=owner
        )


def test_an_edge_between_two_candidates_lands_when_both_are_promoted(owner: User) -> None:
    ingest(
        owner,
        {"object": "node", "label": "Atlas", "category": "project", "evidence": ev("Atlas")},
        {"object": "node", "label": "Postgres", "category": "tool", "evidence": ev("Postgres")},
        {
            "object": "edge",
            "from": "Atlas",
            "to": "Postgres",
            "type": "uses",
            "evidence": ev("Atlas uses Postgres"),
        },
    )
    atlas = candidate_promote(candidate=Candidate.objects.get(label_guess="Atlas"), by=owner)
    assert not Edge.objects.exists()
    postgres = candidate_promote(candidate=Candidate.objects.get(label_guess="Postgres"), by=owner)
    edge = Edge.objects.get()
    assert (edge.from_node, edge.to_node, edge.type) == (atlas, postgres, "uses")
    assert edge.evidence.get().quote == "Atlas uses Postgres"


def test_undo_a_promotion_restores_the_candidate(owner: User) -> None:
    ingest(
        owner,
        {"object": "node", "label": "Atlas", "category": "project", "evidence": ev("Atlas")},
        {
            "object": "slice",
            "on": "Atlas",
            "text": "invoicing for freelancers",
            "evidence": ev("Atlas is invoicing"),
        },
    )
    candidate = Candidate.objects.get()
    candidate_promote(candidate=candidate, by=owner)
    candidate_undo(candidate=candidate, by=owner)
    assert candidate.status == "pending" and candidate.promoted_node is None
    assert not Node.objects.exists() and not Slice.objects.exists()
    assert Evidence.objects.filter(candidate=candidate).count() == 2
    assert Receipt.objects.get(source="review").undone_at is not None
    with pytest.raises(ReviewError, match="no decision to undo"):
        candidate_undo(candidate=candidate, by=owner)


def test_undo_a_suppression_removes_it(owner: User) -> None:
    candidate = make_candidate(owner=owner)
    candidate_reject(candidate=candidate, by=owner, suppress=True)
    candidate_undo(candidate=candidate, by=owner)
    assert candidate.status == "pending" and not Suppression.objects.exists()


def test_undo_a_merge_restores_the_node(owner: User) -> None:
    node = make_node(owner=owner, label="Atlas", category="project", state="active")
    candidate = make_candidate(owner=owner, label="Atlas App")
    candidate_merge(candidate=candidate, node=node, by=owner)
    candidate_undo(candidate=candidate, by=owner)
    node.refresh_from_db()
    assert node.mention_count == 1 and not Alias.objects.exists()


def test_undo_is_refused_after_the_window(owner: User) -> None:
    candidate = make_candidate(owner=owner)
    candidate_reject(candidate=candidate, by=owner)
    Receipt.objects.update(created_at=timezone.now() - timedelta(hours=1))
    with pytest.raises(ReviewError, match="too old"):
        candidate_undo(candidate=candidate, by=owner)


def test_promoting_under_a_new_name_does_not_alias_a_suppressed_label(owner: User) -> None:
    candidate = make_candidate(owner=owner, label="Bobby")
    make_suppression(owner=owner, label="Bobby")
    node = candidate_promote(candidate=candidate, by=owner, label="Robert")
    assert node.label == "Robert" and not Alias.objects.exists()


def test_merge_never_aliases_another_nodes_label(owner: User) -> None:
    atlas = make_node(owner=owner, label="Atlas", category="project")
    make_node(owner=owner, label="Orion", category="project")
    candidate_merge(candidate=make_candidate(owner=owner, label="Orion"), node=atlas, by=owner)
    assert not Alias.objects.exists()


def test_undo_raises_the_deletion_barrier(owner: User) -> None:
    from memory.models import DeletionBarrier

    candidate = make_candidate(owner=owner)
    candidate_promote(candidate=candidate, by=owner)
    candidate_undo(candidate=candidate, by=owner)
    assert DeletionBarrier.objects.for_owner(owner).exists()


def _manager_guess(owner: Any) -> Any:
    ingest(
        owner,
        {"object": "node", "label": "Manager", "category": "person", "evidence": ev("my manager")},
        {
            "object": "slice",
            "on": "Manager",
            "text": "Is Sofia Almeida",
            "evidence": ev("My manager is Sofia Almeida"),
        },
        {
            "object": "slice",
            "on": "Manager",
            "text": "runs the platform team",
            "evidence": ev("she runs the platform team"),
        },
    )
    return Candidate.objects.get()


def test_a_renamed_promotion_keeps_neither_the_guess_as_alias_nor_a_fact_restating_the_name(
    owner: User,
) -> None:
    node = candidate_promote(candidate=_manager_guess(owner), by=owner, label="Sofia Almeida")
    assert node.label == "Sofia Almeida"
    assert not node.aliases.exists()
    assert list(node.slices.values_list("text", flat=True)) == ["runs the platform team"]


def test_a_renamed_promotion_keeps_the_guess_as_alias_when_asked(owner: User) -> None:
    node = candidate_promote(
        candidate=_manager_guess(owner), by=owner, label="Sofia Almeida", keep_guess=True
    )
    assert list(node.aliases.values_list("alias", flat=True)) == ["Manager"]
    assert list(node.slices.values_list("text", flat=True)) == ["runs the platform team"]


def test_a_renamed_promotion_onto_an_existing_memory_adds_no_alias_unless_kept(owner: User) -> None:
    sofia = make_node(owner=owner, label="Sofia Almeida", category="person")
    node = candidate_promote(candidate=_manager_guess(owner), by=owner, label="sofia almeida")
    assert node.pk == sofia.pk and not node.aliases.exists()


# --- what a decision writes carries its receipt, as an ingest's rows do --------------------------


def _held_details(label: str) -> list[dict]:
    return [
        {"object": "slice", "on": label, "text": "trains on Tuesdays", "kind": "progress"},
        {"object": "event", "on": label, "action": "paused", "text": "paused for the winter"},
        {"object": "edge", "from": label, "to": "Gym", "type": "uses"},
    ]


def test_a_promotion_marks_every_row_it_creates_with_its_receipt(owner: User) -> None:
    make_node(owner=owner, label="Gym", category="place")
    candidate = make_candidate(owner=owner, label="Rowing", held_objects=_held_details("Rowing"))

    node = candidate_promote(candidate=candidate, by=owner, keep_guess=True)

    receipt = Receipt.objects.get(source="review", detail__action="promote")
    assert node.created_receipt_id == receipt.pk
    assert [s.created_receipt_id for s in node.slices.all()] == [receipt.pk]
    assert [e.created_receipt_id for e in node.events.all()] == [receipt.pk]
    assert [e.created_receipt_id for e in Edge.objects.for_owner(owner)] == [receipt.pk]
    # The receipt is complete, and what it lists is what carries it.
    assert receipt.counts == {"nodes": 1, "slices": 1, "events": 1, "edges": 1}
    assert receipt.detail["created"]["slices"] == list(node.slices.values_list("pk", flat=True))
    assert receipt.summary.startswith("promoted “Rowing”")


def test_a_merge_marks_the_details_it_writes_with_its_receipt(owner: User) -> None:
    rowing = make_node(owner=owner, label="Rowing")
    make_node(owner=owner, label="Gym", category="place")
    old = make_slice(node=rowing, text="trains on Mondays", kind="progress")
    candidate = make_candidate(owner=owner, label="rowing club", held_objects=_held_details("x"))
    candidate.held_objects[2]["from"] = "rowing club"
    candidate.save(update_fields=["held_objects"])

    candidate_merge(candidate=candidate, node=rowing, by=owner, change_state=True)

    receipt = Receipt.objects.get(source="review", detail__action="merge")
    new = rowing.slices.get(is_current=True)
    assert new.created_receipt_id == receipt.pk and new.text == "trains on Tuesdays"
    assert rowing.events.get().created_receipt_id == receipt.pk
    assert Edge.objects.for_owner(owner).get().created_receipt_id == receipt.pk
    old.refresh_from_db()
    assert old.created_receipt_id is None and not old.is_current  # superseded, not re-marked
    assert receipt.detail["superseded"] == [old.pk]


def test_a_state_change_through_review_moves_updated_at(owner: User) -> None:
    rowing = make_node(owner=owner, label="Rowing")
    week_ago = timezone.now() - timedelta(days=7)
    Node.objects.filter(pk=rowing.pk).update(updated_at=week_ago)
    candidate = make_candidate(owner=owner, label="rowing club", held_objects=_held_details("x"))

    candidate_merge(candidate=candidate, node=rowing, by=owner, change_state=True)

    rowing.refresh_from_db()
    assert rowing.state == "paused" and rowing.updated_at > week_ago
