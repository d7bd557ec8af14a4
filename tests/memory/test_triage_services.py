"""Batches of review decisions and their undo, expiry of one-off guesses and restore, and the
said times and value every writer keeps on a candidate (memory.services.triage, cleanup,
apply, erase)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from memory.models import Candidate, Node, Receipt, Suppression
from memory.services.cleanup import cleanup_run, cleanup_user
from memory.services.erase import receipt_undo
from memory.services.ingest import ingest_proposals
from memory.services.review import ReviewError, candidate_reject, candidate_undo
from memory.services.triage import (
    BATCH_MAX,
    batch_undo,
    candidates_batch,
    candidates_restore,
)
from memory.triage import candidate_value, is_one_off
from tests.factories import make_candidate, make_node, make_suppression

SAID = datetime(2022, 3, 4, 19, 30, tzinfo=UTC)


def guesses(owner: Any, *labels: str, **fields: Any) -> list[Candidate]:
    return [make_candidate(owner=owner, label=label, **fields) for label in labels]


def statuses(owner: Any) -> dict[str, str]:
    return dict(Candidate.objects.for_owner(owner).values_list("label_guess", "status"))


# --- batches ---------------------------------------------------------------------------------


def test_a_batch_promotes_each_guess_with_its_own_receipt_and_one_of_its_own(
    owner: User,
) -> None:
    chess, lisbon = guesses(owner, "Chess", "Lisbon")
    batch = candidates_batch(owner=owner, candidates=[chess, lisbon], action="promote", by=owner)
    assert [c.label_guess for c in batch.done] == ["Chess", "Lisbon"] and not batch.skipped
    assert set(Node.objects.for_owner(owner).values_list("label", flat=True)) == {
        "Chess",
        "Lisbon",
    }
    decisions = Receipt.objects.for_owner(owner).filter(detail__action="promote")
    assert decisions.count() == 2
    assert batch.receipt is not None
    key = batch.receipt.detail["batch"]
    assert {r.detail["batch"] for r in decisions} == {key}
    assert batch.receipt.detail["candidates"] == [chess.pk, lisbon.pk]
    assert batch.receipt.counts == {"decided": 2, "skipped": 0}
    assert batch.receipt.summary.startswith("promoted 2 guesses: “Chess” and “Lisbon”")
    # the batch's receipt is the newest: the chain of receipts stays intact
    assert Receipt.objects.for_owner(owner).order_by("-seq").first() == batch.receipt


def test_one_undo_takes_the_whole_batch_back(owner: User) -> None:
    chess, lisbon, tea = guesses(owner, "Chess", "Lisbon", "Tea")
    promoted = candidates_batch(owner=owner, candidates=[chess, lisbon], action="promote", by=owner)
    until = timezone.now() + timedelta(days=7)
    suppressed = candidates_batch(
        owner=owner, candidates=[tea], action="suppress", by=owner, until=until
    )
    assert Suppression.objects.for_owner(owner).get().suppressed_until == until
    assert promoted.receipt is not None and suppressed.receipt is not None
    undone = batch_undo(receipt=promoted.receipt, by=owner)
    assert [c.label_guess for c in undone.undone] == ["Chess", "Lisbon"] and not undone.refused
    assert statuses(owner) == {"Chess": "pending", "Lisbon": "pending", "Tea": "suppressed"}
    assert not Node.objects.for_owner(owner).exists()
    assert batch_undo(receipt=suppressed.receipt, by=owner).undone == [tea]
    assert not Suppression.objects.for_owner(owner).exists()
    promoted.receipt.refresh_from_db()
    assert promoted.receipt.undone_at is not None
    assert (
        not Receipt.objects.for_owner(owner)
        .filter(detail__action="promote", undone_at__isnull=True)
        .exists()
    )
    with pytest.raises(ReviewError, match="already undone"):
        batch_undo(receipt=promoted.receipt, by=owner)


def test_a_batch_skips_what_it_cannot_decide_and_says_why(owner: User) -> None:
    make_node(owner=owner, label="Boxing", category="skill")
    boxing, gone, blocked, ok = guesses(owner, "Boxing", "Kayak", "Harpoon", "Chess")
    candidate_reject(candidate=gone, by=owner)
    make_suppression(owner=owner, label="Harpoon", kind="node")
    batch = candidates_batch(
        owner=owner, candidates=[boxing, gone, blocked, ok], action="promote", by=owner
    )
    assert batch.done == [ok]
    reasons = {c.label_guess: why for c, why in batch.skipped}
    assert "would merge into the memory “Boxing”" in reasons["Boxing"]
    assert "already rejected" in reasons["Kayak"]
    assert "Harpoon" in reasons and statuses(owner)["Harpoon"] == "pending"
    assert batch.receipt is not None and batch.receipt.counts["skipped"] == 3


def test_a_batch_refuses_what_is_not_a_batch(owner: User, other_user: User) -> None:
    (mine,) = guesses(owner, "Chess")
    (theirs,) = guesses(other_user, "Chess")
    with pytest.raises(ReviewError, match="unknown batch action"):
        candidates_batch(owner=owner, candidates=[mine], action="merge", by=owner)
    with pytest.raises(ReviewError, match="does not exist"):
        candidates_batch(owner=owner, candidates=[mine, theirs], action="reject", by=owner)
    assert statuses(owner) == {"Chess": "pending"}  # one transaction: nothing of it stays
    with pytest.raises(ReviewError, match="end in the future"):
        candidates_batch(
            owner=owner, candidates=[mine], action="suppress", by=owner, until=timezone.now()
        )
    with pytest.raises(ReviewError, match=f"at most {BATCH_MAX}"):
        candidates_batch(
            owner=owner, candidates=[mine] * (BATCH_MAX + 1), action="reject", by=owner
        )
    nothing = candidates_batch(owner=owner, candidates=[], action="reject", by=owner)
    assert nothing.receipt is None


def test_undoing_a_batch_leaves_a_guess_decided_again_since(owner: User) -> None:
    chess, tea = guesses(owner, "Chess", "Tea")
    batch = candidates_batch(owner=owner, candidates=[chess, tea], action="reject", by=owner)
    candidate_undo(candidate=chess, by=owner)
    chess.refresh_from_db()
    candidate_reject(candidate=chess, by=owner, suppress=True)
    assert batch.receipt is not None
    result = batch_undo(receipt=batch.receipt, by=owner)
    assert result.undone == [tea]
    assert [(c.label_guess, why) for c, why in result.refused] == [
        ("Chess", "decided again since; undo it on its card")
    ]
    assert statuses(owner) == {"Chess": "suppressed", "Tea": "pending"}


def test_a_batch_is_undone_only_while_any_decision_can_be(owner: User) -> None:
    (chess,) = guesses(owner, "Chess")
    batch = candidates_batch(owner=owner, candidates=[chess], action="reject", by=owner)
    assert batch.receipt is not None
    with override_settings(UME_UNDO_SECONDS=1):
        Receipt.objects.filter(pk=batch.receipt.pk).update(
            created_at=timezone.now() - timedelta(seconds=5)
        )
        batch.receipt.refresh_from_db()
        with pytest.raises(ReviewError, match="too old"):
            batch_undo(receipt=batch.receipt, by=owner)
    single = Receipt.objects.for_owner(owner).get(detail__action="reject")
    with pytest.raises(ReviewError, match="not a batch"):
        batch_undo(receipt=single, by=owner)


# --- said times and value --------------------------------------------------------------------


def doc(label: str, *times: datetime, confidence: float = 0.6) -> list[dict[str, Any]]:
    return [
        {
            "object": "candidate",
            "label": label,
            "category": "interest",
            "confidence": confidence,
            "evidence": [
                {"message_id": f"M{i}", "quote": f"{label} again ({i})", "ts": t.isoformat()}
                for i, t in enumerate(times)
            ],
        }
    ]


def test_a_guess_keeps_when_it_was_said_not_when_it_was_imported(owner: User) -> None:
    later = SAID + timedelta(days=400)
    ingest_proposals(owner=owner, objects=doc("Pottery", SAID, later), name="a", source="api")
    card = Candidate.objects.for_owner(owner).get()
    assert (card.first_said_at, card.last_said_at) == (SAID, later)
    assert card.created_at > later + timedelta(days=365)
    assert card.value == candidate_value(
        sessions=1, mentions=card.mention_count, confidence=0.6, last_said=later
    )
    # an older conversation imported after moves "first said" back, never "last said" forward
    earlier = SAID - timedelta(days=90)
    ingest_proposals(owner=owner, objects=doc("Pottery", earlier), name="b", source="api")
    card.refresh_from_db()
    assert (card.first_said_at, card.last_said_at, card.session_count) == (earlier, later, 2)
    assert card.value == card.value_now()
    assert card.value > candidate_value(
        sessions=1, mentions=card.mention_count, confidence=0.6, last_said=later
    )


def test_undoing_an_ingest_puts_said_times_and_value_back(owner: User) -> None:
    ingest_proposals(owner=owner, objects=doc("Pottery", SAID), name="a", source="api")
    card = Candidate.objects.for_owner(owner).get()
    before = (card.first_said_at, card.last_said_at, card.value)
    later = SAID + timedelta(days=800)
    second = ingest_proposals(owner=owner, objects=doc("Pottery", later), name="b", source="api")
    card.refresh_from_db()
    assert card.last_said_at == later and card.value > before[2]
    receipt_undo(receipt=second)
    card.refresh_from_db()
    assert (card.first_said_at, card.last_said_at, card.value) == before


def test_saving_a_candidate_sets_its_value_again(owner: User) -> None:
    (card,) = guesses(owner, "Chess", confidence=0.5)
    assert card.value == card.value_now() > 0
    card.confidence = 0.9
    card.save(update_fields=["confidence"])
    card.refresh_from_db()
    assert card.value == card.value_now()
    assert card.last_said_at == card.last_seen_at  # made with no said time: when ume saw it


# --- one-off guesses expire, and come back -----------------------------------------------------


def test_cleanup_expires_one_off_guesses_left_unreviewed_and_its_receipt_says_so(
    owner: User, other_user: User
) -> None:
    now = timezone.now()
    old = now - timedelta(days=15)
    once = make_candidate(owner=owner, label="Naples", confidence=0.6, last_seen_at=old)
    recurring = make_candidate(
        owner=owner, label="Pepper", confidence=0.6, last_seen_at=old, session_count=2
    )
    sure = make_candidate(owner=owner, label="Rotterdam", confidence=0.9, last_seen_at=old)
    recent = make_candidate(owner=owner, label="Lisbon", confidence=0.6, last_seen_at=now)
    theirs = make_candidate(owner=other_user, label="Naples", confidence=0.6, last_seen_at=old)
    for c in (once, recurring, sure, recent):
        expected = c is once
        one_off = is_one_off(
            sessions=c.session_count, mentions=c.mention_count, confidence=c.confidence,
            auto_confidence=0.8,
        )  # fmt: skip
        assert one_off is (c in (once, recent)), c.label_guess
        assert (c.last_seen_at <= now - timedelta(days=14) and one_off) is expected
    [report] = cleanup_run(now=now, user=owner)
    assert statuses(owner) == {
        "Naples": "expired",
        "Pepper": "pending",
        "Rotterdam": "pending",
        "Lisbon": "pending",
    }
    assert Candidate.objects.get(pk=theirs.pk).status == "pending"
    assert report.receipt is not None
    assert report.counts["one_offs_expired"] == report.counts["candidates_expired"] == 1
    assert report.candidates == [
        {"id": once.pk, "label": "Naples", "expires_at": None, "reason": "one_off"}
    ]
    assert "1 one-off guesses unreviewed for 14 days" in report.receipt.summary
    once.refresh_from_db()
    assert once.expired_receipt_id == report.receipt.pk


def test_a_restored_guess_comes_back_and_is_not_expired_as_a_one_off_again(owner: User) -> None:
    now = timezone.now()
    once = make_candidate(
        owner=owner, label="Naples", confidence=0.6, last_seen_at=now - timedelta(days=20)
    )
    [report] = cleanup_run(now=now, user=owner)
    receipt, skipped = candidates_restore(owner=owner, candidates=[once], by=owner)
    assert receipt is not None and not skipped
    assert receipt.detail["expired_by"] == [report.receipt.pk]  # type: ignore[union-attr]
    assert receipt.summary == "back in the queue: “Naples”"
    once.refresh_from_db()
    assert once.status == "pending" and once.restored_at is not None
    assert once.expires_at is not None and once.expires_at > now + timedelta(days=29)
    assert cleanup_user(owner=owner, now=now + timedelta(days=1)).counts["candidates_expired"] == 0
    # the usual expiry still applies once its time comes
    later = cleanup_user(owner=owner, now=now + timedelta(days=31))
    assert later.counts["candidates_expired"] == 1 and later.counts["one_offs_expired"] == 0


def test_restore_skips_what_is_not_expired_or_was_proposed_again(owner: User) -> None:
    now = timezone.now()
    (naples,) = guesses(owner, "Naples", confidence=0.6, last_seen_at=now - timedelta(days=20))
    cleanup_run(now=now, user=owner)
    (waiting,) = guesses(owner, "Naples")  # proposed again: a new card waits
    receipt, skipped = candidates_restore(owner=owner, candidates=[naples, waiting], by=owner)
    assert receipt is None
    assert {c.pk: why for c, why in skipped} == {
        naples.pk: "it was proposed again meanwhile: a new card waits",
        waiting.pk: "it is pending, not expired",
    }


@override_settings(UME_ONE_OFF_DAYS=0)
def test_the_early_expiry_can_be_turned_off(owner: User) -> None:
    now = timezone.now()
    guesses(owner, "Naples", confidence=0.6, last_seen_at=now - timedelta(days=29))
    assert cleanup_user(owner=owner, now=now).counts["candidates_expired"] == 0


def test_the_cleanup_command_restores_what_a_cleanup_run_expired(owner: User, capsys: Any) -> None:
    now = timezone.now()
    guesses(owner, "Naples", "Bergen", confidence=0.6, last_seen_at=now - timedelta(days=20))
    [report] = cleanup_run(now=now, user=owner)
    assert report.receipt is not None
    call_command("cleanup", "--undo-receipt", str(report.receipt.pk))
    assert "back in the queue: “Naples” and “Bergen”" in capsys.readouterr().out
    assert set(statuses(owner).values()) == {"pending"}
