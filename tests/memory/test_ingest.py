"""The write path through real services and a real database: receipts, suppressions that
hold, bad input, failures, concurrency."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, connections
from django.utils import timezone
from pytest_django import Settings

from memory.models import (
    Candidate,
    Edge,
    Event,
    Evidence,
    MemoryRule,
    Node,
    Receipt,
    Slice,
    Suppression,
    Transcript,
)
from memory.services import ingest as ingest_module
from memory.services.ingest import ingest_bytes, ingest_messages, ingest_pending, ingest_text
from memory.services.nodes import node_delete
from memory.services.review import candidate_promote, candidate_reject
from tests.factories import make_candidate, make_node, make_user
from tests.faults import inside_the_ingest


def proposals_doc(*objects: dict, messages: list | None = None) -> str:
    doc: dict = {"objects": list(objects)}
    if messages is not None:
        doc["messages"] = messages
    return json.dumps(doc)


def ev(quote: str = "I started boxing", message_id: str = "M0") -> list[dict]:
    return [{"message_id": message_id, "quote": quote}]


def row_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Node, Slice, Event, Edge, Candidate, Evidence, Suppression)
    }


@pytest.fixture
def auto(owner: User) -> Any:
    return MemoryRule.objects.create(owner=owner, capture_default="auto")


BOXING_DOC = proposals_doc(
    {"object": "node", "label": "Boxing", "category": "skill", "confidence": 0.9, "evidence": ev()},
    {
        "object": "event",
        "on": "Boxing",
        "action": "started",
        "text": "started boxing",
        "evidence": ev(),
    },
)


# --- receipts and what they say --------------------------------------------------------------


def test_a_proposal_becomes_a_candidate_with_evidence_and_a_receipt(owner: User) -> None:
    receipt = ingest_text(owner=owner, text=BOXING_DOC, name="boxing.json", extractor="proposals")
    assert receipt.outcome == "wrote"
    assert receipt.counts["candidates"] == 1 and receipt.counts["held"] == 1
    candidate = Candidate.objects.for_owner(owner).get()
    assert (candidate.label_guess, candidate.category_guess, candidate.status) == (
        "Boxing",
        "skill",
        "pending",
    )
    assert candidate.expires_at is not None and candidate.expires_at > candidate.last_seen_at
    quotes = list(candidate.evidence.values_list("quote", "message_id", "receipt_id"))
    # The guess's own span and its held event's span are the same words: one piece of evidence.
    assert quotes == [("I started boxing", "M0", receipt.pk)]
    assert receipt.summary == "1 candidate"
    assert Transcript.objects.for_owner(owner).get().status == "done"


def test_auto_capture_writes_nodes_with_provenance(owner: User, auto: Any) -> None:
    receipt = ingest_text(owner=owner, text=BOXING_DOC, name="boxing.json", extractor="proposals")
    node = Node.objects.for_owner(owner).get()
    assert (node.label, node.state, node.created_receipt_id) == ("Boxing", "active", receipt.pk)
    event = node.events.get()
    assert event.evidence.get().quote == "I started boxing"
    assert receipt.counts["nodes"] == 1 and receipt.counts["events"] == 1
    assert receipt.summary == "1 node (Boxing), 1 event"
    assert receipt.detail["created"]["nodes"] == [
        {"id": node.pk, "label": "Boxing", "on_behalf": False}
    ]


def test_rejections_are_listed_with_reasons_and_counted(owner: User) -> None:
    doc = proposals_doc(
        {"object": "node", "label": "they", "evidence": ev()},
        {"object": "edge", "from": "A", "to": "B", "type": "uses"},
        {"object": "node", "label": "Atlas", "category": "project", "evidence": ev()},
    )
    receipt = ingest_text(owner=owner, text=doc, name="mixed.json", extractor="proposals")
    assert receipt.rejected == [
        {"kind": "node", "label": "they", "reason": "junk_label"},
        {"kind": "edge", "label": "A -> B", "reason": "edge_endpoint_missing"},
    ]
    assert receipt.reasons == {"junk_label": 1, "edge_endpoint_missing": 1}
    assert receipt.summary == "1 candidate; skipped 2: junk label, edge endpoint missing"


def test_a_dictated_sentence_with_no_stop_is_read_in_pieces(owner: User) -> None:
    # Dictation typed without a full stop: one sentence far longer than a quote may be. It had
    # failed the whole transcript's extraction (a quote over MAX_TEXT), saving nothing.
    said = (
        "so I quit smoking last year and "
        + "then we went on and on about the garden and the weather " * 80
        + "and my car broke down on the way home"
    )
    assert len(said) > 4000
    doc = json.dumps({"messages": [{"id": "m1", "role": "user", "content": said}]})
    receipt = ingest_text(owner=owner, text=doc, name="dictated.json", extractor="rules")
    assert receipt.outcome == "wrote"
    labels = set(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert {"Smoking", "Car"} <= labels
    quotes = Candidate.objects.for_owner(owner).values_list("evidence__quote", flat=True)
    assert all(0 < len(q) <= 1000 and q in said for q in quotes)


def test_nothing_worth_keeping_is_a_meaningful_no_write(owner: User) -> None:
    receipt = ingest_text(owner=owner, text="User: hi there\nAssistant: hello!", name="hi.txt")
    assert receipt.outcome == "meaningful_no_write"
    assert row_counts()["Candidate"] == 0


def test_reingesting_identical_content_is_a_duplicate_and_writes_nothing(owner: User) -> None:
    first = ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    before = row_counts()
    again = ingest_text(owner=owner, text=BOXING_DOC, name="renamed.json", extractor="proposals")
    assert again.outcome == "duplicate"
    assert again.detail["original_receipt"] == first.pk
    assert row_counts() == before
    assert Candidate.objects.get().mention_count == 1


def test_the_same_content_for_another_owner_is_not_a_duplicate(
    owner: User, other_user: User
) -> None:
    ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    receipt = ingest_text(owner=other_user, text=BOXING_DOC, name="a.json", extractor="proposals")
    assert receipt.outcome == "wrote"
    assert Candidate.objects.for_owner(other_user).count() == 1


def test_a_second_transcript_bumps_the_pending_candidate(owner: User) -> None:
    ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    second = proposals_doc(
        {"object": "node", "label": "boxing", "category": "skill", "evidence": ev("boxing again")}
    )
    receipt = ingest_text(owner=owner, text=second, name="b.json", extractor="proposals")
    assert receipt.counts["candidate_bumps"] == 1 and receipt.counts["candidates"] == 0
    candidate = Candidate.objects.get()
    assert (candidate.mention_count, candidate.session_count) == (2, 2)
    # "I started boxing" (said once, shared by the guess and its held event), "boxing again"
    assert candidate.evidence.count() == 2


# --- a suppression holds -----------------------------------------------------------------------

PIANO_TRANSCRIPT = proposals_doc(
    {
        "object": "node",
        "label": "Piano",
        "category": "skill",
        "evidence": ev("I might take up piano"),
    }
)


def test_reject_and_suppress_similar_holds_against_reingest(owner: User) -> None:
    ingest_text(owner=owner, text=PIANO_TRANSCRIPT, name="t1.json", extractor="proposals")
    candidate = Candidate.objects.get(label_guess="Piano")
    suppression = candidate_reject(candidate=candidate, by=owner, suppress=True)
    assert suppression is not None and Candidate.objects.get().status == "suppressed"

    same = ingest_text(owner=owner, text=PIANO_TRANSCRIPT, name="t1.json", extractor="proposals")
    assert same.outcome == "duplicate"
    new = proposals_doc(
        {"object": "node", "label": "PIANO", "category": "skill", "evidence": ev("piano lessons")},
        {
            "object": "event",
            "on": "Piano",
            "action": "started",
            "text": "started piano",
            "evidence": ev(),
        },
    )
    MemoryRule.objects.create(
        owner=owner, capture_default="auto"
    )  # not even auto capture gets through
    receipt = ingest_text(owner=owner, text=new, name="t2.json", extractor="proposals")
    assert receipt.outcome == "meaningful_no_write"
    assert receipt.reasons == {"suppressed_blocked": 2}
    assert Candidate.objects.filter(status="pending").count() == 0
    assert not Node.objects.exists()
    suppression.refresh_from_db()
    assert suppression.hit_count == 1 and suppression.last_hit_at is not None


def test_plain_reject_does_not_suppress(owner: User) -> None:
    ingest_text(owner=owner, text=PIANO_TRANSCRIPT, name="t1.json", extractor="proposals")
    candidate_reject(candidate=Candidate.objects.get(), by=owner)
    assert not Suppression.objects.exists()
    again = ingest_messages(
        owner=owner, messages=[{"role": "user", "content": "x"}], name="noop", source="api"
    )
    assert again.outcome == "meaningful_no_write"
    receipt = ingest_text(
        owner=owner,
        text=proposals_doc({"object": "node", "label": "Piano", "evidence": ev("piano")}),
        name="t3.json",
        extractor="proposals",
    )
    assert receipt.counts["candidates"] == 1


def test_deleting_a_node_with_make_it_stick_holds_against_reingest(owner: User) -> None:
    node = make_node(owner=owner, label="Atlas", category="project", aliases=("Atlas App",))
    node_delete(node=node, stick=True)
    assert set(Suppression.objects.values_list("canonical_key", "reason")) == {
        ("atlas", "deleted"),
        ("atlas app", "deleted"),
    }
    doc = proposals_doc(
        {
            "object": "node",
            "label": "atlas",
            "category": "project",
            "evidence": ev("Atlas shipped"),
        },
        {
            "object": "slice",
            "on": "Atlas App",
            "text": "runs on Postgres",
            "evidence": ev("Atlas runs on Postgres"),
        },
    )
    receipt = ingest_text(owner=owner, text=doc, name="atlas.json", extractor="proposals")
    assert receipt.reasons == {"suppressed_blocked": 2}
    assert not Node.objects.exists() and not Candidate.objects.exists()


def test_deleting_without_make_it_stick_lets_it_come_back(owner: User) -> None:
    node_delete(node=make_node(owner=owner, label="Atlas", category="project"), stick=False)
    doc = proposals_doc({"object": "node", "label": "Atlas", "evidence": ev("Atlas")})
    assert (
        ingest_text(owner=owner, text=doc, name="a.json", extractor="proposals").counts[
            "candidates"
        ]
        == 1
    )


def test_another_owners_suppression_does_not_block(owner: User, other_user: User) -> None:
    node_delete(node=make_node(owner=other_user, label="Atlas"), stick=True)
    doc = proposals_doc({"object": "node", "label": "Atlas", "evidence": ev("Atlas")})
    assert (
        ingest_text(owner=owner, text=doc, name="a.json", extractor="proposals").counts[
            "candidates"
        ]
        == 1
    )


def test_promotion_writes_the_held_details_with_their_dates(owner: User) -> None:
    doc = proposals_doc(
        {
            "object": "node",
            "label": "Berlin",
            "category": "place",
            "evidence": ev("I moved to Berlin"),
        },
        {
            "object": "event",
            "on": "Berlin",
            "action": "moved",
            "text": "moved to Berlin",
            "happened_at": "2021-03",
            "evidence": ev("I moved to Berlin in March 2021"),
        },
    )
    ingest_text(owner=owner, text=doc, name="berlin.json", extractor="proposals")
    node = candidate_promote(
        candidate=Candidate.objects.get(), by=owner, label="Berlin, Germany", keep_guess=True
    )
    assert (node.label, node.origin) == ("Berlin, Germany", "promoted")
    event = node.events.get()
    assert (event.happened_at, event.happened_at_precision) == (
        datetime(2021, 3, 1, tzinfo=UTC),
        "month",
    )
    assert set(node.evidence.values_list("quote", flat=True)) == {
        "I moved to Berlin",
        "I moved to Berlin in March 2021",
    }
    assert [a.alias for a in node.aliases.all()] == ["Berlin"]


# --- bad input: a clear receipt and nothing lost ------------------------------------------------


def test_empty_file_is_a_meaningful_no_write(owner: User) -> None:
    receipt = ingest_bytes(owner=owner, data=b"  \n\n", name="empty.txt")
    assert (receipt.outcome, receipt.detail["reason"]) == (
        "meaningful_no_write",
        "empty transcript",
    )
    assert not Transcript.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"User: caf\xe9 au lait\n", "not valid UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (bytes(range(1, 32)) * 20, "binary"),
    ],
)
def test_binary_or_invalid_utf8_is_rejected_input(owner: User, data: Any, message: Any) -> None:
    receipt = ingest_bytes(owner=owner, data=data, name="bad.txt")
    assert receipt.outcome == "rejected_input"
    assert message in receipt.error and "bad.txt" in receipt.error
    assert row_counts() == dict.fromkeys(row_counts(), 0)


def test_a_file_over_the_limit_is_rejected_input(owner: User, settings: Settings) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 100
    receipt = ingest_bytes(owner=owner, data=b"User: I started boxing.\n" * 10, name="big.txt")
    assert receipt.outcome == "rejected_input" and "over the limit of 100 bytes" in receipt.error
    assert not Transcript.objects.exists()


@pytest.mark.parametrize(
    ("text", "extractor", "message"),
    [
        ('[{"role": "user", "content": "hi"', "rules", "malformed JSON"),
        ('{"messages": [{"role": "pirate", "content": "arr"}]}', "rules", "role must be user"),
        ('{"objects": [{"object": "node"}]}', "proposals", "invalid proposal at 0.node.label"),
        ("{not json", "proposals", "malformed JSON"),
    ],
)
def test_malformed_json_is_rejected_input(
    owner: User, text: Any, extractor: Any, message: Any
) -> None:
    receipt = ingest_text(owner=owner, text=text, name="bad.json", extractor=extractor)
    assert receipt.outcome == "rejected_input" and message in receipt.error
    assert Transcript.objects.get().status == "failed"
    assert row_counts()["Candidate"] == 0


def test_hostile_labels_are_refused_not_stored(owner: User) -> None:
    doc = proposals_doc(
        {"object": "node", "label": "x" * 5000, "evidence": ev()},
    )
    receipt = ingest_text(owner=owner, text=doc, name="huge-label.json", extractor="proposals")
    assert receipt.outcome == "rejected_input" and "at most 200 characters" in receipt.error
    assert not Candidate.objects.exists()


# --- failures roll back and say so ---------------------------------------------------------------


def test_a_database_failure_rolls_back_and_records_db_write_failed(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom() -> None:
        raise DatabaseError("disk I/O error (simulated)")

    fault = inside_the_ingest(monkeypatch, boom)
    receipt = ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    assert receipt.outcome == "db_write_failed"
    assert "disk I/O error" in receipt.error and receipt.detail["retryable"] is True
    assert row_counts() == dict.fromkeys(row_counts(), 0)
    assert list(Receipt.objects.values_list("outcome", flat=True)) == ["db_write_failed"]
    transcript = Transcript.objects.get()
    assert transcript.status == "failed"

    fault.side_effect = None  # the database is back: only the real step runs
    assert ingest_pending(limit=5, extractor="proposals") == []  # backs off before retrying
    Transcript.objects.update(processed_at=timezone.now() - timedelta(minutes=2))
    (retry,) = ingest_pending(limit=5, extractor="proposals")
    assert retry.outcome == "wrote" and Candidate.objects.count() == 1
    transcript.refresh_from_db()
    assert transcript.status == "done" and transcript.attempts == 2


def test_a_candidate_created_meanwhile_is_bumped_on_retry(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unique key wins a race: apply fails, the gate plans again on fresh state."""
    make_candidate(owner=owner, label="Boxing")
    real = ingest_module.gate_snapshot
    calls = []

    def stale_first(o: Any, proposals: Any, *, now: Any) -> Any:
        calls.append(now)
        snapshot = real(o, proposals, now=now)
        return snapshot if len(calls) > 1 else type(snapshot)(now=now, rules=snapshot.rules)

    monkeypatch.setattr(ingest_module, "gate_snapshot", stale_first)
    receipt = ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    assert len(calls) == 2
    assert (receipt.outcome, receipt.counts["candidate_bumps"]) == ("wrote", 1)
    assert Candidate.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_writers_naming_the_same_new_label_make_one_candidate() -> None:
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs two real connections with row locks: runs on PostgreSQL (make test with DATABASE_URL)"
        )
    owner = make_user("racer")
    barrier = threading.Barrier(2, timeout=20)
    real = ingest_module.gate_snapshot
    seen: set[int] = set()

    def together(o: Any, proposals: Any, *, now: Any) -> Any:
        snapshot = real(o, proposals, now=now)
        if threading.get_ident() not in seen:
            seen.add(threading.get_ident())
            barrier.wait()  # both have read "no such label" before either writes
        return snapshot

    results: list[Receipt] = []
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            doc = proposals_doc(
                {"object": "node", "label": "Kite Surfing", "evidence": ev(f"kite {n}")}
            )
            results.append(
                ingest_text(owner=owner, text=doc, name=f"{n}.json", extractor="proposals")
            )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    ingest_module_patch = pytest.MonkeyPatch()
    ingest_module_patch.setattr(ingest_module, "gate_snapshot", together)
    try:
        threads = [threading.Thread(target=run, args=(n,)) for n in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        ingest_module_patch.undo()
    assert not errors
    assert sorted(r.outcome for r in results) == ["wrote", "wrote"]
    candidate = Candidate.objects.for_owner(owner).get()
    assert candidate.mention_count == 2 and candidate.session_count == 2
    assert sorted(sum(r.counts[k] for k in ("candidates", "candidate_bumps")) for r in results) == [
        1,
        1,
    ]


# --- the command ---------------------------------------------------------------------------------


def test_ingest_command_prints_one_json_receipt_per_file_and_survives_a_bad_one(
    owner: User, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(BOXING_DOC)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00binary")
    missing = tmp_path / "missing.txt"
    call_command(
        "ingest", str(bad), str(missing), str(good), user="owner", extractor="proposals", json=True
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line.get("outcome"), line["path"].split("/")[-1]) for line in lines] == [
        ("rejected_input", "bad.txt"),
        (None, "missing.txt"),
        ("wrote", "good.json"),
    ]
    assert "bad.txt" in lines[0]["error"] and "cannot read" in lines[1]["error"]
    assert set(lines[2]) >= {"receipt_id", "outcome", "counts", "rejected"}


def test_ingest_command_human_output(
    owner: User, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "good.json"
    path.write_text(BOXING_DOC)
    call_command("ingest", str(path), user="owner", extractor="proposals")
    out = capsys.readouterr().out
    assert "wrote - 1 candidate (receipt" in out


def test_ingest_command_errors(owner: User, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="unknown user 'nobody'"):
        call_command("ingest", str(tmp_path / "x.txt"), user="nobody")
    with pytest.raises(CommandError, match="--user is required"):
        call_command("ingest", str(tmp_path / "x.txt"))
    with pytest.raises(CommandError, match="not an ISO 8601"):
        call_command("ingest", str(tmp_path / "x.txt"), user="owner", source_time="last tuesday")
    with pytest.raises(CommandError, match="none of the 1 file"):
        call_command("ingest", str(tmp_path / "x.txt"), user="owner")


def test_ingest_pending_processes_uploads_once(
    owner: User, capsys: pytest.CaptureFixture[str]
) -> None:
    from memory.services.ingest import transcript_store

    transcript_store(
        owner=owner, text=BOXING_DOC, name="up.json", source="upload", source_time=None
    )
    call_command("ingest", pending=True, extractor="proposals", json=True)
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["outcome"] == "wrote"
    call_command("ingest", pending=True, extractor="proposals", json=True)
    assert capsys.readouterr().out == ""
    assert Transcript.objects.get().status == "done"


def test_a_stale_processing_claim_is_taken_over(owner: User) -> None:
    from django.utils import timezone

    from memory.services.ingest import transcript_claim, transcript_store

    transcript, _ = transcript_store(
        owner=owner, text=BOXING_DOC, name="up.json", source="upload", source_time=None
    )
    now = timezone.now()
    assert transcript_claim(transcript, now=now)
    assert not transcript_claim(transcript, now=now + timedelta(minutes=1))
    assert transcript_claim(transcript, now=now + timedelta(minutes=20))


def test_a_transcript_that_keeps_killing_its_worker_is_given_up(owner: User) -> None:
    from memory.services.ingest import MAX_ATTEMPTS, transcript_store

    transcript, _ = transcript_store(
        owner=owner, text=BOXING_DOC, name="poison.json", source="upload", source_time=None
    )
    Transcript.objects.filter(pk=transcript.pk).update(
        status="processing", attempts=MAX_ATTEMPTS, claimed_at=timezone.now() - timedelta(hours=1)
    )
    assert ingest_pending(limit=5, extractor="proposals") == []
    transcript.refresh_from_db()
    assert (
        transcript.status == "failed"
        and f"gave up after {MAX_ATTEMPTS} attempts" in transcript.error
    )


def test_retries_stop_after_the_last_attempt(owner: User, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory.services.ingest import MAX_ATTEMPTS

    def down() -> None:
        raise DatabaseError("down")

    inside_the_ingest(monkeypatch, down)
    ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    for _ in range(MAX_ATTEMPTS + 2):
        Transcript.objects.update(processed_at=timezone.now() - timedelta(hours=1))
        ingest_pending(limit=5, extractor="proposals")
    transcript = Transcript.objects.get()
    assert transcript.attempts == MAX_ATTEMPTS and transcript.status == "failed"


def test_a_suppression_made_while_an_ingest_is_planning_still_holds(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person clicks "stop proposing this" between the snapshot and the write."""
    from tests.factories import make_suppression

    real = ingest_module.gate_snapshot
    calls: list[Any] = []

    def person_acts_meanwhile(o: Any, proposals: Any, *, now: Any) -> Any:
        snapshot = real(o, proposals, now=now)
        if not calls:
            make_suppression(owner=owner, label="Boxing")
        calls.append(now)
        return snapshot

    monkeypatch.setattr(ingest_module, "gate_snapshot", person_acts_meanwhile)
    receipt = ingest_text(owner=owner, text=BOXING_DOC, name="a.json", extractor="proposals")
    assert len(calls) == 2  # planned again on fresh state
    assert receipt.reasons == {"suppressed_blocked": 2}
    assert not Candidate.objects.exists()


def test_a_manual_suppression_closes_pending_candidates(owner: User) -> None:
    from memory.services.nodes import suppression_add

    make_candidate(owner=owner, label="Piano")
    suppression_add(owner=owner, label="piano!")
    assert Candidate.objects.get().status == "suppressed"
