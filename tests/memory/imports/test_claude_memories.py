"""Claude's ``memories.json``: statements split from Markdown, proposed as candidates with
their provenance, through the gate (suppressions, existing nodes, pending candidates), one
receipt per file, a duplicate the second time, and nothing written for bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from pytest_django import Settings

from memory.imports.claude_memories import read_memories, split_statements
from memory.imports.formats import CLAUDE_MEMORIES, ImportFormatError, detect_format
from memory.models import Candidate, ChatImport, Evidence, Node, Receipt, Transcript
from memory.services.imports import chat_import_store
from memory.services.ingest import ingest_pending
from memory.services.rules import memory_rule_update
from tests.factories import make_candidate, make_node, make_suppression
from tests.faults import inside_the_ingest

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
FIXTURE = EXPORTS / "claude_memories.json"
PROJECT = "5f1d2c3b-0a9e-4c7d-8b6a-1e2f3a4b5c6d"


def memories_import(owner: User, data: bytes, name: str = "memories.json"):  # type: ignore[no-untyped-def]
    return chat_import_store(
        owner=owner, stream=io.BytesIO(data), name=name, fmt=CLAUDE_MEMORIES, source="command"
    )


# --- pure: splitting and reading -----------------------------------------------------------


def test_markdown_is_split_into_statements_under_their_headings() -> None:
    text = (
        "**Work context**\n\nI work at Fernhill Labs. I use Django daily.\n\n"
        "## Family\n- Ana is my partner\n* 2. not a number\n1) Has a dog called *Miso*.\n\n  \n"
    )
    assert split_statements(text) == [
        ("Work context", "I work at Fernhill Labs."),
        ("Work context", "I use Django daily."),
        ("Family", "Ana is my partner"),
        ("Family", "2. not a number"),
        ("Family", "Has a dog called Miso."),
    ]


def test_both_sections_are_read_and_missing_keys_are_tolerated() -> None:
    export = read_memories(
        [
            {
                "conversations_memory": "I use Obsidian.",
                "project_memories": {PROJECT: "The project uses Supabase.", "p2": None},
            },
            {"account_uuid": "only an id"},
            {"project_memories": {}},
        ]
    )
    assert [(s.id, s.section, s.project, s.text) for s in export.statements] == [
        ("conversations_memory:1", "conversations_memory", "", "I use Obsidian."),
        (f"project:{PROJECT}:1", "project_memories", PROJECT, "The project uses Supabase."),
    ]
    assert export.counts() == {
        "statements": 2,
        "already_imported": 0,
        "accounts": 3,
        "sections": 5,
        "empty_sections": 3,
    }


@pytest.mark.parametrize(
    ("elements", "message"),
    [
        ([], "holds no memory entries"),
        (["text"], "memory entry 1 is not an object"),
        ([{"project_memories": ["a", "b"]}], "should map project ids to text"),
    ],
)
def test_a_wrong_shape_is_named(elements: list[object], message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        read_memories(elements)


def test_memories_are_detected_by_their_keys_whatever_the_file_is_called() -> None:
    data = FIXTURE.read_bytes()
    assert detect_format(io.BytesIO(data), name="x.json", max_element_bytes=10**6) == (
        CLAUDE_MEMORIES
    )
    lone = json.dumps(json.loads(data)[0], indent=2).encode()  # one account, several lines
    assert detect_format(io.BytesIO(lone), name="a.json", max_element_bytes=10**6) == (
        CLAUDE_MEMORIES
    )
    # the first entry over the element limit: its keys still say what the file is
    big = json.dumps([{"conversations_memory": "I use Django. " * 5000}]).encode()
    assert detect_format(io.BytesIO(big), name="m.json", max_element_bytes=1000) == (
        CLAUDE_MEMORIES
    )
    conversations = (EXPORTS / "claude_conversations.json").read_bytes()
    assert (
        detect_format(io.BytesIO(conversations), name="memories.json", max_element_bytes=10**6)
        == "claude"
    )


# --- through the gate ---------------------------------------------------------------------


@pytest.mark.django_db
def test_memories_become_candidates_with_their_provenance(owner: User) -> None:
    result = memories_import(owner, FIXTURE.read_bytes())
    assert result.ok, result.message
    assert not Node.objects.for_owner(owner).exists()  # nothing promoted by itself
    labels = set(Candidate.objects.for_owner(owner).values_list("label_guess", flat=True))
    assert {"Fernhill Labs", "Django", "PostgreSQL", "Obsidian", "Supabase"} <= labels
    assert set(Candidate.objects.for_owner(owner).values_list("reason", flat=True)) == {
        "claude_memory"
    }
    supabase = Candidate.objects.for_owner(owner).get(label_guess="Supabase")
    (evidence,) = Evidence.objects.for_owner(owner).filter(candidate=supabase)
    # the reviewer sees the file, the section and the whole statement
    assert evidence.transcript is not None
    assert evidence.transcript.name == "Claude's memories (memories.json)"
    assert evidence.message_id == f"project:{PROJECT}:2"
    assert evidence.quote == "I use Supabase for the database."
    # one receipt for the file, with the statements' counts
    (receipt,) = Receipt.objects.for_owner(owner)
    assert receipt.outcome == "wrote" and receipt.extractor == "proposals"
    assert receipt.counts["candidates"] == len(labels)
    memory = receipt.detail["memories"]
    assert memory["statements"] == 8 and memory["sections"] == 3
    assert memory["empty_sections"] == 1  # the second project's memory is empty
    assert memory["understood"] + memory["not_understood"] == 8
    assert {
        "id": "conversations_memory:4",
        "text": "Prefers short answers with the reasoning first.",
    } in memory["not_understood_examples"]
    row = ChatImport.objects.for_owner(owner).get()
    assert (row.format, row.state, row.stored) == (CLAUDE_MEMORIES, "read", 1)
    assert "statements from 3 memory texts" in result.message


@pytest.mark.django_db
def test_capture_on_auto_still_promotes_nothing(owner: User) -> None:
    memory_rule_update(owner=owner, changes={"capture_default": "auto"})
    memories_import(owner, FIXTURE.read_bytes())
    assert not Node.objects.for_owner(owner).exists()
    assert Candidate.objects.for_owner(owner).filter(label_guess="Django").exists()


@pytest.mark.django_db
def test_a_suppressed_label_does_not_come_back(owner: User) -> None:
    make_suppression(owner=owner, label="Obsidian")
    memories_import(owner, FIXTURE.read_bytes())
    assert not Candidate.objects.for_owner(owner).filter(label_guess="Obsidian").exists()
    assert not Node.objects.for_owner(owner).filter(label="Obsidian").exists()
    receipt = Receipt.objects.for_owner(owner).get()
    assert {"kind": "candidate", "label": "Obsidian", "reason": "suppressed_blocked"} in (
        receipt.rejected
    )


@pytest.mark.django_db
def test_an_existing_node_or_alias_is_mentioned_again_and_a_pending_candidate_bumped(
    owner: User,
) -> None:
    django = make_node(owner=owner, label="Django", category="tool")
    postgres = make_node(owner=owner, label="PostgreSQL database", aliases=("PostgreSQL",))
    waiting = make_candidate(owner=owner, label="Supabase")
    memories_import(owner, FIXTURE.read_bytes())
    django.refresh_from_db()
    assert django.mention_count == 2
    assert (
        Evidence.objects.for_owner(owner)
        .filter(node=django, quote="I use Django and PostgreSQL for side projects.")
        .exists()
    )
    assert Evidence.objects.for_owner(owner).filter(node=postgres).exists()
    assert (
        not Candidate.objects.for_owner(owner)
        .filter(label_guess__in=["Django", "PostgreSQL"])
        .exists()
    )
    assert Node.objects.for_owner(owner).count() == 2  # no twin
    waiting.refresh_from_db()
    assert waiting.mention_count == 2
    assert Candidate.objects.for_owner(owner).filter(label_guess="Supabase").count() == 1
    receipt = Receipt.objects.for_owner(owner).get()
    assert receipt.counts["nodes_updated"] == 2 and receipt.counts["candidate_bumps"] == 1


@pytest.mark.django_db
def test_the_same_file_again_is_a_duplicate(owner: User) -> None:
    memories_import(owner, FIXTURE.read_bytes())
    candidates = Candidate.objects.count()
    second = memories_import(owner, FIXTURE.read_bytes(), name="memories (1).json")
    assert second.receipt is not None and second.receipt.outcome == "duplicate"
    assert Candidate.objects.count() == candidates
    assert Transcript.objects.count() == 1 and ChatImport.objects.count() == 1
    assert Receipt.objects.for_owner(owner).count() == 2


@pytest.mark.django_db
def test_each_person_imports_their_own(owner: User, other_user: User) -> None:
    memories_import(owner, FIXTURE.read_bytes())
    make_suppression(owner=other_user, label="Django")
    result = memories_import(other_user, FIXTURE.read_bytes())
    assert result.receipt is not None and result.receipt.outcome == "wrote"  # not a duplicate
    assert Candidate.objects.for_owner(owner).filter(label_guess="Django").exists()
    # the other person's suppression binds their import only
    assert not Candidate.objects.for_owner(other_user).filter(label_guess="Django").exists()
    assert Receipt.objects.for_owner(owner).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", "the file is empty"),
        (b"\x00\x01\x02\xff\xfe" * 50, "not valid UTF-8"),
        (b'[{"conversations_memory": "I use Django.",', "malformed JSON"),
        (b'[{"conversations_memory": ""}]', "holds no memories"),
        (b'[{"conversations_memory": "I use Django."}, 7]', "memory entry 2 is not an object"),
        (
            json.dumps([{"conversations_memory": "I use Django. " * 200}]).encode(),
            "is over the limit of 1,000 bytes",  # the file is held to one transcript's size
        ),
    ],
)
def test_bad_input_is_one_rejected_receipt_and_nothing_else(
    owner: User, settings: Settings, data: bytes, error: str
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 1000 if len(data) > 1000 else 10**6
    result = memories_import(owner, data)
    assert not result.ok and error in result.message
    (receipt,) = Receipt.objects.for_owner(owner)
    assert receipt.outcome == "rejected_input" and error in receipt.error
    assert not ChatImport.objects.exists() and not Transcript.objects.exists()
    assert not Candidate.objects.exists() and not Evidence.objects.exists()


@pytest.mark.django_db
def test_ingest_command_imports_memories_and_workers_never_touch_them(
    owner: User, tmp_path: Path
) -> None:
    out = io.StringIO()
    call_command("ingest", str(FIXTURE), user="owner", json=True, stdout=out)
    (line,) = [json.loads(x) for x in out.getvalue().splitlines()]
    assert line["outcome"] == "wrote" and line["counts"]["candidates"] >= 5
    assert ingest_pending(limit=10) == []  # its transcript is done, not waiting
    out = io.StringIO()
    call_command("ingest", str(FIXTURE), user="owner", stdout=out)
    assert "duplicate" in out.getvalue() and "already imported" in out.getvalue()


@pytest.mark.django_db
def test_a_failed_import_is_retried_by_importing_the_file_again(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail() -> None:
        raise RuntimeError("the disk is full (simulated)")

    step = inside_the_ingest(monkeypatch, fail)
    first = memories_import(owner, FIXTURE.read_bytes())
    assert not first.ok and first.receipt is not None
    assert first.receipt.outcome == "db_write_failed"
    assert not Candidate.objects.exists()  # rolled back
    row = ChatImport.objects.for_owner(owner).get()
    assert row.state == "failed"
    # the workers leave it alone: they would not read it review-first
    assert Transcript.objects.for_owner(owner).get().inline
    assert ingest_pending(limit=10) == []
    monkeypatch.setattr("memory.services.ingest._complete", step._mock_wraps)
    again = memories_import(owner, FIXTURE.read_bytes())
    assert again.ok and again.receipt is not None and again.receipt.outcome == "wrote"
    assert Candidate.objects.for_owner(owner).filter(label_guess="Supabase").exists()
    row.refresh_from_db()
    assert row.state == "read" and Transcript.objects.count() == 1


@pytest.mark.django_db
def test_a_later_export_proposes_only_the_statements_that_are_new(owner: User) -> None:
    memories_import(owner, FIXTURE.read_bytes())
    candidates = Candidate.objects.count()
    entries = json.loads(FIXTURE.read_bytes())
    same = json.dumps(entries, indent=1).encode()  # other bytes, the same memories
    result = memories_import(owner, same, name="memories-copy.json")
    assert result.receipt is not None and result.receipt.outcome == "duplicate"
    assert "all 8 statements were imported before" in result.message
    assert Candidate.objects.count() == candidates
    django = Candidate.objects.for_owner(owner).get(label_guess="Django")
    assert django.mention_count == 1  # not mentioned again by the same statement
    entries[0]["conversations_memory"] += "\n- I use Figma for wireframes."
    later = memories_import(owner, json.dumps(entries).encode(), name="memories-later.json")
    assert later.receipt is not None and later.receipt.outcome == "wrote"
    assert later.receipt.detail["memories"]["statements"] == 1
    assert later.receipt.detail["memories"]["already_imported"] == 8
    assert Candidate.objects.count() == candidates + 1
    assert Candidate.objects.for_owner(owner).filter(label_guess="Figma").exists()
    django.refresh_from_db()
    assert django.mention_count == 1


@pytest.mark.django_db
def test_an_extractor_that_fails_writes_nothing_and_the_file_can_be_imported_again(
    owner: User, settings: Settings
) -> None:
    settings.UME_LLM_BASE_URL = ""
    settings.UME_LLM_MODEL = ""
    failed = chat_import_store(
        owner=owner,
        stream=io.BytesIO(FIXTURE.read_bytes()),
        name="memories.json",
        fmt=CLAUDE_MEMORIES,
        source="command",
        extractor="llm",
    )
    assert not failed.ok and failed.receipt is not None
    assert failed.receipt.outcome == "llm_failed" and "not configured" in failed.receipt.error
    assert not Transcript.objects.exists() and not Candidate.objects.exists()
    assert ChatImport.objects.for_owner(owner).get().state == "failed"
    again = memories_import(owner, FIXTURE.read_bytes())  # the rules extractor this time
    assert again.ok and Candidate.objects.for_owner(owner).filter(label_guess="Django").exists()
