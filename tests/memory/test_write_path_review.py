"""A hostile review of the write path: each test pins a defect that was found and fixed.

Hostile input (deep JSON, NUL characters, over-long keys, colliding aliases), failures that
used to leave a transcript in ``processing`` or crash the run, suppressions that leaked in as
aliases, exact matches crowded out of the gate's snapshot, and provenance lost on promotion.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone
from pytest_django import Settings

from memory.models import Alias, Candidate, Evidence, MemoryRule, Node, Receipt, Transcript
from memory.policy import label_rejection
from memory.services import ingest as ingest_module
from memory.services.ingest import (
    ingest_bytes,
    ingest_memory,
    ingest_messages,
    ingest_pending,
    ingest_text,
    transcript_store,
)
from memory.services.review import candidate_promote
from memory.transcripts import TranscriptError, messages_from_json, parse_transcript
from tests.factories import make_candidate, make_node, make_suppression
from tests.faults import inside_the_ingest
from tests.llm_stub import StubLLMServer


def doc(*objects: dict) -> str:
    return json.dumps({"objects": list(objects)})


def ev(quote: str = "I know Robert", message_id: str = "M0") -> list[dict]:
    return [{"message_id": message_id, "quote": quote}]


def node(label: str, **extra: object) -> dict:
    return {
        "object": "node",
        "label": label,
        "category": "person",
        "confidence": 0.95,
        "evidence": ev(),
        **extra,
    }


@pytest.fixture
def auto(owner: User) -> Any:
    return MemoryRule.objects.create(owner=owner, capture_default="auto")


def no_nul_anywhere() -> None:
    for model, fields in (
        (Node, ("label",)),
        (Alias, ("alias",)),
        (Candidate, ("label_guess",)),
        (Evidence, ("quote",)),
        (Transcript, ("name",)),
        (Receipt, ("subject", "summary", "error")),
    ):
        for row in model.objects.values_list(*fields):
            assert all("\x00" not in value for value in row), (model.__name__, row)


# --- hostile JSON: deep nesting and NUL characters ---------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize(
    "text, extractor",
    [
        (DEEP, "rules"),
        ('{"messages": ' + DEEP + "}", "rules"),
        ('{"objects": ' + DEEP + "}", "proposals"),
    ],
    ids=["list", "messages", "proposals"],
)
def test_deeply_nested_json_is_rejected_input_not_a_crash(
    owner: User, text: Any, extractor: Any
) -> None:
    receipt = ingest_text(owner=owner, text=text, name="deep.json", extractor=extractor)
    assert receipt.outcome == "rejected_input"
    assert "deep.json" in receipt.error and "nested too deeply" in receipt.error
    assert Transcript.objects.get().status == "failed"


def test_deeply_nested_json_upload_check_raises_a_transcript_error() -> None:
    with pytest.raises(TranscriptError, match="deep.json: .*nested too deeply"):
        parse_transcript(DEEP, name="deep.json")


@pytest.mark.parametrize(
    "data",
    [
        [{"role": "user", "content": "my sister Meera\u0000 lives in Bangalore"}],
        [{"role": "user", "content": "hello", "id": "M\u00001"}],
    ],
    ids=["content", "id"],
)
def test_a_nul_character_in_a_message_is_refused_with_where(data: Any) -> None:
    with pytest.raises(TranscriptError, match=r"message 0: .*NUL"):
        messages_from_json(data)


@pytest.mark.parametrize(
    "text, extractor",
    [
        (
            json.dumps([{"role": "user", "content": "I started boxing\u0000 last week"}]),
            "rules",
        ),
        (doc(node("Rob\u0000ert")), "proposals"),
        (doc(node("Robert", evidence=ev("I know\u0000 Robert"))), "proposals"),
        (doc(node("Robert", aliases=["Bob\u0000by"])), "proposals"),
    ],
    ids=["message", "label", "quote", "alias"],
)
def test_nul_characters_in_json_never_reach_a_text_column(
    owner: User, auto: Any, text: Any, extractor: Any
) -> None:
    receipt = ingest_bytes(owner=owner, data=text.encode(), name="nul.json", extractor=extractor)
    assert receipt.outcome == "rejected_input", receipt.summary
    assert "nul.json" in receipt.error and "NUL" in receipt.error
    assert Node.objects.count() == 0
    no_nul_anywhere()


def test_a_memory_with_a_nul_character_gets_a_receipt(owner: User) -> None:
    receipt = ingest_memory(owner=owner, text="I started\u0000 boxing", source="api")
    assert receipt.outcome == "rejected_input"
    assert "NUL" in receipt.error
    no_nul_anywhere()


# --- exceptions nobody caught ------------------------------------------------------------------


def test_an_unexpected_error_gives_a_receipt_and_frees_the_transcript(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug() -> None:
        raise KeyError("simulated bug")

    inside_the_ingest(monkeypatch, bug)
    receipt = ingest_text(
        owner=owner, text=doc(node("Robert")), name="bug.json", extractor="proposals"
    )
    assert receipt.outcome == "db_write_failed"
    assert "bug.json" in receipt.error and "KeyError" in receipt.error
    assert Node.objects.count() == Candidate.objects.count() == 0
    transcript = Transcript.objects.get()
    assert transcript.status == "failed" and transcript.receipt_id == receipt.pk
    assert Receipt.objects.count() == 1


def test_an_extractor_crash_is_a_receipt_and_the_run_goes_on(
    owner: User, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(messages: Any, *, source_time: Any = None, **lookups: Any) -> Any:
        if any("crash" in m.content for m in messages):
            raise IndexError("simulated extractor bug")
        return []

    monkeypatch.setattr(ingest_module, "get_extractor", lambda name: broken)
    (tmp_path / "a.txt").write_text("User: crash please")
    (tmp_path / "b.txt").write_text("User: hello there")
    call_command(
        "ingest", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), user="owner", json=True
    )
    first, second = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert first["outcome"] == "llm_failed" and second["outcome"] == "meaningful_no_write"
    bad = Receipt.objects.get(pk=first["receipt_id"])
    assert "a.txt" in bad.error and "IndexError" in bad.error
    assert set(Transcript.objects.values_list("status", flat=True)) == {"failed", "done"}


def test_raw_nul_characters_in_text_are_rejected_input(owner: User) -> None:
    receipt = ingest_text(owner=owner, text="User: I started boxing\x00", name="nul.txt")
    assert receipt.outcome == "rejected_input" and "nul.txt" in receipt.error
    assert Transcript.objects.count() == 0
    no_nul_anywhere()


def test_a_candidate_deleted_between_snapshot_and_apply_plans_again(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidate = make_candidate(owner=owner, label="Robert", category_guess="person")
    real = ingest_module.gate_snapshot
    calls: list[int] = []

    def delete_after_snapshot(o: Any, proposals: Any, *, now: Any) -> Any:
        snapshot = real(o, proposals, now=now)
        calls.append(1)
        if len(calls) == 1:
            Candidate.objects.filter(pk=candidate.pk).delete()
        return snapshot

    monkeypatch.setattr(ingest_module, "gate_snapshot", delete_after_snapshot)
    receipt = ingest_text(
        owner=owner, text=doc(node("Robert")), name="a.json", extractor="proposals"
    )
    assert receipt.outcome == "wrote" and len(calls) == 2
    assert receipt.counts["candidates"] == 1
    assert Candidate.objects.get().status == "pending"


def test_pending_workers_take_over_a_transcript_left_in_processing(owner: User) -> None:
    transcript, _ = transcript_store(
        owner=owner, text=doc(node("Robert")), name="up.json", source="upload", source_time=None
    )
    # A worker claimed it, then died (killed, out of memory, deploy) before finishing.
    Transcript.objects.filter(pk=transcript.pk).update(
        status="processing", claimed_at=timezone.now() - timedelta(hours=1)
    )
    (receipt,) = ingest_pending(limit=5, extractor="proposals")
    assert receipt.outcome == "wrote"
    assert Transcript.objects.get().status == "done"
    # A fresh claim (a live worker) is left alone.
    Transcript.objects.filter(pk=transcript.pk).update(
        status="processing", claimed_at=timezone.now()
    )
    assert ingest_pending(limit=5, extractor="proposals") == []


# --- the snapshot: exact matches are never crowded out ------------------------------------------


@pytest.mark.parametrize("capture", ["review", "auto"])
def test_an_exact_match_is_found_among_many_nodes_sharing_a_word(owner: User, capture: Any) -> None:
    MemoryRule.objects.create(owner=owner, capture_default=capture)
    Node.objects.bulk_create(
        Node(owner=owner, label=f"Robert {i}", canonical_key=f"robert {i}", category="person")
        for i in range(520)
    )
    robert = make_node(owner=owner, label="Robert", category="person")
    before = robert.mention_count
    receipt = ingest_text(
        owner=owner, text=doc(node("Robert")), name="a.json", extractor="proposals"
    )
    assert receipt.outcome == "wrote"
    assert receipt.counts["nodes_updated"] == 1
    assert receipt.counts["nodes"] == receipt.counts["candidates"] == 0
    robert.refresh_from_db()
    assert robert.mention_count == before + 1
    assert Candidate.objects.count() == 0


# --- aliases: one per key, never a suppressed or unusable label --------------------------------


@pytest.mark.parametrize(
    "existing, objects",
    [
        (
            ("Robert", "Roberta"),
            [node("Robert", aliases=["Bobby"]), node("Roberta", aliases=["Bobby"])],
        ),
        ((), [node("Robert", aliases=["Bobby", "bobby"])]),
        ((), [node("Robert", aliases=["Bobby"]), node("Roberta", aliases=["Bobby"])]),
        ((), [node("Robert"), node("Robert", aliases=["Bobby", "BOBBY"])]),
        (("Roberta",), [node("Robert", aliases=["Bobby"]), node("Roberta", aliases=["Bobby"])]),
    ],
    ids=["two-existing", "twice-in-one", "two-new", "converged", "new-and-existing"],
)
def test_an_alias_key_is_claimed_once_per_batch(
    owner: User, auto: Any, existing: Any, objects: Any
) -> None:
    for label in existing:
        make_node(owner=owner, label=label, category="person")
    receipt = ingest_text(owner=owner, text=doc(*objects), name="a.json", extractor="proposals")
    assert receipt.outcome == "wrote", receipt.error
    assert Alias.objects.filter(canonical_key="bobby").count() == 1


@pytest.mark.parametrize(
    "existing, objects",
    [
        (("Robert",), [node("Robert", aliases=["Bobby"])]),
        ((), [node("Robert"), node("Robert", aliases=["Bobby"])]),
    ],
    ids=["existing-node", "planned-node"],
)
def test_a_suppressed_label_does_not_come_back_as_an_alias(
    owner: User, auto: Any, existing: Any, objects: Any
) -> None:
    for label in existing:
        make_node(owner=owner, label=label, category="person")
    suppression = make_suppression(owner=owner, label="Bobby", kind="node", reason="deleted")
    receipt = ingest_text(owner=owner, text=doc(*objects), name="a.json", extractor="proposals")
    assert receipt.outcome == "wrote"
    assert not Alias.objects.filter(canonical_key="bobby").exists()
    assert {"kind": "alias", "label": "Bobby", "reason": "suppressed_blocked"} in receipt.rejected
    suppression.refresh_from_db()
    assert suppression.hit_count == 1
    assert Node.objects.filter(canonical_key="robert").exists()


@pytest.mark.parametrize("alias", ["he", "æ" * 150])
def test_an_unusable_alias_is_dropped(owner: User, auto: Any, alias: Any) -> None:
    make_node(owner=owner, label="Robert", category="person")
    receipt = ingest_text(
        owner=owner,
        text=doc(node("Robert", aliases=[alias]), node("Roberta", aliases=[alias])),
        name="a.json",
        extractor="proposals",
    )
    assert receipt.outcome == "wrote"
    assert Alias.objects.count() == 0


@pytest.mark.parametrize("label", ["æ" * 150, "㎒" * 70])
def test_a_label_whose_key_is_too_long_to_store_is_a_bad_title(
    owner: User, auto: Any, label: Any
) -> None:
    assert label_rejection(label) == "bad_title"
    receipt = ingest_text(
        owner=owner,
        text=doc(node(label), {"object": "candidate", "label": label, "confidence": 0.9}),
        name="a.json",
        extractor="proposals",
    )
    assert receipt.outcome == "meaningful_no_write"
    assert receipt.reasons == {"bad_title": 2}


# --- provenance survives promotion -------------------------------------------------------------


def test_held_details_keep_their_transcript_when_promoted(owner: User) -> None:
    text = doc(
        {
            "object": "event",
            "on": "Boxing",
            "action": "started",
            "text": "started boxing",
            "category": "skill",
            "evidence": ev("I started boxing", "M3"),
        }
    )
    receipt = ingest_text(owner=owner, text=text, name="a.json", extractor="proposals")
    assert receipt.counts["held"] == 1
    transcript = Transcript.objects.get()
    node_ = candidate_promote(candidate=Candidate.objects.get(), by=owner)
    event = node_.events.get()
    (row,) = Evidence.objects.filter(event=event)
    assert (row.transcript_id, row.message_id, row.quote) == (
        transcript.pk,
        "M3",
        "I started boxing",
    )
    assert row.source == "command" and row.node_id == node_.pk


@pytest.fixture
def llm(llm_server: StubLLMServer, settings: Settings) -> Any:
    settings.UME_LLM_BASE_URL = llm_server.base_url
    settings.UME_LLM_MODEL = "stub-model"
    settings.UME_LLM_API_KEY = "sk-review-test"
    settings.UME_LLM_TIMEOUT = 2
    return llm_server


@pytest.mark.parametrize(
    "script",
    [
        lambda s: s.reply_status(200, DEEP, content_type="application/json"),
        lambda s: s.reply_content(DEEP),
        lambda s: s.reply_objects([node("Rob\u0000ert")]),
    ],
    ids=["deep-body", "deep-content", "nul-label"],
)
def test_a_hostile_llm_reply_is_llm_failed(owner: User, llm: Any, script: Any) -> None:
    script(llm)
    receipt = ingest_text(
        owner=owner, text="User: I know Robert from work.", name="chat.txt", extractor="llm"
    )
    assert receipt.outcome == "llm_failed", receipt.error
    assert Node.objects.count() == Candidate.objects.count() == 0
    no_nul_anywhere()


def test_gate_snapshot_query_count_does_not_grow_with_the_batch(owner: User) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.proposals import parse_proposals
    from memory.selectors import gate_snapshot

    for i in range(30):
        make_node(owner=owner, label=f"Person {i}", category="person", aliases=(f"P{i}",))
        make_candidate(owner=owner, label=f"Friend {i}")
    small = parse_proposals([node("Person 1")])
    big = parse_proposals(
        [node(f"Person {i}") for i in range(30)] + [node(f"Friend {i}") for i in range(30)]
    )
    now = timezone.now()
    with CaptureQueriesContext(connection) as one:
        gate_snapshot(owner, small, now=now)
    with CaptureQueriesContext(connection) as many:
        snapshot = gate_snapshot(owner, big, now=now)
    assert len(many.captured_queries) == len(one.captured_queries) <= 10
    assert len(snapshot.nodes) == 30 and len(snapshot.candidates) == 30


@pytest.mark.parametrize("label", ["x" * 201, "æ" * 150])
def test_a_suppression_of_a_label_too_long_to_store_is_refused(owner: User, label: Any) -> None:
    from memory.services.nodes import NodeEditError, suppression_add

    with pytest.raises(NodeEditError, match="at most 200"):
        suppression_add(owner=owner, label=label)


def test_a_flood_of_evidence_spans_is_rejected_input_not_a_minute_long_write(owner: User) -> None:
    spans = [{"message_id": "M0", "quote": f"q{i}"} for i in range(6000)]
    receipt = ingest_text(
        owner=owner,
        text=doc(node("Robert", evidence=spans)),
        name="flood.json",
        extractor="proposals",
    )
    assert receipt.outcome == "rejected_input"
    assert "flood.json" in receipt.error and "too many evidence spans" in receipt.error
    assert Evidence.objects.count() == 0


def test_promotion_writes_every_held_detail_however_many_piled_up(owner: User) -> None:
    from memory.proposals import EventProposal, dump_proposal

    held = [
        dump_proposal(
            EventProposal(on="Boxing", action="practiced", text=f"session {i}", evidence=())
        )
        for i in range(501)
    ]
    held.insert(3, {"object": "event", "on": "Boxing"})  # unreadable: no text
    candidate = make_candidate(owner=owner, label="Boxing", held_objects=held)
    node_ = candidate_promote(candidate=candidate, by=owner)
    assert node_.events.count() == 501


@pytest.mark.django_db
def test_a_sentence_pasted_a_thousand_times_is_one_guess_with_one_quote(owner: User) -> None:
    sentence = "I started learning the cello last week. "
    receipt = ingest_messages(
        owner=owner,
        messages=[{"role": "user", "content": sentence * 1000}],
        name="paste",
        source="api",
    )

    assert receipt.outcome == "wrote"
    candidate = Candidate.objects.for_owner(owner).get()
    assert len(candidate.held_objects) == 1
    assert Evidence.objects.for_owner(owner).count() == 1


@pytest.mark.django_db
def test_a_node_mentioned_once_has_one_piece_of_evidence_after_promotion(owner: User) -> None:
    ingest_messages(
        owner=owner,
        messages=[{"role": "user", "content": "I started learning the cello last week."}],
        name="once",
        source="api",
    )
    node = candidate_promote(candidate=Candidate.objects.for_owner(owner).get(), by=owner)

    own = Evidence.objects.filter(node=node, slice=None, event=None, edge=None)
    assert own.count() == 1
    assert Evidence.objects.filter(node=node, event__isnull=False).count() == 1
