"""The cron cleanup: expiry, suppressions, retention, junk, orphans, receipts, dry runs,
idempotency and overlapping runs. Times are passed in (``now=``), never read from the clock."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection, connections, transaction
from django.utils import timezone

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
from memory.selectors import active_suppressions
from memory.services import cleanup as cleanup_module
from memory.services.cleanup import cleanup_run, cleanup_user
from memory.services.ingest import ingest_proposals
from tests.factories import (
    make_candidate,
    make_edge,
    make_event,
    make_node,
    make_slice,
    make_suppression,
    make_user,
)

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
ALL_MODELS = (
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


def table_state() -> dict[str, list[tuple]]:
    """Every row of every table cleanup could touch, as comparable tuples."""
    return {
        model.__name__: sorted(
            tuple(str(v) for v in row) for row in model.objects.order_by("pk").values_list()
        )
        for model in ALL_MODELS
    }


def evidence(owner: Any, quote: str = "said so", **targets: Any) -> Evidence:
    return Evidence.objects.create(owner=owner, quote=quote, **targets)


def transcript(owner: Any, name: str = "t.txt", **fields: Any) -> Transcript:
    fields.setdefault("status", "done")
    return Transcript.objects.create(owner=owner, name=name, text=name, sha256=name, **fields)


def candidate_doc(label: str, quote: str) -> list[dict]:
    return [
        {
            "object": "candidate",
            "label": label,
            "category": "interest",
            "confidence": 0.6,
            "evidence": [{"message_id": "M0", "quote": quote}],
        }
    ]


# --- candidates ----------------------------------------------------------------------------


def test_candidates_past_expiry_are_expired_with_their_evidence_kept(
    owner: User, other_user: User
) -> None:
    stale = make_candidate(owner=owner, label="Pottery", expires_at=NOW - timedelta(seconds=1))
    on_the_dot = make_candidate(owner=owner, label="Chess", expires_at=NOW)
    fresh = make_candidate(owner=owner, label="Tennis", expires_at=NOW + timedelta(days=1))
    legacy = make_candidate(owner=owner, label="Sailing", expires_at=None)
    decided = make_candidate(
        owner=owner, label="Kayak", status="rejected", expires_at=NOW - timedelta(days=9)
    )
    theirs = make_candidate(owner=other_user, label="Pottery", expires_at=NOW - timedelta(days=1))
    kept = evidence(owner, "I might try pottery", candidate=stale)

    [report] = cleanup_run(now=NOW, user=owner)

    statuses = dict(Candidate.objects.values_list("pk", "status"))
    assert statuses[stale.pk] == statuses[on_the_dot.pk] == "expired"
    assert statuses[fresh.pk] == statuses[legacy.pk] == "pending"
    assert statuses[decided.pk] == "rejected"
    assert statuses[theirs.pk] == "pending"  # --user limits the run to one person
    assert Evidence.objects.get(pk=kept.pk).candidate_id == stale.pk
    assert report.counts["candidates_expired"] == 2
    assert [c["label"] for c in report.candidates] == ["Pottery", "Chess"]


def test_an_expired_candidate_mentioned_again_comes_back_pending_not_as_a_twin(owner: User) -> None:
    receipt = ingest_proposals(
        owner=owner, objects=candidate_doc("Pottery", "I might try pottery"), name="a", source="api"
    )
    assert receipt.counts["candidates"] == 1
    first = Candidate.objects.for_owner(owner).get()
    cleanup_run(now=first.expires_at, user=owner)
    first.refresh_from_db()
    assert first.status == "expired"

    again = ingest_proposals(
        owner=owner,
        objects=candidate_doc("pottery", "pottery again, really"),
        name="b",
        source="api",
    )

    assert (again.counts["candidates"], again.counts["candidate_bumps"]) == (0, 1)
    assert again.detail["updated"]["candidates"][0]["revived"] is True
    revived = Candidate.objects.for_owner(owner).get()
    assert revived.pk == first.pk
    assert revived.status == "pending"
    assert revived.mention_count == 2
    assert revived.expires_at is not None and first.expires_at is not None
    assert revived.expires_at > first.expires_at
    assert list(revived.evidence.order_by("id").values_list("quote", flat=True)) == [
        "I might try pottery",
        "pottery again, really",
    ]


def test_a_pending_candidate_wins_over_an_expired_one_with_the_same_key(owner: User) -> None:
    old = make_candidate(owner=owner, label="Pottery", status="expired")
    current = make_candidate(owner=owner, label="Pottery")

    ingest_proposals(
        owner=owner, objects=candidate_doc("Pottery", "pottery"), name="a", source="api"
    )

    old.refresh_from_db()
    current.refresh_from_db()
    assert (old.status, old.mention_count) == ("expired", 1)
    assert (current.status, current.mention_count) == ("pending", 2)


# --- suppressions --------------------------------------------------------------------------


def test_the_gate_and_cleanup_agree_on_expired_suppressions_before_cleanup_runs(
    owner: User,
) -> None:
    now = timezone.now()
    lapsed = make_suppression(
        owner=owner, label="Pottery", suppressed_until=now - timedelta(hours=1)
    )
    blocking = make_suppression(
        owner=owner, label="Chess", suppressed_until=now + timedelta(days=1)
    )
    permanent = make_suppression(owner=owner, label="Golf")

    active = set(active_suppressions(owner, now=now).values_list("pk", flat=True))
    [preview] = cleanup_run(now=now, dry_run=True, user=owner)
    receipt = ingest_proposals(
        owner=owner,
        objects=candidate_doc("Pottery", "pottery")
        + candidate_doc("Chess", "chess")
        + candidate_doc("Golf", "golf"),
        name="a",
        source="api",
    )

    assert active == {blocking.pk, permanent.pk}
    assert [s["id"] for s in preview.suppressions] == [lapsed.pk]
    # Cleanup has not run: the gate already lets the lapsed label through, and only it.
    assert list(Candidate.objects.values_list("label_guess", flat=True)) == ["Pottery"]
    assert sorted(r["label"] for r in receipt.rejected) == ["Chess", "Golf"]
    assert {r["reason"] for r in receipt.rejected} == {"suppressed_blocked"}


def test_a_suppression_ending_exactly_now_is_expired_for_both(owner: User) -> None:
    ends = make_suppression(owner=owner, label="Pottery", suppressed_until=NOW)

    assert not active_suppressions(owner, now=NOW).exists()
    assert ends.is_active_at(NOW) is False
    [report] = cleanup_run(now=NOW, dry_run=True, user=owner)
    assert [s["id"] for s in report.suppressions] == [ends.pk]


def test_expired_suppressions_stay_listed_and_are_reported_once(owner: User) -> None:
    until = NOW - timedelta(days=1)
    lapsed = make_suppression(owner=owner, label="Pottery", suppressed_until=until)
    lifted = make_suppression(
        owner=owner, label="Chess", suppressed_until=until, lifted_at=until - timedelta(days=1)
    )

    [first] = cleanup_run(now=NOW, user=owner)
    [second] = cleanup_run(now=NOW + timedelta(minutes=15), user=owner)

    assert [s["label"] for s in first.suppressions] == ["Pottery"]
    assert first.receipt is not None and first.receipt.counts["suppressions_expired"] == 1
    assert second.suppressions == [] and second.receipt is None
    lapsed.refresh_from_db()
    assert lapsed.lifted_at is None and lapsed.suppressed_until == until
    assert Suppression.objects.filter(pk__in=[lapsed.pk, lifted.pk]).count() == 2

    later = make_suppression(owner=owner, label="Golf", suppressed_until=NOW + timedelta(hours=1))
    [third] = cleanup_run(now=NOW + timedelta(hours=2), user=owner)
    assert [s["id"] for s in third.suppressions] == [later.pk]


# --- retention -----------------------------------------------------------------------------


def test_retention_deletes_old_evidence_transcripts_and_superseded_slices(
    owner: User, other_user: User
) -> None:
    MemoryRule.objects.create(owner=owner, retention_days=30)
    old, recent = NOW - timedelta(days=31), NOW - timedelta(days=29)
    node = make_node(owner=owner, label="Boxing", created_at=old)
    promoted = make_node(owner=owner, label="Piano", origin="promoted", created_at=old)
    history = make_slice(
        node=node, text="3 days a week", kind="progress", is_current=False, superseded_at=old
    )
    recent_history = make_slice(
        node=node, text="2 days a week", kind="progress", is_current=False, superseded_at=recent
    )
    current_old = make_slice(node=node, text="4 days a week", kind="progress", created_at=old)
    old_ev = evidence(owner, "boxing!", node=node, created_at=old)
    piano_ev = evidence(owner, "piano!", node=promoted, created_at=old)
    new_ev = evidence(owner, "boxing again", node=node, created_at=recent)
    old_done = transcript(owner, "old.txt", created_at=old)
    old_queued = transcript(owner, "queued.txt", status="pending", created_at=old)
    new_done = transcript(owner, "new.txt", created_at=recent)
    theirs = evidence(other_user, "theirs", node=make_node(owner=other_user), created_at=old)

    [report] = cleanup_run(now=NOW, user=owner)

    assert report.counts["evidence_deleted"] == 2
    assert report.counts["transcripts_deleted"] == 1
    assert report.counts["slices_deleted"] == 1
    assert report.retention == {"days": 30, "cutoff": (NOW - timedelta(days=30)).isoformat()}
    assert not Evidence.objects.filter(pk__in=[old_ev.pk, piano_ev.pk]).exists()
    assert Evidence.objects.filter(pk__in=[new_ev.pk, theirs.pk]).count() == 2
    assert set(Transcript.objects.values_list("pk", flat=True)) == {old_queued.pk, new_done.pk}
    assert not Slice.objects.filter(pk=history.pk).exists()
    assert Slice.objects.filter(pk__in=[recent_history.pk, current_old.pk]).count() == 2
    assert Node.objects.filter(pk__in=[node.pk, promoted.pk]).count() == 2  # nodes are kept
    assert old_done.pk not in Transcript.objects.values_list("pk", flat=True)


def test_without_retention_days_nothing_old_is_deleted(owner: User) -> None:
    MemoryRule.objects.create(owner=owner, retention_days=None)
    node = make_node(owner=owner)
    evidence(owner, node=node, created_at=NOW - timedelta(days=3650))
    make_slice(node=node, is_current=False, superseded_at=NOW - timedelta(days=3650))

    [report] = cleanup_run(now=NOW, user=owner)

    assert report.retention is None
    assert (Evidence.objects.count(), Slice.objects.count()) == (1, 1)
    assert report.receipt is None


# --- junk and orphans ----------------------------------------------------------------------


def test_junk_nodes_are_removed_suppressed_and_reported(owner: User, other_user: User) -> None:
    junk = make_node(owner=owner, label="that thing", category="other")
    request = make_node(owner=owner, label="Can you help me", category="other")
    good = make_node(owner=owner, label="Boxing")
    make_node(owner=owner, label="this stuff", origin="promoted", category="other")
    theirs = make_node(owner=other_user, label="that thing", category="other")
    make_slice(node=junk, text="junk slice")
    make_event(node=request, text="junk event")
    make_edge(from_node=junk, to_node=good)
    quote = evidence(owner, "that thing", node=junk)
    make_suppression(owner=owner, label="Can you help me", kind="node")  # already covered

    [report] = cleanup_run(now=NOW, user=owner)

    assert [(j["label"], j["reason"]) for j in report.junk] == [
        ("that thing", "junk_label"),
        ("Can you help me", "bad_title"),
    ]
    assert [j["label"] for j in report.junk_kept] == ["this stuff"]
    assert set(Node.objects.for_owner(owner).values_list("label", flat=True)) == {
        "Boxing",
        "this stuff",
    }
    assert Node.objects.filter(pk=theirs.pk).exists()
    c = report.counts
    assert (c["junk_nodes_removed"], c["junk_slices_removed"], c["junk_events_removed"]) == (
        2,
        1,
        1,
    )
    assert (c["junk_edges_removed"], c["suppressions_written"]) == (1, 1)
    written = Suppression.objects.for_owner(owner).get(reason="cleanup")
    assert (written.label, written.kind, written.canonical_key) == (
        "that thing",
        "node",
        "that thing",
    )
    assert all(j["suppression"] for j in report.junk)
    assert not Evidence.objects.filter(pk=quote.pk).exists()  # left without a target: swept
    assert c["orphan_evidence_deleted"] == 1


def test_orphan_evidence_is_swept_and_evidence_with_a_target_stays(owner: User) -> None:
    node = make_node(owner=owner)
    candidate = make_candidate(owner=owner)
    orphan = evidence(owner, "nobody")
    on_node = evidence(owner, "node", node=node)
    on_candidate = evidence(owner, "candidate", candidate=candidate)

    [report] = cleanup_run(now=NOW, user=owner)

    assert report.counts["orphan_evidence_deleted"] == 1
    assert not Evidence.objects.filter(pk=orphan.pk).exists()
    assert Evidence.objects.filter(pk__in=[on_node.pk, on_candidate.pk]).count() == 2


def test_edges_cannot_outlive_their_nodes(owner: User) -> None:
    """Why cleanup sweeps no orphan edges: the database removes them with either end."""
    a, b, c = (make_node(owner=owner, label=label) for label in ("Alpha", "Beta", "Gamma"))
    make_edge(from_node=a, to_node=b)
    make_edge(from_node=c, to_node=a)

    a.delete()

    assert Edge.objects.count() == 0


# --- receipts, dry runs, idempotency -------------------------------------------------------


def busy_owner(owner: Any) -> None:
    """One of everything cleanup does, for ``owner``."""
    MemoryRule.objects.create(owner=owner, retention_days=30)
    old = NOW - timedelta(days=40)
    make_candidate(owner=owner, label="Pottery", expires_at=NOW - timedelta(days=1))
    make_suppression(owner=owner, label="Chess", suppressed_until=NOW - timedelta(days=1))
    node = make_node(owner=owner, label="Boxing")
    make_slice(node=node, kind="progress", is_current=False, superseded_at=old)
    evidence(owner, node=node, created_at=old)
    transcript(owner, f"{owner.username}.txt", created_at=old)
    make_node(owner=owner, label="that thing", category="other")
    evidence(owner, "orphan")


def test_one_receipt_per_user_touched_and_none_for_the_untouched(
    owner: User, other_user: User
) -> None:
    busy_owner(owner)
    quiet = make_user("quiet")
    make_node(owner=quiet, label="Running")

    reports = {r.username: r for r in cleanup_run(now=NOW)}

    assert set(reports) == {"owner", "quiet"}
    assert reports["quiet"].receipt is None and reports["quiet"].status == "clean"
    receipt = Receipt.objects.for_owner(owner).get()
    assert (receipt.source, receipt.outcome, receipt.created_at) == ("cleanup", "wrote", NOW)
    assert receipt.counts == reports["owner"].counts
    assert receipt.counts == {
        "candidates_expired": 1,
        "one_offs_expired": 0,
        "suppressions_expired": 1,
        "evidence_deleted": 1,
        "transcripts_deleted": 1,
        "episodes_deleted": 0,
        "slices_deleted": 1,
        "junk_nodes_removed": 1,
        "junk_slices_removed": 0,
        "junk_events_removed": 0,
        "junk_edges_removed": 0,
        "suppressions_written": 1,
        "orphan_evidence_deleted": 1,
        "orphan_episodes_deleted": 0,
        "revisions_deleted": 0,
        "idempotency_keys_expired": 0,
    }
    assert receipt.detail["action"] == "cleanup"
    assert [j["label"] for j in receipt.detail["junk_removed"]] == ["that thing"]
    assert not Receipt.objects.filter(owner__in=[other_user, quiet]).exists()


def test_a_dry_run_writes_nothing_and_reports_exactly_what_a_real_run_does(
    owner: User, other_user: User
) -> None:
    busy_owner(owner)
    busy_owner(other_user)
    before = table_state()

    dry = {r.username: r for r in cleanup_run(now=NOW, dry_run=True)}

    assert table_state() == before
    assert all(r.receipt is None for r in dry.values())
    real = {r.username: r for r in cleanup_run(now=NOW)}
    for name in ("owner", "other"):
        assert dry[name].counts == real[name].counts
        assert dry[name].candidates == real[name].candidates
        assert dry[name].suppressions == real[name].suppressions
        assert [j["id"] for j in dry[name].junk] == [j["id"] for j in real[name].junk]


def test_a_second_run_right_after_the_first_changes_nothing(owner: User, other_user: User) -> None:
    busy_owner(owner)
    busy_owner(other_user)
    cleanup_run(now=NOW)
    after_first = table_state()

    second = cleanup_run(now=NOW)

    assert table_state() == after_first
    assert all(not r.changed and r.receipt is None for r in second)


def test_the_user_lock_is_taken_inside_the_run(owner: User) -> None:
    with transaction.atomic():
        assert cleanup_module._lock_user(owner) is True


# --- the command ---------------------------------------------------------------------------


def test_the_command_prints_one_json_object(
    owner: User,
    other_user: User,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    busy_owner(owner)
    monkeypatch.setattr(timezone, "now", lambda: NOW)

    call_command("cleanup", "--json")

    payload = json.loads(capsys.readouterr().out)
    assert payload["dry_run"] is False and payload["as_of"] == NOW.isoformat()
    [user] = payload["users"]
    assert user["user"] == "owner" and user["status"] == "changed"
    assert user["receipt_id"] == Receipt.objects.for_owner(owner).get().pk
    assert payload["totals"]["candidates_expired"] == 1


def test_the_command_dry_run_and_user_filter(
    owner: User,
    other_user: User,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    busy_owner(owner)
    busy_owner(other_user)
    monkeypatch.setattr(timezone, "now", lambda: NOW)
    before = table_state()

    call_command("cleanup", "--dry-run", "--json", "--user", "other")

    payload = json.loads(capsys.readouterr().out)
    assert payload["dry_run"] is True
    assert [u["user"] for u in payload["users"]] == ["other"]
    assert payload["users"][0]["receipt_id"] is None
    assert table_state() == before


def test_the_command_human_output(
    owner: User, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    busy_owner(owner)
    monkeypatch.setattr(timezone, "now", lambda: NOW)

    call_command("cleanup")
    out = capsys.readouterr().out
    assert "owner: 1 candidates expired" in out
    assert "junk removed: that thing (junk_label)" in out

    call_command("cleanup")
    assert "nothing to clean up" in capsys.readouterr().out


def test_the_command_errors(owner: User) -> None:
    with pytest.raises(CommandError, match="unknown user"):
        call_command("cleanup", "--user", "nobody")
    with pytest.raises(CommandError, match="--undo-receipt"):
        call_command("cleanup", "--no-suppress")


# --- overlapping runs (PostgreSQL) ---------------------------------------------------------

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs two real connections and advisory locks: runs on PostgreSQL "
    "(DATABASE_URL=postgres://...); on SQLite the database lock serialises runs and the "
    "single-connection behaviour (a second run changes nothing) is tested above",
)


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_run_skips_a_user_another_run_holds() -> None:
    owner = make_user("locked")
    make_candidate(owner=owner, label="Pottery", expires_at=NOW - timedelta(days=1))
    holding, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                assert cleanup_module._lock_user(owner)
                holding.set()
                release.wait(30)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(30)
        busy = cleanup_user(owner=owner, now=NOW)
    finally:
        release.set()
        thread.join(30)
    assert not errors
    assert busy.status == "busy" and busy.receipt is None
    assert Candidate.objects.for_owner(owner).get().status == "pending"

    done = cleanup_user(owner=owner, now=NOW)
    assert done.status == "changed" and done.counts["candidates_expired"] == 1


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_overlapping_runs_count_everything_once() -> None:
    owners = [make_user(f"user{n}") for n in range(4)]
    for owner in owners:
        busy_owner(owner)
    start = threading.Barrier(2, timeout=30)
    results: list[list] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            results.append(cleanup_run(now=NOW))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    # Whatever a run skipped as busy, the other finished: run once more to be sure nothing is
    # left, and that this last run finds nothing.
    last = cleanup_run(now=NOW)

    assert not errors
    assert len(results) == 2
    assert all(not r.changed for r in last)
    for owner in owners:
        done = [r for run in results for r in run if r.user_id == owner.pk and r.changed]
        assert len(done) == 1, owner.username  # one run did the work, the other nothing
        assert done[0].counts["candidates_expired"] == 1
        assert Receipt.objects.for_owner(owner).filter(source="cleanup").count() == 1
        assert Candidate.objects.for_owner(owner).get().status == "expired"
        assert Suppression.objects.for_owner(owner).filter(reason="cleanup").count() == 1


# --- at scale: chunks and bounded reports ----------------------------------------------------


def _a_store_to_clean(owner: Any) -> None:
    """Some of everything cleanup removes: expired candidates, old transcripts with what was
    said in them, old superseded facts, junk nodes."""
    from memory.models import Episode

    MemoryRule.objects.create(owner=owner, retention_days=30)
    old = NOW - timedelta(days=31)
    for i in range(7):
        make_candidate(owner=owner, label=f"Guess {i}", expires_at=NOW - timedelta(hours=i + 1))
    for i in range(5):
        t = transcript(owner, f"old {owner.pk} {i}.txt", created_at=old)
        Episode.objects.bulk_create(
            Episode(
                owner=owner,
                transcript=t,
                message_id=f"m{n}",
                seq=n,
                role="user",
                text=f"said {n}",
                said_at=old,
                learned_at=old,
            )
            for n in range(3)
        )
    node = make_node(owner=owner, label="Boxing")
    for i in range(5):
        make_slice(node=node, text=f"old fact {i}", is_current=False, superseded_at=old)
    for label, category in (
        ("that thing", "other"),
        ("that thing", "tool"),
        ("this stuff", "other"),
    ):
        make_node(owner=owner, label=label, category=category)


def test_cleanup_in_small_chunks_does_what_one_pass_does(
    owner: User, other_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    _a_store_to_clean(owner)
    _a_store_to_clean(other_user)
    [whole] = cleanup_run(now=NOW, user=other_user)
    monkeypatch.setattr(cleanup_module, "CHUNK", 2)
    monkeypatch.setattr(cleanup_module, "LIST_LIMIT", 3)
    [chunked] = cleanup_run(now=NOW, user=owner)

    assert chunked.counts == whole.counts
    assert chunked.counts["candidates_expired"] == 7 and chunked.counts["episodes_deleted"] == 15
    assert chunked.counts["transcripts_deleted"] == 5 and chunked.counts["slices_deleted"] == 5
    assert chunked.counts["junk_nodes_removed"] == 3
    for model in (Candidate, Transcript, Slice, Node, Suppression):
        status = {"status": "pending"} if model is Candidate else {}
        assert (
            model.objects.for_owner(owner).filter(**status).count()
            == model.objects.for_owner(other_user).filter(**status).count()
        )
    # The report names the first LIST_LIMIT candidates; its count stays exact.
    assert len(chunked.candidates) == 3 and len(whole.candidates) == 7
